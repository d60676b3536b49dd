"""The real-world corpus (``provider_corpus/``): its tools, valid arguments made for them, and rule checkers
written from each provider's documentation of the schemas it takes.

The checkers are this test suite's own reading of the documents (cited beside each rule), not mcptools' export
code: an export that breaks a documented rule fails here whatever the exporter believed.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).parent / "provider_corpus" / "tools"


def corpus() -> list[tuple[str, dict[str, Any]]]:
    """(server, tool) for every tool of every server in the corpus, in a fixed order."""
    return [(path.stem, tool) for path in sorted(CORPUS.glob("*.json")) for tool in json.loads(path.read_text("utf-8"))]


# -- valid arguments ----------------------------------------------------------------------------------------

_FORMATS = {
    "date-time": "2024-01-02T03:04:05Z",
    "date": "2024-01-02",
    "time": "03:04:05Z",
    "duration": "P1D",
    "email": "ann@example.com",
    "hostname": "example.com",
    "ipv4": "10.0.0.1",
    "ipv6": "::1",
    "uri": "https://example.com/a",
    "url": "https://example.com/a",
    "uuid": "123e4567-e89b-12d3-a456-426614174000",
}
_TEXTS = ["a", "text", "x-1", "héllo wörld", "", "owner/repo", "42", "https://example.com/a"]


class Maker:
    """Random values for a schema, drawn to be valid (the caller keeps only those its validator accepts)."""

    def __init__(self, root: dict[str, Any], seed: int) -> None:
        self.root = root
        self.random = random.Random(seed)

    def resolve(self, node: Any) -> Any:
        for _ in range(20):
            if not (isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#")):
                return node
            target: Any = self.root
            for raw in node["$ref"][1:].split("/")[1:]:
                part = raw.replace("~1", "/").replace("~0", "~")
                target = target.get(part, {}) if isinstance(target, dict) else {}
            node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return node

    def value(self, node: Any, depth: int = 0) -> Any:
        node = self.resolve(node)
        pick = self.random.choice
        if not isinstance(node, dict) or depth > 8:
            return pick([None, "a", 1])
        if "const" in node:
            return node["const"]
        if isinstance(node.get("enum"), list) and node["enum"]:
            return pick(node["enum"])
        for key in ("anyOf", "oneOf"):
            if isinstance(node.get(key), list) and node[key]:
                return self.value({**{k: v for k, v in node.items() if k != key}, **pick(node[key])}, depth + 1)
        if isinstance(node.get("allOf"), list):
            merged = {k: v for k, v in node.items() if k != "allOf"}
            for raw in node["allOf"]:
                branch = self.resolve(raw)
                if isinstance(branch, dict):
                    merged["properties"] = {**merged.get("properties", {}), **branch.get("properties", {})}
                    merged["required"] = [*merged.get("required", []), *branch.get("required", [])]
                    merged.update({k: v for k, v in branch.items() if k not in ("properties", "required")})
            return self.value(merged, depth + 1)
        kinds = node.get("type")
        kind = pick(kinds) if isinstance(kinds, list) and kinds else kinds
        if kind is None:
            kind = "object" if "properties" in node else pick(["string", "integer", "boolean"])
        return getattr(self, f"make_{kind}", self.make_null)(node, depth)

    def make_null(self, node: dict[str, Any], depth: int) -> Any:
        return None

    def make_boolean(self, node: dict[str, Any], depth: int) -> Any:
        return self.random.random() < 0.5

    def make_integer(self, node: dict[str, Any], depth: int) -> Any:
        low = node.get("minimum", node.get("exclusiveMinimum", -4) + (1 if "exclusiveMinimum" in node else 0))
        high = node.get("maximum", node.get("exclusiveMaximum", low + 40) - (1 if "exclusiveMaximum" in node else 0))
        value = self.random.randint(int(low), max(int(low), int(high)))
        step = node.get("multipleOf")
        return value - value % step if isinstance(step, int) and step > 0 else value

    def make_number(self, node: dict[str, Any], depth: int) -> Any:
        value = self.make_integer(node, depth)
        return value + 0.5 if self.random.random() < 0.5 and "multipleOf" not in node else value

    def make_string(self, node: dict[str, Any], depth: int) -> Any:
        text = _FORMATS.get(node.get("format", ""), self.random.choice(_TEXTS))
        low, high = node.get("minLength", 0), node.get("maxLength", 10_000)
        text = (text + "x" * low)[: max(low, len(text))][:high]
        pattern = node.get("pattern")
        if isinstance(pattern, str):
            for candidate in (text, "abc", "a1", "A", "1", "abc-123", "owner/repo", "a_b", "v1.0.0", "ABC"):
                try:
                    if re.search(pattern, candidate):
                        return candidate
                except re.error:
                    break
        return text

    def make_array(self, node: dict[str, Any], depth: int) -> Any:
        low = node.get("minItems", 0)
        high = min(node.get("maxItems", low + 2), low + 2)
        items = node.get("items", node.get("prefixItems", {"type": "string"}))
        if isinstance(items, list):
            return [self.value(item, depth + 1) for item in items]
        return [self.value(items, depth + 1) for _ in range(self.random.randint(low, max(low, high)))]

    def make_object(self, node: dict[str, Any], depth: int) -> Any:
        found = node.get("properties")
        properties: dict[str, Any] = found if isinstance(found, dict) else {}
        required = set(node.get("required", []))
        share = self.random.choice([0.0, 0.5, 1.0])
        out = {
            key: self.value(sub, depth + 1)
            for key, sub in properties.items()
            if key in required or self.random.random() < share
        }
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and self.random.random() < 0.5:
            out["extra_key"] = self.value(extra, depth + 1)
        return out


# -- the providers' documented rules ------------------------------------------------------------------------


def nodes(schema: Any, where: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every subschema with its place."""
    if not isinstance(schema, dict):
        return
    yield where, schema
    for key, sub in (schema.get("properties") or {}).items():
        yield from nodes(sub, f"{where}/properties/{key}")
    if isinstance(schema.get("items"), dict):
        yield from nodes(schema["items"], f"{where}/items")
    for index, sub in enumerate(schema.get("anyOf") or []):
        yield from nodes(sub, f"{where}/anyOf/{index}")
    for key, sub in (schema.get("$defs") or {}).items():
        yield from nodes(sub, f"/$defs/{key}")


