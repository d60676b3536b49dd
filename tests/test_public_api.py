"""The public surface is small, sorted and deliberate."""

from __future__ import annotations

import builtins
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


def _package_exceptions() -> list[type[BaseException]]:
    """Every exception class defined in the package, imported module by module."""
    import importlib
    import pkgutil

    found: dict[str, type[BaseException]] = {}
    for module_info in pkgutil.walk_packages(mcptools.__path__, "mcptools."):
        if module_info.name.startswith("mcptools.providers") or module_info.name.endswith("_main__"):
            continue  # the providers import no exception of their own; __main__ runs the CLI
        module = importlib.import_module(module_info.name)
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, BaseException) and value.__module__ == module.__name__:
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return list(found.values())


# Control flow, not errors (a BaseException like CancelledError, so a tool's ``except Exception`` cannot swallow
# it), and internal signals, each caught inside the package and turned into a message or an answer there.
_NOT_ERRORS = {
    "InputRequired",  # control flow: the call pipeline ends the round with input_required
    "ContinueAsTask",  # control flow: the call pipeline makes the task the call becomes
    "NeedsDynamicScope",  # codegen -> compile: generate the dynamic-scope variant
    "TooLarge",  # regex NFA -> compile: a SchemaError naming the pattern
    "Unsupported",  # regex syntax -> compile: a SchemaError naming the pattern
    "HintError",  # hints -> derive: a ToolDefinitionError naming the parameter
    "ModelRejected",  # pydantic -> convert: an invalid-arguments result
    "NotJSON",  # jsonify -> results: an error result naming the tool
    "ParseFailure",  # wire -> transports: -32700
    "Disconnected",  # ASGI plumbing: the client went away
    "Reject",  # ASGI plumbing: an HTTP error answer
    "ToolCallError",  # raised by the generated stubs' own runtime, which imports nothing of mcptools
}


def test_every_exception_the_package_defines_derives_from_the_one_base_in_the_drawn_module() -> None:
    exceptions = _package_exceptions()
    assert len(exceptions) >= 15, "the walk must see the whole package"
    for error in exceptions:
        if error.__name__ in _NOT_ERRORS or error.__name__.startswith("_"):
            continue
        assert issubclass(error, mcptools.MCPToolsError), f"{error.__module__}.{error.__name__}"
        assert error.__module__ == "mcptools._errors", f"{error.__name__} is defined outside the drawn tree"
    # Still what the standard library's idioms expect.
    assert issubclass(mcptools.ToolDefinitionError, TypeError)
    assert issubclass(mcptools.SchemaError, ValueError)
    assert issubclass(mcptools.UsageError, ValueError) and issubclass(mcptools.UsageError, TypeError)


def test_the_package_raises_no_bare_built_in_error_on_purpose() -> None:
    # A misuse gets an MCPToolsError (UsageError keeps ValueError and TypeError as bases); the built-in errors
    # raised below are caught inside the package, each where it says so.
    import ast

    internal = {
        ("_schema/stdtypes.py", "ValueError"),  # a value converter's refusal, read by the conversion plan
        ("_schema/urls.py", "ValueError"),  # the same, for URL types
        ("_schema/pydantic_support.py", "ValueError"),  # the same, for pydantic types
        ("_protocol/wire.py", "ValueError"),  # json's parse_constant hook: becomes -32700
        ("__init__.py", "AttributeError"),  # module __getattr__'s own protocol
        ("_transports/asgi_server.py", "AttributeError"),  # the same
        ("_tool.py", "AttributeError"),  # setting an attribute of a frozen object, as a frozen dataclass does
        ("_options.py", "AttributeError"),  # registry.settings' __getattr__: a setting that does not exist
        ("_peer_session.py", "AttributeError"),  # ctx.session's __getattr__, for private names
        ("_transports/stdio.py", "BrokenPipeError"),  # the client closed the pipe: serving ends (exit status 0)
        ("_validation/values.py", "RecursionError"),  # too deep to compare: the validator's own depth answer
    }
    root = Path(mcptools.__file__).resolve().parent
    found = []
    for path in sorted(root.rglob("*.py")):
        where = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and isinstance(node.exc.func, ast.Name):
                name = node.exc.func.id
                errors_of_users = name.endswith(("Error", "Exception")) and name not in ("AssertionError",)
                if name in dir(builtins) and errors_of_users and (where, name) not in internal:
                    found.append(f"{where}:{node.lineno} raises {name}")
    assert not found, found


def test_no_page_draws_the_error_tree_by_hand() -> None:
    # The tree is drawn from the classes, at build time (docs/_ext/generated.py, held to every public exception by
    # tests/test_docs_generated.py); a copy drawn by hand in the README or on a page would go stale unnoticed.
    root = Path(__file__).resolve().parent.parent
    pages = [root / "README.md", *(path for path in (root / "docs").rglob("*.md") if "_build" not in path.parts)]
    drawn = re.compile(r"^\s*[│ ]*[├└]── \w+(Error|Warning|Required|Dependency|NotFound)\b", re.M)
    for page in pages:
        found = drawn.search(page.read_text(encoding="utf-8"))
        assert found is None, f"{page.relative_to(root)} draws the error tree by hand: {found.group().strip()!r}"
    assert "```{mcptools-generated} error-tree" in (root / "docs" / "guides" / "errors.md").read_text(encoding="utf-8")


def test_version_comes_from_the_package_metadata_without_costing_the_import() -> None:
    import subprocess
    import sys
    from importlib.metadata import version

    assert mcptools.__version__ == version("mcptools")
    code = "import sys, mcptools; print('importlib.metadata' in sys.modules); print(mcptools.__version__)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.split() == ["False", version("mcptools")]
