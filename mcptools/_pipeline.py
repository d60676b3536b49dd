"""The call pipeline: one ``tools/call`` from its routed request to its ``CallToolResult``, owned by this module.

    route -> authorize -> [middleware chain] -> prepare -> [task?] -> invoke -> finish
    route      the tool the request names, looked up once (an included tool by its served name)
    authorize  a tool whose scopes the caller lacks does not exist for that caller (checked once)
    prepare    earlier rounds' answers; arguments validated ONCE (repaired only when they fail), converted ONCE,
               mutable defaults copied fresh
    task?      a tool with ``task=`` only (one check for every other call): the call becomes a task
               (``mcptools._tasks.calls``) and is answered with its handle; a worker later runs the task through
               this same driver, rebuilt from the task's record, without the middleware chain
    invoke     the tool, with a ``Context`` if it takes one: awaited when async; a sync one inline in the caller's
               thread (the sync driver) or in a worker thread (the async driver), and what it returns awaited
               when it is awaitable (a sync tool returning its work's coroutine); timed when it has a limit
    finish     the result built ONCE; an exception the tool raised becomes a result in ONE place (``settle``)

Each stage is a plain function over the ``Call`` record (``mcptools._call``). The engine routes and authorizes
while routing the request (a transport may need the tool before it answers: HTTP decides on streaming and checks
``Mcp-Param-*`` headers), then hands the call to one of the two drivers: ``drive`` (async) and ``drive_sync``,
which differs only in how it invokes the tool (inline; on a loop of its own when the tool or the middleware needs
one). ``tests/test_pipeline.py`` counts one validation and one conversion through every entry, and
``tests/test_architecture.py`` fails if a third driver or a hand-stepped coroutine appears.
"""

from __future__ import annotations

import copy
import logging
import sys
from collections.abc import Awaitable, Callable
from inspect import isawaitable
from typing import TYPE_CHECKING, Any, Final

from ._context import Context
from ._errors import (
    ContinueAsTask,
    InputRequired,
    InsufficientScope,
    ProtocolError,
    ToolError,
    URLElicitationRequired,
)
from ._jsonrpc import INVALID_PARAMS
from ._middleware import Middleware, ToolCall, client_of, run_call_chain
from ._peers import is_peer_url_elicitation
from ._protocol.results import build_result, text_result
from ._protocol.rounds import input_required, read_rounds, url_elicitation
from ._repair import repair_arguments
from ._running import in_daemon_thread, in_worker, run_on_loop
from ._scopes import sees
from ._validation.messages import invalid_arguments

if TYPE_CHECKING:
    from ._call import Call

__all__ = [
    "authorize",
    "drive",
    "drive_sync",
    "failure_result",
    "finish",
    "invalid_arguments_result",
    "invoke",
    "prepare",
    "route",
    "settle",
    "text_result",
    "timeout_message",
]

logger = logging.getLogger("mcptools")

NAME_NOT_STRING: Final = "Invalid params: 'name' must be a string"


def invalid_arguments_result(errors: list[str]) -> dict[str, Any]:
    return {"resultType": "complete", "content": [{"type": "text", "text": invalid_arguments(errors)}], "isError": True}


def failure_result(tool_name: str, exc: BaseException, *, mask: bool = False) -> dict[str, Any]:
    """The result for a tool that raised: the only place an unexpected exception becomes a result.

    A ``ToolError`` (ours, or a peer's for code written for them) is the tool speaking to the model, so its
    message is shown as is. Anything else: the
    traceback goes to the log and never to the client, and the model reads which tool failed, the exception's
    class and its message, as both peers send it, so it can correct its call ("Only SELECT queries are
    allowed"). ``mask`` (``ToolRegistry(..., mask_error_details=True)``, for deployments whose exception text
    may hold paths, credentials or other users' data) leaves the message out: the class only.
    """
    if isinstance(exc, ToolError) or _is_peer_tool_error(exc):
        return text_result(str(exc), is_error=True)
    logger.error("tool %r raised %s", tool_name, type(exc).__name__, exc_info=exc)
    text = f"Tool '{tool_name}' failed: {type(exc).__name__}"
    if not mask:
        try:
            detail = str(exc)
        except Exception:  # an exception whose __str__ fails itself: the class is all there is to say
            detail = ""
        if detail:
            text += f": {detail}"
    return text_result(text, is_error=True)


