"""JSON semantics in Python.

Python's data model differs from JSON's in ways that matter to a validator: ``True`` is an ``int``,
``1 == True``, and ``2.0`` is a ``float`` where JSON Schema's ``integer`` (as our contract reads it) means an
``int`` only. Everything here answers the JSON question, never the Python one.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeAlias

__all__ = [
    "JSON_TYPES",
    "JSON_TYPE_NAMES",
    "JSONObject",
    "is_json_type",
    "json_equal",
    "json_type_name",
    "resolve_pointer",
]

JSONObject: TypeAlias = dict[str, Any]

JSON_TYPE_NAMES = frozenset({"null", "boolean", "integer", "number", "string", "array", "object"})


def _is_string(value: object) -> bool:
    return type(value) is str or isinstance(value, str)


def _is_integer(value: object) -> bool:
    return isinstance(value, int) and type(value) is not bool


def _is_number(value: object) -> bool:
    # NaN and Infinity are not JSON numbers (JSON cannot even spell them).
    return type(value) is not bool and (isinstance(value, int) or (isinstance(value, float) and math.isfinite(value)))


def _is_boolean(value: object) -> bool:
    return value is True or value is False


def _is_null(value: object) -> bool:
    return value is None


def _is_object(value: object) -> bool:
    return isinstance(value, dict)


def _is_array(value: object) -> bool:
    return isinstance(value, (list, tuple))


# The package's one table of JSON type predicates: name -> (run-time test, the same test as Python source over
# ``{0}``, which compiled validators inline; exact types first because they are the common, cheap case).
# tests/test_json_semantics.py checks that each pair agrees.
JSON_TYPES: dict[str, tuple[Callable[[object], bool], str]] = {
    "string": (_is_string, "(type({0}) is str or isinstance({0}, str))"),
    "integer": (_is_integer, "(type({0}) is int or (isinstance({0}, int) and not isinstance({0}, bool)))"),
    # x - x is 0 (falsy) only for a finite float.
    "number": (
        _is_number,
        "(type({0}) is int or (type({0}) is float and not {0} - {0}) or "
        "(isinstance({0}, (int, float)) and not isinstance({0}, bool) and not {0} - {0}))",
    ),
    "boolean": (_is_boolean, "({0} is True or {0} is False)"),
    "null": (_is_null, "({0} is None)"),
    "object": (_is_object, "(type({0}) is dict or isinstance({0}, dict))"),
    "array": (_is_array, "(type({0}) is list or isinstance({0}, (list, tuple)))"),
}


def is_json_type(value: object, type_name: str) -> bool:
    """Whether ``value`` is of JSON Schema type ``type_name`` (``integer`` is ``int`` only, bools are not numbers)."""
    entry = JSON_TYPES.get(type_name)
    return entry is not None and entry[0](value)


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


def resolve_pointer(root: object, pointer: str) -> object | None:
    """The value at a JSON pointer (``/$defs/Point``), or None when it does not exist."""
    if pointer == "":
        return root
    if not pointer.startswith("/"):
        return None
    node = root
    for raw in pointer[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node
