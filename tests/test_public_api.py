"""The public surface is small, sorted and deliberate."""

from __future__ import annotations

import mcptools

EXPECTED = [
    "Param",
    "SchemaError",
    "Tool",
    "ToolAnnotations",
    "ToolDefinitionError",
    "ToolError",
    "ToolRegistry",
    "Validator",
    "call_tool",
    "compile_schema",
    "tool",
    "validate",
]


def test_all_is_sorted_and_complete() -> None:
    assert mcptools.__all__ == sorted(mcptools.__all__)
    assert set(EXPECTED) <= set(mcptools.__all__)
    for name in mcptools.__all__:
        assert hasattr(mcptools, name), name


def test_no_private_module_leaks_into_the_namespace() -> None:
    public = {name for name in vars(mcptools) if not name.startswith("_")}
    assert public == set(mcptools.__all__)
