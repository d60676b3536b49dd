"""The Gemini profile: the OpenAPI-flavoured ``Schema`` subset of ``FunctionDeclaration.parameters``.

Upper-case types, ``nullable`` instead of a null type, string-only ``enum``, every ref inlined (no recursion);
property names outside Gemini's rule are renamed (``x-request-id`` is ``x_request_id``) and the values' keys
renamed back. What the Developer API refuses is refused here per tool: ``additionalProperties`` (google-genai
raises for it outside Vertex AI), and an ``OBJECT`` without properties (the API answers "properties: should be
non-empty for OBJECT type"), so open maps and free-form objects go to ``parameters_json_schema`` instead.
"""

from __future__ import annotations

from typing import Any, Final

from .mapping import NameRule, ObjectShape, Property, Shape
from .walk import SILENT, STRUCTURE, Walk, types_of

__all__ = ["PROPERTY_NAMES", "Gemini", "as_json_schema"]

# Gemini's parameter names: "must start with a letter or an underscore and must only contain chars a-z, A-Z, 0-9,
# or underscores with a maximum length of 64" (FunctionDeclaration reference).
PROPERTY_NAMES: Final = NameRule("A-Za-z0-9_", 64, first="A-Za-z_")

# google.genai.types.Schema's fields (additionalProperties aside, refused on the Developer API).
_KEEP: Final = frozenset(
    {
        "type", "properties", "required", "items", "enum", "anyOf", "description", "format", "nullable",
        "minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "minProperties",
        "maxProperties", "pattern", "default",
    }
)  # fmt: skip
_FORMATS: Final = frozenset({"date-time", "enum", "int32", "int64", "float", "double"})


