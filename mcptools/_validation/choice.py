"""Which branch of a failed anyOf / oneOf the value was meant for, so its own errors can explain it.

A discriminated union (pydantic's ``Field(discriminator=...)``, zod's ``discriminatedUnion``) fails usefully
only if the errors are the chosen branch's: ``missing required property 'pet.meow'``, not ``must match exactly
one of: Cat, Dog``. The branch is, in this order:

1. the one whose const / enum on a property (the discriminator; ``discriminator.propertyName`` when the schema
   names it, as OpenAPI does) matches the value;
2. the only one of the value's JSON type (a branch's types seen through allOf, $ref, anyOf and oneOf, see
   ``branch_types``); when no branch takes that type, the message is ``must be <types>``;
3. the one with the fewest errors; on a tie nothing is chosen and the branches are listed.

Used by both error paths (the generated one in ``errgen`` and the collectors in ``collect``); only after the
valid path has already said no.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, final

from mcptools._json import JSON_TYPES, json_type_name

from .keywords import Spec, SpecTable
from .messages import const_predicate, enum_predicate, type_predicate
from .resolve import Located
from .values import matcher

__all__ = ["BranchChooser", "Missing", "TypeMismatch", "WrongTag", "branch_types"]

T = TypeVar("T")


@final
@dataclass(slots=True, eq=False)
class TypeMismatch:
    """No branch takes the value's type: ``must be <words>``."""

    words: str


@final
@dataclass(slots=True, eq=False)
class Missing:
    """Every branch is told apart by property ``name``, which the value lacks."""

    name: str


@final
@dataclass(slots=True, eq=False)
class WrongTag:
    """Every branch is told apart by property ``name``, and the value's is none of theirs: ``must be one of``."""

    name: str
    words: str


def _resolve(specs: SpecTable, node: Located) -> Spec:
    """A branch's own keywords, through references that are all it holds (``{"$ref": "#/$defs/Cat"}``)."""
    spec = specs.spec(node)
    for _ in range(16):
        if spec.ref is None or spec.types is not None or spec.properties or spec.dynamic_name is not None:
            break
        spec = specs.spec(spec.ref)
    return spec


def _meet(left: list[str] | None, right: list[str] | None) -> list[str] | None:
    """The types both allow (``None`` is any type); ``number`` and ``integer`` meet in ``integer``."""
    if left is None or right is None:
        return right if left is None else left
    both: list[str] = []
    for name in left:
        if name in right:
            both.append(name)
        elif (name == "number" and "integer" in right) or (name == "integer" and "number" in right):
            both.append("integer")
    return list(dict.fromkeys(both))


def _join(options: list[list[str] | None]) -> list[str] | None:
    """The types any option allows; unknown if any option's are."""
    found: list[str] = []
    for option in options:
        if option is None:
            return None
        found.extend(option)
    if "number" in found:
        found = [name for name in found if name != "integer"]
    return list(dict.fromkeys(found))


def _value_types(values: list[Any]) -> list[str] | None:
    """The JSON types of a const's or an enum's values; a number is ``number`` (``1`` also takes ``1.0``)."""
    found: list[str] = []
    for value in values:
        name = json_type_name(value)
        if name not in JSON_TYPES:
            return None  # not a JSON value: no claim about its type
        found.append("number" if name == "integer" else name)
    return list(dict.fromkeys(found))


def branch_types(specs: SpecTable, node: Located, depth: int = 0) -> list[str] | None:
    """The JSON types a subschema can accept at all (its ``type``, and its const's or enum's values' types), seen
    through allOf, $ref, anyOf and oneOf; ``None``: any.

    Only ever a superset of the truth (a wrapper it cannot see through counts as any type), so a message built
    on it never claims the schema accepts less than it does.
    """
    spec = specs.spec(node)
    if spec.boolean is not None:
        return None if spec.boolean else []
    if depth > 16:
        return spec.types
    types = spec.types
    if spec.const is not None:
        types = _meet(types, _value_types([spec.const[0]]))
    if spec.enum is not None:
        types = _meet(types, _value_types(list(spec.enum)))
    if spec.ref is not None and spec.dynamic_name is None:
        types = _meet(types, branch_types(specs, spec.ref, depth + 1))
    for part in spec.all_of:
        types = _meet(types, branch_types(specs, part, depth + 1))
    for union in (spec.any_of, spec.one_of):
        if union:
            types = _meet(types, _join([branch_types(specs, branch, depth + 1) for branch in union]))
    return types


