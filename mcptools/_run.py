"""Running a registry as a server: ``registry.run()`` and ``mcptools serve`` share this.

    if __name__ == "__main__":
        registry.run()                                  # stdio, as client configurations launch `python app.py`
        registry.run("http", port=8080, workers=2)      # Streamable HTTP on uvicorn (extra "http")
        registry.run("sse", port=8080)                  # the deprecated HTTP+SSE transport, beside Streamable HTTP

The options are ``mcptools._options.ServeSettings``, resolved once here (what ``run()`` is given over the
registry's own defaults, ``ToolRegistry(..., port=8080)``). The lifespan runs around serving either
way: over stdio ``serve_stdio`` enters it (and SIGTERM closes it); over HTTP uvicorn's lifespan events do, once in
each worker process. With ``workers > 1`` uvicorn starts fresh processes that import the app by name, so each
loads the registry's module again from its file (``target``: what ``mcptools serve`` was given, or for
``registry.run()`` the running script), and reads the resolved options from the one environment variable
``_options.to_worker`` wrote (set while the workers run); with one worker nothing is written to the environment.

This module knows transports and options, never how a TARGET is loaded (``_target``) nor the registry class, so
``registry.run()`` can import it without a cycle.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import signal
import sys
import threading
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Final

from ._errors import UsageError
from ._options import TRANSPORTS, WORKER_ENV, resolve, to_worker
from ._protocol.state import SECRET_ENV
from ._transports.asgi import DEFAULT_ALLOWED_HOSTS, StreamableHTTPApp
from ._transports.stdio import serve_stdio

if TYPE_CHECKING:
    from typing import BinaryIO

    from ._protocol.engine import Engine, Served
    from ._transports.sse import HTTPApps, SSEApp
    from .auth import AuthSettings

__all__ = [
    "allowed_hosts",
    "app_for",
    "configure_tasks",
    "default_logging",
    "run_registry",
    "serve_http",
    "sse_app",
    "static_auth",
    "streamable_app",
    "token_auth",
]

logger = logging.getLogger("mcptools")

# Binding to every interface names no host a client would use, so it adds nothing to the allow-list.
_WILDCARD_BINDS: Final = frozenset({"0.0.0.0", "::", "[::]", ""})
# Each HTTP transport's own endpoint when path= does not name it (path= names the one being run).
_DEFAULT_PATHS: Final = {"http": "/mcp", "sse": "/sse"}


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


def allowed_hosts(extra: Iterable[str] | None, bound: str = "") -> list[str]:
    """localhost, the address the server listens on (a client reaching it by that address is no rebinding:
    a hostile DNS name would show in Host), and the names given with ``--allow-host``."""
    hosts = [*DEFAULT_ALLOWED_HOSTS, *(extra or [])]
    if bound.strip() not in _WILDCARD_BINDS:
        hosts.append(bound.strip())
    return hosts


def token_auth(options: Mapping[str, Any]) -> AuthSettings | None:
    """``auth=``, or the static token of ``--bearer-token-env`` (read from that variable, never copied)."""
    name = options["bearer_token_env"]
    if name is None:
        auth: AuthSettings | None = options.get("auth")  # never in a worker's options: see to_worker
        return auth
    token = os.environ.get(name, "")
    if not token:
        state = "empty" if name in os.environ else "not set"
        raise UsageError(f"bearer token: environment variable {name} is {state}; export the token before starting")
    return static_auth(token, options["bearer_token_scopes"])


def app_for(registry: Served, options: Mapping[str, Any], transport: str = "http") -> StreamableHTTPApp | HTTPApps:
    """The ASGI app serving ``registry`` with resolved ``options`` (in this process, or in a worker): Streamable
    HTTP, and beside it on the same app the deprecated HTTP+SSE transport unless the server is stateless (a POST
    must reach the process holding its stream). ``path`` is the endpoint of ``transport``; the other keeps its
    default."""
    hosts = allowed_hosts(options["allowed_hosts"], options["host"])
    auth = token_auth(options)
    stateless = options["stateless"] or options["workers"] > 1
    paths = {**_DEFAULT_PATHS, transport: options["path"] or _DEFAULT_PATHS[transport]}
    streamable = streamable_app(registry, options, paths["http"], hosts, auth, stateless_only=stateless)
    if stateless:
        return streamable
    from ._transports.sse import HTTPApps

    events = sse_app(registry, options, paths["sse"], hosts, auth, engine=streamable.engine)
    if paths["http"] in (events.path, events.message_path, events.message_path.rstrip("/")):
        raise UsageError(
            f"path={paths['http']!r} is the HTTP+SSE transport's; give Streamable HTTP another path (e.g. '/mcp')"
        )
    return HTTPApps(registry, streamable, events)


def streamable_app(
    registry: Served,
    options: Mapping[str, Any],
    path: str,
    hosts: Iterable[str],
    auth: AuthSettings | None,
    *,
    stateless_only: bool = False,
) -> StreamableHTTPApp:
    """The Streamable HTTP app at ``path`` with the resolved ``options``."""
    return StreamableHTTPApp(
        registry,
        path=path,
        allowed_hosts=hosts,
        stateless_only=stateless_only,
        auth=auth,
        json_response=options["json_response"],
        max_sessions=options["max_sessions"],
        max_sessions_per_client=options["max_sessions_per_client"],
        timeout_question=options["timeout_question"],
        timeout_reconnect=options["timeout_reconnect"],
    )


def sse_app(
    registry: Served,
    options: Mapping[str, Any],
    path: str,
    hosts: Iterable[str],
    auth: AuthSettings | None,
    *,
    engine: Engine | None = None,
    message_path: str = "/messages/",
) -> SSEApp:
    """The deprecated HTTP+SSE transport's app, its event stream at ``path``, with the resolved ``options``."""
    from ._transports.sse import SSEApp

    return SSEApp(
        registry,
        path=path,
        message_path=message_path,
        allowed_hosts=hosts,
        auth=auth,
        engine=engine,
        max_sessions=options["max_sessions"],
        max_sessions_per_client=options["max_sessions_per_client"],
        timeout_question=options["timeout_question"],
    )


