"""The small model between Python type hints and JSON Schema.

Derivation reads hints once into these nodes; the schema emitter (``emit.py``) and the converters
(``mcptools/_convert.py``) each walk the nodes, never the hints. A node knows which JSON types it accepts
(``kinds``), which is what union dispatch and constraint checks need. Object nodes (TypedDict, dataclass,
NamedTuple) are shared between every place their class appears, so a recursive class is one node in a cycle.
The questions both walkers ask of the model live here too: may a value need converting, and can a union's
members be told apart by the JSON value alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass
from typing import Any, Final, Literal, final

from .._json import JSONObject

__all__ = [
    "ALL_KINDS",
    "MISSING",
    "AnyNode",
    "ArrayNode",
    "ChoiceNode",
    "DictNode",
    "Field",
    "MetaNode",
    "Node",
    "ObjectNode",
    "STD_MODULES",
    "ScalarNode",
    "StdNode",
    "TupleNode",
    "UnionNode",
    "json_kind",
    "json_problem",
    "disjoint_formats",
    "find_tag",
    "may_convert",
    "union_problem",
    "unwrap",
    "values_disjoint",
]

ALL_KINDS: Final = frozenset({"null", "boolean", "integer", "number", "string", "array", "object"})

_KIND_OF_PYTHON_TYPE: Final[dict[type, str]] = {
    type(None): "null",
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
}


@final
class _Missing:
    """The absence of a default (``None`` is a real default)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()

# Modules of the standard types stdtypes.py maps; it is imported only when a value or hint comes from one, so
# ``import mcptools`` does not pay for decimal, uuid, ipaddress and pathlib.
STD_MODULES: Final = frozenset({"datetime", "uuid", "decimal", "pathlib", "ipaddress"})


def in_std_module(cls: type) -> bool:
    """Whether ``cls`` comes from one of ``STD_MODULES``, by its top-level package: 3.13 defines ``Path`` in
    ``pathlib._local``, so the exact module name differs between versions."""
    return cls.__module__.partition(".")[0] in STD_MODULES


def json_kind(value: object) -> str | None:
    """The JSON type of a decoded JSON value (``integer`` for int, ``number`` for float), None if not JSON."""
    return _KIND_OF_PYTHON_TYPE.get(type(value))


def json_problem(value: object) -> str | None:
    """Why ``value`` is not a decoded JSON value (dict with str keys, list, str, finite number, ...)."""
    if value is None or isinstance(value, (bool, int, str)):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{value!r} is not a finite number"
    if isinstance(value, list):
        for item in value:
            problem = json_problem(item)
            if problem is not None:
                return problem
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"object key {key!r} is not a str"
            problem = json_problem(item)
            if problem is not None:
                return problem
        return None
    return f"{type(value).__qualname__} is not a JSON type"


# eq=False: nodes are compared and shared by identity (an object node is one node wherever its class appears).
@dataclass(slots=True, eq=False)
class Node:
    """One type in the model. ``kinds``: the JSON types a value of this type arrives as."""

    kinds: frozenset[str]


