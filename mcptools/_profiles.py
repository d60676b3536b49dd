"""Schema profiles: one tool's input schema reshaped for a model API that accepts only part of JSON Schema.

A profile is a transform with a way back. The exported schema is what the provider sees; a value the model
produces under it is mapped back (``from_provider``) onto a value for the original schema, which is the one the
call is validated against. Keywords a provider refuses are moved into the description, so the model still reads
them and the original schema still enforces them; what cannot be expressed at all (an open map under OpenAI
strict, a recursive ``$ref`` where refs must be inlined) is a ``ToolDefinitionError`` naming the tool and the
keyword, raised at export, never at call time.

- ``openai``: OpenAI strict function calling. Every object is closed and lists every property in ``required``;
  an optional property whose schema refuses null becomes nullable, and null sent for it maps back to absent
  (so the function's default applies). ``$defs`` are kept (recursion is allowed); other refs are inlined.
- ``gemini``: the OpenAPI-flavoured subset of Gemini's ``FunctionDeclaration.parameters``: upper-case types,
  ``nullable`` instead of a null type, string-only ``enum``, every ref inlined; property names outside Gemini's
  rule are renamed (``x-request-id`` is ``x_request_id``) and the values' keys renamed back.
- ``anthropic``: the schema as is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, final

from ._errors import ToolDefinitionError
from ._json import is_json_type

__all__ = ["PROFILES", "Exported", "ProfileName", "export_schema"]

ProfileName = Literal["openai", "gemini", "anthropic"]
PROFILES: Final = ("openai", "gemini", "anthropic")

# OpenAI structured outputs: keywords kept in strict mode (per the function-calling guide); the rest are read
# by the model from the description and enforced by the original schema.
_OPENAI_KEEP: Final = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "$ref",
        "description", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
        "multipleOf", "minItems", "maxItems",
    }
)  # fmt: skip
_OPENAI_FORMATS: Final = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
_OPENAI_MAX_DEPTH: Final = 10
_OPENAI_MAX_PROPERTIES: Final = 5000
# Strict mode's size limits (the structured-outputs guide): enum values in the whole schema; the characters of
# every property name, definition name, enum value and const value; the characters of one large enum.
_OPENAI_MAX_ENUM_VALUES: Final = 1000
_OPENAI_MAX_TEXT: Final = 120_000
_OPENAI_LARGE_ENUM: Final = 250
_OPENAI_MAX_LARGE_ENUM_TEXT: Final = 15_000
# Gemini's Schema model (google.genai.types.Schema) forbids any other field.
_GEMINI_KEEP: Final = frozenset(
    {
        "type", "properties", "required", "items", "enum", "anyOf", "description", "format", "nullable",
        "minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "minProperties",
        "maxProperties", "pattern", "title", "default", "additionalProperties",
    }
)  # fmt: skip
_GEMINI_FORMATS: Final = frozenset({"date-time", "enum", "int32", "int64", "float", "double"})
# Annotations with no meaning for validation: dropped rather than noted.
_SILENT: Final = frozenset({"$schema", "$id", "$comment", "title", "examples", "deprecated", "readOnly", "writeOnly"})
_DEFS: Final = ("$defs", "definitions")


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


@final
class Exported:
    """One tool's schema under one profile, and the maps between the two value spaces."""

    __slots__ = ("_absent", "_renamed", "original", "profile", "schema")

    def __init__(
        self,
        profile: str,
        original: dict[str, Any],
        schema: dict[str, Any],
        absent: dict[int, tuple[frozenset[str], frozenset[str]]],
        renamed: dict[int, dict[str, str]] | None = None,
    ) -> None:
        self.profile = profile
        self.original = original
        self.schema = schema
        # id(exported object node) -> (the properties whose null means "absent" there, all its optional
        # properties): openai only, where every property must be sent.
        self._absent = absent
        # id(exported object node) -> {provider's property name: original name} (gemini only).
        self._renamed = renamed or {}

    def json_schema(self) -> dict[str, Any]:
        """The exported schema written as JSON Schema, for MCP clients that forward it to the provider's model.

        Only the Gemini profile differs: its OpenAPI spelling (``"STRING"``, ``nullable``) becomes JSON Schema's.
        """
        return _as_json_schema(self.schema) if self.profile == "gemini" else self.schema

    def from_provider(self, value: Any) -> Any:
        """The value for the original schema: nulls that stand for absent properties are dropped."""
        if not self._absent and not self._renamed:
            return value
        return self._walk(value, self.schema, drop=True, depth=0)

    def to_provider(self, value: Any) -> Any:
        """The provider-shaped form of a value of the original schema (absent optional properties sent as null)."""
        if not self._absent and not self._renamed:
            return value
        return self._walk(value, self.schema, drop=False, depth=0)

    def _resolve(self, node: Any) -> Any:
        while isinstance(node, dict) and "$ref" in node:
            ref = node["$ref"]
            node = self.schema.get("$defs", {}).get(ref.rsplit("/", 1)[-1]) if ref.startswith("#/$defs/") else None
        return node

    def _walk(self, value: Any, node: Any, *, drop: bool, depth: int) -> Any:
        node = self._resolve(node)
        if not isinstance(node, dict) or depth > 200:
            return value
        branches = node.get("anyOf")
        if isinstance(branches, list):
            branch = _pick(branches, value, self._resolve, self._renamed, drop)
            return value if branch is None else self._walk(value, branch, drop=drop, depth=depth + 1)
        if isinstance(value, dict):
            properties = node.get("properties")
            if not isinstance(properties, dict):
                return value
            absent, optional = self._absent.get(id(node), (frozenset(), frozenset()))
            renamed = self._renamed.get(id(node), {})
            if renamed and not drop:
                renamed = {original: provider for provider, original in renamed.items()}
            out: dict[str, Any] = {}
            for key, item in value.items():
                if drop and item is None and key in absent:
                    continue
                name = renamed.get(key) or key
                schema_key = key if drop else name  # the exported properties carry the provider's names
                sub = properties.get(schema_key)
                out[name] = self._walk(item, sub, drop=drop, depth=depth + 1) if sub is not None else item
            if not drop:
                for key in optional:
                    out.setdefault(key, None)
            return out
        if isinstance(value, list) and isinstance(node.get("items"), dict):
            return [self._walk(item, node["items"], drop=drop, depth=depth + 1) for item in value]
        return value


