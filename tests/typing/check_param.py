"""Typing tests for ``Param`` and the derivation API, checked by `mypy --strict` (not run by pytest).

The wrong uses below carry `type: ignore[code]`: mypy --strict warns about unused ignores, so if a wrong use
stopped being an error, mypy would fail on this file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Any

from typing_extensions import assert_type

from mcptools import Param
from mcptools._schema import DerivedTool, Docstring, derive_tool, parse_docstring

days = Param("How many days", minimum=1, maximum=16)
assert_type(days, Param)
assert_type(days.description, str | None)
assert_type(days.minimum, int | float | None)
assert_type(days.min_length, int | None)
assert_type(days.pattern, str | None)
assert_type(days.unique_items, bool | None)
assert_type(days.examples, Sequence[Any] | None)
assert_type(days.keywords(), dict[str, Any])

Param(minimum=0.5, exclusive_maximum=2, multiple_of=0.5)
Param(examples=["a", "b"], deprecated=True, title="T", format="date")

# Only the description is positional; everything else is keyword-only.
Param("text", "title")  # type: ignore[call-arg]
# Constraints have their types.
Param(minimum="1")  # type: ignore[arg-type]
Param(min_length=1.5)  # type: ignore[arg-type]
Param(pattern=3)  # type: ignore[arg-type]
Param(unknown=1)  # type: ignore[call-arg]
# A Param is frozen: it may be shared by many annotations.
days.minimum = 2  # type: ignore[misc]


def tool(
    city: Annotated[str, Param("The city", min_length=1)],
    days: Annotated[int, Param(minimum=1)] = 1,
) -> str:
    return city * days


derived = derive_tool(tool)
assert_type(derived, DerivedTool)
assert_type(derived.input_schema, dict[str, Any])
assert_type(derived.description, str | None)
assert_type(derived.convert, Callable[[dict[str, Any]], dict[str, Any]] | None)
assert_type(derived.context_param, str | None)
assert_type(derived.output_schema, dict[str, Any] | None)
assert_type(derived.serialize_output, Callable[[Any], Any] | None)
derive_tool(tool, input_schema={"type": "object"}, name="renamed")
derive_tool(tool, {"type": "object"})  # type: ignore[call-arg]
derive_tool("not a function")  # type: ignore[arg-type]

parsed = parse_docstring(tool.__doc__)
assert_type(parsed, Docstring)
assert_type(parsed.params, dict[str, str])
assert_type(parsed.returns, str | None)
assert_type(parsed.description, str | None)