@final
class AnyNode(Node):
    """``Any`` / ``object``: every JSON value, unconverted."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(ALL_KINDS)


@final
class ScalarNode(Node):
    """``str``, ``int``, ``float``, ``bool``, ``None``: one JSON type, no conversion.

    ``float`` accepts JSON integers too (``number``); an int arriving for a float parameter stays an int,
    which Python's numeric tower already allows.
    """

    __slots__ = ("json_type",)

    def __init__(self, json_type: str) -> None:
        super().__init__(frozenset({"integer", "number"}) if json_type == "number" else frozenset({json_type}))
        self.json_type = json_type


@final
class StdNode(Node):
    """A standard type JSON has no type for (``datetime``, ``UUID``, ``bytes``...): see stdtypes.py."""

    __slots__ = ("std",)

    def __init__(self, std: Any) -> None:  # a StdType; Any so this module need not import stdtypes
        kinds = set(std.json_types)
        if "number" in kinds:
            kinds.add("integer")
        super().__init__(frozenset(kinds))
        self.std = std


@final
class ChoiceNode(Node):
    """``Literal[...]`` or an ``Enum``: a fixed set of JSON scalars.

    ``members`` are the Python values, position by position, when any differs from its JSON value (Enum
    members); None when the JSON values are the Python values.
    """

    __slots__ = ("members", "values")

    def __init__(self, values: tuple[Any, ...], members: tuple[Any, ...] | None) -> None:
        super().__init__(frozenset(kind for kind in map(json_kind, values) if kind is not None))
        self.values = values
        self.members = members


ArrayContainer = Literal["list", "tuple", "set", "frozenset"]


@final
class ArrayNode(Node):
    """A homogeneous array: ``list[T]``, ``Sequence[T]``, ``tuple[T, ...]``, ``set[T]``, ``frozenset[T]``."""

    __slots__ = ("container", "item")

    def __init__(self, item: Node, container: ArrayContainer) -> None:
        super().__init__(frozenset({"array"}))
        self.item = item
        self.container = container

    @property
    def unique(self) -> bool:
        return self.container in ("set", "frozenset")


@final
class TupleNode(Node):
    """A fixed-length tuple ``tuple[A, B]``: one node per position."""

    __slots__ = ("items",)

    def __init__(self, items: tuple[Node, ...]) -> None:
        super().__init__(frozenset({"array"}))
        self.items = items


@final
class DictNode(Node):
    """``dict[K, V]`` / ``Mapping[K, V]``: an object whose keys are strings (or a str Literal / Enum)."""

    __slots__ = ("key", "value")

    def __init__(self, key: ChoiceNode | None, value: Node) -> None:
        super().__init__(frozenset({"object"}))
        self.key = key
        self.value = value


@final
@dataclass(slots=True, eq=False)
class Field:
    """One named member of an object node (or one tool parameter)."""

    name: str
    node: Node
    _: KW_ONLY
    required: bool
    # The Python default; emitted in the schema only when it serialises to JSON the node accepts.
    default: object = MISSING
    # From a docstring; an Annotated description on the type takes precedence.
    description: str | None = None


# "pydantic" is a pydantic model; "class" a plain class with annotated attributes (only as a result).
ObjectKind = Literal["typeddict", "dataclass", "namedtuple", "pydantic", "class"]


@final
class ObjectNode(Node):
    """A TypedDict, dataclass, NamedTuple or pydantic model; ``fields`` comes after creation: a class may contain
    itself. Field names are JSON names (a pydantic alias where one is set)."""

    __slots__ = ("cls", "description", "extra", "fields", "kind")

    def __init__(self, cls: type, kind: ObjectKind, description: str | None) -> None:
        super().__init__(frozenset({"object"}))
        self.cls = cls
        self.kind = kind
        self.description = description
        self.fields: tuple[Field, ...] = ()
        # Names beyond the fields: None when the object is closed (every class, except a TypedDict declared
        # with ``extra_items=T`` (PEP 728), whose extra values are of type T).
        self.extra: Node | None = None


@final
class UnionNode(Node):
    """``A | B | ...`` (``Optional[T]`` included); members in declaration order."""

    __slots__ = ("members",)

    def __init__(self, members: tuple[Node, ...]) -> None:
        super().__init__(frozenset().union(*(member.kinds for member in members)))
        self.members = members


@final
class MetaNode(Node):
    """``Annotated[T, "text"]`` / ``Annotated[T, Param(...)]``: extra schema keywords on top of ``inner``.

    A wrapper rather than a field on ``inner`` because object nodes are shared: a description on one use of a
    dataclass must not appear on every other.
    """

    __slots__ = ("inner", "keywords")

    def __init__(self, inner: Node, keywords: JSONObject) -> None:
        super().__init__(inner.kinds)
        self.inner = inner
        self.keywords = keywords


def unwrap(node: Node) -> Node:
    """The node under any ``Annotated`` layers."""
    while isinstance(node, MetaNode):
        node = node.inner
    return node


def may_convert(node: Node, _seen: frozenset[int] = frozenset()) -> bool:
    """Whether values of this type may differ between JSON and Python (an Enum member, tuple, dataclass).

    Errs towards True on a recursive TypedDict, which is what the union check needs; the converter computes
    the exact answer.
    """
    node = unwrap(node)
    if isinstance(node, StdNode):
        return True
    if isinstance(node, ChoiceNode):
        return node.members is not None
    if isinstance(node, ArrayNode):
        return node.container != "list" or may_convert(node.item, _seen)
    if isinstance(node, TupleNode):
        return True
    if isinstance(node, DictNode):
        return (node.key is not None and node.key.members is not None) or may_convert(node.value, _seen)
    if isinstance(node, ObjectNode):
        if node.kind != "typeddict" or id(node) in _seen:
            return True
        inner_seen = _seen | {id(node)}
        extra = node.extra is not None and may_convert(node.extra, inner_seen)
        return extra or any(may_convert(field.node, inner_seen) for field in node.fields)
    if isinstance(node, UnionNode):
        return any(may_convert(member, _seen) for member in node.members)
    return False


# Which union member a JSON value belongs to, decided once per union at definition time.
#
# Validation only says a value matches *some* member (``anyOf``); conversion must know which one to build.
# We dispatch on the JSON type of the value, so two members arriving as the same JSON type are a problem only
# when one of them needs converting. Two ways out stay cheap at call time: members that are all Literals/Enums
# with disjoint values (dispatch on the value), or objects that all carry a Literal tag field (dispatch on the
# tag). Anything else is refused at definition time rather than guessed at call time.


def union_problem(members: Sequence[Node], texts: Sequence[str]) -> str | None:
    """Why a value of this union could not be converted unambiguously, with the fix; None when it can."""
    kinds = sorted(frozenset().union(*(member.kinds for member in members)))
    for kind in kinds:
        candidates = [index for index, member in enumerate(members) if kind in member.kinds]
        if len(candidates) < 2 or not any(may_convert(members[index]) for index in candidates):
            continue
        nodes = [unwrap(members[index]) for index in candidates]
        choices = [node for node in nodes if isinstance(node, ChoiceNode)]
        if len(choices) == len(nodes) and values_disjoint(choices):
            continue
        objects = [node for node in nodes if isinstance(node, ObjectNode)]
        if kind == "object" and len(objects) == len(nodes) and find_tag(objects) is not None:
            continue
        if kind == "string" and disjoint_formats(nodes) is not None:
            continue
        names = " and ".join(texts[index] for index in candidates)
        return (
            f"the union members {names} all arrive as JSON {kind} values and at least one of them is "
            "converted to a Python type, so mcptools cannot tell which member a value is meant to be; keep "
            "one of them, "
            "use Literal/Enum members with distinct values, or give each object member a Literal tag field "
            "with its own value"
        )
    return None


def disjoint_formats(nodes: Sequence[Node]) -> list[str] | None:
    """The format of each node when all are standard types whose string forms never overlap (an IPv4 or an IPv6
    address; a date or a datetime), so the value's form says which member it is; else None."""
    if not all(isinstance(node, StdNode) for node in nodes):
        return None
    from .stdtypes import DISJOINT_FORMATS  # loaded already: these nodes hold its entries

    formats = [node.std.keywords.get("format") for node in nodes if isinstance(node, StdNode)]
    if len(set(formats)) == len(formats) and all(name in DISJOINT_FORMATS for name in formats):
        return [str(name) for name in formats]
    return None


def values_disjoint(choices: Sequence[ChoiceNode]) -> bool:
    seen: set[tuple[bool, object]] = set()
    for choice in choices:
        for value in choice.values:
            key = (isinstance(value, bool), value)
            if key in seen:
                return False
            seen.add(key)
    return True


def find_tag(objects: Sequence[ObjectNode]) -> str | None:
    """A field every object requires, typed as a Literal/Enum, with values no two objects share."""
    if not objects:
        return None
    for field in objects[0].fields:
        choices: list[ChoiceNode] = []
        for node in objects:
            match = next((f for f in node.fields if f.name == field.name and f.required), None)
            tag = unwrap(match.node) if match is not None else None
            if not isinstance(tag, ChoiceNode):
                break
            choices.append(tag)
        else:
            if values_disjoint(choices):
                return field.name
    return None
