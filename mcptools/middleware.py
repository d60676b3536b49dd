"""Middleware around every tool call: the base class, and the ones servers write first.

    from mcptools import ToolRegistry
    from mcptools.middleware import LogCalls, RateLimit, Timing

    timing = Timing()
    registry = ToolRegistry("app", middleware=[LogCalls(), RateLimit(10, per=1.0), timing])

- ``LogCalls``: one stdlib ``logging`` record per call (tool, client, outcome, milliseconds), with the fields also
  in ``extra`` for structured handlers.
- ``Timing``: counts, errors, total and slowest time per tool, in ``timing.stats``.
- ``RateLimit``: a token bucket per client (the verified principal, else the transport's client; see
  ``ToolCall.client``); a call over the limit gets an error result saying when to retry, and never runs.
- ``OpenTelemetry``: a span per call when ``opentelemetry-api`` is installed (imported when you create it, never
  by ``import mcptools``; without an SDK configured its spans cost next to nothing).

Write your own by subclassing ``Middleware`` (see ``mcptools._middleware`` for the rules of the chain).
"""

from __future__ import annotations

import logging
import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, final

from ._errors import MissingDependency, ToolError, UsageError
from ._middleware import CallNext, CallResult, Middleware, RequestInfo, RequestNext, Response, ToolCall

__all__ = [
    "CallNext",
    "CallResult",
    "LogCalls",
    "Middleware",
    "OpenTelemetry",
    "RateLimit",
    "RequestInfo",
    "RequestNext",
    "Response",
    "Timing",
    "ToolCall",
    "ToolTiming",
]


def _outcome(result: CallResult) -> str:
    if result.get("resultType") == "input_required":
        return "input_required"
    if result.get("resultType") == "task" or "task" in result:
        return "task"  # the call became a task (2026-07-28's handle, or 2025-11-25's {"task": ...})
    return "error" if result.get("isError") else "ok"


@final
class LogCalls(Middleware):
    """Log every call once it ends: ``tools/call weather by address:127.0.0.1: ok in 1.2 ms``.

    The record's ``extra`` holds ``mcp_tool``, ``mcp_client``, ``mcp_request_id``, ``mcp_outcome`` (``ok``,
    ``error``, ``input_required``, ``task``: the call became a task, ``raised``, ``cancelled``) and
    ``mcp_duration_ms``. Arguments are not logged
    (they may hold personal data); pass ``arguments=True`` to add them.
    """

    __slots__ = ("arguments", "level", "logger")

    def __init__(
        self, logger: logging.Logger | None = None, *, level: int = logging.INFO, arguments: bool = False
    ) -> None:
        self.logger = logger if logger is not None else logging.getLogger("mcptools.calls")
        self.level = level
        self.arguments = arguments

    async def on_call(self, call: ToolCall, call_next: CallNext) -> CallResult:
        outcome = "raised"
        try:
            result = await call_next(call)
            outcome = _outcome(result)
            return result
        except BaseException as exc:
            outcome = "cancelled" if not isinstance(exc, Exception) else "raised"
            raise
        finally:
            self._log(call, outcome)

    def _log(self, call: ToolCall, outcome: str) -> None:
        if not self.logger.isEnabledFor(self.level):
            return
        milliseconds = call.elapsed() * 1000
        extra: dict[str, Any] = {
            "mcp_tool": call.name,
            "mcp_client": call.client,
            "mcp_request_id": call.request_id,
            "mcp_outcome": outcome,
            "mcp_duration_ms": round(milliseconds, 3),
        }
        if self.arguments:
            extra["mcp_arguments"] = dict(call.arguments)
        self.logger.log(
            self.level, "tools/call %s by %s: %s in %.1f ms", call.name, call.client, outcome, milliseconds, extra=extra
        )


@final
@dataclass(slots=True)
class ToolTiming:
    """How one tool's calls have gone in this process."""

    calls: int = 0
    errors: int = 0
    total_seconds: float = 0.0
    max_seconds: float = 0.0

    @property
    def mean_seconds(self) -> float:
        return self.total_seconds / self.calls if self.calls else 0.0


