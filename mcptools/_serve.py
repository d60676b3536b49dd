"""``mcptools serve``: its command line, and running a loaded registry on stdio or Streamable HTTP.

    mcptools serve TARGET                 # stdio (the default)
    mcptools serve TARGET --http          # http://127.0.0.1:8000/mcp, served by uvicorn (extra "http")
    mcptools serve TARGET --transport sse # the deprecated HTTP+SSE transport at /sse, beside Streamable HTTP
    mcptools serve TARGET --http --workers 4 --host 0.0.0.0 --allow-host mcp.example.com
    mcptools serve app.py -- --local-timezone UTC   # after `--`: the target's own sys.argv[1:]

The flags are ``mcptools._options.ServeSettings``'; the serving is ``mcptools._run``'s, as for ``registry.run()``,
and the registry's own settings (``ToolRegistry(..., port=8080)``) are the defaults the flags override.
With several workers every process imports TARGET on its own; only the stateless 2026-07-28 mode spans processes
(2025 sessions live in the process that opened them), and the workers share one requestState key.
"""

from __future__ import annotations

import argparse
import logging
import sys

from ._errors import TargetError, ToolDefinitionError, UsageError
from ._options import TRANSPORTS, add_arguments, from_arguments, from_worker
from ._run import app_for, configure_tasks, default_logging, run_registry
from ._target import load_registry, target_argv
from ._transports.asgi import StreamableHTTPApp
from ._transports.sse import HTTPApps
from ._transports.stdio import claim_stdout

__all__ = ["add_serve_arguments", "app_from_environment", "refused", "run_serve"]


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``mcptools serve``, for the CLI's subparser."""
    parser.add_argument("target", metavar="TARGET", help="file.py, package.module, or either with :attribute")
    parser.add_argument("--http", action="store_true", help="serve Streamable HTTP at http://HOST:PORT/mcp")
    parser.add_argument(
        "--transport",
        choices=list(TRANSPORTS),
        default=None,
        help="stdio (the default), http or streamable-http, or sse (the deprecated HTTP+SSE transport); HTTP "
        "serves both HTTP transports on one app",
    )
    add_arguments(parser)


def app_from_environment() -> StreamableHTTPApp | HTTPApps:
    """The app factory each uvicorn worker calls: it loads the registry the first process named (with the
    arguments after ``--`` as its ``sys.argv``, as the first process had them) and serves it as that one said."""
    target, argv, options = from_worker()
    sys.argv = target_argv(target, argv)
    registry = load_registry(target)
    default_logging()
    if options["log_level"] is not None:
        logging.getLogger("mcptools").setLevel(options["log_level"])
    configure_tasks(registry, options)
    return app_for(registry, options)


def run_serve(args: argparse.Namespace) -> int:
    """Serve per parsed ``args`` (see ``add_serve_arguments``); returns the exit status."""
    if args.http and args.transport not in (None, "http", "streamable-http"):
        sys.stderr.write(f"mcptools: --http and --transport {args.transport} disagree; give one of them\n")
        return 2
    transport = args.transport or ("http" if args.http else "stdio")
    # Over stdio, stdout belongs to the protocol from before the target is imported: a print at import time
    # must not reach the client.
    protocol = claim_stdout() if transport == "stdio" else None
    # The arguments after `--` are the target's own: it (or its lifespan) reads sys.argv as if run directly.
    sys.argv = target_argv(args.target, getattr(args, "target_argv", []))
    try:
        registry = load_registry(args.target)
        return run_registry(
            registry,
            transport,
            from_arguments(args),
            defaults=registry.settings.given(),
            protocol=protocol,
            target=args.target,
            where="",
            flags=True,
        )
    except (UsageError, TargetError, ToolDefinitionError) as exc:
        return refused(exc)


def refused(exc: UsageError | TargetError | ToolDefinitionError) -> int:
    """Exit status 2, the reason on stderr in one line: a command refused before it serves or works."""
    if isinstance(exc, UsageError):
        sys.stderr.write(f"mcptools: {exc}\n")
    else:
        sys.stderr.write(f"mcptools: {type(exc).__name__}: {exc}\n")
    return 2
