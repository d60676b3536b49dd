"""Model nodes -> JSON Schema (2020-12 keywords), inlined, with ``$defs``/``$ref`` only for recursive classes.

Choices made once, here, for every schema we publish:

- no generated ``title``s: they cost tokens and tell a model nothing the property name does not;
- objects we derive are closed (``additionalProperties: false``): an unknown name is a mistake to report;
- a union of plain types is one ``type`` list (``["integer", "null"]``); any other union is ``anyOf``;
- a Literal with one value is ``const``, with several ``enum``, always with its ``type``;
- ``required`` is left out when empty, ``default`` when the default is not JSON the schema accepts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, final

from .._json import JSONObject
from .jsonify import to_json
from .model import (
    MISSING,
    AnyNode,
    ArrayNode,
    ChoiceNode,
    DictNode,
    Field,
    MetaNode,
    Node,
    ObjectNode,
    ScalarNode,
    StdNode,
    TupleNode,
    UnionNode,
    json_kind,
    json_problem,
    unwrap,
)

__all__ = ["SchemaEmitter", "default_json"]

_TYPE_ORDER = ("string", "integer", "number", "boolean", "array", "object", "null")


@final
class SchemaEmitter:
    """Emits the schemas of one document (one tool's input or output); collects ``$defs`` for recursion."""

    __slots__ = ("_def_names", "_recursive", "defs")

    def __init__(self, roots: Iterable[Node]) -> None:
        self._recursive = _recursive_objects(roots)
        self._def_names: dict[int, str] = {}
        self.defs: JSONObject = {}

    def object_schema(self, fields: Sequence[Field], additional: Node | None, *, closed: bool) -> JSONObject:
        """``{"type": "object", ...}`` for named fields; ``additional`` types extra names when not closed."""
        schema: JSONObject = {"type": "object", "properties": {f.name: self.field(f) for f in fields}}
        required = [f.name for f in fields if f.required]
        if required:
            schema["required"] = required
        if closed:
            schema["additionalProperties"] = False
        elif additional is not None and not isinstance(additional, AnyNode):
            schema["additionalProperties"] = self.emit(additional)
        return schema

    def finish(self, schema: JSONObject) -> JSONObject:
        """Attach the collected ``$defs`` to the document's root schema."""
        if self.defs:
            schema["$defs"] = self.defs
        return schema

    def field(self, field: Field) -> JSONObject:
        schema = self.emit(field.node)
        if field.description and not _has_own_description(field.node):
            schema["description"] = field.description
        if field.default is not MISSING:
            default = default_json(field.node, field.default)
            if default is not MISSING:
                schema["default"] = default
        return schema

    def emit(self, node: Node) -> JSONObject:
        if isinstance(node, ScalarNode):
            return {"type": node.json_type}
        if isinstance(node, AnyNode):
            return {}
        if isinstance(node, StdNode):
            return node.std.schema()  # type: ignore[no-any-return]
        if isinstance(node, ChoiceNode):
            return _choice(node)
        if isinstance(node, MetaNode):
            schema = self.emit(node.inner)
            schema.update(node.keywords)
            return schema
        if isinstance(node, ArrayNode):
            schema = {"type": "array"}
            if not isinstance(node.item, AnyNode):
                schema["items"] = self.emit(node.item)
            if node.unique:
                schema["uniqueItems"] = True
            return schema
        if isinstance(node, TupleNode):
            if not node.items:
                return {"type": "array", "maxItems": 0}
            count = len(node.items)
            return {
                "type": "array",
                "prefixItems": [self.emit(item) for item in node.items],
                "items": False,
                "minItems": count,
                "maxItems": count,
            }
        if isinstance(node, DictNode):
            schema = {"type": "object"}
            if node.key is not None:
                schema["propertyNames"] = _choice(node.key)
            if not isinstance(node.value, AnyNode):
                schema["additionalProperties"] = self.emit(node.value)
            return schema
        if isinstance(node, ObjectNode):
            if id(node) in self._recursive:
                return {"$ref": f"#/$defs/{self._define(node)}"}
            return self._object(node)
        if isinstance(node, UnionNode):
            return _union([self.emit(member) for member in node.members])
        raise AssertionError(f"unknown node {node!r}")

    def _object(self, node: ObjectNode) -> JSONObject:
        schema = self.object_schema(node.fields, node.extra, closed=node.extra is None)
        if node.description:
            schema = {"type": "object", "description": node.description, **schema}
        return schema

    def _define(self, node: ObjectNode) -> str:
        name = self._def_names.get(id(node))
        if name is not None:
            return name
        name = node.cls.__name__
        taken = set(self._def_names.values())
        if name in taken:
            name = f"{node.cls.__module__}.{node.cls.__qualname__}".replace("<locals>.", "")
        suffix = 2
        base = name
        while name in taken:
            name = f"{base}{suffix}"
            suffix += 1
        self._def_names[id(node)] = name
        self.defs[name] = {}  # reserve the slot first: the body may refer to itself
        self.defs[name] = self._object(node)
        return name


def default_json(node: Node, default: object) -> object:
    """The JSON form of a Python default if it is JSON and of a type the node accepts, else MISSING."""
    value = to_json(default)
    if json_problem(value) is not None:
        return MISSING
    kind = json_kind(value)
    if kind is None or kind not in node.kinds:
        return MISSING
    inner = unwrap(node)
    if isinstance(inner, ChoiceNode) and not any(_same(value, allowed) for allowed in inner.values):
        return MISSING
    return value


def _same(a: object, b: object) -> bool:
    return type(a) is type(b) and a == b


def _has_own_description(node: Node) -> bool:
    while isinstance(node, MetaNode):
        if "description" in node.keywords:
            return True
        node = node.inner
    return False


def _choice(node: ChoiceNode) -> JSONObject:
    kinds = {kind for kind in map(json_kind, node.values) if kind is not None}
    if "number" in kinds:
        kinds.discard("integer")
    names = [kind for kind in _TYPE_ORDER if kind in kinds]
    schema: JSONObject = {"type": names[0] if len(names) == 1 else names}
    if len(node.values) == 1:
        schema["const"] = node.values[0]
    else:
        schema["enum"] = list(node.values)
    return schema


def _union(schemas: list[JSONObject]) -> JSONObject:
    if all(set(schema) == {"type"} for schema in schemas):
        kinds: list[str] = []
        for schema in schemas:
            names: Any = schema["type"]
            for name in [names] if isinstance(names, str) else names:
                if name not in kinds:
                    kinds.append(name)
        if "number" in kinds and "integer" in kinds:
            kinds.remove("integer")
        return {"type": kinds[0] if len(kinds) == 1 else kinds}
    if any(schema == {} for schema in schemas):
        return {}
    return {"anyOf": schemas}


def _recursive_objects(roots: Iterable[Node]) -> set[int]:
    """ids of the object nodes that contain themselves (the only ones emitted as ``$ref``)."""
    recursive: set[int] = set()
    done: set[int] = set()
    on_path: list[int] = []

    def visit(node: Node) -> None:
        if isinstance(node, ObjectNode):
            key = id(node)
            if key in on_path:
                recursive.add(key)
                return
            if key in done:
                return
            on_path.append(key)
            for field in node.fields:
                visit(field.node)
            if node.extra is not None:
                visit(node.extra)
            on_path.pop()
            done.add(key)
        elif isinstance(node, MetaNode):
            visit(node.inner)
        elif isinstance(node, ArrayNode):
            visit(node.item)
        elif isinstance(node, TupleNode):
            for item in node.items:
                visit(item)
        elif isinstance(node, DictNode):
            visit(node.value)
        elif isinstance(node, UnionNode):
            for member in node.members:
                visit(member)

    for root in roots:
        visit(root)
    return recursive
