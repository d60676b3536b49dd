"""Subschemas described in words, for the messages that must name one (``not``, ``contains``, anyOf / oneOf).

A model reads these, so a subschema is never shown as a Python dict: it becomes predicates (``be >= 5``,
``have property 'id'``, ``match pattern '^a'``) that read after ``must`` (``must not have property 'a'``),
after ``item that`` (``is object and has property 'id'``), or as a noun for a branch list (``Cat``,
``object that has 'kind' = 'cat'``). Values use JSON's words (``null``, ``true``) with strings quoted as in the
enum lists (``'on'``).
"""

from __future__ import annotations

import math
from typing import Any

__all__ = [
    "any_of_phrase",
    "contains_phrase",
    "describe_schema",
    "json_text",
    "negation_phrase",
    "one_of_phrase",
]

Part = tuple[str, str]  # (verb in the infinitive, the rest): ("be", ">= 5")

_CONJUGATIONS = {
    "be": ("is", "are"),
    "have": ("has", "have"),
    "match": ("matches", "match"),
    "not contain": ("does not contain", "do not contain"),
}
_BOUNDS = (
    ("minimum", ">= {}"),
    ("maximum", "<= {}"),
    ("exclusiveMinimum", "> {}"),
    ("exclusiveMaximum", "< {}"),
    ("multipleOf", "a multiple of {}"),
)


def json_text(value: Any) -> str:
    """A value as a message shows it: JSON's ``null`` / ``true`` / ``false``, strings quoted like enum lists."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(json_text(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json_text(str(key))}: {json_text(item)}" for key, item in value.items()) + "}"
    return repr(value)


def _names(names: list[str]) -> str:
    quoted = [repr(name) for name in names]
    if len(quoted) == 1:
        return "property " + quoted[0]
    return "properties " + ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _types(schema: dict[str, Any]) -> list[str] | None:
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list) and kind and all(isinstance(name, str) for name in kind):
        return list(kind)
    return None


def _or(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _discriminators(schema: dict[str, Any]) -> list[Part]:
    """``have 'kind' = 'cat'`` for each property pinned by a const (what tells union branches apart)."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return []
    parts: list[Part] = []
    for name, child in properties.items():
        if isinstance(child, dict) and "const" in child:
            parts.append(("have", f"{name!r} = {json_text(child['const'])}"))
    return parts


def parts_of(schema: Any) -> list[Part]:
    """The predicates a value must meet to pass ``schema``, as far as words can say (type first)."""
    if schema is True:
        return [("be", "anything")]
    if schema is False or not isinstance(schema, dict):
        return [("be", "nothing")]
    parts: list[Part] = []
    types = _types(schema)
    if types:
        parts.append(("be", _or(types)))
    if "const" in schema:
        parts.append(("be", json_text(schema["const"])))
    if isinstance(schema.get("enum"), list):
        parts.append(("be", "one of " + repr(schema["enum"])))
    for keyword, words in _BOUNDS:
        if isinstance(schema.get(keyword), (int, float)):
            parts.append(("be", words.format(schema[keyword])))
    for keyword, words in (("minLength", "at least"), ("maxLength", "at most")):
        if isinstance(schema.get(keyword), int):
            size = schema[keyword]
            parts.append(("be", f"{words} {size} character{'' if size == 1 else 's'}"))
    if isinstance(schema.get("pattern"), str):
        parts.append(("match", f"pattern {schema['pattern']!r}"))
    if isinstance(schema.get("format"), str):
        parts.append(("match", f"format {schema['format']!r}"))
    pinned = _discriminators(schema)
    parts.extend(pinned)
    required = schema.get("required")
    if not pinned and isinstance(required, list) and required and all(isinstance(n, str) for n in required):
        parts.append(("have", _names(list(dict.fromkeys(required)))))
    for keyword, noun, words in (
        ("minItems", "item", "at least"),
        ("maxItems", "item", "at most"),
        ("minProperties", "propert", "at least"),
        ("maxProperties", "propert", "at most"),
    ):
        if isinstance(schema.get(keyword), int):
            size = schema[keyword]
            ending = ("y" if size == 1 else "ies") if noun == "propert" else ("" if size == 1 else "s")
            parts.append(("have", f"{words} {size} {noun}{ending}"))
    if schema.get("uniqueItems") is True:
        parts.append(("not contain", "duplicate items"))
    reference = schema.get("$ref")
    if isinstance(reference, str):
        parts.append(("match", _reference_name(reference)))
    if not parts:
        shown = sorted(key for key in schema if key not in _ANNOTATIONS)
        if not shown:
            return [("be", "anything")]
        parts.append(("match", "the schema's " + ", ".join(repr(key) for key in shown[:4])))
    return parts


