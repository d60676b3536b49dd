"""The two strict JSON Schema profiles: OpenAI's structured outputs and Anthropic's strict tool use.

Both close every object (``additionalProperties: false``) and need a type on every value; what differs is written
in ``Rules``. OpenAI makes every property required (an optional one becomes nullable and its null maps back to
absent), keeps ``$defs`` (recursion allowed) and counts its size limits; Anthropic keeps optional properties as
they are, inlines refs (no recursion), and allows fewer keywords: no numeric or length bounds, ``minItems`` 0 or
1 only, a plain ``pattern``. Each keyword either side refuses is moved into the description.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final, final

from .mapping import ObjectShape, Property, Shape
from .walk import SILENT, STRUCTURE, Walk, types_of

__all__ = ["ANTHROPIC", "OPENAI", "Rules", "Strict", "strict_budget"]


@final
@dataclass(frozen=True, slots=True)
class Rules:
    label: str
    keep: frozenset[str]
    formats: frozenset[str]
    all_required: bool
    keep_defs: bool
    # OpenAI's size limits (nesting, properties, enum values, text) are counted.
    size_limits: bool = False
    # Only primitive enum and const values (Anthropic: "complex types in enums" are not supported).
    primitive_values: bool = False
    # A keyword's value the profile refuses although it keeps the keyword (moved into the description then).
    refuses: Callable[[str, Any], bool] = lambda key, value: False


# Anthropic's structured outputs: a pattern may not use backreferences, lookaround or word boundaries.
_UNSUPPORTED_REGEX: Final = re.compile(r"\\[1-9bB]|\\k<|\(\?[=!<]")

# The structured-outputs guide's supported keywords.
_OPENAI_KEEP: Final = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "$ref",
        "description", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
        "multipleOf", "minItems", "maxItems",
    }
)  # fmt: skip
# Anthropic's "JSON Schema limitations" for structured outputs and strict tool use.
_ANTHROPIC_KEEP: Final = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf",
        "description", "pattern", "format", "minItems",
    }
)  # fmt: skip
_ANTHROPIC_FORMATS: Final = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}
)


def _anthropic_refuses(key: str, value: Any) -> bool:
    if key == "minItems":
        return value not in (0, 1)
    return key == "pattern" and (not isinstance(value, str) or _UNSUPPORTED_REGEX.search(value) is not None)


OPENAI: Final = Rules(
    label="OpenAI strict",
    keep=_OPENAI_KEEP,
    formats=frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}),
    all_required=True,
    keep_defs=True,
    size_limits=True,
)
ANTHROPIC: Final = Rules(
    label="Anthropic strict",
    keep=_ANTHROPIC_KEEP,
    formats=_ANTHROPIC_FORMATS,
    all_required=False,
    keep_defs=False,
    primitive_values=True,
    refuses=_anthropic_refuses,
)

_OPENAI_MAX_DEPTH: Final = 10
_OPENAI_MAX_PROPERTIES: Final = 5000
# Strict mode's size limits (the structured-outputs guide): enum values in the whole schema; the characters of
# every property name, definition name, enum value and const value; the characters of one large enum.
_OPENAI_MAX_ENUM_VALUES: Final = 1000
_OPENAI_MAX_TEXT: Final = 120_000
_OPENAI_LARGE_ENUM: Final = 250
_OPENAI_MAX_LARGE_ENUM_TEXT: Final = 15_000
# Anthropic's limits over one request's strict tools ("Schema complexity limits"): tools with strict: true,
# properties not in their object's required (at any depth), and values typed by anyOf or a type array.
_ANTHROPIC_MAX_TOOLS: Final = 20
_ANTHROPIC_MAX_OPTIONAL: Final = 24
_ANTHROPIC_MAX_UNIONS: Final = 16


class Strict(Walk):
    __slots__ = ("count_enums", "count_props", "rules", "text")

    def __init__(self, profile: str, tool: str, root: dict[str, Any], rules: Rules) -> None:
        Walk.__init__(self, profile, tool, root, keep_defs=rules.keep_defs)
        self.rules = rules
        self.count_props = 0
        self.count_enums = 0
        self.text = 0

    def build(self, schema: dict[str, Any], where: str, level: int) -> tuple[dict[str, Any], Shape]:
        if self.rules.size_limits and level > _OPENAI_MAX_DEPTH:
            why = f"OpenAI strict allows {_OPENAI_MAX_DEPTH} levels of nesting"
            raise self.fail("properties", where, why, "flatten it")
        out: dict[str, Any] = {}
        moved: dict[str, Any] = {}
        if isinstance(schema.get("description"), str):
            out["description"] = schema["description"]
        for key, value in schema.items():
            if key in STRUCTURE:
                continue
            if key == "additionalProperties":
                if value not in (False, None):
                    raise self.fail(
                        key, where, f"{self.rules.label} needs closed objects, and this one is an open map",
                        "send it non-strict, or give the object fixed properties",
                    )  # fmt: skip
            elif key in ("patternProperties", "propertyNames"):
                raise self.fail(key, where, f"{self.rules.label} needs fixed property names", "send it non-strict")
            elif (key == "format" and value not in self.rules.formats) or self.rules.refuses(key, value):
                moved[key] = value
            elif key in self.rules.keep:
                self.check_values(key, value, where)
                out[key] = value
            elif key not in SILENT:
                moved[key] = value
        shape = self.children(schema, out, where, level)
        self.type_node(schema, out, where)
        self.note(out, moved)
        return out, shape

    def check_values(self, key: str, value: Any, where: str) -> None:
        if key == "enum" and isinstance(value, list):
            if self.rules.primitive_values and any(isinstance(v, (dict, list)) for v in value):
                raise self.fail(
                    key, where, "Anthropic strict takes enums of primitive values only", "send it non-strict"
                )
            self.count_enum(value, where)
        elif key == "const":
            if self.rules.primitive_values and isinstance(value, (dict, list)):
                raise self.fail(key, where, "Anthropic strict takes primitive const values only", "send it non-strict")
            self.count_text([value], key, where)

    def children(self, schema: dict[str, Any], out: dict[str, Any], where: str, level: int) -> Shape:
        properties = schema.get("properties")
        object_shape: Shape = None
        if isinstance(properties, dict):
            self.count_props += len(properties)
            self.count_text(properties, "properties", where)
            if self.rules.size_limits and self.count_props > _OPENAI_MAX_PROPERTIES:
                why = f"OpenAI strict allows {_OPENAI_MAX_PROPERTIES} properties"
                raise self.fail("properties", where, why, "split the tool")
            converted = {
                key: self.node(value, f"{where}/properties/{key}", level + 1) for key, value in properties.items()
            }
            out["properties"] = {key: node for key, (node, _) in converted.items()}
            object_shape = self.close(schema, out, {key: shape for key, (_, shape) in converted.items()}, where)
        array_shape = self.items(schema, out, where, level)
        union_shape = self.branches(schema, out, where, level)
        # At most one is set: type_node refuses properties or items beside anyOf.
        return object_shape or array_shape or union_shape

    def type_node(self, schema: dict[str, Any], out: dict[str, Any], where: str) -> None:
        """Every value typed (inferred from enum and const), every object closed, anyOf alone on its node."""
        kinds = types_of(schema)
        if "anyOf" in out:
            if "properties" in out or "items" in out:
                raise self.fail(
                    "anyOf", where, "properties or items beside anyOf cannot be closed", "move them into each branch"
                )
            if kinds is not None:
                self.check_narrowing(schema, where)
                out.pop("type", None)
            return
        if kinds is None:
            raise self.fail(
                "type", where, f"{self.rules.label} needs a type for every value, and this one has none",
                "give it a type, or send the tool non-strict",
            )  # fmt: skip
        if "type" not in out:
            out["type"] = kinds[0] if len(kinds) == 1 else kinds
        if "array" in kinds and "items" not in out:
            why = f"{self.rules.label} needs a type for every value, and these array items have none"
            raise self.fail("items", where, why, "give the items a schema, or send the tool non-strict")
        if ("object" in kinds or "properties" in schema) and "properties" not in out:
            if schema.get("additionalProperties") is not False:
                why = f"{self.rules.label} needs closed objects, and this one is open"
                raise self.fail(
                    "additionalProperties", where, why, "give the object fixed properties, or send the tool non-strict"
                )
            out["properties"] = {}
            out["required"] = []
            out["additionalProperties"] = False

    def close(self, schema: dict[str, Any], out: dict[str, Any], shapes: dict[str, Shape], where: str) -> Shape:
        self.check_required(schema, where)
        required = schema.get("required", [])
        props: list[Property] = []
        mapped = False
        for key, node in out["properties"].items():
            prop = Property(key, key, shapes[key])
            if self.rules.all_required and key not in required:
                prop.must_send = True
                if not _accepts_null(node, self.defs):
                    out["properties"][key] = _nullable(node)
                    prop.null_is_absent = True
            mapped = mapped or prop.shape is not None or prop.must_send
            props.append(prop)
        out["required"] = list(out["properties"]) if self.rules.all_required else list(required)
        out["additionalProperties"] = False
        out.setdefault("type", "object")
        return ObjectShape(props) if mapped else None

    # -- OpenAI's size limits ------------------------------------------------------------------------------

    def count_enum(self, values: list[Any], where: str) -> None:
        if not self.rules.size_limits:
            return
        self.count_enums += len(values)
        if self.count_enums > _OPENAI_MAX_ENUM_VALUES:
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
        size = sum(len(value) for value in values if isinstance(value, str))
        if not self.rules.size_limits:
            return size
        self.text += size
        if self.text > _OPENAI_MAX_TEXT:
            raise self.fail(
                keyword, where,
                f"OpenAI strict allows {_OPENAI_MAX_TEXT} characters of property names, definition names, enum and "
                "const values in a schema",
                "shorten them, or split the tool",
            )  # fmt: skip
        return size

    def exported(self, node: dict[str, Any]) -> Any:
        defs = self.defs  # complete once the walk ends, when a branch is first checked
        return lambda: {**node, "$defs": defs} if defs else node


def _accepts_null(node: Any, defs: dict[str, Any]) -> bool:
    seen = 0
    while isinstance(node, dict) and "$ref" in node and seen < 50:
        node = defs.get(node["$ref"].rsplit("/", 1)[-1])
        seen += 1
    if not isinstance(node, dict):
        return False
    kinds = node.get("type")
    if "const" in node:
        return node["const"] is None
    if "enum" in node:
        return isinstance(node["enum"], list) and None in node["enum"]
    if kinds == "null" or (isinstance(kinds, list) and "null" in kinds):
        return True
    return any(_accepts_null(branch, defs) for branch in node.get("anyOf", []))


def _nullable(node: dict[str, Any]) -> dict[str, Any]:
    kinds = node.get("type")
    plain = not any(key in node for key in ("$ref", "anyOf", "enum", "const"))
    if isinstance(kinds, str) and plain:
        return {**node, "type": [kinds, "null"]}
    if isinstance(kinds, list) and plain:
        return {**node, "type": [*kinds, "null"]}
    if isinstance(node.get("anyOf"), list) and set(node) <= {"anyOf", "description"}:
        return {**node, "anyOf": [*node["anyOf"], {"type": "null"}]}
    return {"anyOf": [node, {"type": "null"}]}


def strict_budget() -> Callable[[dict[str, Any]], str | None]:
    """Anthropic's limits over the strict tools of one request, counted tool by tool in export order: a tool
    that would pass one is refused strict with the reason (it goes non-strict, and does not count)."""
    used = {"tools": 0, "optional": 0, "unions": 0}

    def admit(schema: dict[str, Any]) -> str | None:
        optional, unions = _complexity(schema)
        wanted = {"tools": 1, "optional": optional, "unions": unions}
        limits = {"tools": _ANTHROPIC_MAX_TOOLS, "optional": _ANTHROPIC_MAX_OPTIONAL, "unions": _ANTHROPIC_MAX_UNIONS}
        words = {"tools": "strict tools", "optional": "optional properties", "unions": "anyOf or type-array values"}
        for key, count in wanted.items():
            if used[key] + count > limits[key]:
                return (
                    f"Anthropic strict tool use allows {limits[key]} {words[key]} in one request; this tool has "
                    f"{count} and the strict tools before it {used[key]}"
                )
        for key, count in wanted.items():
            used[key] += count
        return None

    return admit


def _complexity(node: Any) -> tuple[int, int]:
    """(optional properties, anyOf or type-array values) in an exported schema, at every depth."""
    if not isinstance(node, dict):
        return 0, 0
    optional = unions = 0
    properties = node.get("properties")
    if isinstance(properties, dict):
        optional += sum(1 for key in properties if key not in node.get("required", []))
    if "anyOf" in node or isinstance(node.get("type"), list):
        unions += 1
    children = [
        *(properties or {}).values(),
        node.get("items"),
        *node.get("anyOf", []),
        *node.get("$defs", {}).values(),
    ]
    for child in children:
        more = _complexity(child)
        optional, unions = optional + more[0], unions + more[1]
    return optional, unions
