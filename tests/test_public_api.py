"""The public surface is small, sorted and deliberate."""

from __future__ import annotations

import re
from pathlib import Path

import mcptools

EXPECTED = [
    "ClientRequestError",
    "MCPToolsError",
    "Param",
    "ProtocolError",
    "SchemaError",
    "Tool",
    "ToolAnnotations",
    "ToolDefinitionError",
    "ToolError",
    "ToolRegistry",
    "URLElicitationRequired",
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
    # mcptools.testing is a public submodule that ``import mcptools`` never loads (it needs asyncio); once some
    # test imported it, it is an attribute of the package like any submodule.
    public = {name for name in dir(mcptools) if not name.startswith("_")} - {"testing"}
    assert public == set(mcptools.__all__)


def test_import_mcptools_does_not_load_the_test_client() -> None:
    import subprocess
    import sys

    code = "import sys, mcptools; print('mcptools.testing' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


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


def test_every_public_exception_derives_from_the_one_base() -> None:
    from mcptools._target import TargetError

    errors = [getattr(mcptools, name) for name in mcptools.__all__ if name.endswith("Error")]
    assert len(errors) >= 6
    for error in [*errors, TargetError]:
        assert issubclass(error, mcptools.MCPToolsError), error
    # Still what the standard library's idioms expect of the two definition-time errors.
    assert issubclass(mcptools.ToolDefinitionError, TypeError)
    assert issubclass(mcptools.SchemaError, ValueError)


def test_the_readme_error_tree_names_every_public_exception() -> None:
    # The README still draws the tree by hand until it becomes the docs' front page; the docs draw it from the
    # classes (tests/test_docs_generated.py).
    from mcptools._target import TargetError

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    public = [getattr(mcptools, name) for name in mcptools.__all__]
    exceptions = [item for item in public if isinstance(item, type) and issubclass(item, BaseException)]
    assert len(exceptions) >= 8
    for where, drawn in (("README.md", readme),):
        assert re.search(r"^ +MCPToolsError\b", drawn, flags=re.M), f"the root is missing in {where}"
        for error in [*exceptions, TargetError]:
            if error is mcptools.MCPToolsError:
                continue
            assert f"── {error.__name__} " in drawn, f"{error.__name__} is missing from the tree in {where}"


def test_version_comes_from_the_package_metadata_without_costing_the_import() -> None:
    import subprocess
    import sys
    from importlib.metadata import version

    assert mcptools.__version__ == version("mcptools")
    code = "import sys, mcptools; print('importlib.metadata' in sys.modules); print(mcptools.__version__)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.split() == ["False", version("mcptools")]