def _type_fits(node: Mapping[str, Any], value: Any) -> bool:
    declared = node.get("type")
    names = declared if isinstance(declared, list) else [declared] if isinstance(declared, str) else []
    # The validator's predicates (1.5 is no integer), so a value goes down the branch that accepts it.
    return not names or any(is_json_type(value, name) for name in names)


def _pick(branches: list[Any], value: Any, resolve: Any, renamed: Mapping[int, Mapping[str, str]], drop: bool) -> Any:
    """The branch of an ``anyOf`` a value belongs to, told by type, property names and const discriminators.

    Going back (``drop``) the value has the provider's property names, as the branch does; going out it has
    the original names, so the branch's are read through its renames.
    """
    for raw in branches:
        branch = resolve(raw)
        if not isinstance(branch, dict) or not _type_fits(branch, value):
            continue
        if isinstance(value, dict) and isinstance(branch.get("properties"), dict):
            properties = branch["properties"]
            names = {} if drop else renamed.get(id(branch), {})
            properties = {names.get(key, key): sub for key, sub in properties.items()}
            if not set(value) <= set(properties):
                continue
            if any(
                isinstance(properties[k], dict) and "enum" in properties[k] and value[k] not in properties[k]["enum"]
                for k in value
            ):
                continue
        return raw
    return None


