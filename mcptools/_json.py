"""JSON semantics in Python.

Python's data model differs from JSON's in ways that matter to a validator: ``True`` is an ``int``,
``1 == True``, and ``2.0`` is a ``float`` where JSON Schema's ``integer`` (as our contract reads it) means an
``int`` only. Everything here answers the JSON question, never the Python one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

__all__ = [
    "JSON_TYPE_NAMES",
    "JSONObject",
    "JSONValue",
    "is_json_type",
    "json_equal",
    "json_type_name",
]

JSONValue: TypeAlias = bool | int | float | str | list[Any] | dict[str, Any] | None
JSONObject: TypeAlias = dict[str, Any]

JSON_TYPE_NAMES = frozenset({"null", "boolean", "integer", "number", "string", "array", "object"})


def is_json_type(value: object, type_name: str) -> bool:
    """Whether ``value`` is of JSON Schema type ``type_name`` (``integer`` is ``int`` only, bools are not numbers)."""
    cls = type(value)
    if type_name == "string":
        return cls is str or isinstance(value, str)
    if type_name == "integer":
        return isinstance(value, int) and cls is not bool
    if type_name == "number":
        # NaN and Infinity are not JSON numbers (JSON cannot even spell them).
        return cls is not bool and (isinstance(value, int) or (isinstance(value, float) and math.isfinite(value)))
    if type_name == "boolean":
        return cls is bool
    if type_name == "object":
        return isinstance(value, dict)
    if type_name == "array":
        return isinstance(value, (list, tuple))
    if type_name == "null":
        return value is None
    return False


def json_type_name(value: object) -> str:
    """The JSON type of ``value`` as a word for messages (``integer`` for ints, ``number`` for floats)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def json_equal(a: object, b: object) -> bool:
    """JSON equality: ``true`` is not ``1``, ``0`` is not ``false``, ``1`` equals ``1.0``; containers deeply."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, float) and math.isnan(a):
            return False
        return a == b
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        if len(a) != len(b):
            return False
        return all(key in b and json_equal(value, b[key]) for key, value in a.items())
    if isinstance(a, Sequence) and isinstance(b, Sequence):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return False
