"""What every profile's export does the same way: refs, ``allOf``, ``oneOf``, keywords moved into descriptions,
and the errors that name the tool and the keyword.

A profile subclasses ``Walk`` with ``build`` (one normalised node: no ``$ref``, ``allOf`` or ``oneOf`` left) and
returns ``(exported node, shape)`` pairs; ``mapping`` says what a shape is.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from .._errors import ToolDefinitionError
from .._json import json_type_name, resolve_pointer
from .mapping import ArrayShape, Branch, RefShape, Shape, UnionShape

__all__ = ["DEFS", "SILENT", "STRUCTURE", "Walk", "types_of"]

# Annotations with no meaning for validation: dropped rather than noted.
SILENT: Final = frozenset({"$schema", "$id", "$comment", "title", "examples", "deprecated", "readOnly", "writeOnly"})
DEFS: Final = ("$defs", "definitions")
# Keywords a profile walks itself (children and combinators), never moved into a description.
STRUCTURE: Final = frozenset({"properties", "items", "prefixItems", "anyOf", "required", "description", *DEFS})


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def types_of(schema: dict[str, Any]) -> list[str] | None:
    """The JSON types a node says it takes: its ``type``, or those of its ``enum``/``const`` values; ``None``
    when it says nothing (such a node takes every value)."""
    kinds = schema.get("type")
    if isinstance(kinds, str):
        return [kinds]
    if isinstance(kinds, list) and all(isinstance(kind, str) for kind in kinds):
        return list(kinds)
    values = (
        schema["enum"] if isinstance(schema.get("enum"), list) else [schema["const"]] if "const" in schema else None
    )
    if values is None:
        return None
    return sorted({json_type_name(value) for value in values})


@dataclass(slots=True, eq=False)
class Walk(ABC):
    profile: str
    tool: str
    root: dict[str, Any]
    # OpenAI keeps refs to definitions as refs (recursion allowed); the other profiles inline every ref.
    keep_defs: bool = False
    # Kept definitions (OpenAI: refs stay refs) and their shapes; other profiles inline every ref.
    defs: dict[str, Any] = field(default_factory=dict)
    def_shapes: dict[str, Shape] = field(default_factory=dict)
    inlining: list[str] = field(default_factory=list)

    def fail(self, keyword: str, where: str, why: str, fix: str) -> ToolDefinitionError:
        place = f" at {where}" if where else ""
        return ToolDefinitionError(
            f"tool {self.tool!r}: keyword {keyword!r}{place} cannot be exported to the {self.profile} profile: "
            f"{why}; {fix}"
        )

    def lookup(self, ref: Any, where: str) -> Any:
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise self.fail("$ref", where, f"only local refs can be exported, got {ref!r}", "inline the schema")
        node = resolve_pointer(self.root, ref[1:])
        if node is None:
            raise self.fail("$ref", where, f"{ref!r} points nowhere", "fix the reference")
        return node

    def document(self, node: dict[str, Any]) -> dict[str, Any]:
        """An original subschema as a document of its own: the root's definitions beside it, for its refs."""
        return {**node, **{key: self.root[key] for key in DEFS if key in self.root and key not in node}}

    # -- the walk ------------------------------------------------------------------------------------------

    def node(self, schema: Any, where: str, level: int) -> tuple[dict[str, Any], Shape]:
        if schema is True or schema == {}:
            raise self.fail("{}", where, f"the {self.profile} profile needs a type for every value", "give it one")
        if schema is False:
            raise self.fail("false", where, "a schema that accepts nothing has no provider form", "remove it")
        if not isinstance(schema, dict):
            raise self.fail("schema", where, f"expected an object, got {type(schema).__name__}", "fix the schema")
        schema = dict(schema)
        if "$ref" in schema:
            return self.ref(schema, where, level)
        if "allOf" in schema:
            schema = self.merge_all(schema, where)
        if "oneOf" in schema:
            if "anyOf" in schema:
                raise self.fail("oneOf", where, "oneOf next to anyOf has no single equivalent", "use one of them")
            schema["anyOf"] = schema.pop("oneOf")
        return self.build(schema, where, level)

    @abstractmethod
    def build(self, schema: dict[str, Any], where: str, level: int) -> tuple[dict[str, Any], Shape]:
        """One normalised node under the profile (no ``$ref``, ``allOf`` or ``oneOf`` left): its exported form
        and its shape."""

    def ref(self, schema: dict[str, Any], where: str, level: int) -> tuple[dict[str, Any], Shape]:
        ref = schema.pop("$ref")
        if self.keep_defs and isinstance(ref, str):
            for defs in DEFS:
                prefix = f"#/{defs}/"
                if ref.startswith(prefix) and "/" not in ref[len(prefix) :]:
                    name = ref[len(prefix) :].replace("~1", "/").replace("~0", "~")
                    if name not in self.defs:
                        self.count_text([name], "$defs", where)
                        self.defs[name] = None  # placed first, so a recursive ref finds it
                        self.defs[name], self.def_shapes[name] = self.node(self.lookup(ref, where), ref, 1)
                    # Strict mode refuses keywords beside a $ref (openai-python unravels such refs); the
                    # definition keeps its own description.
                    return {"$ref": f"#/$defs/{name}"}, RefShape(name, self.def_shapes)
        if ref in self.inlining:
            raise self.fail(
                "$ref", where, f"{ref!r} is recursive and the {self.profile} profile inlines refs", "remove the cycle"
            )
        target = self.lookup(ref, where)
        if not isinstance(target, dict):
            return self.node(target, where, level)
        self.inlining.append(ref)
        try:
            merged = {**target, **{k: v for k, v in schema.items() if k not in DEFS}}
            return self.node(merged, where, level)
        finally:
            self.inlining.pop()

    def count_text(self, values: Iterable[Any], keyword: str, where: str) -> int:
        """Characters of ``values``' strings; a profile with a limit on them counts them (OpenAI)."""
        return sum(len(value) for value in values if isinstance(value, str))

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
                elif key in DEFS or key in SILENT or key == "description":
                    merged.setdefault(key, value)
                elif key in merged and merged[key] != value:
                    raise self.fail(
                        "allOf", f"{where}/allOf/{index}", f"its branches disagree on {key!r}", "merge them by hand"
                    )
                else:
                    merged[key] = value
        return merged

    def note(self, out: dict[str, Any], moved: dict[str, Any]) -> None:
        """Keywords the profile cannot keep, told to the model in the description (the original enforces them)."""
        if not moved:
            return
        text = "; ".join(f"{key}: {_dump(value)}" for key, value in moved.items())
        described = out.get("description")
        out["description"] = f"{described} ({text})" if isinstance(described, str) and described else f"({text})"

    def check_required(self, schema: dict[str, Any], where: str) -> None:
        """A ``required`` name with no property schema: no value the profile lets the model send can pass."""
        properties = schema.get("properties")
        names = properties if isinstance(properties, dict) else {}
        required = schema.get("required")
        missing = [name for name in required if name not in names] if isinstance(required, list) else []
        if missing:
            raise self.fail(
                "required", where, f"it names {missing!r}, which have no schema under properties",
                "add them to properties, or take them out of required",
            )  # fmt: skip

    def check_narrowing(self, schema: dict[str, Any], where: str) -> None:
        """A type beside ``anyOf`` narrows its branches: the profile drops it, so every branch must be within it."""
        kinds = types_of(schema)
        if kinds is None:
            return
        for branch in schema["anyOf"]:
            found = types_of(self.resolve(branch))
            if found is None or not set(found) <= set(kinds):
                raise self.fail(
                    "type", where, "a type beside anyOf narrows branches of other types", "give each branch its type"
                )

    def resolve(self, node: Any) -> dict[str, Any]:
        """An original node with its refs followed and its ``allOf`` merged (``{}`` where that fails)."""
        seen = 0
        while isinstance(node, dict) and "$ref" in node and seen < 50:
            try:
                target = self.lookup(node["$ref"], "")
            except ToolDefinitionError:
                return {}
            if not isinstance(target, dict):
                return {}
            node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
            seen += 1
        if not isinstance(node, dict):
            return {}
        if "allOf" in node:
            try:
                node = self.merge_all(dict(node), "")
            except ToolDefinitionError:
                return {}
        resolved: dict[str, Any] = node
        return resolved

    def items(self, schema: dict[str, Any], out: dict[str, Any], where: str, level: int) -> Shape:
        if "prefixItems" in schema:
            # (its ``items: false`` would otherwise be named, with advice no one can follow)
            raise self.fail(
                "prefixItems",
                where,
                f"a tuple has no {self.profile} form (its items cannot be told apart by position)",
                "take a list[...] of one item type, or a TypedDict with named fields",
            )
        items = schema.get("items")
        if isinstance(items, list):
            # A tuple: its positions are kept in the description and checked by the original schema.
            variants: list[tuple[dict[str, Any], Shape, Any]] = []
            for index, item in enumerate(items):
                converted, shape = self.node(item, f"{where}/items/{index}", level + 1)
                if all(converted != seen for seen, _, _ in variants):
                    variants.append((converted, shape, item))
            self.note(out, {"items in order": items})
            if len(variants) == 1:
                out["items"] = variants[0][0]
                return ArrayShape(variants[0][1]) if variants[0][1] is not None else None
            out["items"] = {"anyOf": [converted for converted, _, _ in variants]}
            union = self.union([(item, converted, shape) for converted, shape, item in variants])
            return ArrayShape(union) if union is not None else None
        if items is not None:
            out["items"], shape = self.node(items, f"{where}/items", level + 1)
            return ArrayShape(shape) if shape is not None else None
        return None

    def branches(self, schema: dict[str, Any], out: dict[str, Any], where: str, level: int) -> Shape:
        raw = schema.get("anyOf")
        if not isinstance(raw, list):
            return None
        converted = [self.node(value, f"{where}/anyOf/{i}", level) for i, value in enumerate(raw)]
        out["anyOf"] = [node for node, _ in converted]
        return self.union([(original, node, shape) for original, (node, shape) in zip(raw, converted, strict=True)])

    def union(self, branches: list[tuple[Any, dict[str, Any], Shape]]) -> Shape:
        """The shape of an ``anyOf`` whose branches map values differently (``None`` when none maps them)."""
        if all(shape is None for _, _, shape in branches):
            return None
        return UnionShape(
            [
                Branch(self.document(original) if isinstance(original, dict) else {}, self.exported(node), shape)
                for original, node, shape in branches
            ]
        )

    def exported(self, node: dict[str, Any]) -> Any:
        """A function giving an exported subschema as a JSON Schema document (called after the walk ends)."""
        return lambda: node
