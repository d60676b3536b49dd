"""The parts of the docs drawn from the code (docs/_ext/generated.py): the error tree names every exception
mcptools raises on purpose, each under its parent; the format table lists every format the validator checks,
with the words a model reads; the standard types table lists every standard type a tool takes; and the pages
the serving options table lists every option of ``ServeSettings`` with the flag ``mcptools serve`` really takes;
and the pages put them where they belong. No docs build is needed: the drawings are plain functions of the code."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import get_type_hints

from docs_support import check_mcptools_argv

import mcptools
from mcptools._errors import TargetError
from mcptools._options import ServeSettings
from mcptools._schema.stdtypes import STD_TYPES
from mcptools._validation.formats import FORMAT_CHECKS
from mcptools._validation.messages import format_failure

DOCS = Path(__file__).resolve().parent.parent / "docs"
sys.path.insert(0, str(DOCS / "_ext"))

import generated  # noqa: E402


def _rows(tree: str) -> dict[str, tuple[int, int]]:
    """Each class in the drawing: its line number and its depth (the column its name starts at)."""
    rows = {}
    for number, line in enumerate(tree.splitlines()):
        found = re.search(r"(\w+)", line)
        assert found, line
        rows[found.group(1)] = (number, found.start())
    return rows


def test_the_error_tree_names_every_exception_under_its_parent() -> None:
    tree = generated.error_tree()
    rows = _rows(tree)
    public = [getattr(mcptools, name) for name in mcptools.__all__]
    exceptions = [item for item in public if isinstance(item, type) and issubclass(item, BaseException)]
    assert len(exceptions) >= 9
    for error in [*exceptions, TargetError]:
        assert error.__name__ in rows, f"{error.__name__} is missing from the tree:\n{tree}"
        if error is mcptools.MCPToolsError:
            assert rows[error.__name__] == (0, 0)
            continue
        parent = error.__mro__[1]
        line, depth = rows[error.__name__]
        assert rows[parent.__name__][0] < line and rows[parent.__name__][1] < depth, (error, tree)
    assert "(also a TypeError)" in tree.splitlines()[rows["ToolDefinitionError"][0]]
    assert "[mcptools._errors]" in tree.splitlines()[rows["TargetError"][0]]


def test_a_new_error_class_joins_the_tree() -> None:
    class QuotaError(mcptools.ToolError):
        """The caller used up its quota: raised by a tool."""

    QuotaError.__module__ = "mcptools._quota"
    try:
        tree = generated.error_tree()
    finally:
        del QuotaError
        import gc

        gc.collect()
    line = next(line for line in tree.splitlines() if "QuotaError" in line)
    assert line.startswith("│   ├── QuotaError") or line.startswith("│   └── QuotaError"), tree
    assert "The caller used up its quota" in line


def test_the_format_table_lists_every_checked_format_with_its_message() -> None:
    table = generated.format_table()
    for name in FORMAT_CHECKS:
        assert f"| `{name}` |" in table
        assert f"`{format_failure(name)}`" in table
    assert "| `date` | `date` |" in table
    assert len(table.splitlines()) == 2 + len(FORMAT_CHECKS)


def test_the_standard_types_table_lists_every_standard_type() -> None:
    table = generated.std_types_table()
    for entry in STD_TYPES:
        assert f"`{entry.cls.__module__}.{entry.cls.__qualname__}`" in table
    assert '`{"type": ["string", "number"], "format": "duration"}`' in table


def test_the_serving_options_table_lists_every_option_as_the_command_takes_it() -> None:
    table = generated.serve_options_table()
    rows = {line.split("|")[1].strip(): line for line in table.splitlines()[2:]}
    options = get_type_hints(ServeSettings, include_extras=True)
    assert set(rows) == {f"`{key}=`" for key in options}
    assert "`--allow-host HOST (repeatable)`" in rows["`allowed_hosts=`"]
    assert "`--stack {auto,standard,fast}` | `'auto'` | stdio and HTTP" in rows["`stack=`"]
    assert "(no flag) | none | HTTP | a `mcptools.auth.AuthSettings` object" in rows["`auth=`"]
    ignored = "| ignored | FastMCP's setting, accepted and ignored (logged once): a `fastmcp install` hint"
    assert ignored in rows["`dependencies=`"]
    # Every flag the table shows is one `mcptools serve` parses, with a value where it shows one.
    for key, line in rows.items():
        shown = re.search(r"`(--[a-z-]+)(?: \{(\w+)| ([A-Z]+))?", line)
        if shown is None:
            continue
        flag, choice, metavar = shown.groups()
        value = [choice] if choice else ["1"] if metavar else []
        assert check_mcptools_argv(["serve", "app.py", flag, *value]) is None, key


def test_the_pages_show_the_drawings() -> None:
    assert "```{mcptools-generated} error-tree" in (DOCS / "guides" / "errors.md").read_text(encoding="utf-8")
    types = (DOCS / "guides" / "types.md").read_text(encoding="utf-8")
    assert "```{mcptools-generated} formats" in types and "```{mcptools-generated} std-types" in types
    serving = (DOCS / "guides" / "serving.md").read_text(encoding="utf-8")
    assert "```{mcptools-generated} serve-options" in serving
    assert set(generated.__all__) >= {"error_tree", "format_table", "serve_options_table", "std_types_table"}
