"""``Param``: a parameter's description and constraints, written next to its type with ``Annotated``.

``Annotated[int, Param("How many days", minimum=1, maximum=16)]`` publishes
``{"type": "integer", "description": "How many days", "minimum": 1, "maximum": 16}``. Field names are Python's
(``min_length``); the published keywords are JSON Schema's (``minLength``). Whether a constraint fits the
type it is attached to (``min_length`` on an ``int`` cannot) is only known where the type is, so
``param_problem`` takes the JSON types of that type and derivation turns the answer into a
``ToolDefinitionError`` naming the tool.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass, fields
from typing import Any, Final

from .._json import JSONObject
from .model import json_problem

__all__ = ["Param", "param_problem"]

# Python field name -> JSON Schema keyword, in the order keywords are published.
_KEYWORDS: Final = (
    ("title", "title"),
    ("description", "description"),
    ("minimum", "minimum"),
    ("exclusive_minimum", "exclusiveMinimum"),
    ("maximum", "maximum"),
    ("exclusive_maximum", "exclusiveMaximum"),
    ("multiple_of", "multipleOf"),
    ("min_length", "minLength"),
    ("max_length", "maxLength"),
    ("pattern", "pattern"),
    ("format", "format"),
    ("min_items", "minItems"),
    ("max_items", "maxItems"),
    ("unique_items", "uniqueItems"),
    ("min_properties", "minProperties"),
    ("max_properties", "maxProperties"),
    ("examples", "examples"),
    ("deprecated", "deprecated"),
)

_NUMBER_FIELDS: Final = ("minimum", "exclusive_minimum", "maximum", "exclusive_maximum", "multiple_of")
_STRING_FIELDS: Final = ("min_length", "max_length", "pattern", "format")
_ARRAY_FIELDS: Final = ("min_items", "max_items", "unique_items")
_OBJECT_FIELDS: Final = ("min_properties", "max_properties")
_COUNT_FIELDS: Final = (
    "min_length",
    "max_length",
    "min_items",
    "max_items",
    "min_properties",
    "max_properties",
)

# Which JSON types a constraint can say something about; anything else would be silently ignored by
# validators, which is exactly the kind of mistake we want to report at definition time.
_APPLIES_TO: Final = (
    (_NUMBER_FIELDS, frozenset({"integer", "number"}), "a number (int or float)"),
    (_STRING_FIELDS, frozenset({"string"}), "a string"),
    (_ARRAY_FIELDS, frozenset({"array"}), "an array (list, tuple, set)"),
    (_OBJECT_FIELDS, frozenset({"object"}), "an object (dict, TypedDict, dataclass)"),
)


@dataclass(frozen=True, slots=True)
class Param:
    """Describe and constrain one parameter (or field, or item) inside ``Annotated[T, Param(...)]``.

    Every field is optional; only the ones given are published. ``description`` may be given positionally.
    """

    description: str | None = None
    _: KW_ONLY
    title: str | None = None
    minimum: int | float | None = None
    maximum: int | float | None = None
    exclusive_minimum: int | float | None = None
    exclusive_maximum: int | float | None = None
    multiple_of: int | float | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    format: str | None = None
    min_items: int | None = None
    max_items: int | None = None
    unique_items: bool | None = None
    min_properties: int | None = None
    max_properties: int | None = None
    examples: Sequence[Any] | None = None
    deprecated: bool | None = None

    def __post_init__(self) -> None:
        # A frozen Param must be hashable, so keep examples as a tuple whatever sequence was given.
        if self.examples is not None and not isinstance(self.examples, tuple):
            object.__setattr__(self, "examples", tuple(self.examples))

    def keywords(self) -> JSONObject:
        """The JSON Schema keywords this Param publishes, in a stable order, leaving out those not given."""
        out: JSONObject = {}
        for field_name, keyword in _KEYWORDS:
            value = getattr(self, field_name)
            if value is not None:
                out[keyword] = list(value) if field_name == "examples" else value
        return out

    def __repr__(self) -> str:
        given = ", ".join(
            f"{f.name}={getattr(self, f.name)!r}" for f in fields(self) if getattr(self, f.name) is not None
        )
        return f"Param({given})"


def param_problem(param: Param, json_types: frozenset[str], type_text: str) -> str | None:
    """What is wrong with ``param`` on a type accepting ``json_types`` (named ``type_text``), or None.

    The answer is a sentence ending with the fix, meant to follow "parameter 'x': " in an error message.
    """
    problem = _value_problem(param)
    if problem is not None:
        return problem
    for names, applies_to, kind in _APPLIES_TO:
        for name in names:
            if getattr(param, name) is not None and not (json_types & applies_to):
                return (
                    f"{param!r} sets {name}, which only constrains {kind}, but the type is {type_text}; "
                    f"remove {name} or change the type"
                )
    return None


def _value_problem(param: Param) -> str | None:
    for name in ("description", "title", "pattern", "format"):
        value = getattr(param, name)
        if value is not None and not isinstance(value, str):
            return f"{param!r}: {name} must be a str, not {type(value).__name__}"
    for name in ("unique_items", "deprecated"):
        value = getattr(param, name)
        if value is not None and not isinstance(value, bool):
            return f"{param!r}: {name} must be a bool, not {type(value).__name__}"
    for name in _NUMBER_FIELDS:
        value = getattr(param, name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return f"{param!r}: {name} must be a finite int or float, not {value!r}"
    if param.multiple_of is not None and param.multiple_of <= 0:
        return f"{param!r}: multiple_of must be greater than 0"
    for name in _COUNT_FIELDS:
        value = getattr(param, name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            return f"{param!r}: {name} must be an int >= 0, not {value!r}"
    for low, high in (
        ("minimum", "maximum"),
        ("min_length", "max_length"),
        ("min_items", "max_items"),
        ("min_properties", "max_properties"),
    ):
        low_value, high_value = getattr(param, low), getattr(param, high)
        if low_value is not None and high_value is not None and low_value > high_value:
            return f"{param!r}: {low} ({low_value!r}) must not exceed {high} ({high_value!r}); nothing passes"
    for low, high in (
        ("exclusive_minimum", "maximum"),
        ("minimum", "exclusive_maximum"),
        ("exclusive_minimum", "exclusive_maximum"),
    ):
        low_value, high_value = getattr(param, low), getattr(param, high)
        if low_value is not None and high_value is not None and low_value >= high_value:
            return f"{param!r}: {low} ({low_value!r}) must be below {high} ({high_value!r}); nothing passes"
    if param.pattern is not None:
        try:
            re.compile(param.pattern)
        except re.error as exc:
            return f"{param!r}: pattern does not compile ({exc}); fix the regular expression"
    if param.examples is not None:
        for example in param.examples:
            problem = json_problem(example)
            if problem is not None:
                return f"{param!r}: example {example!r} is not a JSON value ({problem}); give JSON values only"
    return None
