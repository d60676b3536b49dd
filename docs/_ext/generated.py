"""The parts of the documentation drawn from the code, so no page restates a table the code already holds.

``error_tree()`` draws the exception hierarchy from the classes themselves (every subclass of
``MCPToolsError`` defined in the package); ``format_table()`` lists the ``format`` values the validator checks
(``FORMAT_CHECKS``) with the words a model reads when a value fails one (``FORMAT_WORDS``);
``std_types_table()`` lists the standard Python types a tool may take and the schema each gets (``STD_TYPES``);
``serve_options_table()`` lists the serving options, each once as ``registry.run`` takes it and as ``mcptools
serve`` spells it (``ServeSettings``, with the flags its own ``add_arguments`` makes).
The Sphinx extension beside this file (``mcptools_docs``) puts them on the pages; ``tests/test_docs_generated.py``
holds them to the code. Plain functions of the code: no Sphinx import, so the tests need no docs build.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import pkgutil
import re
from typing import Any, get_args, get_type_hints

import mcptools
from mcptools._options import ServeSettings, add_arguments
from mcptools._schema.stdtypes import STD_TYPES
from mcptools._validation.formats import FORMAT_CHECKS
from mcptools._validation.messages import format_failure

__all__ = ["error_classes", "error_tree", "format_table", "serve_options_table", "std_types_table"]

# Exceptions of the standard library a class also derives from, named in the drawing ("also a TypeError") since
# code may catch them by that name.
_ALSO = (TypeError, ValueError, RuntimeError, KeyError, LookupError)


def _import_every_module() -> None:
    """Every module of the package, so an error class defined anywhere in it is a known subclass."""
    for found in pkgutil.walk_packages(mcptools.__path__, "mcptools."):
        if not found.name.endswith(".__main__"):  # importing it would run the command
            importlib.import_module(found.name)


def error_classes() -> list[type[BaseException]]:
    """Every subclass of ``MCPToolsError`` defined in mcptools, parents before children."""
    _import_every_module()
    found: list[type[BaseException]] = []

    def walk(cls: type[BaseException]) -> None:
        found.append(cls)
        for child in sorted(cls.__subclasses__(), key=_order):
            if child.__module__.startswith("mcptools") and child not in found:
                walk(child)

    walk(mcptools.MCPToolsError)
    return found


def _order(cls: type) -> tuple[int, str, int]:
    # Source order within a module, and mcptools._errors (the vocabulary's home) first.
    try:
        line = inspect.getsourcelines(cls)[1]
    except (OSError, TypeError):
        line = 0
    return (cls.__module__ != "mcptools._errors", cls.__module__, line)


def _summary(cls: type) -> str:
    """The first clause of the class's docstring (up to its first colon or semicolon, asides in parentheses
    left out), its ``literals`` as plain text: a drawing's line, the docstring says the rest."""
    doc = inspect.cleandoc(cls.__doc__ or "")
    text = " ".join(doc.split("\n\n")[0].split())
    text = re.sub(r"``(.+?)``", r"\1", text)
    while re.search(r"\s*\([^()]*\)", text):
        text = re.sub(r"\s*\([^()]*\)", "", text)
    clause = re.split(r"(?<=[.!?])\s|[:;]\s", text, maxsplit=1)[0]
    return clause.rstrip(".")


def _where(cls: type) -> str:
    """How a user reaches the class: ``mcptools.X`` when the package exports it, else its module."""
    if cls.__name__ in mcptools.__all__:
        return ""
    return f" [{cls.__module__}]"


def error_tree() -> str:
    """The hierarchy as a text drawing: each class, what else it is, and what it means."""
    classes = error_classes()
    depth: dict[type, int] = {mcptools.MCPToolsError: 0}
    for cls in classes[1:]:
        parent = next(base for base in cls.__mro__[1:] if base in depth)
        depth[cls] = depth[parent] + 1
    rows: list[tuple[str, str]] = []
    for cls in classes:
        rows.append((_prefix(cls, classes, depth) + cls.__name__ + _where(cls), _meaning(cls)))
    width = max(len(label) for label, _ in rows) + 2
    return "\n".join(f"{label:<{width}}{meaning}".rstrip() for label, meaning in rows)


def _meaning(cls: type) -> str:
    kinds = [base.__name__ for base in cls.__bases__ if base in _ALSO]
    prefix = f"(also a {', '.join(kinds)}) " if kinds else ""
    return prefix + _summary(cls)


def _prefix(cls: type, classes: list[type[BaseException]], depth: dict[type, int]) -> str:
    """The tree's branches in front of a class: a continuing line for each ancestor with siblings below."""
    level = depth[cls]
    if level == 0:
        return ""
    parts: list[str] = []
    index = classes.index(cls)
    for ancestor_level in range(1, level + 1):
        later = classes[index + 1 :]
        # Is there a later class at this level before the branch closes (a class shallower than it)?
        more = False
        for other in later:
            if depth[other] < ancestor_level:
                break
            if depth[other] == ancestor_level:
                more = True
                break
        if ancestor_level == level:
            parts.append("├── " if more else "└── ")
        else:
            parts.append("│   " if more else "    ")
    return "".join(parts)