def _reference_name(reference: str) -> str:
    return reference.rsplit("/", 1)[-1] or reference


def _infinitive(parts: list[Part]) -> str:
    return " and ".join(f"{verb} {rest}" for verb, rest in parts)


def _conjugated(parts: list[Part], plural: bool) -> str:
    return " and ".join(f"{_CONJUGATIONS[verb][plural]} {rest}" for verb, rest in parts)


def describe_schema(schema: Any) -> str:
    """A noun for a subschema: its title, its $ref name, its value, or its type with what else it needs."""
    if isinstance(schema, dict):
        if isinstance(schema.get("title"), str):
            return str(schema["title"])
        keys = set(schema) - _ANNOTATIONS
        if keys == {"$ref"} and isinstance(schema["$ref"], str):
            return _reference_name(schema["$ref"])
        if keys == {"const"}:
            return json_text(schema["const"])
        if keys == {"enum"} and isinstance(schema["enum"], list):
            return "one of " + repr(schema["enum"])
    parts = parts_of(schema)
    head, rest = parts[0], parts[1:]
    if head[0] == "be" and isinstance(schema, dict) and _types(schema):
        return head[1] + (" that " + _conjugated(rest, plural=False) if rest else "")
    if len(parts) == 1 and head[0] == "be":
        return head[1]
    return "value that " + _conjugated(parts, plural=False)


def _unique(words: list[str]) -> list[str]:
    return list(dict.fromkeys(words))


def negation_phrase(schema: Any) -> str:
    """``must not be string``, ``must not have property 'a'``, ``must not be >= 5 and be <= 9``."""
    return "must not " + _infinitive(parts_of(schema))


def contains_phrase(schema: Any, count: int, bound: str) -> str:
    """``must contain at least 1 item that is object and has property 'id'``."""
    plural = count != 1
    items = "items that" if plural else "item that"
    return f"must contain {bound} {count} {items} {_conjugated(parts_of(schema), plural)}"


def any_of_phrase(branches: list[Any]) -> str:
    """``must be >= 5 or <= 1`` when each branch says one thing, else ``must match at least one of: A, B``."""
    named = any(isinstance(b, dict) and (isinstance(b.get("title"), str) or "$ref" in b) for b in branches)
    every = [parts_of(branch) for branch in branches]
    if not named and all(len(parts) == 1 for parts in every):
        words: list[str] = []
        previous = ""
        for verb, rest in _unique_parts([parts[0] for parts in every]):
            words.append(rest if verb == previous else f"{verb} {rest}")
            previous = verb
        return "must " + _or(words)
    return "must match at least one of: " + ", ".join(_unique([describe_schema(b) for b in branches]))


def _unique_parts(parts: list[Part]) -> list[Part]:
    return list(dict.fromkeys(parts))


def one_of_phrase(branches: list[Any]) -> str:
    return "must match exactly one of: " + ", ".join(_unique([describe_schema(b) for b in branches]))


_ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly", "$id",
     "$anchor", "$schema", "$defs", "discriminator"}
)  # fmt: skip
