"""One ``tools/call`` as the protocol runs it, around the pipeline's preparing, running and result building.

The engine routes a request here once it knows the request is a ``tools/call`` and which generation it speaks
(``Routed``). What is the protocol's, and so lives here: the sealed ``requestState`` and ``inputResponses`` of
input-required rounds, the registry's ``repair=`` and ``profile=`` as the pipeline's hooks, the call
middleware chain, and running on the event loop with a ``Context``, cancellation and URL elicitation. What
happens to the arguments and the value is ``mcptools._pipeline``'s.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Protocol, final

from .._context import Context
from .._errors import InputRequired, ProtocolError, ToolError, URLElicitationRequired
from .._jsonrpc import INVALID_PARAMS, URL_ELICITATION_REQUIRED, RequestId
from .._middleware import Middleware, ToolCall, client_key, run_call_chain
from .._pipeline import (
    Adapt,
    Prepared,
    Repair,
    failure_result,
    find_tool,
    invoke,
    prepare_call,
    run_coroutine,
    run_inline,
    text_result,
    with_notes,
)
from .._pipeline import finish as finish_call
from .._repair import CALL_REPAIRS, could_repair, repair_arguments
from ..auth import missing_scopes
from .session import Send, Session, discard
from .state import StateSealer, arguments_digest

if TYPE_CHECKING:
    from .._profiles import Exported
    from .._tool import Tool

__all__ = ["Routed", "ToolCaller", "ToolSource"]

_STATE_PURPOSE: Final = "requestState"


class ToolSource(Protocol):
    """What the engine needs from a registry; a protocol, so this module never imports the registry."""

    @property
    def name(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def instructions(self) -> str | None: ...
    @property
    def expose_errors(self) -> bool: ...
    @property
    def repair(self) -> frozenset[str]: ...
    @property
    def exports(self) -> Mapping[str, Exported]: ...
    def get(self, name: str) -> Tool | None: ...
    def list_tools(self) -> list[dict[str, Any]]: ...
    # Lifespan and middleware (mcptools._lifespan, mcptools._middleware):
    @property
    def state(self) -> Any: ...
    @property
    def middleware(self) -> tuple[Middleware, ...]: ...
    @property
    def call_layers(self) -> tuple[Middleware, ...]: ...
    @property
    def request_layers(self) -> tuple[Middleware, ...]: ...
    # The live tool list: called back on every change to it.
    def on_tools_changed(self, callback: Callable[[], None]) -> None: ...


@final
@dataclass(slots=True)
class Routed:
    """What routing learned about one request (its generation, _meta, client), for the call to use."""

    request_id: RequestId
    meta: dict[str, Any]
    legacy: bool
    capabilities: dict[str, Any]
    log_level: str | None
    progress_token: str | int | None = field(init=False)

    def __post_init__(self) -> None:
        token = self.meta.get("progressToken")
        self.progress_token = token if type(token) in (str, int) else None


@final
@dataclass(slots=True, eq=False)
class ToolCaller:
    """Runs the ``tools/call`` requests of one engine; ``call`` (async) and ``run_sync`` are its two roads."""

    registry: ToolSource
    sealer: StateSealer
    # Per tool name: the tool and whether the registry's repairs could ever reach its arguments (could_repair),
    # so an invalid call to a tool no repair can help skips the repair walk.
    _repairable: dict[str, tuple[Tool, frozenset[str], bool]] = field(default_factory=dict)
    # The pipeline's hooks as bound once: every call passes them, and binding a method per call is measurable.
    repair_hook: Repair = field(init=False)
    _adapt_bound: Adapt = field(init=False)

    def __post_init__(self) -> None:
        # The pipeline's repair hook. Always given: the pipeline calls it only for arguments that failed its one
        # validation, and only then is it worth reading which repairs apply (the registry's ``repair=``, or
        # those a provider's ``run(..., repair=...)`` chose for its calls, ``CALL_REPAIRS``).
        self.repair_hook = self._repair
        self._adapt_bound = self._adapt

    def _answers(
        self, call: Routed, params: dict[str, Any], name: str, arguments: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """The input responses this round can use (those sealed in ``requestState`` plus the new ones), and what
        the earlier rounds already streamed (see ``Context``'s ``replay``)."""
        answers: dict[str, Any] = {}
        replay: dict[str, Any] | None = None
        if "requestState" in params:
            state = self.sealer.open(params["requestState"], purpose=_STATE_PURPOSE)
            if state is None or state.get("t") != name or state.get("a") != arguments_digest(arguments):
                raise ProtocolError(INVALID_PARAMS, "Invalid params: requestState failed its integrity check")
            carried = state.get("r")
            if type(carried) is dict:
                answers.update(carried)
            sent = state.get("s")
            if type(sent) is dict:
                replay = sent
        if "inputResponses" in params:
            responses = params["inputResponses"]
            if type(responses) is not dict:
                raise ProtocolError(INVALID_PARAMS, "Invalid params: 'inputResponses' must be an object")
            for key, value in responses.items():
                if type(value) is not dict:
                    raise ProtocolError(INVALID_PARAMS, f"Invalid params: inputResponses[{key!r}] must be an object")
            answers.update(responses)
        return answers, replay

    def prepare(self, call: Routed, params: dict[str, Any]) -> Prepared | dict[str, Any]:
        """The pipeline's ``prepare_call``, with this protocol's part (the sealed state of earlier rounds) as its
        hook when the request carries rounds; a dict return is the result already."""
        carried = None
        if not call.legacy and ("requestState" in params or "inputResponses" in params):

            def carried(name: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
                return self._answers(call, params, name, arguments)

        return prepare_call(
            params,
            self.registry.get,
            expose_errors=self.registry.expose_errors,
            carried=carried,
            repair=self.repair_hook,
            adapt=self.adapt_hook(),
        )

    def _repair(self, tool: Tool, arguments: dict[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]] | None:
        chosen = CALL_REPAIRS.get()
        enabled = self.registry.repair if chosen is None else chosen
        if not enabled:
            return None
        known = self._repairable.get(tool.name)
        if known is None or known[0] is not tool or known[1] is not enabled:
            known = (tool, enabled, could_repair(tool.input_schema, enabled))
            self._repairable[tool.name] = known
        if not known[2]:
            return None
        return repair_arguments(enabled, tool.name, tool.input_schema, tool.validator, arguments)

    def adapt_hook(self) -> Adapt | None:
        """The registry's ``profile=`` as the pipeline's hook; ``None`` when it publishes schemas as they are."""
        return self._adapt_bound if self.registry.exports else None

    def _adapt(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        exported = self.registry.exports.get(name)
        return exported.from_provider(arguments) if exported is not None else arguments

    async def call(
        self,
        call: Routed,
        params: dict[str, Any],
        session: Session,
        send: Send,
        close_stream: Callable[[], Awaitable[None]] | None,
    ) -> dict[str, Any] | None:
        layers = self.registry.call_layers
        if layers:
            return await self._through_middleware(layers, call, params, session, send, close_stream)
        prepared = self.prepare(call, params)
        if isinstance(prepared, dict):
            return prepared
        return await self.run(call, prepared, session, send, close_stream)

    async def _through_middleware(
        self,
        layers: tuple[Middleware, ...],
        call: Routed,
        params: dict[str, Any],
        session: Session,
        send: Send,
        close_stream: Callable[[], Awaitable[None]] | None,
        run: Callable[[Prepared], Awaitable[dict[str, Any] | None]] | None = None,
    ) -> dict[str, Any] | None:
        """The call chain around the pipeline: an unknown tool is refused before it (a request middleware sees
        that); the chain wraps validation, the run and the result. ``run`` replaces ``self.run`` (the sync road
        runs a sync tool inline)."""
        registry = self.registry
        served_as, tool = find_tool(params, registry.get)
        if tool.scopes and missing_scopes(tool):
            raise ProtocolError(INVALID_PARAMS, f"Unknown tool: {served_as}")  # as prepare_call would
        arguments = params.get("arguments")
        record = ToolCall(
            tool,
            arguments if type(arguments) is dict else {},
            call.request_id,
            client_key(session.peer, lambda: session.id),
            _state_of=lambda: registry.state,
            _served_as=served_as,
        )

        async def terminal(_: ToolCall) -> dict[str, Any]:
            prepared = self.prepare(call, params)
            if isinstance(prepared, dict):
                return prepared
            if run is not None:
                result = await run(prepared)
            else:
                result = await self.run(call, prepared, session, send, close_stream)
            if result is None:
                raise _ClientCancelled
            return result

        try:
            return await run_call_chain(layers, record, terminal)
        except _ClientCancelled:
            return None  # cancelled by the client: no response
        except ProtocolError:
            raise
        except ToolError as refusal:  # a middleware speaking to the model (a rate limit, say)
            return text_result(str(refusal), is_error=True)
        except Exception as exc:
            return failure_result(tool.name, exc, expose_errors=registry.expose_errors)

    async def run(
        self,
        call: Routed,
        prepared: Prepared,
        session: Session,
        send: Send,
        close_stream: Callable[[], Awaitable[None]] | None,
    ) -> dict[str, Any] | None:
        """Run a prepared call on the event loop: the Context, cancellation and input-required rounds are the
        protocol's; running the tool and building its result are the pipeline's."""
        tool, arguments, kwargs, answers, replay, notes = prepared
        context: Context | None = None
        if tool.context_param is not None:
            context = Context(
                call.request_id,
                session=session if call.legacy else None,
                send=send,
                progress_token=call.progress_token,
                log_level=call.log_level,
                client_capabilities=call.capabilities,
                answers=answers,
                stateless=not call.legacy,
                close_stream=close_stream,
                replay=replay,
                state=self._state_getter(),
            )
            kwargs = {**kwargs, tool.context_param: context}
        import asyncio  # lazily: asyncio is most of mcptools' import time

        task = asyncio.ensure_future(invoke(tool, kwargs))
        cancelled_by_client: list[bool] = []

        def on_cancel() -> None:
            cancelled_by_client.append(True)
            if context is not None:
                context._mark_cancelled()

        session.track(call.request_id, task, on_cancel)
        try:
            value = await task
        except asyncio.CancelledError:
            if not cancelled_by_client:
                # The transport gave up on the call (the client went away, the server is stopping): a sync
                # tool in its thread cannot be interrupted, but it can see the flag and stop.
                if context is not None:
                    context._mark_cancelled()
                task.cancel()
                raise
            return None  # cancelled by the client: the protocol says no response is sent
        except InputRequired as needed:
            return self._input_required(tool.name, arguments, answers, needed, context)
        except ProtocolError:
            raise
        except URLElicitationRequired as required:
            if call.legacy:
                raise ProtocolError(
                    URL_ELICITATION_REQUIRED, required.message, {"elicitations": required.elicitations}
                ) from None
            # 2026-07-28 has no such error: the same questions go out as an input_required round.
            asked = {
                str(item.get("elicitationId", index)): {"method": "elicitation/create", "params": item}
                for index, item in enumerate(required.elicitations)
            }
            return self._input_required(tool.name, arguments, answers, InputRequired(asked), context)
        except (Exception, SystemExit) as exc:
            return with_notes(failure_result(tool.name, exc, expose_errors=self.registry.expose_errors), notes)
        finally:
            session.untrack(call.request_id)
        return with_notes(finish_call(tool, value, expose_errors=self.registry.expose_errors), notes)

    def _state_getter(self) -> Callable[[], Any]:
        registry = self.registry
        return lambda: registry.state

    def _input_required(
        self,
        name: str,
        arguments: dict[str, Any],
        answers: dict[str, Any],
        needed: InputRequired,
        context: Context | None,
    ) -> dict[str, Any]:
        document: dict[str, Any] = {"t": name, "a": arguments_digest(arguments), "r": answers}
        if context is not None:
            document["s"] = context._replay_state()
        state = self.sealer.seal(document, purpose=_STATE_PURPOSE)
        return {"resultType": "input_required", "inputRequests": needed.requests, "requestState": state}

    def loop_free(self, params: dict[str, Any]) -> bool:
        """Whether a call with middleware may run from sync code without an event loop: every call layer says
        ``needs_loop = False`` and the tool named is a known sync one (no Context, no time limit)."""
        if any(layer.needs_loop for layer in self.registry.call_layers):
            return False
        name = params.get("name")
        tool = self.registry.get(name) if type(name) is str else None
        return tool is not None and not tool.needs_loop

    def call_without_loop(self, call: Routed, params: dict[str, Any], session: Session) -> dict[str, Any] | None:
        """The same chain as ``call`` (after ``loop_free`` said yes), driven to its end without an event loop
        (nothing in it awaits anything that suspends), the tool run inline as ``registry.handle`` runs it without
        middleware: no event loop made per call."""
        expose_errors = self.registry.expose_errors

        async def inline(prepared: Prepared) -> dict[str, Any] | None:
            return run_inline(prepared, expose_errors=expose_errors)

        chain = self._through_middleware(self.registry.call_layers, call, params, session, discard, None, inline)
        try:
            chain.send(None)
        except StopIteration as finished:
            result: dict[str, Any] | None = finished.value
            return result
        layer = _suspended_layer(chain)
        chain.close()
        # As any other exception from a middleware: a failed call, logged (the tool may have run already).
        which = f"middleware {type(layer).__name__}" if layer is not None else "a middleware"
        problem = RuntimeError(
            f"{which} says needs_loop = False but awaited something other than call_next; remove "
            "needs_loop = False from it"
        )
        _, tool = find_tool(params, self.registry.get)
        return failure_result(tool.name, problem, expose_errors=expose_errors)

    def run_sync(self, call: Routed, prepared: Prepared) -> dict[str, Any] | None:
        """A prepared call run to its result from synchronous code: sync tools inline, the rest on a loop."""
        tool = prepared[0]
        if tool.needs_loop:
            return run_coroutine(self.run(call, prepared, Session(peer="local"), discard, None))
        return run_inline(prepared, expose_errors=self.registry.expose_errors)


def _suspended_layer(chain: Any) -> Middleware | None:
    """The innermost middleware whose ``on_call`` is suspended in ``chain`` (a coroutine awaiting something)."""
    layer: Middleware | None = None
    current = chain
    while current is not None:
        frame = getattr(current, "cr_frame", None) or getattr(current, "gi_frame", None)
        if frame is not None and frame.f_code.co_name == "on_call":
            candidate = frame.f_locals.get("self")
            if isinstance(candidate, Middleware):
                layer = candidate
        current = getattr(current, "cr_await", None) or getattr(current, "gi_yieldfrom", None)
    return layer


class _ClientCancelled(BaseException):
    """The client cancelled a call while middleware wrapped it: unwinds the chain (its ``finally`` blocks run;
    an ``except Exception`` does not catch it), and no response is sent."""
