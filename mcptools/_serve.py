"""``mcptools serve``: its options, and running a loaded registry on stdio or Streamable HTTP.

    mcptools serve TARGET                 # stdio (the default)
    mcptools serve TARGET --http          # http://127.0.0.1:8000/mcp, served by uvicorn (extra "http")
    mcptools serve TARGET --http --workers 4 --host 0.0.0.0 --allow-host mcp.example.com

With several workers every process imports TARGET on its own; only the stateless 2026-07-28 mode spans
processes (2025 sessions live in the process that opened them), and the workers share one requestState key.
"""

from __future__ import annotations

import argparse
import logging
import os
import secrets
import sys
from typing import TYPE_CHECKING, Any, Final

from ._errors import ToolDefinitionError
from ._target import TargetError, load_registry
from ._transports.asgi import DEFAULT_ALLOWED_HOSTS, StreamableHTTPApp, create_app
from ._transports.asgi_server import DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT, DEFAULT_KEEP_ALIVE
from ._transports.http_rules import HostRules
from ._transports.stdio import claim_stdout, serve_stdio

if TYPE_CHECKING:
    from ._registry import ToolRegistry

__all__ = ["add_serve_arguments", "app_from_environment", "run_serve"]

logger = logging.getLogger("mcptools")

# How `serve --workers N` tells each worker process what to load (uvicorn imports the app factory by name).
_TARGET_ENV: Final = "MCPTOOLS_SERVE_TARGET"
_HOSTS_ENV: Final = "MCPTOOLS_ALLOWED_HOSTS"
_STATELESS_ENV: Final = "MCPTOOLS_STATELESS_ONLY"
# The NAME given to --bearer-token-env (the token itself stays where the user put it).
_TOKEN_ENV: Final = "MCPTOOLS_BEARER_TOKEN_ENV"


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


# Binding to every interface names no host a client would use, so it adds nothing to the allow-list.
_WILDCARD_BINDS: Final = frozenset({"0.0.0.0", "::", "[::]", ""})


def _allowed_hosts(extra: list[str] | None, bound: str = "") -> list[str]:
    """localhost, the address the server listens on (a client reaching it by that address is no rebinding:
    a hostile DNS name would show in Host), and the names given with ``--allow-host``."""
    hosts = [*DEFAULT_ALLOWED_HOSTS, *(extra or [])]
    if bound.strip() not in _WILDCARD_BINDS:
        hosts.append(bound.strip())
    return hosts


def app_from_environment() -> StreamableHTTPApp:
    """The app factory each uvicorn worker calls: it loads the registry named in the environment."""
    target = os.environ[_TARGET_ENV]
    hosts = [h for h in os.environ.get(_HOSTS_ENV, "").split(",") if h]
    token_env = os.environ.get(_TOKEN_ENV)
    return create_app(
        load_registry(target),
        allowed_hosts=hosts or None,
        stateless_only=os.environ.get(_STATELESS_ENV) == "1",
        auth=_static_auth(os.environ.get(token_env, "")) if token_env else None,
    )


def _static_auth(token: str) -> Any:
    from .auth import AuthSettings, StaticTokenVerifier

    return AuthSettings(StaticTokenVerifier(token))


def _serve_http(registry: ToolRegistry, args: argparse.Namespace) -> int:
    try:
        import uvicorn
    except ImportError:
        sys.stderr.write("mcptools: serving HTTP needs uvicorn: pip install 'mcptools[http]'\n")
        return 2
    hosts = _allowed_hosts(args.allow_host, args.host)
    try:
        HostRules(hosts)
    except ValueError as exc:
        sys.stderr.write(f"mcptools: --allow-host: {exc}\n")
        return 2
    stateless = args.stateless or args.workers > 1
    auth = None
    if args.bearer_token_env is not None:
        token = os.environ.get(args.bearer_token_env, "")
        if not token:
            sys.stderr.write(f"mcptools: --bearer-token-env: environment variable {args.bearer_token_env} is empty\n")
            return 2
        auth = _static_auth(token)
        os.environ[_TOKEN_ENV] = args.bearer_token_env
    from ._transports.asgi_server import configure, listen, protocol_path, stack_options

    configure(args.timeout_headers, args.timeout_body)
    loop, kind = stack_options(args.stack)
    server_options: dict[str, Any] = {
        "loop": loop,
        "http": protocol_path(kind),
        "timeout_keep_alive": args.timeout_keep_alive,
        "log_level": "warning",
    }
    url = f"http://{args.host}:{args.port}/mcp"
    # Bind before announcing anything: "serving on ..." followed by uvicorn's bind error misleads.
    try:
        listener = listen(args.host, args.port)
    except OSError as exc:
        sys.stderr.write(f"mcptools: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}\n")
        return 1
    if args.workers > 1:
        listener.close()  # uvicorn's supervisor binds its own socket to share with the workers
    sys.stderr.write(f"mcptools: serving {registry.name!r} on {url}\n")
    if args.workers > 1:
        os.environ[_TARGET_ENV] = args.target
        os.environ[_HOSTS_ENV] = ",".join(hosts)
        os.environ[_STATELESS_ENV] = "1"
        # Every worker must open the requestState and cursors the others sealed.
        os.environ.setdefault("MCPTOOLS_STATE_SECRET", secrets.token_hex(32))
        uvicorn.run(
            "mcptools._serve:app_from_environment",
            factory=True,
            host=args.host,
            port=args.port,
            workers=args.workers,
            **server_options,
        )
        return 0
    app = create_app(registry, allowed_hosts=hosts, stateless_only=stateless, auth=auth)
    config = uvicorn.Config(app, host=args.host, port=args.port, lifespan="on", **server_options)
    uvicorn.Server(config).run(sockets=[listener])
    return 0


def run_serve(args: argparse.Namespace) -> int:
    """Serve per parsed ``args`` (see ``add_serve_arguments``); returns the exit status."""
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    # Over stdio, stdout belongs to the protocol from before the target is imported: a print at import time
    # must not reach the client.
    protocol = None if args.http else claim_stdout()
    try:
        registry = load_registry(args.target)
    except (TargetError, ToolDefinitionError) as exc:
        sys.stderr.write(f"mcptools: {type(exc).__name__}: {exc}\n")
        return 2
    if args.http:
        return _serve_http(registry, args)
    return serve_stdio(registry, protocol)