def _pinned(specs: SpecTable, spec: Spec, only: str | None) -> list[tuple[str, list[Any]]]:
    """(property name, allowed values) for each property a const or enum pins down."""
    found: list[tuple[str, list[Any]]] = []
    for name, child in spec.properties:
        if only is not None and name != only:
            continue
        pinned = _resolve(specs, child)
        if pinned.const is not None:
            found.append((name, [pinned.const[0]]))
        elif pinned.enum is not None:
            found.append((name, list(pinned.enum)))
    return found


@final
class BranchChooser:
    """Picks the branch to explain for one anyOf / oneOf, or the message to give instead."""

    __slots__ = ("_gates", "_tags", "_types", "shared_tag")

    def __init__(self, specs: SpecTable, parent: Spec, branches: list[Located]) -> None:
        discriminator = parent.node.schema.get("discriminator") if isinstance(parent.node.schema, dict) else None
        only = discriminator.get("propertyName") if isinstance(discriminator, dict) else None
        only = only if isinstance(only, str) else None
        resolved = [_resolve(specs, branch) for branch in branches]
        self._tags = [[(name, matcher(allowed)) for name, allowed in _pinned(specs, spec, only)] for spec in resolved]
        self._gates: list[Callable[[Any], bool] | None] = []
        # A branch's type seen through its wrappers: {"allOf": [{"type": "object"}]} takes objects only, and
        # a value no branch's type takes is told "must be <every branch's types>", never one branch's.
        accepted = [branch_types(specs, branch) for branch in branches]
        for types in accepted:
            if types is None:
                self._gates.append(None)
            else:
                tests = [JSON_TYPES[name][0] for name in types]
                self._gates.append(lambda v, t=tests: any(test(v) for test in t))  # type: ignore[misc]
        kinds: list[str] = []
        for types in accepted:
            kinds.extend(types or [])
        every_typed = all(types is not None for types in accepted)
        self._types = type_predicate(list(dict.fromkeys(kinds))) if every_typed and kinds else None
        # The property every branch pins, and all the values it may take: for "kind is none of these".
        self.shared_tag: tuple[str, str] | None = None
        pins = [_pinned(specs, spec, only) for spec in resolved]
        if pins and all(len(pin) == 1 for pin in pins) and len({pin[0][0] for pin in pins}) == 1:
            allowed = [value for pin in pins for value in pin[0][1]]
            words = const_predicate(allowed[0]) if len(allowed) == 1 else enum_predicate(allowed)
            self.shared_tag = (pins[0][0][0], words)

    def choose(self, value: Any, trial: Callable[[int], list[T]]) -> list[T] | TypeMismatch | Missing | WrongTag | None:
        """The chosen branch's errors (from ``trial(index)``), another verdict, or ``None``: list the branches."""
        if isinstance(value, dict):
            tagged = [
                i
                for i, tags in enumerate(self._tags)
                if any(name in value and test(value[name]) for name, test in tags)
            ]
            if len(tagged) == 1:
                found = trial(tagged[0])
                return found or None
            if not tagged and self.shared_tag is not None:
                name, words = self.shared_tag
                return WrongTag(name, words) if name in value else Missing(name)
        candidates = [i for i, gate in enumerate(self._gates) if gate is None or gate(value)]
        if not candidates and self._types is not None:
            return TypeMismatch(self._types)
        if not candidates:
            candidates = list(range(len(self._gates)))
        if len(candidates) == 1:
            return trial(candidates[0]) or None
        results = [trial(i) for i in candidates]
        sizes = [len(found) for found in results if found]
        if not sizes:
            return None
        fewest = min(sizes)
        best = [found for found in results if found and len(found) == fewest]
        return best[0] if len(best) == 1 else None
