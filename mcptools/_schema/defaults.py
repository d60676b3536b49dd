"""Does a parameter's published schema accept its default? Answered without generating any code.

Derivation refuses a default its own schema rejects, at definition time. Compiling a validator for that one
question cost a tool more than everything else about registering it, so ``surely_accepts`` reads the derived
schema directly. It only ever answers "yes, valid" or "cannot tell": it knows the keywords derivation emits,
and anything else (an unknown keyword, a ``pattern``, ``oneOf``, ``not``, a keyword value of an unexpected
shape) makes it give up. Derivation then asks the compiled validator, which also writes the messages. So a
"yes" here must never be wrong, and ``tests/test_derive_defaults.py`` checks it against the compiled validator
on generated schemas and values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from .._json import JSON_TYPE_NAMES, is_json_type, json_equal

__all__ = ["surely_accepts"]

# Keywords that never change whether a value is valid (``format`` is an annotation unless assertion is on,
# and derivation's check never turns it on).
_ANNOTATIONS: Final = frozenset(
    {"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment", "format"}
)
_MAX_DEPTH: Final = 32
# uniqueItems is checked pairwise here; a longer default goes to the compiled validator, which hashes.
_MAX_PAIRWISE: Final = 64
_BOUNDS: Final[dict[str, Callable[[Any, Any], bool]]] = {
    "minimum": lambda value, bound: value >= bound,
    "maximum": lambda value, bound: value <= bound,
    "exclusiveMinimum": lambda value, bound: value > bound,
    "exclusiveMaximum": lambda value, bound: value < bound,
}
_COUNTS: Final[dict[str, tuple[Callable[[Any], bool], Callable[[int, int], bool]]]] = {
    "minLength": (lambda value: isinstance(value, str), lambda size, bound: size >= bound),
    "maxLength": (lambda value: isinstance(value, str), lambda size, bound: size <= bound),
    "minItems": (lambda value: isinstance(value, (list, tuple)), lambda size, bound: size >= bound),
    "maxItems": (lambda value: isinstance(value, (list, tuple)), lambda size, bound: size <= bound),
    "minProperties": (lambda value: isinstance(value, dict), lambda size, bound: size >= bound),
    "maxProperties": (lambda value: isinstance(value, dict), lambda size, bound: size <= bound),
}


def surely_accepts(schema: Any, value: Any, defs: Any) -> bool:
    """True only if ``value`` is valid against ``schema``, whose ``$ref``s point into the root's ``defs``.

    False means "not shown valid": the value may still be valid, and the caller must ask a real validator.
    """
    return _accepts(schema, value, defs if isinstance(defs, dict) else {}, 0)


def _accepts(schema: Any, value: Any, defs: dict[str, Any], depth: int) -> bool:
    if schema is True:
        return True
    if type(schema) is not dict or depth > _MAX_DEPTH:
        return False
    for keyword, rule in schema.items():
        if keyword in _ANNOTATIONS:
            continue
        if keyword in _BOUNDS:
            if not _is_number(rule):
                return False
            if _is_number(value) and not _BOUNDS[keyword](value, rule):
                return False
        elif keyword in _COUNTS:
            applies, holds = _COUNTS[keyword]
            if type(rule) is not int or rule < 0:
                return False
            if applies(value) and not holds(len(value), rule):
                return False
        elif not _keyword_accepts(keyword, rule, schema, value, defs, depth):
            return False
    return True


def _keyword_accepts(
    keyword: str, rule: Any, schema: dict[str, Any], value: Any, defs: dict[str, Any], depth: int
) -> bool:
    """The keywords that look at more than one number; an unknown keyword is never accepted."""
    if keyword == "type":
        names = [rule] if type(rule) is str else rule
        if type(names) is not list or not names or not all(name in JSON_TYPE_NAMES for name in names):
            return False
        return len(set(names)) == len(names) and any(is_json_type(value, name) for name in names)
    if keyword == "enum":
        return type(rule) is list and any(json_equal(value, allowed) for allowed in rule)
    if keyword == "const":
        return json_equal(value, rule)
    if keyword == "anyOf":
        return type(rule) is list and any(_accepts(branch, value, defs, depth + 1) for branch in rule)
    if keyword == "allOf":
        return type(rule) is list and bool(rule) and all(_accepts(part, value, defs, depth + 1) for part in rule)
    if keyword == "$ref":
        target = _local_definition(rule, defs)
        return target is not None and _accepts(target, value, defs, depth + 1)
    if keyword in ("items", "prefixItems", "uniqueItems"):
        return _array_accepts(keyword, rule, schema, value, defs, depth)
    if keyword in ("properties", "required", "additionalProperties", "propertyNames"):
        return _object_accepts(keyword, rule, schema, value, defs, depth)
    return False


def _array_accepts(
    keyword: str, rule: Any, schema: dict[str, Any], value: Any, defs: dict[str, Any], depth: int
) -> bool:
    prefix = schema.get("prefixItems", [])
    if type(prefix) is not list:
        return False
    if keyword == "uniqueItems":
        if type(rule) is not bool or (rule and isinstance(value, (list, tuple)) and len(value) > _MAX_PAIRWISE):
            return False
        if not rule or not isinstance(value, (list, tuple)):
            return True
        return all(not json_equal(a, b) for i, a in enumerate(value) for b in value[i + 1 :])
    if keyword == "prefixItems":
        if not isinstance(value, (list, tuple)):
            return True
        return all(_accepts(part, item, defs, depth + 1) for part, item in zip(prefix, value, strict=False))
    if not _is_schema(rule):
        return False
    if not isinstance(value, (list, tuple)):
        return True
    # "items" applies to the items after the prefix.
    return all(_accepts(rule, item, defs, depth + 1) for item in value[len(prefix) :])


def _object_accepts(
    keyword: str, rule: Any, schema: dict[str, Any], value: Any, defs: dict[str, Any], depth: int
) -> bool:
    properties = schema.get("properties", {})
    if type(properties) is not dict or "patternProperties" in schema:
        return False
    if keyword == "required":
        if type(rule) is not list or not all(type(name) is str for name in rule):
            return False
        return not isinstance(value, dict) or all(name in value for name in rule)
    if keyword == "properties":
        return not isinstance(value, dict) or all(
            name not in value or _accepts(part, value[name], defs, depth + 1) for name, part in properties.items()
        )
    if not _is_schema(rule):
        return False
    if not isinstance(value, dict):
        return True
    if keyword == "propertyNames":
        return all(_accepts(rule, name, defs, depth + 1) for name in value)
    # "additionalProperties" applies to the names "properties" does not declare.
    return all(_accepts(rule, item, defs, depth + 1) for name, item in value.items() if name not in properties)


def _is_schema(rule: Any) -> bool:
    return type(rule) is dict or type(rule) is bool


def _local_definition(reference: Any, defs: dict[str, Any]) -> Any:
    """The schema ``#/$defs/<name>`` names (the only references derivation writes), else None."""
    if type(reference) is not str or not reference.startswith("#/$defs/"):
        return None
    name = reference[len("#/$defs/") :]
    if not name or any(character in name for character in "/~%"):
        return None
    return defs.get(name)


def _is_number(value: Any) -> bool:
    # JSON numbers only: a bool is not one, and NaN / Infinity have no JSON spelling.
    return is_json_type(value, "number")
