"""Middleware: code around every tool call and every request, inside the one call pipeline.

    class Audit(Middleware):
        async def on_call(self, call: ToolCall, call_next: CallNext) -> CallResult:
            ...                                   # before: call.tool, call.arguments, call.principal, call.client
            try:
                result = await call_next(call)    # the rest of the chain, then the pipeline (validate, run, result)
            except ToolError:                     # on error (a later middleware refused, a timeout, ...)
                raise
            ...                                   # after: result["isError"], call.elapsed()
            return result

    registry = ToolRegistry("app", middleware=[Audit(), LogCalls()])

The first middleware listed is the outermost. ``on_call`` wraps one ``tools/call`` of a known tool, from before
its arguments are validated to its finished ``CallToolResult`` (invalid arguments and ``input_required`` rounds
are results too, so a middleware sees every call). ``on_request`` wraps every request (``tools/list``, ``ping``,
``initialize``, ``tools/call`` ...) and gets the JSON-RPC response, ``None`` when none is sent.

To short-circuit, return a result without calling ``call_next`` (``text_result("...", is_error=True)``), raise
``ToolError`` (an ``isError`` result with its text), or raise ``ProtocolError`` (a JSON-RPC error). Any other
exception from a middleware becomes a result in the pipeline's one place (``failure_result``): logged with its
traceback, never sent. The same chain runs for stdio, HTTP, ``registry.handle`` and the in-memory clients, in
the protocol engine. With no middleware nothing of this module runs on a call.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias, final

from ._errors import ToolDefinitionError

if TYPE_CHECKING:
    from ._protocol.session import Session
    from ._tool import Tool
    from .auth import Principal

__all__ = [
    "CallNext",
    "CallResult",
    "Middleware",
    "RequestInfo",
    "RequestNext",
    "Response",
    "ToolCall",
    "check_middleware",
    "client_of",
    "layers",
    "run_call_chain",
    "run_request_chain",
]

CallResult: TypeAlias = "dict[str, Any]"
"""A ``CallToolResult`` as a dict: ``content``, ``isError``, maybe ``structuredContent`` or ``resultType``."""
Response: TypeAlias = "dict[str, Any] | None"
"""A JSON-RPC response as a dict (``result`` or ``error``); ``None`` when none is sent."""


@final
@dataclass(slots=True)
class ToolCall:
    """One ``tools/call`` as middleware sees it. Read the arguments; changing them changes nothing."""

    tool: Tool
    arguments: Mapping[str, Any]
    request_id: str | int
    client: str
    """Who the call counts against: ``principal:<subject>`` with a verified token, else the transport's client
    (``address:<ip>`` over HTTP, ``stdio``, ``memory``, ``local`` for ``registry.handle``)."""
    principal: Principal | None = None
    """The verified token's principal (HTTP with authorization), else ``None``."""
    started: float = field(default_factory=time.perf_counter)
    _state_of: Callable[[], Any] | None = None
    _served_as: str | None = None

    @property
    def name(self) -> str:
        """The name the client called: an included tool's prefixed name (``gh_issue``), not its own (``issue``),
        so logs, timings and spans of two included registries' same-named tools stay apart."""
        return self._served_as if self._served_as is not None else self.tool.name

    @property
    def state(self) -> Any:
        """The registry's lifespan state (``LifespanError`` when it is not running)."""
        return self._state_of() if self._state_of is not None else None

    def elapsed(self) -> float:
        """Seconds since the call entered the middleware chain."""
        return time.perf_counter() - self.started


@final
@dataclass(slots=True)
class RequestInfo:
    """One JSON-RPC request as middleware sees it (before it is routed)."""

    method: str
    params: Mapping[str, Any]
    request_id: str | int
    client: str
    principal: Principal | None = None
    started: float = field(default_factory=time.perf_counter)

    def elapsed(self) -> float:
        return time.perf_counter() - self.started


CallNext: TypeAlias = Callable[[ToolCall], Awaitable[CallResult]]
RequestNext: TypeAlias = Callable[[RequestInfo], Awaitable[Response]]


class Middleware:
    """Subclass and override ``on_call``, ``on_request`` or both; the defaults pass through (and a layer that
    keeps a default is skipped, costing nothing). ``registry.handle`` runs the chain on its thread's own event
    loop, kept for the thread (a sync tool still runs inline), so a hook may await anything.

    A call that becomes a task (``@registry.tool(task=...)``) passes through ``on_call`` once, as the request
    that makes the task: ``call_next`` returns the task's handle (``resultType: "task"``, no ``isError``), and
    the task's run in a worker does not go through the chain again (a rate limit counts the call once)."""

    __slots__ = ()

    async def on_call(self, call: ToolCall, call_next: CallNext) -> CallResult:
        return await call_next(call)

    async def on_request(self, request: RequestInfo, request_next: RequestNext) -> Response:
        return await request_next(request)


def check_middleware(registry_name: str, middleware: object) -> tuple[Middleware, ...]:
    """Definition-time check of ``middleware=``: a sequence of ``Middleware`` instances."""
    if middleware is None:
        return ()
    items = [middleware] if isinstance(middleware, Middleware) else middleware
    if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
        raise ToolDefinitionError(
            f"ToolRegistry({registry_name!r}): middleware= must be a list of Middleware instances, got {middleware!r}"
        )
    for item in items:
        if not isinstance(item, Middleware):
            hint = " (an instance, not the class: add ())" if isinstance(item, type) else ""
            raise ToolDefinitionError(
                f"ToolRegistry({registry_name!r}): middleware item {item!r} is not a Middleware{hint}; subclass "
                "mcptools.Middleware and override on_call or on_request"
            )
    return tuple(items)


def layers(middleware: Sequence[Middleware]) -> tuple[tuple[Middleware, ...], tuple[Middleware, ...]]:
    """The layers that override ``on_call`` and those that override ``on_request``, outermost first."""
    calls = tuple(m for m in middleware if type(m).on_call is not Middleware.on_call)
    requests = tuple(m for m in middleware if type(m).on_request is not Middleware.on_request)
    return calls, requests


def client_of(principal: Principal | None, session: Session) -> str:
    """Who a call counts against: the verified principal, else the transport's name for its client."""
    if principal is not None:
        return f"principal:{principal.subject}"
    peer = session.peer
    return peer if peer is not None else f"session:{session.id}"


async def run_call_chain(chain: Sequence[Middleware], call: ToolCall, terminal: CallNext) -> CallResult:
    """``chain[0].on_call(call, next)`` where each ``next`` is the following layer, the last one ``terminal``."""
    count = len(chain)

    async def step(index: int, current: ToolCall) -> CallResult:
        if index == count:
            return await terminal(current)
        return await chain[index].on_call(current, lambda following: step(index + 1, following))

    return await step(0, call)


async def run_request_chain(chain: Sequence[Middleware], request: RequestInfo, terminal: RequestNext) -> Response:
    count = len(chain)

    async def step(index: int, current: RequestInfo) -> Response:
        if index == count:
            return await terminal(current)
        return await chain[index].on_request(current, lambda following: step(index + 1, following))

    return await step(0, request)
