"""The ``mcptools`` command: try a registry's tools from a shell.

    mcptools list TARGET
    mcptools call TARGET TOOL [ARGUMENTS_JSON]
    mcptools serve TARGET [--http] [--host H] [--port P]
    mcptools stubgen TARGET [-o FILE] | mcptools stubgen --url URL [-o FILE]

TARGET is a Python file (``examples/weather.py``), a module (``app.tools``), or either followed by
``:attribute`` to name one registry when the module holds several.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import logging
import os
import sys
from types import ModuleType
from typing import Any

from ._errors import ToolDefinitionError
from ._registry import ToolRegistry
from ._stubgen import add_stubgen_arguments, run_stubgen
from ._transports import add_serve_arguments, run_serve

__all__ = ["TargetError", "load_registry", "main"]


class TargetError(Exception):
    """TARGET does not name a registry; the message says what to write instead."""


def _import_file(path: str) -> ModuleType:
    path = os.path.abspath(path)
    stem = os.path.splitext(os.path.basename(path))[0]
    name = stem if stem.isidentifier() and stem not in sys.modules else f"_mcptools_target_{abs(hash(path))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise TargetError(f"cannot import {path!r} as Python")
    module = importlib.util.module_from_spec(spec)
    # Registered before it runs: dataclasses and get_type_hints look the module up by name.
    sys.modules[name] = module
    # Let the file import its neighbours, as `python file.py` would.
    sys.path.insert(0, os.path.dirname(path))
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _split_target(target: str) -> tuple[str, str | None]:
    base, sep, attribute = target.rpartition(":")
    if sep and attribute.isidentifier() and base and not os.path.exists(target):
        return base, attribute
    return target, None


def load_registry(target: str) -> ToolRegistry:
    """The registry TARGET names: ``path.py``, ``package.module``, either with ``:attribute``."""
    where, attribute = _split_target(target)
    if where.endswith(".py") or os.path.sep in where or os.path.isfile(where):
        if not os.path.isfile(where):
            raise TargetError(f"no such file: {where}")
        module = _import_file(where)
    else:
        # As `python -m` and uvicorn do: a module named on the command line may live in the current directory.
        if os.getcwd() not in sys.path and "" not in sys.path:
            sys.path.insert(0, os.getcwd())
        try:
            module = importlib.import_module(where)
        except ModuleNotFoundError as exc:
            raise TargetError(f"cannot import module {where!r}: {exc}") from None
    if attribute is not None:
        if not hasattr(module, attribute):
            raise TargetError(f"{where} has no attribute {attribute!r}; name the variable that holds the registry")
        found = getattr(module, attribute)
        if not isinstance(found, ToolRegistry):
            raise TargetError(f"{where}:{attribute} is {type(found).__name__}, not a ToolRegistry")
        return found
    registries: dict[int, tuple[str, ToolRegistry]] = {}
    for name, value in vars(module).items():
        if isinstance(value, ToolRegistry):
            registries.setdefault(id(value), (name, value))
    if not registries:
        raise TargetError(f"{where} holds no ToolRegistry; create one, or name it as {where}:attribute")
    if len(registries) > 1:
        names = ", ".join(sorted(f"{where}:{name}" for name, _ in registries.values()))
        raise TargetError(f"{where} holds several registries; name one: {names}")
    return next(iter(registries.values()))[1]


def _print_json(value: Any) -> None:
    # NaN and Infinity are not JSON: refuse to print something another JSON reader would reject.
    try:
        text = json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)
    except ValueError as exc:
        raise TargetError(f"the answer cannot be written as JSON ({exc})") from None
    sys.stdout.write(text + "\n")


def _list(args: argparse.Namespace) -> int:
    registry = load_registry(args.target)
    response = registry.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert response is not None
    _print_json(response.get("result", response))
    return 0


def _call(args: argparse.Namespace) -> int:
    try:
        arguments = json.loads(args.arguments)
    except json.JSONDecodeError as exc:
        example = '{"location": "Paris"}'
        raise TargetError(f"ARGUMENTS is not valid JSON ({exc}); quote it, e.g. '{example}'") from None
    registry = load_registry(args.target)
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": args.tool, "arguments": arguments},
    }
    response = registry.handle(request)
    assert response is not None
    _print_json(response)
    result = response.get("result")
    return 0 if isinstance(result, dict) and result.get("isError") is False else 1


def _serve(args: argparse.Namespace) -> int:
    return run_serve(args, load_registry, (TargetError, ToolDefinitionError))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mcptools", description="Typed MCP tools: list, call, serve, stubgen.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    listing = commands.add_parser("list", help="print the tools/list result of a registry as JSON")
    listing.add_argument("target", metavar="TARGET", help="file.py, package.module, or either with :attribute")
    listing.set_defaults(run=_list)
    calling = commands.add_parser("call", help="call one tool and print the JSON-RPC response")
    calling.add_argument("target", metavar="TARGET", help="file.py, package.module, or either with :attribute")
    calling.add_argument("tool", metavar="TOOL", help="the tool's name")
    calling.add_argument("arguments", metavar="ARGUMENTS", nargs="?", default="{}", help="a JSON object")
    calling.set_defaults(run=_call)
    serving = commands.add_parser("serve", help="serve the tools over MCP (stdio, or --http)")
    add_serve_arguments(serving)
    serving.set_defaults(run=_serve)
    stubbing = commands.add_parser("stubgen", help="write typed Python stubs (TypedDicts, typed clients) for tools")
    add_stubgen_arguments(stubbing)
    stubbing.set_defaults(run=run_stubgen)
    return parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    args = _parser().parse_args(argv)
    try:
        code: int = args.run(args)
    except (TargetError, ToolDefinitionError) as exc:
        sys.stderr.write(f"mcptools: {type(exc).__name__}: {exc}\n")
        return 2
    return code