# The peers' ToolError classes: a tool written for them raises theirs to speak to the model, as ours does.
_PEER_TOOL_ERRORS: Final = frozenset(
    {
        ("mcp.server.fastmcp.exceptions", "ToolError"),  # the official SDK 1.x
        ("mcp.server.mcpserver.exceptions", "ToolError"),  # the official SDK 2.x
        ("fastmcp.exceptions", "ToolError"),  # fastmcp
    }
)


def _is_peer_tool_error(exc: BaseException) -> bool:
    return any((cls.__module__, cls.__qualname__) in _PEER_TOOL_ERRORS for cls in type(exc).__mro__)


# -- the stages ----------------------------------------------------------------------------------------------


def route(call: Call) -> None:
    """The tool the request names; a ``ProtocolError`` (-32602) when the name is missing or unknown."""
    name = call.params.get("name")
    if type(name) is not str:
        raise ProtocolError(INVALID_PARAMS, NAME_NOT_STRING)
    tool = call.source.lookup(name)
    if tool is None:
        raise ProtocolError(INVALID_PARAMS, f"Unknown tool: {name}")
    call.name = name
    call.tool = tool


def authorize(call: Call) -> None:
    """Scopes apply where a verified principal is known (HTTP with authorization): a tool whose scopes the caller
    lacks does not exist for it. The refusal is kept on the call (answered as "Unknown tool", or by HTTP as 403
    ``insufficient_scope``, see ``InsufficientScope``)."""
    needed = call.tool.scopes
    if needed and not sees(call.principal, needed):
        call.refusal = InsufficientScope(call.name, needed)


def prepare(call: Call) -> bool:
    """Everything before the tool runs, once: earlier rounds' answers, the arguments read (as the profile
    published them), validated once (repaired only when they fail), converted once, mutable defaults copied.
    ``False`` when ``call.result`` is the answer already (invalid arguments, a conversion that raised)."""
    tool = call.tool
    arguments = call.params.get("arguments")
    if arguments is None:
        arguments = {}
    elif not isinstance(arguments, dict):
        call.result = invalid_arguments_result(["arguments must be an object"])
        return False
    if tool.exported is not None and call.provider is None:
        arguments = tool.exported.from_provider(arguments)  # (a provider's run mapped them through its own export)
    params = call.params
    if ("requestState" in params or "inputResponses" in params) and not call.legacy:
        read_rounds(call)  # a 2026-07-28 call continuing earlier rounds (a 2025 session asks on its stream)
    validator = tool.validator
    if validator.is_valid(arguments):
        call.notes = ()  # finish reads it on every call: an instance's own field reads faster than the default
    else:
        # The registry's repair=, or the ones this call chose, made only to arguments that failed, and only where
        # one could ever apply to this tool (answered once per tool: see Tool.repairable_by).
        chosen = call.provider.repairs if call.provider is not None else None
        enabled = chosen if chosen is not None else call.source.repair
        repaired = None
        if enabled:
            could = tool.repairable.get(enabled)
            if could is None:
                could = tool.repairable_by(enabled)
            if could:
                repaired = repair_arguments(enabled, tool.name, tool.input_schema, validator, arguments)
        if repaired is None:
            errors = validator.errors(arguments)
            if call.provider is not None and call.provider.paths is not None:
                errors = call.provider.paths(errors)  # (in the names the model sent: Gemini renames some)
            call.result = invalid_arguments_result(errors)
            return False
        arguments, call.notes = repaired
    try:
        kwargs = tool.convert(arguments) if tool.convert is not None else arguments
    except Exception as exc:
        call.result = _with_notes(call, failure_result(tool.name, exc, mask=call.source.mask_error_details))
        return False
    if tool.mutable_defaults:
        # Python made each default once; a call that changes its copy must not change the next call's.
        if kwargs is arguments:
            kwargs = dict(arguments)
        for parameter, default in tool.mutable_defaults:
            if parameter not in kwargs:
                kwargs[parameter] = copy.deepcopy(default)
    call.kwargs = kwargs
    return True


def _context(call: Call) -> Context:
    stream = call.stream
    source = call.source
    answers, replay = call.rounds if call.rounds is not None else (None, None)
    return Context(
        call.request_id,
        session=call.session if call.legacy else None,
        send=stream.send,
        progress_token=call.progress_token,
        log_level=call.log_level,
        client_capabilities=call.capabilities,
        answers=answers,
        stateless=not call.legacy,
        close_stream=stream.close if stream.streaming else None,
        replay=replay,
        state=lambda: source.state,
        principal=call.principal,
        task_mode=call.task.mode if call.task is not None else None,
    )