def _code(value: object) -> str:
    return "`" + json.dumps(value, ensure_ascii=False) + "`"


def format_table() -> str:
    """The ``format`` values checked, as a Markdown table: the name, the Python types whose schema has it, and
    what a model reads when a string fails it."""
    types_of: dict[str, list[str]] = {}
    for entry in STD_TYPES:
        name = entry.keywords.get("format")
        if isinstance(name, str):
            types_of.setdefault(name, []).append(f"`{entry.cls.__name__}`")
    lines = ["| format | a tool parameter of type | a string that fails it reads |", "|---|---|---|"]
    for name in FORMAT_CHECKS:
        types = ", ".join(types_of.get(name, [])) or "(in a schema you write)"
        lines.append(f"| `{name}` | {types} | `{format_failure(name)}` |")
    return "\n".join(lines)


def std_types_table() -> str:
    """The standard Python types a tool takes and returns, as a Markdown table: the JSON Schema each gets."""
    lines = ["| Python type | JSON Schema |", "|---|---|"]
    for entry in STD_TYPES:
        lines.append(f"| `{entry.cls.__module__}.{entry.cls.__qualname__}` | {_code(entry.schema())} |")
    return "\n".join(lines)


def _flags() -> dict[str, str]:
    """Each serving option's ``mcptools serve`` flag as its help line writes it (``--allow-host HOST``), by key:
    read from the parser ``add_arguments`` builds, so the table shows exactly what the command takes."""
    parser = argparse.ArgumentParser(add_help=False)
    add_arguments(parser)
    flags: dict[str, str] = {}
    for action in parser._actions:
        flag = action.option_strings[0]
        if action.choices is not None:
            flag += " {" + ",".join(str(choice) for choice in action.choices) + "}"
        elif action.nargs != 0:
            flag += " " + (action.metavar if isinstance(action.metavar, str) else action.dest.upper())
        if isinstance(action, argparse._AppendAction):
            flag += " (repeatable)"
        flags[action.dest] = flag
    return flags


def _default(value: Any) -> str:
    """A default as ``registry.run`` reads it (Python's repr); "none" for an option that is off unless given."""
    if value is None or value == ():
        return "none"
    return f"`{value!r}`"


def _object_kind(kind: Any) -> str:
    """``mcptools.auth.AuthSettings`` for ``AuthSettings | None``: the class an object option takes."""
    # A private class is no option of run()'s: the SDK's AuthSettings (PeerAuthSettings) is typed for the
    # constructor's token_verifier= only (see the migration guide).
    classes = [
        arg
        for arg in (get_args(kind) or (kind,))
        if arg is not type(None) and not arg.__module__.startswith("mcptools._")
    ]
    return " or ".join(f"{cls.__module__}.{cls.__qualname__}" for cls in classes)


def serve_options_table() -> str:
    """The serving options (``ServeSettings``) as a Markdown table: the keyword of ``registry.run``, the flag of
    ``mcptools serve``, the default, whether it applies to HTTP only, and what it does (the flag's help)."""
    hints = get_type_hints(ServeSettings, include_extras=True)
    flags = _flags()
    lines = [
        "| `registry.run(...)` | `mcptools serve` | default | transports | what it does |",
        "|---|---|---|---|---|",
    ]
    for key, hint in hints.items():
        kind, option = get_args(hint)[:2]
        if option.ignored is not None:
            # A peer's setting with no meaning here: accepted so a FastMCP server starts, and logged once.
            what = f"FastMCP's setting, accepted and ignored (logged once): {option.ignored}"
            lines.append(f"| `{key}=` | (no flag) | | ignored | {_escape(what)} |")
            continue
        flag = f"`{flags[key]}`" if key in flags else "(no flag)"
        # An option with no flag is a Python object (auth=): say what it takes instead of a help line.
        what = option.help or f"a `{_object_kind(kind)}` object, from Python only"
        where = "stdio and HTTP" if "stdio" in option.transports else "HTTP"
        lines.append(f"| `{key}=` | {flag} | {_default(option.default)} | {where} | {_escape(what)} |")
    return "\n".join(lines)


def _escape(text: str) -> str:
    """A help line as Markdown that shows it as written: ``<token>`` is not HTML, a pipe does not end the cell,
    and a ``--flag`` it names is code (not two dashes made into one)."""
    for char in "\\<>|*_":
        text = text.replace(char, "\\" + char)
    return re.sub(r"(?<![\w-])(--[a-z][a-z-]*)", r"`\1`", text)
