"""The ``mcptools`` command: try a registry's tools from a shell.

    mcptools list TARGET [-- TARGET_ARGS]
    mcptools call TARGET TOOL [ARGUMENTS_JSON] [-- TARGET_ARGS]
    mcptools serve TARGET [--http] [--host H] [--port P] [-- TARGET_ARGS]
    mcptools worker TARGET --task-store URL [--task-workers N] [-- TARGET_ARGS]
    mcptools stubgen TARGET [-o FILE] | mcptools stubgen --url URL [-o FILE]

TARGET is a Python file (``examples/weather.py``), a module (``app.tools``), or either followed by
``:attribute`` to name one registry when the module holds several. What follows ``--`` is the target's own
command line: it (and its lifespan) sees ``sys.argv`` as ``[TARGET, *TARGET_ARGS]``, as if run directly.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ._errors import ProtocolError, TargetError, ToolDefinitionError
from ._jsonrpc import MISSING_CLIENT_CAPABILITY
from ._run import default_logging
from ._serve import add_serve_arguments, run_serve
from ._stubgen import add_stubgen_arguments, run_stubgen
from ._target import load_registry, target_argv
from ._worker import add_worker_arguments, run_worker

if TYPE_CHECKING:
    from ._registry import ToolRegistry

__all__ = ["main"]


def _print_json(value: Any) -> None:
    # NaN and Infinity are not JSON: refuse to print something another JSON reader would reject.
    try:
        text = json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)
    except ValueError as exc:
        raise TargetError(f"the answer cannot be written as JSON ({exc})") from None
    sys.stdout.write(text + "\n")


@contextmanager
def _target_argv(args: argparse.Namespace) -> Iterator[None]:
    """The target (and its lifespan) reads ``sys.argv`` as if run directly: its path and the arguments after
    ``--``, never ``call TARGET TOOL ...`` (which a lifespan's ``argparse`` would refuse)."""
    saved = sys.argv
    sys.argv = target_argv(args.target, args.target_argv)
    try:
        yield
    finally:
        sys.argv = saved


def _list(args: argparse.Namespace) -> int:
    with _target_argv(args):
        return _list_tools(args)


def _list_tools(args: argparse.Namespace) -> int:
    registry = load_registry(args.target)
    default_logging()

    async def listed() -> dict[str, Any] | None:
        # Inside the lifespan, as a server lists: one may enable tools (notes_app's --admin).
        async with registry.running():
            return await registry.handle_async({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})

    response = _in_lifespan(registry, listed)
    if response is None:
        return 1
    _print_json(response.get("result", response))
    return 0


_T = TypeVar("_T")


def _in_lifespan(registry: ToolRegistry, work: Callable[[], Coroutine[Any, Any, _T]]) -> _T | None:
    """``work()`` run to its end; ``None`` when the registry's lifespan failed to start or to close (said once on
    stderr with its traceback, as ``mcptools serve`` says it)."""
    import asyncio

    try:
        return asyncio.run(work())
    except Exception:
        logging.getLogger("mcptools").exception("mcptools: the lifespan of %r failed", registry.name)
        return None


def _call(args: argparse.Namespace) -> int:
    with _target_argv(args):
        return _call_tool(args)


def _call_tool(args: argparse.Namespace) -> int:
    try:
        arguments = json.loads(args.arguments)
    except json.JSONDecodeError as exc:
        example = '{"location": "Paris"}'
        raise TargetError(f"ARGUMENTS is not valid JSON ({exc}); quote it, e.g. '{example}'") from None
    registry = load_registry(args.target)
    default_logging()
    # A tool may ask the user something (elicitation): the person at the terminal answers, when there is one.
    # Without a terminal the client declares no elicitation, and the server's -32021 is explained below.
    interactive = _is_terminal(sys.stdin)
    if isinstance(arguments, dict):
        called = _in_lifespan(registry, lambda: _call_async(registry, args.tool, arguments, interactive))
        if called is None:
            return 1
        response = called
    else:  # refused before any tool runs ("arguments must be an object"): no client needed
        params = {"name": args.tool, "arguments": arguments}
        answered = registry.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
        assert answered is not None
        response = answered
    _print_json(response)
    error = response.get("error")
    if isinstance(error, dict) and error.get("code") == MISSING_CLIENT_CAPABILITY:
        _explain_missing_capability(args.tool, str(error.get("message", "")), interactive)
    result = response.get("result")
    return 0 if isinstance(result, dict) and result.get("isError") is False else 1


def _is_terminal(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except (OSError, ValueError):
        return False


async def _call_async(
    registry: ToolRegistry, tool: str, arguments: dict[str, Any], interactive: bool
) -> dict[str, Any]:
    """One ``tools/call`` through the in-memory client (the engine and pipeline every transport uses), as a
    2026-07-28 request, so a tool that asks questions gets its answers in input_required rounds."""
    from ._prompt import TerminalPrompter
    from .testing import Client

    prompter = TerminalPrompter(sys.stdin, sys.stderr) if interactive else None
    client = Client(
        registry,
        protocol="2026-07-28",
        elicitation=prompter,
        roots=[{"uri": Path.cwd().as_uri(), "name": "current directory"}],
    )
    entry = registry.get(tool)
    async with client:
        try:
            if entry is not None and entry.task == "required":
                # A tool that runs only as a task: run it as one and wait for its end (its questions asked here).
                task = await client.wait_for_task(
                    (await client.call_tool_as_task(tool, arguments)).task_id, timeout=None
                )
                if task.error is not None:
                    return {"jsonrpc": "2.0", "id": 1, "error": task.error}
                return {"jsonrpc": "2.0", "id": 1, "result": task.result.raw if task.result is not None else {}}
            called = await client.call_tool(tool, arguments)
        except ProtocolError as problem:
            error: dict[str, Any] = {"code": problem.code, "message": problem.message}
            if problem.data is not None:
                error["data"] = problem.data
            return {"jsonrpc": "2.0", "id": 1, "error": error}
    return {"jsonrpc": "2.0", "id": 1, "result": called.raw}


def _explain_missing_capability(tool: str, message: str, interactive: bool) -> None:
    if "sampling" in message:
        sys.stderr.write(
            f"mcptools: tool {tool!r} asks the client's model for a completion (sampling); `mcptools call` has "
            "no model to ask. Test it with mcptools.testing.Client(registry, sampling=...) or from a real client.\n"
        )
    elif "elicitation" in message and not interactive:
        sys.stderr.write(
            f"mcptools: tool {tool!r} asks the user for input (elicitation), and stdin is not a terminal to ask "
            "on; run `mcptools call` in an interactive terminal.\n"
        )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcptools",
        description="Typed MCP tools: list, call, serve, worker, stubgen.",
        epilog="After `--`, the target's own arguments: `mcptools serve app.py -- --tz UTC` gives app.py "
        "sys.argv == ['app.py', '--tz', 'UTC'] (list, call and serve alike).",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    # list and call take --log-level (the target's own logging configuration still applies: ours is set up only
    # after the import, and only when the target set up none); serve has it among its serving options.
    logs = argparse.ArgumentParser(add_help=False)
    logs.add_argument(
        "--log-level",
        type=str.upper,
        choices=("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"),
        default=None,
        help="the level of mcptools' own loggers (default: as the target's logging configuration says, else WARNING)",
    )
    listing = commands.add_parser("list", help="print the tools/list result of a registry as JSON", parents=[logs])
    listing.add_argument("target", metavar="TARGET", help="file.py, package.module, or either with :attribute")
    listing.set_defaults(run=_list)
    calling = commands.add_parser("call", help="call one tool and print the JSON-RPC response", parents=[logs])
    calling.add_argument("target", metavar="TARGET", help="file.py, package.module, or either with :attribute")
    calling.add_argument("tool", metavar="TOOL", help="the tool's name")
    calling.add_argument("arguments", metavar="ARGUMENTS", nargs="?", default="{}", help="a JSON object")
    calling.set_defaults(run=_call)
    serving = commands.add_parser("serve", help="serve the tools over MCP (stdio, or --http)")
    add_serve_arguments(serving)
    serving.set_defaults(run=run_serve)
    working = commands.add_parser("worker", help="run the tasks of a registry's task tools (a shared task store)")
    add_worker_arguments(working)
    working.set_defaults(run=run_worker)
    stubbing = commands.add_parser("stubgen", help="write typed Python stubs (TypedDicts, typed clients) for tools")
    add_stubgen_arguments(stubbing)
    stubbing.set_defaults(run=run_stubgen)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # `mcptools serve app.py -- --local-timezone UTC`: what follows `--` is the target's, not ours.
    forwarded: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, forwarded = argv[:cut], argv[cut + 1 :]
    args = _parser().parse_args(argv)
    args.target_argv = forwarded
    # Logging itself is configured once the target is imported (``default_logging``), so its own comes first.
    if getattr(args, "log_level", None) is not None:
        logging.getLogger("mcptools").setLevel(args.log_level)
    try:
        code: int = args.run(args)
    except (TargetError, ToolDefinitionError) as exc:
        sys.stderr.write(f"mcptools: {type(exc).__name__}: {exc}\n")
        return 2
    return code
