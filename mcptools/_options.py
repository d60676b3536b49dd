"""The options of serving a registry, each written once: ``ServeSettings``.

Each key of the TypedDict carries its type (what mypy checks in ``registry.run(...)``) and, in its ``Annotated``
metadata, an ``Option``: its default, its help text and how the command line spells it. ``registry.run``, the
``mcptools serve`` arguments (``add_arguments``), the defaults (``resolve``) and what reaches worker processes
(``to_worker`` / ``from_worker``, one JSON document in one environment variable, written only when there are
several workers) are all read from here, so an option cannot be spelled four ways.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal, final, get_args, get_type_hints

from typing_extensions import TypedDict

from ._errors import UsageError
from ._protocol.session import QUESTION_TIMEOUT
from ._transports.asgi_answers import RECONNECT_TIMEOUT
from ._transports.asgi_sessions import MAX_SESSIONS, MAX_SESSIONS_PER_CLIENT
from .auth import AuthSettings  # at run time: the settings' annotations are read (get_type_hints) to build the CLI

__all__ = [
    "Option",
    "ServeSettings",
    "WORKER_ENV",
    "add_arguments",
    "from_arguments",
    "from_worker",
    "resolve",
    "to_worker",
]

# How the first process tells each uvicorn worker process what to serve and how (uvicorn imports the factory
# by name in every worker, so nothing else can reach it).
WORKER_ENV: Final = "MCPTOOLS_WORKER"

Stack = Literal["auto", "standard", "fast"]
LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]


@final
@dataclass(frozen=True, slots=True)
class Option:
    """One serving option: its ``default``; the ``help`` of its command-line flag (``None``: no flag, as for the
    ``auth`` object); whether it applies to HTTP only; ``split``: a flag value holding a list, space- or
    comma-separated; ``repeat``: a flag given once per value; ``flag``: the flag's name when it is not the key's."""

    default: Any
    help: str | None
    http_only: bool = True
    metavar: str | None = None
    split: bool = False
    repeat: bool = False
    flag: str | None = None


class ServeSettings(TypedDict, total=False):
    """What ``registry.run(transport, **settings)`` and ``mcptools serve`` take (``--`` flags of the same names)."""

    host: Annotated[str, Option("127.0.0.1", "interface to listen on (default 127.0.0.1)")]
    port: Annotated[int, Option(8000, "port to listen on (default 8000)")]
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
    auth: Annotated[AuthSettings | None, Option(None, None)]
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
            http_only=False,
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
            "on SIGTERM, calls in flight get S seconds to finish before they are cancelled and the server exits "
            "(default 10)",
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
            http_only=False,
        ),
    ]
    stack: Annotated[
        Stack,
        Option(
            "auto",
            "event loop and HTTP parser: standard (asyncio, h11), fast (uvloop, httptools: extra http-fast), "
            "auto (fast when installed); stdio uses the loop",
            http_only=False,
        ),
    ]


_TIMEOUTS: Final = (
    "timeout_headers",
    "timeout_body",
    "timeout_keep_alive",
    "timeout_question",
    "timeout_reconnect",
    "timeout_shutdown",
)


def _options() -> dict[str, tuple[Option, Any]]:
    """Each key's ``Option`` and type, read from ``ServeSettings``' annotations."""
    hints = get_type_hints(ServeSettings, include_extras=True)
    found: dict[str, tuple[Option, Any]] = {}
    for key, hint in hints.items():
        kind, option = get_args(hint)[:2]
        found[key] = (option, kind)
    return found


def resolve(transport: str, settings: Mapping[str, Any]) -> dict[str, Any]:
    """Every option with its value (the defaults filled in), checked: an unknown key, an HTTP option for stdio,
    and a non-positive timeout are each a ``UsageError`` naming the fix."""
    options = _options()
    unknown = sorted(set(settings) - set(options))
    if unknown:
        raise UsageError(f"unknown serving option {unknown[0]!r}; the options are {', '.join(options)}")
    if transport == "stdio":
        given = [key for key in settings if options[key][0].http_only and settings[key] != options[key][0].default]
        if given:
            # registry.run(port=8080) serving stdio, with the port silently ignored, is never what was meant.
            raise UsageError(
                f"{', '.join(given)} {'applies' if len(given) == 1 else 'apply'} to HTTP only; pass transport='http' "
                f"(registry.run('http', {given[0]}=...)) or leave {'it' if len(given) == 1 else 'them'} out for stdio"
            )
    resolved = {key: settings.get(key, option.default) for key, (option, _) in options.items()}
    for key in _TIMEOUTS:
        value = resolved[key]
        # A zero or negative limit would turn the guard off without saying so: refuse it instead.
        if type(value) not in (int, float) or not value > 0:
            raise UsageError(f"--{key.replace('_', '-')} must be a number of seconds above 0, got {value!r}")
    for key in ("max_sessions", "max_sessions_per_client"):
        if type(resolved[key]) is not int or resolved[key] < 1:
            raise UsageError(f"--{key.replace('_', '-')} must be a whole number above 0, got {resolved[key]!r}")
    if resolved["bearer_token_scopes"] and resolved["bearer_token_env"] is None:
        raise UsageError("--bearer-token-scopes needs --bearer-token-env (the token they belong to)")
    if resolved["log_level"] is not None:
        resolved["log_level"] = str(resolved["log_level"]).upper()
        if resolved["log_level"] not in get_args(LogLevel):
            raise UsageError(f"log_level must be one of {', '.join(get_args(LogLevel))}, got {settings['log_level']!r}")
    if resolved["stack"] not in get_args(Stack):
        raise UsageError(f"stack must be one of {', '.join(get_args(Stack))}, got {resolved['stack']!r}")
    return resolved


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``mcptools serve``'s flags, one per option that has a help text."""
    for key, (option, kind) in _options().items():
        if option.help is None:
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


def to_worker(resolved: Mapping[str, Any], target: str, argv: Sequence[str]) -> None:
    """Hand everything a worker process needs to it, once: one JSON document in ``WORKER_ENV``."""
    options = {key: value for key, value in resolved.items() if key != "auth"}
    os.environ[WORKER_ENV] = json.dumps({"target": target, "argv": list(argv), "options": options})


def from_worker() -> tuple[str, list[str], dict[str, Any]]:
    """What ``to_worker`` handed over: the target, its arguments and the resolved options."""
    document = json.loads(os.environ[WORKER_ENV])
    return document["target"], document["argv"], document["options"]
