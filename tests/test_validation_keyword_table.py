"""A value keyword is its row in ``checks.VALUE_KEYWORDS``, its words, and its reading: no path keeps its own list.

The valid path (codegen), the generated errors path (errgen) and the collectors each learn which keywords a
schema has from the table. Here a row is added for a made-up object keyword whose bound is a ``Spec`` field no
path names (``format_name``), and every path must check it with no other change.
"""

from __future__ import annotations

import operator

import pytest

from mcptools import compile_schema
from mcptools._validation import checks, messages

_NO_PROPERTIES = checks.ValueKeyword(
    "formatMeansEmpty",  # an object with a format must be empty: made up for this test
    "object",
    "len({x}) != 0",
    lambda value, _: len(value) == 0,
    operator.attrgetter("format_name"),
)


@pytest.fixture
def new_keyword(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checks, "VALUE_KEYWORDS", (*checks.VALUE_KEYWORDS, _NO_PROPERTIES))
    monkeypatch.setitem(messages.KEYWORD_WORDS, "formatMeansEmpty", ("be", "empty, as format {!r} says", None))


@pytest.mark.usefixtures("new_keyword")
@pytest.mark.parametrize(
    "schema",
    [
        {"format": "nothing"},  # only the new keyword: the object checks must not be skipped as "none here"
        {"$ref": "#/$defs/a", "$defs": {"a": {}}, "format": "nothing"},  # beside a $ref: the keyword is own
        {"allOf": [{"format": "nothing"}, True]},  # the collectors
    ],
)
def test_a_new_row_is_checked_on_every_path(schema: dict[str, object]) -> None:
    validator = compile_schema(schema)
    assert validator.is_valid({})
    assert not validator.is_valid({"a": 1})
    assert validator.errors({"a": 1}) == ["value must be empty, as format 'nothing' says"]
    assert validator.errors({}) == []