def serve_http(registry: Served, options: Mapping[str, Any], target: str | None, transport: str = "http") -> int:
    """Serve ``registry`` over HTTP (``transport``: ``http`` or ``sse``, see ``app_for``) until uvicorn stops;
    ``target`` is what worker processes load (required when ``options["workers"] > 1``). Returns the exit
    status."""
    try:
        import uvicorn
    except ImportError:
        sys.stderr.write("mcptools: serving HTTP needs uvicorn: pip install 'mcptools[http]'\n")
        return 2
    app = app_for(registry, options, transport)
    workers = options["workers"]
    if workers > 1 and (target is None or options["auth"] is not None):
        why = "auth= objects cannot reach worker processes" if target is not None else "no file to load them from"
        raise UsageError(f"workers > 1 needs a TARGET the workers can import ({why})")
    from ._transports.asgi_server import listen, uvicorn_options

    host, port = options["host"], options["port"]
    # Bind before announcing anything: "serving on ..." followed by uvicorn's bind error misleads.
    try:
        listener = listen(host, port)
    except (OSError, OverflowError) as exc:  # OverflowError: a port outside 0-65535
        reason = getattr(exc, "strerror", None) or exc
        sys.stderr.write(f"mcptools: cannot listen on {host}:{port}: {reason}\n")
        return 1
    sys.stderr.write(f"mcptools: serving {registry.name!r} on {_endpoints(app, host, port, transport)}\n")
    server_options = uvicorn_options(options, by_name=workers > 1)
    if workers > 1:
        assert target is not None
        listener.close()  # uvicorn's supervisor binds its own socket to share with the workers
        # What each worker reads, in the environment it inherits; gone again once the workers are.
        with _environment(to_worker(options, target, sys.argv[1:]), secret=secrets.token_hex(32)):
            uvicorn.run(
                "mcptools._serve:app_from_environment",
                factory=True,
                host=host,
                port=port,
                workers=workers,
                **server_options,
            )
        return 0
    # lifespan="on": the app's lifespan events enter the registry's lifespan; a failing one stops the start.
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, lifespan="on", **server_options))
    with _sigterm_stops(server):
        server.run(sockets=[listener])
    # uvicorn returns quietly when the lifespan failed at startup (it logged why): that is no clean stop.
    return 0 if server.started else 3


