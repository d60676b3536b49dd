"""``mcptools serve``: its options, and running a loaded registry on stdio or Streamable HTTP.

    mcptools serve TARGET                 # stdio (the default)
    mcptools serve TARGET --http          # http://127.0.0.1:8000/mcp, served by uvicorn (extra "http")
    mcptools serve TARGET --http --workers 4 --host 0.0.0.0 --allow-host mcp.example.com
    mcptools serve app.py -- --local-timezone UTC   # after `--`: the target's own sys.argv[1:]

With several workers every process imports TARGET on its own; only the stateless 2026-07-28 mode spans
processes (2025 sessions live in the process that opened them), and the workers share one requestState key.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys

from ._errors import ToolDefinitionError
from ._run import (
    ARGV_ENV,
    HOSTS_ENV,
    STATELESS_ENV,
    TARGET_ENV,
    TOKEN_ENV,
    TOKEN_SCOPES_ENV,
    RunOptions,
    default_logging,
    serve_http,
    split_scopes,
    static_auth,
)
from ._target import TargetError, load_registry, target_argv
from ._transports.asgi import StreamableHTTPApp, create_app
from ._transports.asgi_server import DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT, DEFAULT_KEEP_ALIVE
from ._transports.stdio import claim_stdout, serve_stdio

__all__ = ["add_serve_arguments", "app_from_environment", "run_serve"]

logger = logging.getLogger("mcptools")


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``mcptools serve``, for the CLI's subparser."""
    parser.add_argument("target", metavar="TARGET", help="file.py, package.module, or either with :attribute")
    parser.add_argument("--http", action="store_true", help="serve Streamable HTTP at http://HOST:PORT/mcp")
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (stateless 2026-07-28 only)")
    parser.add_argument(
        "--allow-host",
        action="append",
        default=None,
        metavar="HOST",
        help="a Host/Origin name to accept besides localhost (repeatable; '*' turns the check off)",
    )
    parser.add_argument("--stateless", action="store_true", help="refuse 2025 sessions (implied by --workers > 1)")
    # Deployment options of --http (see the README's "Deploying over HTTP"); the timeouts are in seconds.
    parser.add_argument(
        "--bearer-token-env",
        metavar="NAME",
        default=None,
        help="require 'Authorization: Bearer <token>' equal to the value of environment variable NAME",
    )
    parser.add_argument(
        "--bearer-token-scopes",
        metavar="SCOPES",
        default="",
        help="the scopes that token's holder has, space- or comma-separated (for tools declared with scopes=)",
    )
    parser.add_argument(
        "--timeout-headers",
        type=float,
        default=DEFAULT_HEADER_TIMEOUT,
        metavar="S",
        help=f"408 and close when a request's headers take longer (default {DEFAULT_HEADER_TIMEOUT:g})",
    )
    parser.add_argument(
        "--timeout-body",
        type=float,
        default=DEFAULT_BODY_TIMEOUT,
        metavar="S",
        help=f"408 and close when a request's body takes longer (default {DEFAULT_BODY_TIMEOUT:g})",
    )
    parser.add_argument(
        "--timeout-keep-alive",
        type=int,
        default=DEFAULT_KEEP_ALIVE,
        metavar="S",
        help=f"close a kept-alive connection idle this long (default {DEFAULT_KEEP_ALIVE})",
    )
    parser.add_argument(
        "--stack",
        choices=("auto", "standard", "fast"),
        default="auto",
        help="HTTP stack: standard (h11, asyncio), fast (httptools, uvloop: extra http-fast), auto (fast if installed)",
    )


def app_from_environment() -> StreamableHTTPApp:
    """The app factory each uvicorn worker calls: it loads the registry named in the environment (with the
    arguments after ``--`` as its ``sys.argv``, as the first process had them)."""
    target = os.environ[TARGET_ENV]
    forwarded = os.environ.get(ARGV_ENV)
    if forwarded is not None:
        sys.argv = target_argv(target, json.loads(forwarded))
    hosts = [h for h in os.environ.get(HOSTS_ENV, "").split(",") if h]
    token_env = os.environ.get(TOKEN_ENV)
    return create_app(
        load_registry(target),
        allowed_hosts=hosts or None,
        stateless_only=os.environ.get(STATELESS_ENV) == "1",
        auth=static_auth(os.environ.get(token_env, ""), split_scopes(os.environ.get(TOKEN_SCOPES_ENV, "")))
        if token_env
        else None,
    )


def _options(args: argparse.Namespace) -> RunOptions:
    return RunOptions(
        host=args.host,
        port=args.port,
        workers=args.workers,
        allowed_hosts=args.allow_host,
        stateless=args.stateless,
        bearer_token_env=args.bearer_token_env,
        bearer_token_scopes=split_scopes(args.bearer_token_scopes),
        timeout_headers=args.timeout_headers,
        timeout_body=args.timeout_body,
        timeout_keep_alive=args.timeout_keep_alive,
        stack=args.stack,
    )


def run_serve(args: argparse.Namespace) -> int:
    """Serve per parsed ``args`` (see ``add_serve_arguments``); returns the exit status."""
    # Over stdio, stdout belongs to the protocol from before the target is imported: a print at import time
    # must not reach the client.
    protocol = None if args.http else claim_stdout()
    # The arguments after `--` are the target's own: it (or its lifespan) reads sys.argv as if run directly.
    sys.argv = target_argv(args.target, getattr(args, "target_argv", []))
    try:
        registry = load_registry(args.target)
    except (TargetError, ToolDefinitionError) as exc:
        sys.stderr.write(f"mcptools: {type(exc).__name__}: {exc}\n")
        return 2
    default_logging()  # after the import: the target's own logging configuration wins
    if args.http:
        return serve_http(registry, _options(args), args.target)
    return serve_stdio(registry, protocol)
