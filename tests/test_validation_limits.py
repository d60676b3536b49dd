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