@final
@dataclass(slots=True, eq=False)
class _Exporter:
    profile: str
    tool: str
    root: dict[str, Any]
    absent: dict[int, tuple[frozenset[str], frozenset[str]]] = field(default_factory=dict)
    renamed: dict[int, dict[str, str]] = field(default_factory=dict)
    defs: dict[str, Any] = field(default_factory=dict)
    inlining: list[str] = field(default_factory=list)
    properties: int = 0
    depth: int = 0
    enum_values: int = 0
    text: int = 0

    def fail(self, keyword: str, where: str, why: str, fix: str) -> ToolDefinitionError:
        place = f" at {where}" if where else ""
        return ToolDefinitionError(
            f"tool {self.tool!r}: keyword {keyword!r}{place} cannot be exported to the {self.profile} profile: "
            f"{why}; {fix}"
        )

    def lookup(self, ref: Any, where: str) -> Any:
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise self.fail("$ref", where, f"only local refs can be exported, got {ref!r}", "inline the schema")
        node: Any = self.root
        for raw in ref[1:].split("/")[1:]:
            part = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise self.fail("$ref", where, f"{ref!r} points nowhere", "fix the reference")
        return node

    # -- the walk ------------------------------------------------------------------------------------------

    def node(self, schema: Any, where: str, level: int) -> dict[str, Any]:
        if schema is True or schema == {}:
            if self.profile == "openai":
                raise self.fail("{}", where, "OpenAI strict needs a type for every value", "give the value a type")
            return {}
        if schema is False:
            raise self.fail("false", where, "a schema that accepts nothing has no provider form", "remove it")
        if not isinstance(schema, dict):
            raise self.fail("schema", where, f"expected an object, got {type(schema).__name__}", "fix the schema")
        self.depth = max(self.depth, level)
        if self.profile == "openai" and level > _OPENAI_MAX_DEPTH:
            raise self.fail(
                "properties", where, f"OpenAI strict allows {_OPENAI_MAX_DEPTH} levels of nesting", "flatten it"
            )
        schema = dict(schema)
        if "$ref" in schema:
            return self.ref(schema, where, level)
        if "allOf" in schema:
            schema = self.merge_all(schema, where)
        if "oneOf" in schema:
            if "anyOf" in schema:
                raise self.fail("oneOf", where, "oneOf next to anyOf has no single equivalent", "use one of them")
            schema["anyOf"] = schema.pop("oneOf")
        return self.gemini(schema, where, level) if self.profile == "gemini" else self.openai(schema, where, level)

    def ref(self, schema: dict[str, Any], where: str, level: int) -> dict[str, Any]:
        ref = schema.pop("$ref")
        if self.profile == "openai" and isinstance(ref, str):
            for defs in _DEFS:
                prefix = f"#/{defs}/"
                if ref.startswith(prefix) and "/" not in ref[len(prefix) :]:
                    name = ref[len(prefix) :].replace("~1", "/").replace("~0", "~")
                    if name not in self.defs:
                        self.count_text([name], "$defs", where)
                        self.defs[name] = None  # placed first, so a recursive ref finds it
                        self.defs[name] = self.node(self.lookup(ref, where), f"{ref}", 1)
                    # Strict mode refuses keywords beside a $ref (openai-python unravels such refs); the
                    # definition keeps its own description.
                    return {"$ref": f"#/$defs/{name}"}
        if ref in self.inlining:
            raise self.fail(
                "$ref", where, f"{ref!r} is recursive and the {self.profile} profile inlines refs", "remove the cycle"
            )
        target = self.lookup(ref, where)
        if not isinstance(target, dict):
            return self.node(target, where, level)
        self.inlining.append(ref)
        try:
            merged = {**target, **{k: v for k, v in schema.items() if k not in _DEFS}}
            return self.node(merged, where, level)
        finally:
            self.inlining.pop()

    def merge_all(self, schema: dict[str, Any], where: str) -> dict[str, Any]:
        branches = schema.pop("allOf")
        if not isinstance(branches, list):
            raise self.fail("allOf", where, "allOf must be an array", "fix the schema")
        merged = dict(schema)
        for index, raw in enumerate(branches):
            branch = raw
            while isinstance(branch, dict) and "$ref" in branch:
                branch = {**self.lookup(branch["$ref"], where), **{k: v for k, v in branch.items() if k != "$ref"}}
            if not isinstance(branch, dict) or "allOf" in branch:
                raise self.fail("allOf", f"{where}/allOf/{index}", "only object branches can be merged", "flatten it")
            for key, value in branch.items():
                if key == "properties" and isinstance(value, dict):
                    merged["properties"] = {**merged.get("properties", {}), **value}
                elif key == "required" and isinstance(value, list):
                    merged["required"] = list(dict.fromkeys([*merged.get("required", []), *value]))
                elif key in _DEFS or key in _SILENT or key == "description":
                    merged.setdefault(key, value)
                elif key in merged and merged[key] != value:
                    raise self.fail(
                        "allOf", f"{where}/allOf/{index}", f"its branches disagree on {key!r}", "merge them by hand"
                    )
                else:
                    merged[key] = value
        return merged

    def note(self, out: dict[str, Any], moved: dict[str, Any]) -> None:
        if not moved:
            return
        text = "; ".join(f"{key}: {_dump(value)}" for key, value in moved.items())
        described = out.get("description")
        out["description"] = f"{described} ({text})" if isinstance(described, str) and described else f"({text})"

    def children(self, schema: dict[str, Any], out: dict[str, Any], where: str, level: int) -> None:
        properties = schema.get("properties")
        if isinstance(properties, dict):
            self.properties += len(properties)
            self.count_text(properties, "properties", where)
            if self.profile == "openai" and self.properties > _OPENAI_MAX_PROPERTIES:
                raise self.fail(
                    "properties", where, f"OpenAI strict allows {_OPENAI_MAX_PROPERTIES} properties", "split the tool"
                )
            out["properties"] = {
                key: self.node(value, f"{where}/properties/{key}", level + 1) for key, value in properties.items()
            }
        items = schema.get("items", schema.get("prefixItems"))
        if isinstance(items, list):
            # A tuple: its positions are kept in the description and checked by the original schema.
            variants: list[dict[str, Any]] = []
            for index, item in enumerate(items):
                converted = self.node(item, f"{where}/items/{index}", level + 1)
                if converted not in variants:
                    variants.append(converted)
            out["items"] = variants[0] if len(variants) == 1 else {"anyOf": variants}
            self.note(out, {"items in order": items})
        elif items is not None:
            out["items"] = self.node(items, f"{where}/items", level + 1)
        for branch_key in ("anyOf",):
            if isinstance(schema.get(branch_key), list):
                out[branch_key] = [
                    self.node(value, f"{where}/{branch_key}/{i}", level) for i, value in enumerate(schema[branch_key])
                ]

    # -- OpenAI strict -------------------------------------------------------------------------------------

    def openai(self, schema: dict[str, Any], where: str, level: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        moved: dict[str, Any] = {}
        if "description" in schema and isinstance(schema["description"], str):
            out["description"] = schema["description"]
        for key, value in schema.items():
            if key in ("properties", "items", "prefixItems", "anyOf", "required", "description", *_DEFS):
                continue
            if key == "additionalProperties":
                if value not in (False, None):
                    raise self.fail(
                        key, where, "OpenAI strict needs closed objects, and this one is an open map",
                        "use tools(registry, strict=False), or give the object fixed properties",
                    )  # fmt: skip
            elif key in ("patternProperties", "propertyNames"):
                raise self.fail(key, where, "OpenAI strict needs fixed property names", "use strict=False")
            elif key == "format" and value not in _OPENAI_FORMATS:
                moved[key] = value
            elif key in _OPENAI_KEEP:
                if key == "enum" and isinstance(value, list):
                    self.count_enum(value, where)
                elif key == "const":
                    self.count_text([value], key, where)
                out[key] = value
            elif key not in _SILENT:
                moved[key] = value
        self.children(schema, out, where, level)
        kinds = schema.get("type")
        is_object = kinds == "object" or (isinstance(kinds, list) and "object" in kinds) or "properties" in schema
        if is_object:
            if "properties" not in out and "anyOf" not in out:
                if schema.get("additionalProperties") is False:
                    out["properties"] = {}
                else:
                    raise self.fail(
                        "additionalProperties", where, "OpenAI strict needs closed objects, and this one is open",
                        "use tools(registry, strict=False), or give the object fixed properties",
                    )  # fmt: skip
            if "properties" in out:
                self.close(schema, out)
        self.note(out, moved)
        return out

    def count_enum(self, values: list[Any], where: str) -> None:
        self.enum_values += len(values)
        if self.enum_values > _OPENAI_MAX_ENUM_VALUES:
            why = f"OpenAI strict allows {_OPENAI_MAX_ENUM_VALUES} enum values in a schema"
            raise self.fail("enum", where, why, "split the tool")
        size = self.count_text(values, "enum", where)
        if len(values) > _OPENAI_LARGE_ENUM and size > _OPENAI_MAX_LARGE_ENUM_TEXT:
            raise self.fail(
                "enum", where,
                f"OpenAI strict allows {_OPENAI_MAX_LARGE_ENUM_TEXT} characters in an enum of over "
                f"{_OPENAI_LARGE_ENUM} values, this one has {size}",
                "shorten the values, or take a string and check it in the tool",
            )  # fmt: skip

    def count_text(self, values: Iterable[Any], keyword: str, where: str) -> int:
        """Add the characters of ``values``' strings to the schema's total; returns their own count."""
        size = sum(len(value) for value in values if isinstance(value, str))
        self.text += size
        if self.text > _OPENAI_MAX_TEXT and self.profile == "openai":
            raise self.fail(
                keyword, where,
                f"OpenAI strict allows {_OPENAI_MAX_TEXT} characters of property names, definition names, enum and "
                "const values in a schema",
                "shorten them, or split the tool",
            )  # fmt: skip
        return size

    def close(self, schema: dict[str, Any], out: dict[str, Any]) -> None:
        required = schema.get("required", [])
        absent: set[str] = set()
        optional: set[str] = set()
        for key, value in out["properties"].items():
            if key in required:
                continue
            optional.add(key)
            if not _accepts_null(value, self.defs):
                out["properties"][key] = _nullable(value)
                absent.add(key)
        out["required"] = list(out["properties"])
        out["additionalProperties"] = False
        out.setdefault("type", "object")
        if optional:
            self.absent[id(out)] = (frozenset(absent), frozenset(optional))

    # -- Gemini --------------------------------------------------------------------------------------------

    def gemini(self, schema: dict[str, Any], where: str, level: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        moved: dict[str, Any] = {}
        if isinstance(schema.get("description"), str):
            out["description"] = schema["description"]
        kinds = schema.get("type")
        names = list(kinds) if isinstance(kinds, list) else [kinds] if isinstance(kinds, str) else []
        if "null" in names:
            names.remove("null")
            out["nullable"] = True
        for key, value in schema.items():
            if key in ("type", "properties", "items", "prefixItems", "anyOf", "description", *_DEFS):
                continue
            if key == "const":
                if isinstance(value, str):
                    out["enum"] = [value]
                    names = names or ["string"]
                elif value is None:
                    out["nullable"] = True
                else:
                    moved[key] = value
            elif key == "enum":
                if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
                    out["enum"] = value
                else:
                    moved[key] = value  # Gemini's enum holds strings only
            elif key == "additionalProperties":
                if isinstance(value, dict):
                    out[key] = self.node(value, f"{where}/additionalProperties", level + 1)
            elif key == "format" and value not in _GEMINI_FORMATS:
                moved[key] = value
            elif key == "required":
                out[key] = [name for name in value if name in schema.get("properties", {})]
            elif key in _GEMINI_KEEP and key != "title":
                out[key] = value
            elif key not in _SILENT:
                moved[key] = value
        self.children(schema, out, where, level)
        if len(names) == 1:
            out["type"] = names[0].upper()
        elif len(names) > 1:
            out["anyOf"] = [{"type": name.upper()} for name in names]
        branches = out.get("anyOf")
        if isinstance(branches, list):
            plain = [b for b in branches if b not in ({"type": "NULL"}, {"nullable": True})]
            if len(plain) < len(branches):
                out["nullable"] = True
            if len(plain) == 1:
                del out["anyOf"]
                for key, value in plain[0].items():
                    if key == "description" and "description" in out:
                        out[key] = f"{out[key]} {value}"
                    else:
                        out.setdefault(key, value)
            else:
                out["anyOf"] = plain
        if out.get("type") == "OBJECT" and "properties" not in out and "additionalProperties" not in out:
            out["properties"] = {}
        if out.get("properties"):
            self.rename(out, where)
        self.note(out, moved)
        return out

    def rename(self, out: dict[str, Any], where: str) -> None:
        """Gemini's parameter names: a letter or ``_`` first, then letters, digits and ``_``, 64 at most."""
        names = {key: _gemini_name(key) for key in out["properties"]}
        if all(key == new for key, new in names.items()):
            return
        if len(set(names.values())) != len(names):
            raise self.fail(
                "properties", where, "two property names become one under Gemini's name rule", "rename one of them"
            )
        out["properties"] = {names[key]: value for key, value in out["properties"].items()}
        if "required" in out:
            out["required"] = [names.get(key, key) for key in out["required"]]
        self.renamed[id(out)] = {new: key for key, new in names.items() if new != key}


def _gemini_name(name: str) -> str:
    mapped = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if not mapped or not (mapped[0].isascii() and (mapped[0].isalpha() or mapped[0] == "_")):
        mapped = "_" + mapped
    if len(mapped) > 64:
        import hashlib  # only for names this long: it loads OpenSSL

        mapped = f"{mapped[:55]}_{hashlib.sha256(name.encode()).hexdigest()[:8]}"
    return mapped


def _accepts_null(node: Any, defs: Mapping[str, Any]) -> bool:
    seen = 0
    while isinstance(node, dict) and "$ref" in node and seen < 50:
        node = defs.get(node["$ref"].rsplit("/", 1)[-1])
        seen += 1
    if not isinstance(node, dict):
        return False
    kinds = node.get("type")
    if kinds == "null" or (isinstance(kinds, list) and "null" in kinds):
        return True
    if "enum" in node and None in node["enum"]:
        return True
    return any(_accepts_null(branch, defs) for branch in node.get("anyOf", []))


def _nullable(node: dict[str, Any]) -> dict[str, Any]:
    kinds = node.get("type")
    if isinstance(kinds, str) and "$ref" not in node and "anyOf" not in node and "enum" not in node:
        return {**node, "type": [kinds, "null"]}
    if isinstance(kinds, list) and "enum" not in node:
        return {**node, "type": [*kinds, "null"]}
    return {"anyOf": [node, {"type": "null"}]}


def _as_json_schema(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type" and isinstance(value, str):
            out[key] = value.lower()
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: _as_json_schema(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties"):
            out[key] = _as_json_schema(value)
        elif key == "anyOf" and isinstance(value, list):
            out[key] = [_as_json_schema(sub) for sub in value]
        elif key != "nullable":
            out[key] = value
    if node.get("nullable") is True:
        kind = out.get("type")
        if isinstance(kind, str) and "enum" not in out:
            out["type"] = [kind, "null"]
        else:
            return {"anyOf": [out, {"type": "null"}]}
    return out


def export_schema(schema: Mapping[str, Any], profile: str, *, tool: str) -> Exported:
    """Reshape one tool's input schema for ``profile``; a ``ToolDefinitionError`` names what cannot be."""
    original = dict(schema)
    if profile == "anthropic":
        return Exported(profile, original, original, {})
    if profile not in PROFILES:
        raise ToolDefinitionError(f"unknown schema profile {profile!r}; the profiles are {', '.join(PROFILES)}")
    exporter = _Exporter(profile, tool, original)
    top = {key: value for key, value in original.items() if key not in _DEFS}
    if top.get("type") != "object" or "anyOf" in top or "oneOf" in top:
        raise exporter.fail("type", "", "a tool's parameters must be one object schema", "wrap them in an object")
    exported = exporter.node(top, "", 1)
    if profile == "openai" and exporter.defs:
        exported["$defs"] = exporter.defs
    return Exported(profile, original, exported, exporter.absent, exporter.renamed)
