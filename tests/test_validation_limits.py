"""Fixed limits: instance nesting (256 levels, whatever the caller's stack) and the number of errors."""

from __future__ import annotations

from typing import Any

import pytest

from mcptools._validation import compile_schema
from mcptools._validation.depth import MAX_DEPTH

TOO_DEEP = ["value nests too deeply to validate"]
TREE = {"type": "array", "items": {"$ref": "#"}}


def nested(levels: int) -> Any:
    value: Any = []
    for _ in range(levels - 1):
        value = [value]
    return value


def call_from_depth(frames: int, function: Any, value: Any) -> Any:
    if frames == 0:
        return function(value)
    return call_from_depth(frames - 1, function, value)


def test_the_limit_is_256_levels() -> None:
    assert MAX_DEPTH == 256
    tree = compile_schema(TREE)
    assert tree.is_valid(nested(256))
    assert tree.errors(nested(256)) == []
    assert not tree.is_valid(nested(257))
    assert tree.errors(nested(257)) == TOO_DEEP


@pytest.mark.parametrize("frames", [0, 300, 700])
def test_the_answer_does_not_depend_on_the_caller_s_stack(frames: int) -> None:
    tree = compile_schema(TREE)
    collector = compile_schema({"allOf": [{"type": ["array", "integer"], "items": {"$ref": "#"}}, True]})
    assert call_from_depth(frames, tree.is_valid, nested(256)) is True
    assert call_from_depth(frames, tree.errors, nested(256)) == []
    assert call_from_depth(frames, tree.errors, nested(257)) == TOO_DEEP
    bad = nested(255)
    inner = bad
    while inner:
        inner = inner[0]
    inner.append("x")
    path = "[0]" * 255
    assert call_from_depth(frames, collector.errors, bad) == [f"item '{path}' must be array or integer"]
    assert call_from_depth(frames, collector.errors, nested(300)) == TOO_DEEP


def test_deep_values_in_enum_and_unique_items_are_refused_at_the_same_limit() -> None:
    unique = compile_schema({"uniqueItems": True})
    assert unique.is_valid([nested(200), nested(201)])
    assert unique.errors([nested(300)]) == TOO_DEEP
    assert call_from_depth(700, unique.errors, [nested(250)]) == []


def test_a_non_recursive_schema_does_not_limit_what_it_never_looks_into() -> None:
    assert compile_schema({"type": "array"}).is_valid(nested(5000))


@pytest.mark.parametrize("wrap", [lambda s: s, lambda s: {"allOf": [s, True]}], ids=["generated", "collector"])
def test_errors_are_capped_with_a_count_of_the_rest(wrap: Any) -> None:
    from mcptools._validation.compile import MAX_ERRORS

    assert MAX_ERRORS == 100
    checker = compile_schema(wrap({"type": "array", "items": {"type": "string"}}))
    found = checker.errors(list(range(100_000)))
    assert len(found) == 100
    assert found[:2] == ["item '[0]' must be string", "item '[1]' must be string"]
    assert found[98] == "item '[98]' must be string"
    assert found[99] == "... and 99901 more errors"
    exactly = checker.errors(list(range(100)))
    assert len(exactly) == 100
    assert exactly[-1] == "item '[99]' must be string"
    assert checker.errors(list(range(101)))[-1] == "... and 2 more errors"
