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
import json
import logging
import sys
from typing import Any

from ._errors import ToolDefinitionError
from ._serve import add_serve_arguments, run_serve
from ._stubgen import add_stubgen_arguments, run_stubgen
from ._target import TargetError, load_registry

__all__ = ["main"]


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
    serving.set_defaults(run=run_serve)
    stubbing = commands.add_parser("stubgen", help="write typed Python stubs (TypedDicts, typed clients) for tools")
    add_stubgen_arguments(stubbing)
    stubbing.set_defaults(run=run_stubgen)
    return parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    argv = list(sys.argv[1:] if argv is None else argv)
    # `mcptools serve app.py -- --local-timezone UTC`: what follows `--` is the target's, not ours.
    forwarded: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, forwarded = argv[:cut], argv[cut + 1 :]
    args = _parser().parse_args(argv)
    args.target_argv = forwarded
    try:
        code: int = args.run(args)
    except (TargetError, ToolDefinitionError) as exc:
        sys.stderr.write(f"mcptools: {type(exc).__name__}: {exc}\n")
        return 2
    return code