@final
class Timing(Middleware):
    """Time every call: ``timing.stats["weather"].mean_seconds``. Per process (each worker keeps its own)."""

    __slots__ = ("stats",)

    def __init__(self) -> None:
        self.stats: dict[str, ToolTiming] = {}

    async def on_call(self, call: ToolCall, call_next: CallNext) -> CallResult:
        failed = True
        try:
            result = await call_next(call)
            failed = bool(result.get("isError"))
            return result
        finally:
            entry = self.stats.get(call.name)
            if entry is None:
                entry = self.stats[call.name] = ToolTiming()
            took = call.elapsed()
            entry.calls += 1
            entry.errors += failed
            entry.total_seconds += took
            entry.max_seconds = max(entry.max_seconds, took)


_MAX_CLIENTS: Final = 10_000


@final
class RateLimit(Middleware):
    """At most ``calls`` tool calls per ``per`` seconds for each client (a token bucket holding ``burst`` calls,
    ``calls`` by default). Over the limit, the call does not run and the model reads
    ``Rate limit exceeded: at most 10 calls per 1 s; retry in 0.3 s``.

    ``key`` picks who a call counts against (default ``call.client``: the principal's subject with
    authorization, else the client's address over HTTP; behind a proxy, key on something of your own). Buckets of
    the ``max_clients`` most recent clients are kept, so many clients cannot grow memory without bound. Per
    process: with several workers each enforces the limit on the calls it serves.
    """

    __slots__ = ("_buckets", "_clock", "burst", "calls", "key", "max_clients", "per")

    def __init__(
        self,
        calls: int,
        *,
        per: float = 1.0,
        burst: int | None = None,
        key: Callable[[ToolCall], str] | None = None,
        max_clients: int = _MAX_CLIENTS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if type(calls) is not int or calls < 1:
            raise UsageError(f"RateLimit: calls must be a positive int, got {calls!r}")
        if not (isinstance(per, (int, float)) and 0 < per < math.inf):
            raise UsageError(f"RateLimit: per must be a positive number of seconds, got {per!r}")
        if burst is not None and (type(burst) is not int or burst < 1):
            raise UsageError(f"RateLimit: burst must be a positive int, got {burst!r}")
        self.calls = calls
        self.per = float(per)
        self.burst = burst if burst is not None else calls
        self.key = key
        self.max_clients = max_clients
        self._clock = clock
        # client -> (tokens, when they were counted); most recently used last.
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    async def on_call(self, call: ToolCall, call_next: CallNext) -> CallResult:
        client = self.key(call) if self.key is not None else call.client
        now = self._clock()
        rate = self.calls / self.per
        tokens, then = self._buckets.pop(client, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - then) * rate)
        if tokens < 1.0:
            self._buckets[client] = (tokens, now)
            wait = (1.0 - tokens) / rate
            raise ToolError(
                f"Rate limit exceeded: at most {self.calls} calls per {self.per:g} s; retry in {wait:.1f} s"
            )
        self._buckets[client] = (tokens - 1.0, now)
        if len(self._buckets) > self.max_clients:
            self._buckets.popitem(last=False)
        return await call_next(call)


@final
class OpenTelemetry(Middleware):
    """A span per tool call (``tools/call weather``) through ``opentelemetry-api``, with the tool, the client and
    the outcome as attributes; an error result or an exception marks the span as an error.

    ``opentelemetry-api`` is imported here, when you create this middleware: never by ``import mcptools``, and it
    is not a dependency (``pip install opentelemetry-api``, and an SDK to export the spans).
    """

    __slots__ = ("_status", "_tracer")

    def __init__(self, tracer_provider: Any = None) -> None:
        try:
            from opentelemetry import trace
        except ImportError:
            raise MissingDependency(
                "mcptools.middleware.OpenTelemetry needs opentelemetry-api: pip install opentelemetry-api"
            ) from None
        self._tracer = trace.get_tracer("mcptools", tracer_provider=tracer_provider)
        self._status = trace.Status, trace.StatusCode

    async def on_call(self, call: ToolCall, call_next: CallNext) -> CallResult:
        status, code = self._status
        with self._tracer.start_as_current_span(f"tools/call {call.name}") as span:
            span.set_attribute("mcp.method.name", "tools/call")
            span.set_attribute("gen_ai.tool.name", call.name)
            span.set_attribute("mcp.client", call.client)
            span.set_attribute("jsonrpc.request.id", str(call.request_id))
            result = await call_next(call)
            outcome = _outcome(result)
            span.set_attribute("mcp.outcome", outcome)
            if outcome == "error":
                span.set_status(status(code.ERROR, "the tool returned an error result"))
            return result