async def invoke(call: Call, inline: bool = False) -> Any:
    """Run the prepared tool from async code and return its value: awaited when async; a sync one in the
    caller's thread when ``inline`` (the sync driver), else in a worker thread; timed when it has a limit."""
    tool = call.tool
    kwargs: dict[str, Any] = call.kwargs  # type: ignore[assignment]
    if tool.context_param is not None:
        context = call.context = _context(call)
        kwargs = {**kwargs, tool.context_param: context}
    if tool.timeout is not None:
        return await _invoke_limited(call, kwargs, tool.timeout)
    if tool.is_async:
        return await tool.fn(**kwargs)
    value = tool.fn(**kwargs) if inline else await in_worker(tool.fn, kwargs)
    if type(value) is not str and isawaitable(value):
        value = await value  # a sync tool that returns its work's coroutine: awaited, as fastmcp does
    return value


async def _sync_then_awaited(fn: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    """A sync tool in a daemon thread of its own (see ``_invoke_limited``), what it returns awaited if awaitable."""
    value = await in_daemon_thread(fn, kwargs)
    if type(value) is not str and isawaitable(value):
        value = await value
    return value


def timeout_message(name: str, limit: float) -> str:
    return f"Tool '{name}' did not finish within its time limit of {limit:g} seconds"


async def _invoke_limited(call: Call, kwargs: dict[str, Any], limit: float) -> Any:
    """``invoke`` with the tool's time limit: past it the model gets a ``ToolError`` naming the limit.

    An async tool is cancelled and not waited for (one that swallows the cancellation cannot hold the call). A
    sync tool cannot be interrupted: it runs in a daemon thread of its own, which is abandoned (and logged) at the
    limit; a ``Context`` tells it ``ctx.cancelled`` so it may stop.
    """
    import asyncio

    tool = call.tool
    work: asyncio.Future[Any] = asyncio.ensure_future(
        tool.fn(**kwargs) if tool.is_async else _sync_then_awaited(tool.fn, kwargs)
    )
    try:
        done, _ = await asyncio.wait((work,), timeout=limit)
    except asyncio.CancelledError:
        work.cancel()
        raise
    if done:
        return work.result()
    work.cancel()
    context = kwargs.get(tool.context_param) if tool.context_param is not None else None
    if isinstance(context, Context):
        context._mark_cancelled()
    if tool.is_async:
        logger.warning("tool %r passed its time limit of %g s and was cancelled", tool.name, limit)
    else:
        logger.warning(
            "tool %r passed its time limit of %g s; its thread cannot be stopped and is abandoned", tool.name, limit
        )
    raise ToolError(timeout_message(tool.name, limit))


def finish(call: Call, value: Any) -> dict[str, Any]:
    """The ``CallToolResult`` for what the tool returned, built once; a failure to build one is a result too."""
    tool = call.tool
    if type(value) is str and tool.output_schema is None and not call.notes:
        # The commonest return, built here: no need to enter the builder.
        return {"resultType": "complete", "content": [{"type": "text", "text": value}], "isError": False}
    try:
        result = build_result(tool, value)
    except Exception as exc:
        result = failure_result(tool.name, exc, mask=call.source.mask_error_details)
    return _with_notes(call, result)


def settle(call: Call, exc: BaseException) -> dict[str, Any]:
    """The result for a tool that raised: a question for the client ends the round (``input_required``), URL
    elicitation is the protocol's, a ``ProtocolError`` is the request's JSON-RPC error (raised on), and anything
    else is ``failure_result``'s."""
    if isinstance(exc, InputRequired):
        return input_required(call, exc)
    if isinstance(exc, URLElicitationRequired):
        return url_elicitation(call, exc)
    if is_peer_url_elicitation(exc):
        # The SDK's UrlElicitationRequiredError: the same question, carried by the SDK's models.
        message = getattr(exc, "message", None)
        required = URLElicitationRequired(getattr(exc, "elicitations", ()), message if type(message) is str else None)
        return url_elicitation(call, required)
    if isinstance(exc, ProtocolError):
        raise exc
    return _with_notes(call, failure_result(call.tool.name, exc, mask=call.source.mask_error_details))


def _with_notes(call: Call, result: dict[str, Any]) -> dict[str, Any]:
    """``result`` opening with the repair notes, so the model reads what was read differently from what it sent."""
    notes = call.notes
    if not notes or not isinstance(result.get("content"), list):
        return result
    return {**result, "content": [{"type": "text", "text": "\n".join(notes)}, *result["content"]]}


# -- the two drivers -------------------------------------------------------------------------------------------


async def drive(call: Call, inline: bool = False) -> dict[str, Any] | None:
    """The async driver: the middleware chain (if any) around prepare -> invoke -> finish. ``None`` when the
    client cancelled the call (the protocol sends no response then). ``inline``: see ``invoke``. The middleware
    wraps the request, so a worker's run of a task (``call.task`` set) does not go through it again."""
    layers = call.source.call_layers
    if layers and call.task is None:
        return await _through_chain(call, layers, inline)
    return await _run(call, inline)


def drive_sync(call: Call) -> dict[str, Any] | None:
    """The sync driver: the same stages, the tool invoked inline in the caller's thread. A tool that needs an
    event loop (async, a ``Context``, a time limit) or middleware (whose hooks are coroutines) runs the async
    driver on this thread's own loop, still invoking a sync tool inline."""
    tool = call.tool
    if tool.needs_loop or call.source.call_layers:
        return run_on_loop(drive(call, inline=True))
    if not prepare(call):
        return call.result
    try:
        value = tool.fn(**call.kwargs)  # type: ignore[arg-type]
        if type(value) is not str and isawaitable(value):
            # A sync tool that returns its work's coroutine: awaited on this thread's own loop (off the common path).
            value = run_on_loop(_awaited(value))
    except (Exception, SystemExit) as exc:
        return settle(call, exc)
    return finish(call, value)


async def _awaited(pending: Awaitable[Any]) -> Any:
    return await pending


async def _run(call: Call, inline: bool) -> dict[str, Any] | None:
    if not prepare(call):
        return call.result
    if call.tool.task is not None:  # the one check a call to any other tool pays for tasks
        from ._tasks.calls import begin

        handle = await begin(call)
        if handle is not None:
            return handle  # the call became a task: its handle is the answer
    import asyncio  # lazily: asyncio is most of mcptools' import time

    # The task serving this request is the one a client's notifications/cancelled stops: every transport serves
    # each request that may run a tool in a task of its own (a task more per call would cost loop iterations).
    task = asyncio.current_task()
    assert task is not None
    cancelled_by_client: list[bool] = []

    def on_cancel() -> None:
        cancelled_by_client.append(True)
        if call.context is not None:
            call.context._mark_cancelled()  # a sync tool in its thread cannot be interrupted, but it can look

    session = call.session
    session.track(call.request_id, task, on_cancel)
    try:
        value = await invoke(call, inline)
    except asyncio.CancelledError:
        if cancelled_by_client:
            if sys.version_info >= (3, 11):
                task.uncancel()  # handled: the serving task goes on to send nothing
            return None  # cancelled by the client: the protocol says no response is sent
        # The transport gave up on the call (the client went away, the server is stopping).
        if call.context is not None:
            call.context._mark_cancelled()
        raise
    except (Exception, SystemExit, InputRequired) as exc:
        return settle(call, exc)
    except ContinueAsTask:
        from ._tasks.calls import hand_over

        return await hand_over(call)  # the tool asked what it needed on the call: the rest runs as a task
    finally:
        session.untrack(call.request_id)
    return finish(call, value)


class _ClientCancelled(BaseException):
    """The client cancelled a call while middleware wrapped it: unwinds the chain (its ``finally`` blocks run;
    an ``except Exception`` does not catch it), and no response is sent."""


async def _through_chain(call: Call, layers: tuple[Middleware, ...], inline: bool) -> dict[str, Any] | None:
    """The call middleware around prepare -> invoke -> finish; a middleware's own exceptions become results."""
    source = call.source
    arguments = call.params.get("arguments")
    record = ToolCall(
        call.tool,
        arguments if type(arguments) is dict else {},
        call.request_id,
        client_of(call.principal, call.session),
        call.principal,
        _state_of=lambda: source.state,
        _served_as=call.name,
    )

    async def terminal(_: ToolCall) -> dict[str, Any]:
        result = await _run(call, inline)
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
        return failure_result(call.tool.name, exc, mask=source.mask_error_details)