class Gemini(Walk):
    __slots__ = ()

    def build(self, schema: dict[str, Any], where: str, level: int) -> tuple[dict[str, Any], Shape]:
        out: dict[str, Any] = {}
        moved: dict[str, Any] = {}
        if isinstance(schema.get("description"), str):
            out["description"] = schema["description"]
        kinds = types_of(schema)
        names = [kind for kind in kinds or [] if kind != "null"]
        if kinds is not None and "null" in kinds:
            out["nullable"] = True
        for key, value in schema.items():
            if key in STRUCTURE or key == "type":
                continue
            if key == "const":
                if isinstance(value, str):
                    out["enum"] = [value]
                elif value is not None:
                    moved[key] = value
            elif key == "enum":
                strings = [v for v in value if isinstance(v, str)] if isinstance(value, list) else []
                if strings and len(strings) == len(value):
                    out["enum"] = value
                elif strings and len(strings) == len(value) - 1 and None in value:
                    out["enum"] = strings  # and nullable, from the values' types
                else:
                    moved[key] = value  # Gemini's enum holds strings only
            elif key == "additionalProperties":
                self.open_object(schema, value, where, moved)
            elif key in ("patternProperties", "propertyNames"):
                raise self.fail(key, where, "Gemini's Schema has fixed property names only", "send it as JSON Schema")
            elif key == "format" and value not in _FORMATS:
                moved[key] = value
            elif key in _KEEP:
                out[key] = value
            elif key not in SILENT:
                moved[key] = value
        shape = self.children(schema, out, where, level)
        self.type_node(schema, out, names, where, level)
        self.note(out, moved)
        return out, shape

    def open_object(self, schema: dict[str, Any], value: Any, where: str, moved: dict[str, Any]) -> None:
        if value is False:
            return  # Gemini's objects take only their properties
        if not schema.get("properties"):
            raise self.fail(
                "additionalProperties", where,
                "an open map has no Gemini form (no additionalProperties on the Developer API, no OBJECT without "
                "properties)", "send it as JSON Schema (parameters_json_schema)",
            )  # fmt: skip
        moved["additionalProperties"] = value  # the fixed properties are sent; the others are told in words

    def children(self, schema: dict[str, Any], out: dict[str, Any], where: str, level: int) -> Shape:
        properties = schema.get("properties")
        object_shape: Shape = None
        if isinstance(properties, dict):
            self.check_required(schema, where)
            converted = {
                key: self.node(value, f"{where}/properties/{key}", level + 1) for key, value in properties.items()
            }
            for key, (node, _) in converted.items():
                if "type" not in node and "anyOf" not in node:
                    why = "a value that can only be null has no Gemini form"
                    raise self.fail("type", f"{where}/properties/{key}", why, "send the tool as JSON Schema")
            out["properties"] = {key: node for key, (node, _) in converted.items()}
            if isinstance(schema.get("required"), list):
                out["required"] = list(schema["required"])
            object_shape = self.rename(out, {key: shape for key, (_, shape) in converted.items()}, where)
        array_shape = self.items(schema, out, where, level)
        union_shape = self.branches(schema, out, where, level)
        return object_shape or array_shape or union_shape

    def type_node(self, schema: dict[str, Any], out: dict[str, Any], names: list[str], where: str, level: int) -> None:
        if "anyOf" in out:
            if "properties" in out or "items" in out:
                raise self.fail("anyOf", where, "properties or items beside anyOf have no Gemini form",
                                "move them into each branch")  # fmt: skip
            self.check_narrowing(schema, where)
            self.collapse(out)
            return
        if not names:
            if out.get("nullable"):
                return  # a null branch of an anyOf, which collapse turns into nullable
            raise self.fail("type", where, "Gemini's Schema needs a type for every value, and this one has none",
                            "give it a type, or send the tool as JSON Schema")  # fmt: skip
        if len(names) == 1:
            out["type"] = names[0].upper()
        else:
            out["anyOf"] = [{"type": name.upper()} for name in names]
        if "object" in names and not out.get("properties") and level > 1:
            raise self.fail(
                "properties", where, "Gemini needs an OBJECT to have properties, and this one has none",
                "give the object fixed properties, or send the tool as JSON Schema",
            )  # fmt: skip
        if "array" in names and "items" not in out:
            raise self.fail("items", where, "Gemini needs an ARRAY's items typed", "give the items a schema")

    def collapse(self, out: dict[str, Any]) -> None:
        """``anyOf`` with a null branch is ``nullable``; one branch left is that branch."""
        branches = out["anyOf"]
        plain = [b for b in branches if b != {"nullable": True} and b.get("type") != "NULL"]
        out.pop("type", None)
        if len(plain) < len(branches):
            out["nullable"] = True
        if len(plain) == 1 and not (set(plain[0]) & set(out) - {"description", "nullable"}):
            del out["anyOf"]
            for key, value in plain[0].items():
                out[key] = f"{out[key]} {value}" if key == "description" and "description" in out else value
        else:
            out["anyOf"] = plain

    def rename(self, out: dict[str, Any], shapes: dict[str, Shape], where: str) -> Shape:
        """Gemini's parameter names: a letter or ``_`` first, then letters, digits and ``_``, 64 at most."""
        names = {key: PROPERTY_NAMES.map(key) for key in out["properties"]}
        if len(set(names.values())) != len(names):
            raise self.fail(
                "properties", where, "two property names become one under Gemini's name rule", "rename one of them"
            )
        if any(key != new for key, new in names.items()):
            out["properties"] = {names[key]: value for key, value in out["properties"].items()}
            if "required" in out:
                out["required"] = [names.get(key, key) for key in out["required"]]
        elif all(shape is None for shape in shapes.values()):
            return None
        return ObjectShape([Property(key, names[key], shapes[key]) for key in names])

    def exported(self, node: dict[str, Any]) -> Any:
        # Closed: a Gemini model sends an object's declared properties only (its Schema has no extra keys), so a
        # branch that does not declare a key the model sent is not the branch it meant.
        return lambda: as_json_schema(node, closed=True)


def as_json_schema(node: Any, *, closed: bool = False) -> Any:
    """A Gemini ``Schema`` written as JSON Schema (``"STRING"`` is ``"string"``, ``nullable`` a null type);
    ``closed``: objects take their declared properties only, as a Gemini model sends them."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type" and isinstance(value, str):
            out[key] = value.lower()
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: as_json_schema(sub, closed=closed) for name, sub in value.items()}
            if closed:
                out["additionalProperties"] = False
        elif key in ("items", "additionalProperties"):
            out[key] = as_json_schema(value, closed=closed)
        elif key == "anyOf" and isinstance(value, list):
            out[key] = [as_json_schema(sub, closed=closed) for sub in value]
        elif key != "nullable":
            out[key] = value
    if node.get("nullable") is True:
        kind = out.get("type")
        if isinstance(kind, str) and "enum" not in out:
            out["type"] = [kind, "null"]
        elif "enum" in out and "anyOf" not in out:
            out["enum"] = [*out["enum"], None]
            out["type"] = [kind, "null"] if isinstance(kind, str) else kind
        else:
            return {"anyOf": [out, {"type": "null"}]}
    return out