def depth(schema: Any) -> int:
    if not isinstance(schema, dict):
        return 0
    children = [*(schema.get("properties") or {}).values(), schema.get("items"), *(schema.get("anyOf") or [])]
    inner = max((depth(child) for child in children), default=0)
    return inner + (1 if "properties" in schema else 0)


# OpenAI, "Structured Outputs > Supported schemas": the types and keywords listed; "Objects have limitations on
# nesting depth and size" (5000 properties, 10 levels); "additionalProperties: false must always be set in
# objects"; "all fields must be required"; "root objects must not be anyOf"; "string formats" listed; definitions
# with $defs and recursion through "#" refs.
OPENAI_KEYWORDS = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "$ref",
        "$defs", "description", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
        "multipleOf", "minItems", "maxItems",
    }
)  # fmt: skip
OPENAI_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"})
JSON_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})


def openai_strict_problems(schema: dict[str, Any]) -> list[str]:
    problems = []
    if schema.get("type") != "object" or "anyOf" in schema:
        problems.append("root is not an object")
    properties = sum(len(node.get("properties") or {}) for _, node in nodes(schema))
    if properties > 5000 or depth(schema) > 10:
        problems.append(f"{properties} properties, {depth(schema)} levels")
    enums = sum(len(node["enum"]) for _, node in nodes(schema) if isinstance(node.get("enum"), list))
    if enums > 1000:
        problems.append(f"{enums} enum values")
    for where, node in nodes(schema):
        problems += [f"{where}: keyword {key}" for key in set(node) - OPENAI_KEYWORDS]
        if where and "$defs" in node:
            problems.append(f"{where}: $defs below the root")
        if "$ref" in node:
            if set(node) != {"$ref"} or not node["$ref"].startswith("#/$defs/"):
                problems.append(f"{where}: $ref with siblings or outside $defs")
            continue
        kinds = node.get("type")
        names = kinds if isinstance(kinds, list) else [kinds] if kinds is not None else []
        if not names and "anyOf" not in node:
            problems.append(f"{where}: no type")
        problems += [f"{where}: type {name}" for name in names if name not in JSON_TYPES]
        if "format" in node and node["format"] not in OPENAI_FORMATS:
            problems.append(f"{where}: format {node['format']}")
        if "object" in names:
            if node.get("additionalProperties") is not False:
                problems.append(f"{where}: object without additionalProperties false")
            if sorted(node.get("required", [])) != sorted(node.get("properties", {})):
                problems.append(f"{where}: not every property required")
        if "array" in names and "items" not in node:
            problems.append(f"{where}: array without items")
    return problems


