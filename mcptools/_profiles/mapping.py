"""The way back from a profile: a tree of shapes, built beside the exported schema, that maps values both ways.

A shape describes only what differs between the two value spaces: property names (Gemini's rename), a null that
stands for an absent property (OpenAI strict, where every property must be sent), and, under an ``anyOf``, which
branch a value belongs to. ``None`` is the identity, so a schema the profile changes nowhere costs nothing.

The branch of a value is told by its form first: the JSON types a branch's exported schema takes and, for a
closed object, the property names it declares and requires. Going back (on every provider call) that decides
without running a schema: ``Optional[TypedDict]`` is told by ``value is None``, two objects by their keys. Only
when several branches take the form and map it differently do the schemas decide: the first branch whose
exported schema accepts the provider's value and whose original accepts the mapped value. Going out (tests), the
first branch whose original accepts the value and whose mapped form the exported schema accepts and maps back to
the value (a value no branch sends exactly has no provider form). The branch checkers are compiled on first use,
only for unions whose branches map differently.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, TypeAlias, final

from .._json import json_equal, json_type_name

__all__ = [
    "NOT_SENDABLE",
    "ArrayShape",
    "Branch",
    "Form",
    "NameRule",
    "ObjectShape",
    "Property",
    "RefShape",
    "Shape",
    "UnionShape",
    "back",
    "choose",
    "out",
]


@final
class _NotSendable:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NOT_SENDABLE"


NOT_SENDABLE: Final = _NotSendable()
"""``to_provider``'s answer for a value that has no exact form under the profile (OpenAI strict: an optional
property that takes null, left out; the model must send it, and null is a value there)."""


@final
class NameRule:
    """A name rule of a model API (its tool names, Gemini's property names), and how a name that breaks it is
    mapped: disallowed characters become ``_``, a disallowed first character gets a ``_`` before it, and a name
    too long (or mapped and near the limit) is cut with a hash of the whole name. Where two names map to one is
    decided by the caller (a tool left out, a schema refused)."""

    __slots__ = ("allowed", "first", "limit")

    def __init__(self, allowed: str, limit: int, first: str | None = None) -> None:
        self.allowed = re.compile(f"[^{allowed}]")
        self.limit = limit
        self.first = re.compile(f"[{first}]") if first else None

    def map(self, name: str) -> str:
        mapped = self.allowed.sub("_", name)
        if self.first is not None and not self.first.match(mapped):
            mapped = "_" + mapped
        if len(mapped) > self.limit or (mapped != name and len(mapped) > self.limit - 9):
            import hashlib  # only for names this long: it loads OpenSSL

            digest = hashlib.sha256(name.encode()).hexdigest()[:8]
            mapped = f"{mapped[: self.limit - 9]}_{digest}"
        return mapped


@final
@dataclass(slots=True, eq=False)
class Property:
    original: str
    provider: str
    shape: Shape
    # The provider's null stands for "absent" (an optional property whose schema refuses null, made nullable).
    null_is_absent: bool = False
    # The provider's schema requires it although the original does not (OpenAI strict: every property).
    must_send: bool = False


@final
@dataclass(slots=True, eq=False)
class ObjectShape:
    properties: list[Property]
    by_provider: dict[str, Property] = field(init=False)
    by_original: dict[str, Property] = field(init=False)

    def __post_init__(self) -> None:
        self.by_provider = {p.provider: p for p in self.properties}
        self.by_original = {p.original: p for p in self.properties}


@final
@dataclass(slots=True, eq=False)
class ArrayShape:
    items: Shape


@final
@dataclass(slots=True, eq=False)
class Branch:
    """One ``anyOf`` branch: its original schema and its exported one (as JSON Schema), each made a complete
    document by ``document`` (the root's definitions beside it), and the shape between them."""

    original: Mapping[str, Any]
    exported: Callable[[], Mapping[str, Any]]
    shape: Shape
    _checks: tuple[Callable[[Any], bool], Callable[[Any], bool]] | None = None
    _form: Form | None = None

    def checks(self) -> tuple[Callable[[Any], bool], Callable[[Any], bool]]:
        """(does the original accept it, does the exported schema accept it), compiled on first use."""
        if self._checks is None:
            self._checks = (_checker(self.original), _checker(self.exported()))
        return self._checks

    def takes(self, value: Any) -> bool:
        """Whether the provider's ``value`` has a form the exported branch takes (read on first use, when the
        walk has ended and the definitions are complete): its JSON type, and a closed object's names."""
        form = self._form
        if form is None:
            form = self._form = Form.of(self.exported())
        return form.takes(value)


@final
@dataclass(slots=True, frozen=True)
class Form:
    """What an exported branch says about a value's form: its JSON types (``None``: any) and, for a closed
    object, the names it declares (``None``: any) and requires."""

    kinds: frozenset[str] | None
    names: frozenset[str] | None = None
    required: frozenset[str] = frozenset()

    @staticmethod
    def of(document: Mapping[str, Any]) -> Form:
        node = _resolve(document, document)
        kinds = _kinds(node, document)
        properties = node.get("properties")
        if not isinstance(properties, dict) or node.get("additionalProperties") is not False:
            return Form(kinds)
        required = node.get("required")
        return Form(kinds, frozenset(properties), frozenset(required if isinstance(required, list) else ()))

    def takes(self, value: Any) -> bool:
        kinds = self.kinds
        if kinds is not None:
            kind = _KINDS.get(type(value)) or json_type_name(value)  # (read on every provider call)
            if kind not in kinds and not (kind == "integer" and "number" in kinds):
                return False
        names = self.names
        if names is not None and type(value) is dict:
            return value.keys() <= names and self.required <= value.keys()
        return True


# The JSON types of the values JSON decodes to, by their exact Python type; ``json_type_name`` tells the others.
_KINDS: Final[dict[type, str]] = {
    dict: "object",
    list: "array",
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    type(None): "null",
}


def _resolve(node: Any, document: Mapping[str, Any]) -> Mapping[str, Any]:
    """``node`` with a ``#/$defs/...`` ref followed (the only refs an exported branch keeps)."""
    for _ in range(50):
        ref = node.get("$ref") if isinstance(node, Mapping) else None
        if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
            break
        node = (document.get("$defs") or {}).get(ref[len("#/$defs/") :])
    return node if isinstance(node, Mapping) else {}


def _kinds(node: Mapping[str, Any], document: Mapping[str, Any]) -> frozenset[str] | None:
    kinds = node.get("type")
    if isinstance(kinds, str):
        return frozenset({kinds})
    if isinstance(kinds, list):
        return frozenset(kind for kind in kinds if isinstance(kind, str))
    if isinstance(node.get("enum"), list):
        return frozenset(json_type_name(value) for value in node["enum"])
    if "const" in node:
        return frozenset({json_type_name(node["const"])})
    branches = node.get("anyOf")
    if not isinstance(branches, list):
        return None
    found: set[str] = set()
    for branch in branches:
        more = _kinds(_resolve(branch, document), document)
        if more is None:
            return None
        found |= more
    return frozenset(found)


@final
@dataclass(slots=True, eq=False)
class UnionShape:
    branches: list[Branch]


@final
@dataclass(slots=True, eq=False)
class RefShape:
    """A named definition kept as a ``$ref`` (OpenAI's ``$defs``, which may recurse): its shape is looked up."""

    name: str
    table: dict[str, Shape]


Shape: TypeAlias = "ObjectShape | ArrayShape | UnionShape | RefShape | None"


def _checker(schema: Mapping[str, Any]) -> Callable[[Any], bool]:
    from .._errors import SchemaError
    from .._validation import compile_schema

    try:
        return compile_schema(dict(schema)).is_valid
    except SchemaError:  # a branch with a ref outside the definitions: the other side decides alone
        return lambda value: True


def back(shape: Shape, value: Any, depth: int = 0) -> Any:
    """The original value for a provider's ``value``."""
    if shape is None or depth > 200:
        return value
    if isinstance(shape, RefShape):
        return back(shape.table.get(shape.name), value, depth + 1)
    if isinstance(shape, UnionShape):
        return choose(shape, value, depth)[1]
    if isinstance(shape, ArrayShape):
        return [back(shape.items, item, depth + 1) for item in value] if isinstance(value, list) else value
    if not isinstance(value, dict):
        return value
    result: dict[str, Any] = {}
    for key, item in value.items():
        prop = shape.by_provider.get(key)
        if prop is None:
            result.setdefault(key, item)  # unknown to the profile: the original schema judges it
        elif item is not None or not prop.null_is_absent:
            # (most properties map as they are: no call for them, on every provider call)
            result[prop.original] = item if prop.shape is None else back(prop.shape, item, depth + 1)
    return result


def choose(shape: UnionShape, value: Any, depth: int = 0) -> tuple[Shape, Any]:
    """The shape of the branch a provider's ``value`` belongs to, and the value mapped back through it (the one
    place this is decided: ``back`` maps through it, error paths are named through it)."""
    fits = [branch for branch in shape.branches if branch.takes(value)]
    if len(fits) == 1:
        chosen = fits[0].shape
        return chosen, back(chosen, value, depth + 1)
    if fits and all(branch.shape is None for branch in fits):
        return None, value
    # Several branches take the value's form and map it differently (or none takes it): the schemas decide.
    fallback: tuple[Shape, Any] = (None, value)
    found = False
    for branch in fits or shape.branches:
        original_ok, exported_ok = branch.checks()
        if exported_ok(value):
            mapped = back(branch.shape, value, depth + 1)
            if original_ok(mapped):
                return branch.shape, mapped
            if not found:
                fallback, found = (branch.shape, mapped), True
    return fallback


def out(shape: Shape, value: Any, depth: int = 0) -> Any:
    """The provider's form of an original ``value``, or ``NOT_SENDABLE`` when it has no exact one."""
    if shape is None or depth > 200:
        return value
    if isinstance(shape, RefShape):
        return out(shape.table.get(shape.name), value, depth + 1)
    if isinstance(shape, UnionShape):
        matched = False
        for branch in shape.branches:
            original_ok, exported_ok = branch.checks()
            if original_ok(value):
                matched = True
                mapped = out(branch.shape, value, depth + 1)
                # Branches may overlap on the provider's side: a form counts only if it comes back as the value.
                if mapped is not NOT_SENDABLE and exported_ok(mapped) and json_equal(back(shape, mapped, depth), value):
                    return mapped
        return NOT_SENDABLE if matched else value
    if isinstance(shape, ArrayShape):
        if not isinstance(value, list):
            return value
        items = [out(shape.items, item, depth + 1) for item in value]
        return NOT_SENDABLE if any(item is NOT_SENDABLE for item in items) else items
    if not isinstance(value, dict):
        return value
    result: dict[str, Any] = {}
    for key, item in value.items():
        prop = shape.by_original.get(key)
        mapped = out(prop.shape, item, depth + 1) if prop is not None else item
        if mapped is NOT_SENDABLE:
            return NOT_SENDABLE
        result[prop.provider if prop is not None else key] = mapped
    for prop in shape.properties:
        if prop.must_send and prop.original not in value:
            if not prop.null_is_absent:
                return NOT_SENDABLE
            result[prop.provider] = None
    return result
