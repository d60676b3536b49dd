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
    public = {name for name in dir(mcptools) if not name.startswith("_")}
    assert public == set(mcptools.__all__)


def test_lazy_names_resolve_and_unknown_names_fail_clearly() -> None:
    from mcptools._transports import StreamableHTTPApp, serve_stdio

    assert mcptools.StreamableHTTPApp is StreamableHTTPApp
    assert mcptools.serve_stdio is serve_stdio
    try:
        mcptools.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("expected AttributeError")


def test_importing_mcptools_does_not_import_the_transports() -> None:
    import subprocess
    import sys

    code = "import sys, mcptools; print(sorted(m for m in sys.modules if m.startswith('mcptools._transports')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == "[]"
