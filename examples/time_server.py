"""A time server (the reference MCP time server, ported): lifespan state, settings from the command line, and
middleware around every call.

Run it as client configurations do, or through ``mcptools serve`` (whatever follows ``--`` is this file's own
``sys.argv``, so both read ``--local-timezone`` the same way):

    python examples/time_server.py --local-timezone Europe/Paris
    mcptools serve examples/time_server.py -- --local-timezone Europe/Paris
    mcptools serve examples/time_server.py --http --workers 2 -- --local-timezone UTC

The lifespan reads the settings once per server (once per worker process) and yields a ``Clock`` that tools
reach typed, as ``ctx.state``; every call is logged (``LogCalls``) and each client gets at most 30 calls a
minute (``RateLimit``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from typing_extensions import TypedDict

from mcptools import Context, ToolError, ToolRegistry
from mcptools.middleware import LogCalls, RateLimit


@dataclass(frozen=True)
class Clock:
    """What the lifespan sets up once and every call shares."""

    local: ZoneInfo
    started: datetime


def _settings(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="time_server", description="An MCP server telling the time.")
    parser.add_argument("--local-timezone", default="UTC", help="IANA name of the server's timezone (default UTC)")
    known, _ = parser.parse_known_args(argv)
    return known


@asynccontextmanager
async def lifespan(registry: ToolRegistry) -> AsyncIterator[Clock]:
    settings = _settings(sys.argv[1:])
    try:
        local = ZoneInfo(settings.local_timezone)
    except (ZoneInfoNotFoundError, ValueError):
        # A bad setting stops the server at start, before any client is told it is ready.
        raise ValueError(f"--local-timezone: unknown timezone {settings.local_timezone!r}") from None
    yield Clock(local, datetime.now(local))


registry = ToolRegistry(
    "time-server",
    instructions="Tells the time in any IANA timezone and converts times between timezones.",
    lifespan=lifespan,
    middleware=[LogCalls(), RateLimit(30, per=60.0)],
)


class TimeResult(TypedDict):
    timezone: str
    datetime: str
    is_dst: bool


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ToolError(f"Unknown timezone {name!r}; use an IANA name such as 'Europe/Paris'") from None


def _result(moment: datetime) -> TimeResult:
    zone = moment.tzinfo
    return {
        "timezone": str(zone),
        "datetime": moment.isoformat(timespec="seconds"),
        "is_dst": bool(moment.dst() or timedelta(0)),
    }


@registry.tool(annotations={"readOnlyHint": True})
def get_current_time(ctx: Context[Clock], timezone: str | None = None) -> TimeResult:
    """The current time in a timezone.

    Args:
        timezone: An IANA timezone name, e.g. "Europe/Paris"; the server's local timezone when omitted.
    """
    zone = _zone(timezone) if timezone is not None else ctx.state.local
    return _result(datetime.now(zone))


@registry.tool(annotations={"readOnlyHint": True}, timeout=5)
def convert_time(
    ctx: Context[Clock], time: str, target_timezone: str, source_timezone: str | None = None
) -> TimeResult:
    """Convert a time of day from one timezone to another (today's date).

    Args:
        time: The time to convert, 24-hour "HH:MM".
        target_timezone: The IANA timezone to convert to.
        source_timezone: The IANA timezone the time is in; the server's local timezone when omitted.
    """
    source = _zone(source_timezone) if source_timezone is not None else ctx.state.local
    try:
        parsed = datetime.strptime(time, "%H:%M")
    except ValueError:
        raise ToolError(f"Invalid time {time!r}; use 24-hour HH:MM, e.g. '14:30'") from None
    moment = datetime.now(source).replace(hour=parsed.hour, minute=parsed.minute, second=0, microsecond=0)
    return _result(moment.astimezone(_zone(target_timezone)))


@registry.tool(annotations={"readOnlyHint": True})
def server_uptime(ctx: Context[Clock]) -> str:
    """How long this server (this worker process) has been running."""
    elapsed = datetime.now(ctx.state.local) - ctx.state.started
    return f"up {elapsed.total_seconds():.0f} s since {ctx.state.started.isoformat(timespec='seconds')}"


if __name__ == "__main__":
    sys.exit(registry.run())
