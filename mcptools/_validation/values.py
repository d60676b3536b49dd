"""JSON value semantics the compiled checkers call at run time.

Equality keys, enum/const, uniqueness, multipleOf.

JSON equality differs from Python's: ``true`` is not ``1`` and ``0`` is not ``false``, but ``1`` equals
``1.0``. ``json_key`` maps a value to a hashable key with exactly JSON's equality, so enum membership and
uniqueItems are set lookups (linear) instead of pairwise comparisons (quadratic on a hostile array).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["has_unique_items", "is_multiple_of", "json_key", "matcher"]


@dataclass(slots=True, eq=False)
class _Tag:
    name: str

    def __repr__(self) -> str:
        return self.name


_MAX_DEPTH = 256  # depth.MAX_DEPTH (not imported: this module is also used where that one is not)
_BOOLEAN = _Tag("boolean")
_ARRAY = _Tag("array")
_OBJECT = _Tag("object")
_NULL = _Tag("null")


def json_key(value: Any, depth: int = 0) -> Any:
    """A hashable key: two values get equal keys exactly when they are equal as JSON.

    Deeper than ``depth.MAX_DEPTH`` levels it raises ``RecursionError`` itself, which the entry points report
    as ``value nests too deeply to validate``: the same answer however deep the caller's stack already is.
    """
    kind = type(value)
    if kind is str or kind is int or kind is float:
        return value
    if kind is bool:
        return (_BOOLEAN, value)
    if value is None:
        return _NULL
    if isinstance(value, (dict, list, tuple)):
        if depth >= _MAX_DEPTH:
            raise RecursionError("value nests too deeply")
        if isinstance(value, dict):
            return (_OBJECT, frozenset((key, json_key(item, depth + 1)) for key, item in value.items()))
        return (_ARRAY, tuple(json_key(item, depth + 1) for item in value))
    if isinstance(value, str):
        return str(value)
    if isinstance(value, (int, float)):
        return value + 0
    return (_Tag(repr(value)),)


def has_unique_items(items: list[Any] | tuple[Any, ...]) -> bool:
    seen = set()
    for item in items:
        key = json_key(item)
        if key in seen:
            return False
        seen.add(key)
    return True


def matcher(allowed: list[Any]) -> Callable[[Any], bool]:
    """A predicate for "is JSON-equal to one of ``allowed``", specialised for the common all-string case."""
    if allowed and all(type(value) is str for value in allowed):
        strings = frozenset(allowed)
        return lambda value: isinstance(value, str) and value in strings
    keys = frozenset(json_key(value) for value in allowed)
    return lambda value: json_key(value) in keys


def is_multiple_of(value: Any, divisor: Any) -> bool:
    """Exact decimal ``multipleOf``: 0.0075 is a multiple of 0.0001, as the JSON text says."""
    if type(value) is int and type(divisor) is int:
        return value % divisor == 0
    from fractions import Fraction

    def exact(number: Any) -> Fraction:
        return Fraction(int(number)) if isinstance(number, int) else Fraction(repr(float(number)))

    try:
        quotient = exact(value) / exact(divisor)
    except (ValueError, OverflowError, ZeroDivisionError):
        return False
    return quotient.denominator == 1
