"""The keywords that test one value against one bound: a table every path reads, one row a keyword.

A row names the JSON type the keyword constrains (any other value passes it), the test as source for the
generated paths (over the value ``{x}`` and the bound's constant ``{b}``; true when the value FAILS), the same
test at run time for the collectors (true when it holds), and where the bound and the quoted value sit in the
keyword's ``Spec``. Its words are ``messages.KEYWORD_WORDS`` under the same keyword.

``codegen`` (the valid path), ``errgen`` (the generated errors path) and ``collect`` (the errors path for
everything else) each loop over ``VALUE_KEYWORDS`` in its order, which is also the order a location's first
failing keyword is chosen in. So a keyword of this kind is added with a row here, its words in ``messages`` and
its reading in ``keywords`` (see the package docstring). Keywords that reach into children or other schemas
(``properties``, ``items``, ``contains``, ``anyOf`` ...) are written out in each path instead.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, final

from mcptools._json import JSON_TYPES

from .values import has_unique_items, is_multiple_of

__all__ = ["VALUE_KEYWORDS", "ValueKeyword", "rows_for"]


@final
@dataclass(frozen=True, slots=True)
class ValueKeyword:
    keyword: str
    applies_to: str  # "number", "string", "object" or "array"
    fails: str  # source over "{x}" and "{b}", true when the value fails the keyword
    holds: Callable[[Any, Any], bool]  # (value, bound) -> passes; called only on values of ``applies_to``
    bound: Callable[[Any], Any]  # Spec -> what the test compares with (None: the keyword is absent)
    shown: Callable[[Any], Any] | None = None  # Spec -> the value the message quotes, when not the bound
    prefix: str = "N"  # the bound's constant name in generated source: N3, P4, F5

    def message_value(self, spec: Any) -> Any:
        return (self.shown or self.bound)(spec)

    def is_applicable(self, value: Any) -> bool:
        return JSON_TYPES[self.applies_to][0](value)


def _length_at_least(value: Any, size: int) -> bool:
    return len(value) >= size


def _length_at_most(value: Any, size: int) -> bool:
    return len(value) <= size


def _unique(spec: Any) -> bool | None:
    return True if spec.unique_items else None


def _pattern(spec: Any) -> Any:
    return None if spec.pattern is None else spec.pattern[0]


def _pattern_source(spec: Any) -> Any:
    return None if spec.pattern is None else spec.pattern[1]


_get = operator.attrgetter

VALUE_KEYWORDS: tuple[ValueKeyword, ...] = (
    ValueKeyword("minimum", "number", "{x} < {b}", operator.ge, _get("minimum")),
    ValueKeyword("maximum", "number", "{x} > {b}", operator.le, _get("maximum")),
    ValueKeyword("exclusiveMinimum", "number", "{x} <= {b}", operator.gt, _get("exclusive_minimum")),
    ValueKeyword("exclusiveMaximum", "number", "{x} >= {b}", operator.lt, _get("exclusive_maximum")),
    ValueKeyword("multipleOf", "number", "not MULTIPLE({x}, {b})", is_multiple_of, _get("multiple_of")),
    ValueKeyword("minLength", "string", "len({x}) < {b}", _length_at_least, _get("min_length")),
    ValueKeyword("maxLength", "string", "len({x}) > {b}", _length_at_most, _get("max_length")),
    ValueKeyword(
        "pattern",
        "string",
        "{b}.search({x}) is None",
        lambda value, regex: regex.search(value) is not None,
        _pattern,
        _pattern_source,
        "P",
    ),
    ValueKeyword(
        "format", "string", "not {b}({x})", lambda value, check: check(value), _get("format"), _get("format_name"), "F"
    ),
    ValueKeyword("minProperties", "object", "len({x}) < {b}", _length_at_least, _get("min_properties")),
    ValueKeyword("maxProperties", "object", "len({x}) > {b}", _length_at_most, _get("max_properties")),
    ValueKeyword("minItems", "array", "len({x}) < {b}", _length_at_least, _get("min_items")),
    ValueKeyword("maxItems", "array", "len({x}) > {b}", _length_at_most, _get("max_items")),
    ValueKeyword("uniqueItems", "array", "not UNIQUE({x})", lambda value, _: has_unique_items(value), _unique),
)


def rows_for(spec: Any, *kinds: str) -> list[tuple[ValueKeyword, Any]]:
    """(row, bound) for each keyword ``spec`` has among those constraining ``kinds``, in table order."""
    found: list[tuple[ValueKeyword, Any]] = []
    for row in VALUE_KEYWORDS:
        if row.applies_to in kinds:
            bound = row.bound(spec)
            if bound is not None:
                found.append((row, bound))
    return found
