"""NaN and Infinity are not JSON numbers: ``number`` refuses them (``integer`` never took them)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from mcptools._validation import compile_schema, validate

NON_FINITE = [math.nan, math.inf, -math.inf]


@pytest.mark.parametrize("value", NON_FINITE)
@pytest.mark.parametrize("wrap", [lambda s: s, lambda s: {"allOf": [s, True]}], ids=["generated", "collector"])
def test_number_rejects_non_finite_floats(value: float, wrap: Any) -> None:
    for kind in ("number", "integer"):
        checker = compile_schema(wrap({"type": kind}))
        assert not checker.is_valid(value)
        assert checker.errors(value) == [f"value must be {kind}"]
    bounded = compile_schema(wrap({"type": "number", "minimum": 0}))
    assert bounded.errors(value) == ["value must be number"]
    either = compile_schema(wrap({"type": ["number", "null"]}))
    assert not either.is_valid(value)


def test_finite_numbers_and_contract_arguments_are_unchanged() -> None:
    checker = compile_schema({"type": "number", "maximum": 1e308})
    assert checker.is_valid(1e308)
    assert checker.is_valid(-0.0)
    assert checker.is_valid(10**400) is False  # larger than the maximum, still a number
    assert compile_schema({"type": "number"}).is_valid(10**400)
    schema = {"type": "object", "properties": {"t": {"type": "number"}}}
    assert validate({"t": math.nan}, schema) == ["property 't' must be number"]
    assert validate({"t": 2.5}, schema) == []