@contextlib.contextmanager
def _sigterm_stops(server: Any) -> Iterator[None]:
    """SIGTERM stops ``server`` gracefully and the process goes on to return 0. uvicorn handles the signal itself
    while it serves, but once stopped it restores the handler it found and raises the signal again: Python's
    default handler would kill the process there (status -15) before ``run`` returns. The handler it finds here
    asks the server to stop, as uvicorn's own does: a SIGTERM before uvicorn took over stops it as it starts,
    and the one raised again changes nothing. A handler of the program's own is left alone."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    ):
        yield
        return

    def stop(signum: int, frame: object) -> None:
        server.should_exit = True

    signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextlib.contextmanager
def _environment(worker: str, secret: str) -> Iterator[None]:
    """``WORKER_ENV`` and, unless the user set one, the state secret every worker must share (each opens the
    requestState and cursors the others sealed), set while the workers run and restored after."""
    saved = {name: os.environ.get(name) for name in (WORKER_ENV, SECRET_ENV)}
    os.environ[WORKER_ENV] = worker
    os.environ.setdefault(SECRET_ENV, secret)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


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


def _endpoints(app: StreamableHTTPApp | HTTPApps, host: str, port: int, transport: str) -> str:
    streamable = app if isinstance(app, StreamableHTTPApp) else app.streamable
    url = f"http://{host}:{port}"
    if isinstance(app, StreamableHTTPApp):
        return f"{url}{streamable.path}"
    if transport == "sse":
        return f"{url}{app.sse.path} (HTTP+SSE, deprecated; Streamable HTTP at {streamable.path})"
    return f"{url}{streamable.path} (and the deprecated HTTP+SSE transport at {app.sse.path})"


def configure_tasks(registry: Served, options: Mapping[str, Any]) -> None:
    """Hand the resolved ``task_*`` options to the registry's tasks, when it has any to run or a store was
    named (a shared one replicates the tool list even without task tools)."""
    if not registry.offers_tasks and options["task_store"] is None:
        return
    from ._tasks.config import config_from_options

    registry.task_service.configure(config_from_options(options))


def run_registry(
    registry: Served,
    transport: str,
    settings: Mapping[str, Any],
    *,
    defaults: Mapping[str, Any] | None = None,
    protocol: BinaryIO | None = None,
    target: str | None = None,
    where: str = "registry.run: ",
    flags: bool = False,
) -> int:
    """``registry.run()`` and ``mcptools serve``: stdio or HTTP, the lifespan around either. ``settings`` are
    what the caller was given, ``defaults`` the registry's own (from its constructor); ``target`` names what
    worker processes load (``mcptools serve``'s TARGET; for ``registry.run()``, the running script); ``where``
    opens the message of a ``UsageError``, and ``flags`` spells the options in it as the command line does."""
    served = TRANSPORTS.get(transport) if type(transport) is str else None
    if served is None:
        raise UsageError(f"{where}transport must be one of {', '.join(map(repr, TRANSPORTS))}, got {transport!r}")
    default_logging()
    try:
        options = resolve(served, settings, defaults, where=where.rstrip(": "), flags=flags)
        if served == "sse" and (options["stateless"] or options["workers"] > 1):
            raise UsageError(
                "the HTTP+SSE transport keeps each client's stream in one process: it takes neither stateless nor "
                "several workers"
            )
    except UsageError as exc:
        raise UsageError(f"{where}{exc}") from None
    if options["log_level"] is not None:
        logging.getLogger("mcptools").setLevel(options["log_level"])
    configure_tasks(registry, options)
    if registry.offers_tasks and options["workers"] > 1 and options["task_store"] is None:
        # Each HTTP worker process would keep its own tasks: one made in one process is unknown to the others.
        logger.warning(
            "%d worker processes would each keep tasks in memory, where only the process that made a "
            "task finds it; pass --task-store sqlite:///tasks.db (or redis://...) so that they share them",
            options["workers"],
        )
    if served == "stdio":
        return serve_stdio(registry, protocol, stack=options["stack"], question_timeout=options["timeout_question"])
    if target is None and options["workers"] > 1:
        target = _main_target(registry)
    try:
        return serve_http(registry, options, target, served)
    except UsageError as exc:  # a refusal only the app's construction can make (hosts, paths, token)
        raise UsageError(f"{where}{exc}") from None