# Anthropic, "Structured outputs > JSON Schema limitations": supported: basic types, enum (strings, numbers,
# bools, nulls), const, anyOf, allOf (limited), $ref/$defs (no external, no recursion), default, required,
# additionalProperties (must be false), string formats listed, minItems 0 or 1, pattern without backreferences,
# lookaround or word boundaries. Not supported: minimum, maximum, multipleOf, minLength, maxLength, maxItems.
ANTHROPIC_KEYWORDS = frozenset(
    {"type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "allOf",
     "$ref", "$defs", "default", "description", "title", "format", "minItems", "pattern"}
)  # fmt: skip
ANTHROPIC_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}
)


def anthropic_strict_problems(schema: dict[str, Any]) -> list[str]:
    problems = []
    for where, node in nodes(schema):
        problems += [f"{where}: keyword {key}" for key in set(node) - ANTHROPIC_KEYWORDS]
        kinds = node.get("type")
        names = kinds if isinstance(kinds, list) else [kinds] if kinds is not None else []
        if not names and "anyOf" not in node and "$ref" not in node:
            problems.append(f"{where}: no type")
        if "object" in names and node.get("additionalProperties") is not False:
            problems.append(f"{where}: object without additionalProperties false")
        if node.get("minItems", 0) not in (0, 1):
            problems.append(f"{where}: minItems {node['minItems']}")
        if "format" in node and node["format"] not in ANTHROPIC_FORMATS:
            problems.append(f"{where}: format {node['format']}")
        if re.search(r"\\[1-9bB]|\\k<|\(\?[=!<]", str(node.get("pattern", ""))):
            problems.append(f"{where}: pattern feature")
        if any(isinstance(value, (dict, list)) for value in node.get("enum") or []):
            problems.append(f"{where}: enum of complex values")
    return problems


# Gemini: google.genai.types.Schema's fields and Type enum; "additionalProperties is only supported in ... not in
# Gemini Developer API mode" (google-genai _transformers); "properties: should be non-empty for OBJECT type" (the
# API's answer; a function with no parameters leaves them unset); enum "Possible values" are strings; parameter
# names "must start with a letter or an underscore and must only contain chars a-z, A-Z, 0-9, or underscores
# with a maximum length of 64" (FunctionDeclaration reference).
GEMINI_KEYWORDS = frozenset(
    {"type", "properties", "required", "items", "enum", "anyOf", "description", "format", "nullable", "minimum",
     "maximum", "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "pattern",
     "default", "title", "example", "propertyOrdering"}
)  # fmt: skip
GEMINI_TYPES = frozenset({"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"})
GEMINI_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


def gemini_problems(schema: dict[str, Any]) -> list[str]:
    problems = []
    for where, node in nodes(schema):
        problems += [f"{where}: keyword {key}" for key in set(node) - GEMINI_KEYWORDS]
        kind = node.get("type")
        if kind is None and "anyOf" not in node:
            problems.append(f"{where}: no type")
        if kind is not None and (not isinstance(kind, str) or kind not in GEMINI_TYPES):
            problems.append(f"{where}: type {kind!r}")
        if kind == "OBJECT" and not node.get("properties"):
            problems.append(f"{where}: OBJECT without properties")
        if kind == "ARRAY" and "items" not in node:
            problems.append(f"{where}: ARRAY without items")
        if not all(isinstance(value, str) for value in node.get("enum") or []):
            problems.append(f"{where}: enum of non-strings")
        problems += [f"{where}: name {key!r}" for key in node.get("properties") or {} if not GEMINI_NAME.fullmatch(key)]
    return problems


RULES = {"openai": openai_strict_problems, "anthropic-strict": anthropic_strict_problems, "gemini": gemini_problems}

__all__ = ["CORPUS", "RULES", "Maker", "corpus", "nodes"]
