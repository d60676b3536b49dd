"""Running a registry as a server: ``registry.run()`` and ``mcptools serve`` share this.

    if __name__ == "__main__":
        registry.run()                                  # stdio, as client configurations launch `python app.py`
        registry.run("http", port=8080, workers=2)      # Streamable HTTP on uvicorn (extra "http")

The lifespan runs around serving either way: over stdio ``serve_stdio`` enters it (and SIGTERM closes it); over
HTTP uvicorn's lifespan events do, once in each worker process. With ``workers > 1`` uvicorn starts fresh
processes that import the app by name, so each loads the registry's module again from its file (``target``: what
``mcptools serve`` was given, or for ``registry.run()`` the running script).

This module knows transports and options, never how a TARGET is loaded (``_target``) nor the registry class, so
``registry.run()`` can import it without a cycle.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from ._transports.asgi import DEFAULT_ALLOWED_HOSTS, create_app
from ._transports.asgi_server import DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT, DEFAULT_KEEP_ALIVE
from ._transports.http_rules import HostRules
from ._transports.stdio import serve_stdio

if TYPE_CHECKING:
    from typing import BinaryIO

    from ._protocol.engine import Served
    from .auth import AuthSettings

__all__ = [
    "ARGV_ENV",
    "HOSTS_ENV",
    "STATELESS_ENV",
    "TARGET_ENV",
    "TOKEN_ENV",
    "RunOptions",
    "default_logging",
    "run_registry",
    "serve_http",
    "static_auth",
]

logger = logging.getLogger("mcptools")

# How a server with several workers tells each worker process what to load (uvicorn imports the factory by name).
TARGET_ENV: Final = "MCPTOOLS_SERVE_TARGET"
HOSTS_ENV: Final = "MCPTOOLS_ALLOWED_HOSTS"
STATELESS_ENV: Final = "MCPTOOLS_STATELESS_ONLY"
# The NAME given to --bearer-token-env (the token itself stays where the user put it).
TOKEN_ENV: Final = "MCPTOOLS_BEARER_TOKEN_ENV"
# The scopes --bearer-token-scopes grants the static token's holder, space-separated.
TOKEN_SCOPES_ENV: Final = "MCPTOOLS_BEARER_TOKEN_SCOPES"
# The arguments after `--` (`mcptools serve app.py -- --local-timezone UTC`), as JSON: each worker's sys.argv.
ARGV_ENV: Final = "MCPTOOLS_TARGET_ARGV"

# Binding to every interface names no host a client would use, so it adds nothing to the allow-list.
_WILDCARD_BINDS: Final = frozenset({"0.0.0.0", "::", "[::]", ""})


@dataclass(slots=True)
class RunOptions:
    """The options of ``mcptools serve --http`` (``None`` timeouts: serve's defaults)."""

    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    allowed_hosts: list[str] | None = None
    stateless: bool = False
    bearer_token_env: str | None = None
    bearer_token_scopes: Sequence[str] = ()
    auth: AuthSettings | None = None
    timeout_headers: float | None = None
    timeout_body: float | None = None
    timeout_keep_alive: int | None = None
    stack: str = "auto"


_DEFAULTS: Final = RunOptions()


def default_logging() -> None:
    """Warnings and errors on stderr, unless the program configured logging itself. Called once the target is
    imported, never before: ``logging.basicConfig`` does nothing once the root logger has a handler, so a target's
    own configuration (its level, its format, ``LogCalls()`` at INFO) must come first."""
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")


def static_auth(token: str, scopes: Iterable[str] = ()) -> AuthSettings:
    """The one shared token of ``--bearer-token-env``; its holder has ``scopes`` (so ``scopes=`` tools work)."""
    from .auth import AuthSettings, StaticTokenVerifier

    return AuthSettings(StaticTokenVerifier(token, scopes=scopes))


def split_scopes(text: str) -> list[str]:
    """``"read write"`` or ``"read,write"``: the scope list of --bearer-token-scopes."""
    return [scope for scope in text.replace(",", " ").split() if scope]


def _timeout_problem(options: RunOptions) -> str | None:
    # A zero or negative limit would turn the guard off without saying so: refuse it instead.
    for flag, value in (
        ("--timeout-headers", options.timeout_headers),
        ("--timeout-body", options.timeout_body),
        ("--timeout-keep-alive", options.timeout_keep_alive),
    ):
        if value is not None and not value > 0:
            return f"{flag} must be a number of seconds above 0, got {value:g}"
    return None


def allowed_hosts(extra: list[str] | None, bound: str = "") -> list[str]:
    """localhost, the address the server listens on (a client reaching it by that address is no rebinding:
    a hostile DNS name would show in Host), and the names given with ``--allow-host``."""
    hosts = [*DEFAULT_ALLOWED_HOSTS, *(extra or [])]
    if bound.strip() not in _WILDCARD_BINDS:
        hosts.append(bound.strip())
    return hosts


def serve_http(registry: Served, options: RunOptions, target: str | None) -> int:
    """Serve ``registry`` over Streamable HTTP until uvicorn stops; ``target`` is what worker processes load
    (required when ``options.workers > 1``). Returns the exit status."""
    try:
        import uvicorn
    except ImportError:
        sys.stderr.write("mcptools: serving HTTP needs uvicorn: pip install 'mcptools[http]'\n")
        return 2
    hosts = allowed_hosts(options.allowed_hosts, options.host)
    try:
        HostRules(hosts)
    except ValueError as exc:
        sys.stderr.write(f"mcptools: --allow-host: {exc}\n")
        return 2
    problem = _timeout_problem(options)
    if problem is not None:
        sys.stderr.write(f"mcptools: {problem}\n")
        return 2
    stateless = options.stateless or options.workers > 1
    auth = options.auth
    if options.bearer_token_env is not None:
        token = os.environ.get(options.bearer_token_env, "")
        if not token:
            sys.stderr.write(
                f"mcptools: --bearer-token-env: environment variable {options.bearer_token_env} is empty\n"
            )
            return 2
        auth = static_auth(token, options.bearer_token_scopes)
        os.environ[TOKEN_ENV] = options.bearer_token_env
        os.environ[TOKEN_SCOPES_ENV] = " ".join(options.bearer_token_scopes)
    elif options.bearer_token_scopes:
        sys.stderr.write("mcptools: --bearer-token-scopes needs --bearer-token-env (the token they belong to)\n")
        return 2
    if options.workers > 1 and (target is None or options.auth is not None):
        why = "auth= objects cannot reach worker processes" if target is not None else "no file to load them from"
        sys.stderr.write(f"mcptools: workers > 1 needs a TARGET the workers can import ({why})\n")
        return 2
    from ._transports.asgi_server import configure, listen, protocol_path, stack_options

    configure(
        options.timeout_headers if options.timeout_headers is not None else DEFAULT_HEADER_TIMEOUT,
        options.timeout_body if options.timeout_body is not None else DEFAULT_BODY_TIMEOUT,
    )
    loop, kind = stack_options(options.stack)
    server_options: dict[str, Any] = {
        "loop": loop,
        "http": protocol_path(kind),
        "timeout_keep_alive": options.timeout_keep_alive
        if options.timeout_keep_alive is not None
        else DEFAULT_KEEP_ALIVE,
        "log_level": "warning",
    }
    url = f"http://{options.host}:{options.port}/mcp"
    # Bind before announcing anything: "serving on ..." followed by uvicorn's bind error misleads.
    try:
        listener = listen(options.host, options.port)
    except (OSError, OverflowError) as exc:  # OverflowError: a port outside 0-65535
        reason = getattr(exc, "strerror", None) or exc
        sys.stderr.write(f"mcptools: cannot listen on {options.host}:{options.port}: {reason}\n")
        return 1
    if options.workers > 1:
        listener.close()  # uvicorn's supervisor binds its own socket to share with the workers
    sys.stderr.write(f"mcptools: serving {registry.name!r} on {url}\n")
    if options.workers > 1:
        assert target is not None
        os.environ[TARGET_ENV] = target
        os.environ[HOSTS_ENV] = ",".join(hosts)
        os.environ[STATELESS_ENV] = "1"
        os.environ[ARGV_ENV] = json.dumps(sys.argv[1:])
        # Every worker must open the requestState and cursors the others sealed.
        os.environ.setdefault("MCPTOOLS_STATE_SECRET", secrets.token_hex(32))
        uvicorn.run(
            "mcptools._serve:app_from_environment",
            factory=True,
            host=options.host,
            port=options.port,
            workers=options.workers,
            **server_options,
        )
        return 0
    app = create_app(registry, allowed_hosts=hosts, stateless_only=stateless, auth=auth)
    # lifespan="on": the app's lifespan events enter the registry's lifespan; a failing one stops the start.
    config = uvicorn.Config(app, host=options.host, port=options.port, lifespan="on", **server_options)
    server = uvicorn.Server(config)
    server.run(sockets=[listener])
    # uvicorn returns quietly when the lifespan failed at startup (it logged why): that is no clean stop.
    return 0 if server.started else 3


def _main_target(registry: Served) -> str | None:
    """``file.py:attribute`` naming ``registry`` in the running script, for worker processes to load."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or path is None:
        return None
    for attribute, value in vars(main).items():
        if value is registry:
            return f"{os.path.abspath(path)}:{attribute}"
    return None


def run_registry(registry: Served, transport: str, options: RunOptions, *, protocol: BinaryIO | None = None) -> int:
    """``registry.run()``: stdio or HTTP, the lifespan around either."""
    default_logging()
    if transport == "stdio":
        given = [name for name in RunOptions.__slots__ if getattr(options, name) != getattr(_DEFAULTS, name)]
        if given:
            # registry.run(port=8080) serving stdio, with the port silently ignored, is never what was meant.
            raise ValueError(
                f"registry.run: {', '.join(given)} {'applies' if len(given) == 1 else 'apply'} to HTTP only; pass "
                f"transport='http' "
                f"(registry.run('http', {given[0]}=...)) or leave them out for stdio"
            )
        return serve_stdio(registry, protocol)
    if transport == "http":
        return serve_http(registry, options, _main_target(registry) if options.workers > 1 else None)
    raise ValueError(f"registry.run: transport must be 'stdio' or 'http', got {transport!r}")
