"""The options of serving a registry, each written once: ``ServeSettings``.

Each key of the TypedDict carries its type (what mypy checks in ``registry.run(...)``) and, in its ``Annotated``
metadata, an ``Option``: its default, its help text and how the command line spells it. ``registry.run``, the
``mcptools serve`` arguments (``add_arguments``), the defaults (``resolve``), the registry's own defaults
(``ToolRegistry(..., port=8080)``, ``registry.settings``: ``ServeDefaults``) and what reaches worker processes
(``to_worker`` / ``from_worker``, one JSON document in one environment variable, written only when there are
several workers) are all read from here, so an option cannot be spelled four ways.

The peers' settings that mean nothing here (``dependencies=``, a ``fastmcp install`` hint) are keys too, marked
``ignored`` with the reason: accepted, so a server written for FastMCP starts, and said once in the log.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
from collections import abc
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from types import UnionType
from typing import Annotated, Any, Final, Literal, Union, final, get_args, get_origin, get_type_hints

from typing_extensions import TypedDict

from ._errors import UsageError
from ._peer_auth import PeerAuthSettings
from ._protocol.session import QUESTION_TIMEOUT
from ._transports.asgi_answers import RECONNECT_TIMEOUT
from ._transports.asgi_sessions import MAX_SESSIONS, MAX_SESSIONS_PER_CLIENT
from ._transports.http_rules import HostRules, is_endpoint_path
from .auth import AuthSettings  # at run time: the settings' annotations are read (get_type_hints) to build the CLI

__all__ = [
    "TRANSPORTS",
    "Option",
    "ServeDefaults",
    "ServeSettings",
    "TASK_OPTIONS",
    "TransportName",
    "WORKER_ENV",
    "add_arguments",
    "check_defaults",
    "from_arguments",
    "from_worker",
    "resolve",
    "to_worker",
]

logger = logging.getLogger("mcptools")

# How the first process tells each uvicorn worker process what to serve and how (uvicorn imports the factory
# by name in every worker, so nothing else can reach it).
WORKER_ENV: Final = "MCPTOOLS_WORKER"

Stack = Literal["auto", "standard", "fast"]
LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
# What ``registry.run(transport)`` and ``mcptools serve --transport`` take: the peers' names for the same two
# HTTP transports too. Each maps to what is served: stdio, Streamable HTTP, or the deprecated HTTP+SSE transport
# (2024-11-05's; served beside Streamable HTTP on the same app, see ``mcptools._transports.sse``).
TransportName = Literal["stdio", "http", "streamable-http", "sse"]
TRANSPORTS: Final[Mapping[str, str]] = {"stdio": "stdio", "http": "http", "streamable-http": "http", "sse": "sse"}
# What an option applies to, by served transport: most options are the HTTP server's (both HTTP transports share
# one app), a few are every transport's.
HTTP: Final = frozenset({"http", "sse"})
EVERY: Final = frozenset(TRANSPORTS.values())


@final
@dataclass(frozen=True, slots=True)
class Option:
    """One serving option: its ``default``; the ``help`` of its command-line flag (``None``: no flag, as for the
    ``auth`` object); the ``transports`` it applies to (served names: ``stdio``, ``http``, ``sse``); ``split``: a
    flag value holding a list, space- or comma-separated; ``repeat``: a flag given once per value; ``flag``: the
    flag's name when it is not the key's; ``ignored``: why a peer's setting means nothing here (accepted, logged
    once, dropped)."""

    default: Any
    help: str | None
    transports: frozenset[str] = HTTP
    metavar: str | None = None
    split: bool = False
    repeat: bool = False
    flag: str | None = None
    ignored: str | None = None


class ServeSettings(TypedDict, total=False):
    """What ``registry.run(transport, **settings)`` and ``mcptools serve`` take (``--`` flags of the same names);
    given to ``ToolRegistry(...)`` they are the defaults ``run()`` starts from."""

    host: Annotated[str, Option("127.0.0.1", "interface to listen on (default 127.0.0.1)")]
    port: Annotated[int, Option(8000, "port to listen on (default 8000)")]
    path: Annotated[
        str | None,
        Option(
            None,
            "the endpoint's path: Streamable HTTP's (default /mcp), or with --transport sse the event stream's "
            "(default /sse); the other transport keeps its default",
            metavar="PATH",
        ),
    ]
    json_response: Annotated[
        bool, Option(False, "answer every Streamable HTTP POST with one JSON body, never an event stream")
    ]
    workers: Annotated[int, Option(1, "worker processes (stateless 2026-07-28 only)")]
    allowed_hosts: Annotated[
        Sequence[str] | None,
        Option(
            None,
            "a Host/Origin name to accept besides localhost (repeatable; '*' turns the check off)",
            metavar="HOST",
            repeat=True,
            flag="--allow-host",
        ),
    ]
    stateless: Annotated[bool, Option(False, "refuse 2025 sessions (implied by --workers > 1)")]
    bearer_token_env: Annotated[
        str | None,
        Option(
            None,
            "require 'Authorization: Bearer <token>' equal to the value of environment variable NAME",
            metavar="NAME",
        ),
    ]
    bearer_token_scopes: Annotated[
        Sequence[str],
        Option(
            (),
            "the scopes that token's holder has, space- or comma-separated (for tools declared with scopes=)",
            metavar="SCOPES",
            split=True,
        ),
    ]
    # The SDK's AuthSettings only beside token_verifier= on the constructor (see _peer_auth); run() refuses it.
    auth: Annotated[AuthSettings | PeerAuthSettings | None, Option(None, None)]
    timeout_headers: Annotated[
        float, Option(10.0, "408 and close when a request's headers take longer (seconds, default 10)", metavar="S")
    ]
    timeout_body: Annotated[
        float, Option(30.0, "408 and close when a request's body takes longer (seconds, default 30)", metavar="S")
    ]
    timeout_keep_alive: Annotated[
        float, Option(5.0, "close a kept-alive connection idle this long (seconds, default 5)", metavar="S")
    ]
    timeout_question: Annotated[
        float,
        Option(
            QUESTION_TIMEOUT,
            f"a question to the client (elicitation, sampling, roots) fails when no answer comes within S seconds "
            f"(default {QUESTION_TIMEOUT:g}); the tool sees ClientRequestError",
            transports=EVERY,
            metavar="S",
        ),
    ]
    timeout_reconnect: Annotated[
        float,
        Option(
            RECONNECT_TIMEOUT,
            f"a question also fails once the stream that carried it has had no reader for S seconds (the client "
            f"left and did not resume it; default {RECONNECT_TIMEOUT:g})",
            metavar="S",
        ),
    ]
    timeout_shutdown: Annotated[
        float,
        Option(
            10.0,
            "on SIGTERM, calls in flight get S seconds to finish; shortly before, those still running are "
            "cancelled and answered with an error, and the server exits (default 10)",
            metavar="S",
        ),
    ]
    max_sessions: Annotated[
        int, Option(MAX_SESSIONS, f"2025 sessions open at once (default {MAX_SESSIONS:,})", metavar="N")
    ]
    max_sessions_per_client: Annotated[
        int,
        Option(
            MAX_SESSIONS_PER_CLIENT,
            f"2025 sessions one client (a token's owner, else an address) holds at once; past that its own "
            f"least recently used one closes (default {MAX_SESSIONS_PER_CLIENT:,})",
            metavar="N",
        ),
    ]
    log_level: Annotated[
        LogLevel | None,
        Option(
            None,
            "the level of mcptools' own loggers (default: as the target's logging configuration says, else WARNING)",
            transports=EVERY,
        ),
    ]
    stack: Annotated[
        Stack,
        Option(
            "auto",
            "event loop and HTTP parser: standard (asyncio, h11), fast (uvloop, httptools: extra http-fast), "
            "auto (fast when installed); stdio uses the loop",
            transports=EVERY,
        ),
    ]
    task_store: Annotated[
        str | None,
        Option(
            None,
            "where tasks are kept: memory:// (the default: this process only), sqlite:///path/tasks.db (they "
            "survive a restart; processes on this machine share them), redis://host:6379/0 (extra redis: every "
            "replica and worker shares them); a shared store also gives every replica the same tool list",
            transports=EVERY,
            metavar="URL",
        ),
    ]
    task_workers: Annotated[
        int,
        Option(
            16,
            "tasks this process runs at once (default 16; 0: it only creates and answers them, and "
            "`mcptools worker` processes run them)",
            transports=EVERY,
            metavar="N",
        ),
    ]
    task_ttl: Annotated[
        float, Option(3600.0, "seconds a task and its result are kept (default 3600)", transports=EVERY, metavar="S")
    ]
    task_poll_interval: Annotated[
        float,
        Option(1.0, "seconds between polls suggested to clients (default 1)", transports=EVERY, metavar="S"),
    ]
    task_lease: Annotated[
        float,
        Option(
            30.0,
            "seconds a worker may go without renewing its task before another takes it over (default 30)",
            transports=EVERY,
            metavar="S",
        ),
    ]
    task_attempts: Annotated[
        int,
        Option(
            3,
            "runs of a task that may end with their worker lost (killed, hung) before it fails (default 3)",
            transports=EVERY,
            metavar="N",
        ),
    ]
    # The peers' settings with no meaning here: accepted (a FastMCP server starts unchanged), logged once, dropped.
    dependencies: Annotated[
        Sequence[str] | None,
        Option(None, None, transports=EVERY, ignored="a `fastmcp install` hint; list them in your project instead"),
    ]
    stateless_http: Annotated[
        bool,
        Option(
            False,
            None,
            ignored="2026-07-28 requests are stateless here already, and 2025 clients keep their session (pass "
            "stateless=True to refuse those instead)",
        ),
    ]
    debug: Annotated[bool, Option(False, None, transports=EVERY, ignored="use log_level='DEBUG'")]
    show_banner: Annotated[bool, Option(True, None, transports=EVERY, ignored="mcptools prints no banner")]


_TIMEOUTS: Final = (
    "timeout_headers",
    "timeout_body",
    "timeout_keep_alive",
    "timeout_question",
    "timeout_reconnect",
    "timeout_shutdown",
)


@cache
def _options() -> dict[str, tuple[Option, Any]]:
    """Each key's ``Option`` and type, read from ``ServeSettings``' annotations."""
    hints = get_type_hints(ServeSettings, include_extras=True)
    found: dict[str, tuple[Option, Any]] = {}
    for key, hint in hints.items():
        kind, option = get_args(hint)[:2]
        found[key] = (option, kind)
    return found


def _unknown(
    keys: Iterable[str], options: Mapping[str, object], what: str, own: Iterable[str] = ()
) -> UsageError | None:
    unknown = sorted(set(keys) - set(options))
    if not unknown:
        return None
    known = ", ".join(key for key, (option, _) in _options().items() if option.ignored is None)
    # Two whole messages rather than one with a computed tail, so each reads in the source as it reads in a log.
    if own:
        return UsageError(f"unknown {what} {unknown[0]!r}; it takes {', '.join(own)}, and the serving options {known}")
    return UsageError(f"unknown {what} {unknown[0]!r}; the options are {known}")


def check_defaults(settings: Mapping[str, Any], where: str, own: Iterable[str] = ()) -> dict[str, Any]:
    """Serving settings given to ``ToolRegistry(...)``: an unknown one is a ``UsageError`` naming the known ones
    (``own``: the constructor's own keywords, named too), a peer's setting with no meaning here is logged once and
    dropped, a value of the wrong type or out of range is refused here, and the rest are kept as ``run()``'s
    defaults (checked together by ``resolve`` once the transport is known)."""
    options = _options()
    if "token_verifier" in settings or type(settings.get("auth")).__module__.startswith("mcp."):
        from ._peer_auth import auth_from_peer  # the official SDK's token_verifier= and auth=AuthSettings(...)

        settings = auth_from_peer(dict(settings), where)
    problem = _unknown(settings, options, "setting", own)
    if problem is not None:
        raise UsageError(f"{where}: {problem}")
    kept = _without_ignored(settings, options, where)
    for key, value in kept.items():
        # Refused here, where the wrong value was written, rather than by a later run() that did not write it.
        checked = value.upper() if key == "log_level" and isinstance(value, str) else value
        if key != "auth":  # auth= has its own message, in _check_values, naming what carries over
            try:
                _check_value(key, checked, options[key][1], flags=False)
            except UsageError as exc:
                raise UsageError(f"{where}: {exc}") from None
    return kept


def _without_ignored(
    settings: Mapping[str, Any], options: Mapping[str, tuple[Option, Any]], where: str
) -> dict[str, Any]:
    kept = {}
    for key, value in settings.items():
        why = options[key][0].ignored
        if why is None:
            kept[key] = value
        else:
            logger.warning("%s%s=%r is ignored: %s", where and where + ": ", key, value, why)
    return kept


def resolve(
    transport: str,
    settings: Mapping[str, Any],
    defaults: Mapping[str, Any] | None = None,
    *,
    where: str = "",
    flags: bool = False,
) -> dict[str, Any]:
    """Every option with its value: ``settings`` (``run()``'s own), else ``defaults`` (the registry's, from its
    constructor), else the option's default; checked: an unknown key, an option given for a transport it does not
    apply to, a value of the wrong type or out of range are each a ``UsageError`` naming the fix, spelled as the
    caller wrote it (``flags``: ``--port`` on the command line, else ``port=``). A peer's setting with no meaning
    here is logged once (``where`` opens the line) and dropped."""
    options = _options()
    problem = _unknown(settings, options, "serving option")
    if problem is not None:
        raise problem
    settings = _without_ignored(settings, options, where)
    given = [
        key
        for key in settings
        if transport not in options[key][0].transports and settings[key] != options[key][0].default
    ]
    if given:
        # registry.run(port=8080) serving stdio, with the port silently ignored, is never what was meant. The
        # registry's own defaults (ToolRegistry(..., port=8080)) are for whichever transport runs: no error.
        raise UsageError(_not_for(transport, given, flags))
    base = defaults or {}
    resolved = {
        key: settings[key] if key in settings else base.get(key, option.default)
        for key, (option, _) in options.items()
        if option.ignored is None
    }
    _check_values(resolved, options, flags)
    return resolved


def _not_for(transport: str, given: list[str], flags: bool) -> str:
    verb, them = ("applies", "it") if len(given) == 1 else ("apply", "them")
    names = ", ".join(_spelled(key, flags) for key in given)
    takers = _options()[given[0]][0].transports
    named = " and ".join(sorted(takers))
    if transport != "stdio":  # no option is yet; a new transport's own options would be
        return f"{names} {verb} to {named} only; leave {them} out for {transport}"
    if takers != HTTP:  # a transport's own option: name its transports as they are
        return f"{names} {verb} to {named} only; pass one of them as the transport or leave {them} out for stdio"
    if flags:
        return f"{names} {verb} to HTTP only; add --http (or --transport sse) or leave {them} out for stdio"
    return (
        f"{names} {verb} to HTTP only; pass transport='http' (registry.run('http', {given[0]}=...)) or leave "
        f"{them} out for stdio"
    )


def _spelled(key: str, flags: bool) -> str:
    """An option as its caller wrote it: ``--allow-host`` on the command line, ``allowed_hosts`` in Python."""
    if not flags:
        return key
    return _options()[key][0].flag or "--" + key.replace("_", "-")


# Values a well-typed option may still not take: a limit of zero or below would turn its guard off without
# saying so, and a port outside 0-65535 cannot be bound. The key's test, and what the option must be.
def _above_zero(value: float) -> bool:
    return value > 0


def _finite_above_zero(value: float) -> bool:
    return 0 < value < float("inf")


_STORE_SCHEMES: Final = ("memory", "sqlite", "redis", "rediss", "unix")


def _store_url(store: str | None) -> bool:
    return store is None or store.partition("://")[0] in _STORE_SCHEMES


_RANGES: Final[Mapping[str, tuple[Callable[[Any], bool], str]]] = {
    **{key: (_above_zero, "a number of seconds above 0") for key in _TIMEOUTS},
    "max_sessions": (_above_zero, "a whole number above 0"),
    "max_sessions_per_client": (_above_zero, "a whole number above 0"),
    "workers": (_above_zero, "a whole number above 0"),
    "port": (lambda port: 0 <= port <= 65535, "a port number from 0 to 65535 (0: any free port)"),
    # An empty host binds every interface: what an unset variable (host=os.environ.get("HOST", "")) would do.
    "host": (lambda host: bool(host.strip()), "an interface name or address (0.0.0.0 for every interface)"),
    "bearer_token_env": (lambda name: name is None or bool(name.strip()), "the name of an environment variable"),
    "task_store": (_store_url, "a URL: memory://, sqlite:///path/tasks.db or redis://host:6379/0"),
    **{
        key: (_finite_above_zero, "a number of seconds above 0")
        for key in ("task_ttl", "task_poll_interval", "task_lease")
    },
    "task_workers": (lambda workers: workers >= 0, "a whole number, 0 or more"),
    "task_attempts": (_above_zero, "a whole number, 1 or more"),
}


def _check_values(resolved: dict[str, Any], options: Mapping[str, tuple[Option, Any]], flags: bool) -> None:
    auth = resolved["auth"]
    if auth is not None and not isinstance(auth, AuthSettings):
        # A peer's auth provider silently dropped would serve without authorization: refuse it instead.
        raise UsageError(
            f"auth= takes mcptools.auth.AuthSettings(verifier), got {type(auth).__name__}; the peers' auth "
            "providers do not carry over (see mcptools.auth)"
        )
    level = resolved["log_level"]
    if isinstance(level, str):
        resolved["log_level"] = level.upper()  # the logging module's names, in any case
    for key, value in resolved.items():
        _check_value(key, value, options[key][1], flags)
    if resolved["bearer_token_scopes"] and resolved["bearer_token_env"] is None:
        raise UsageError(
            f"{_spelled('bearer_token_scopes', flags)} needs {_spelled('bearer_token_env', flags)} (the token they "
            "belong to)"
        )
    try:
        HostRules(resolved["allowed_hosts"] or ())
    except UsageError as exc:
        raise UsageError(f"{_spelled('allowed_hosts', flags)}: {exc}") from None
    path = resolved["path"]
    if path is not None and not is_endpoint_path(path):
        raise UsageError(f"{_spelled('path', flags)} must be a URL path starting with '/' (e.g. /mcp), got {path!r}")


def _check_value(key: str, value: Any, kind: Any, flags: bool) -> None:
    """One option's value against the type ``ServeSettings`` writes for it, then its range."""
    if not _fits(value, kind):
        hint = f" (a list: {key}=[{value!r}])" if isinstance(value, str) and _is_list(kind) else ""
        raise UsageError(f"{_spelled(key, flags)} must be {_described(kind)}, got {value!r}{hint}")
    within = _RANGES.get(key)
    if within is not None and not within[0](value):
        raise UsageError(f"{_spelled(key, flags)} must be {within[1]}, got {value!r}")


def _fits(value: Any, kind: Any) -> bool:
    """Whether ``value`` is of the type ``ServeSettings`` writes for its key (bool is no int here)."""
    origin = get_origin(kind)
    if origin is Union or origin is UnionType:
        return any(_fits(value, branch) for branch in get_args(kind))
    if origin is Literal:
        return value in get_args(kind)
    if _is_list(kind):
        return isinstance(value, (list, tuple)) and all(_fits(item, get_args(kind)[0]) for item in value)
    if kind is type(None):
        return value is None
    if kind is float:
        return type(value) in (int, float)
    if kind in (bool, int, str):
        return type(value) is kind
    return isinstance(value, kind)


def _is_list(kind: Any) -> bool:
    if get_origin(kind) in (Union, UnionType):
        return any(_is_list(branch) for branch in get_args(kind))
    return get_origin(kind) is abc.Sequence


def _described(kind: Any) -> str:
    origin = get_origin(kind)
    if origin is Union or origin is UnionType:
        return " or ".join(_described(branch) for branch in get_args(kind))
    if origin is Literal:
        return "one of " + ", ".join(map(repr, get_args(kind)))
    if origin is abc.Sequence:
        return "a list of strings"  # the only list ServeSettings has
    names = {bool: "True or False", int: "a whole number", float: "a number", str: "a string", type(None): "None"}
    return names.get(kind) or f"a {getattr(kind, '__name__', kind)}"


TASK_OPTIONS: Final = ("task_store", "task_workers", "task_ttl", "task_poll_interval", "task_lease", "task_attempts")


def add_arguments(parser: argparse.ArgumentParser, only: Sequence[str] | None = None) -> None:
    """``mcptools serve``'s flags, one per option that has a help text (``only``: these options' flags, as
    ``mcptools worker`` takes the task options and the log level)."""
    for key, (option, kind) in _options().items():
        if option.help is None or (only is not None and key not in only):
            continue
        flag = option.flag or "--" + key.replace("_", "-")
        extra: dict[str, Any] = {"dest": key, "default": None, "help": option.help, "metavar": option.metavar}
        if kind is bool:
            parser.add_argument(flag, action="store_true", dest=key, default=None, help=option.help)
            continue
        if option.repeat:
            extra["action"] = "append"
        elif key in ("stack", "log_level"):
            extra["choices"] = get_args(Stack if key == "stack" else LogLevel)
            extra.pop("metavar")
            if key == "log_level":
                extra["type"] = str.upper
        elif kind in (int, float):
            extra["type"] = kind
        parser.add_argument(flag, **extra)


def from_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """The options given on the command line (those left out take their defaults in ``resolve``)."""
    given: dict[str, Any] = {}
    for key, (option, _) in _options().items():
        value = getattr(args, key, None)
        if value is None:
            continue
        given[key] = split_list(value) if option.split else value
    return given


def split_list(text: str) -> list[str]:
    """``"read write"`` or ``"read,write"``: a list option given as one flag value."""
    return [item for item in text.replace(",", " ").split() if item]


def to_worker(resolved: Mapping[str, Any], target: str, argv: Sequence[str]) -> str:
    """Everything a worker process needs, once: the JSON document the caller puts in ``WORKER_ENV``."""
    options = {key: value for key, value in resolved.items() if key != "auth"}
    return json.dumps({"target": target, "argv": list(argv), "options": options})


def from_worker() -> tuple[str, list[str], dict[str, Any]]:
    """What ``to_worker`` handed over: the target, its arguments and the resolved options."""
    document = json.loads(os.environ[WORKER_ENV])
    return document["target"], document["argv"], document["options"]


@final
class ServeDefaults:
    """``registry.settings``: the serving settings given to ``ToolRegistry(...)``, or set here later as the peers'
    code does (``mcp.settings.port = 8080``); ``run()`` and ``mcptools serve`` start from them, and what they are
    given themselves wins. Reading a setting never given gives its default."""

    __slots__ = ("_given", "_where")

    _given: dict[str, Any]
    _where: str

    def __init__(self, given: dict[str, Any], where: str) -> None:
        # ``given`` is the registry's own dict, already checked (``check_defaults``): changes here are its changes.
        object.__setattr__(self, "_given", given)
        object.__setattr__(self, "_where", where)

    def given(self) -> dict[str, Any]:
        """The settings given, by name (what ``run()`` starts from)."""
        return dict(self._given)

    def __getattr__(self, name: str) -> Any:
        option = _options().get(name)
        if option is None or option[0].ignored is not None:
            raise AttributeError(f"{self._where}.settings has no {name!r}")
        return self._given.get(name, option[0].default)

    def __setattr__(self, name: str, value: Any) -> None:
        self._given.update(check_defaults({name: value}, self._where))

    def __repr__(self) -> str:
        return f"<ServeDefaults {self._given!r}>"
