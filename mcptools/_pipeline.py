"""The call pipeline: one ``tools/call`` from its params to its ``CallToolResult``, owned by this module.

    params -> prepare_call: find_tool -> read_arguments -> validate ONCE -> convert ONCE (fresh mutable defaults)
           -> run (``run_inline``, or ``invoke`` on a loop) -> finish (build the result ONCE)
    any unexpected exception on the way -> failure_result, the one place it becomes a result

The contract's bare ``call_tool`` (``validate-and-call.md``: a ``{name: (schema, fn)}`` mapping, no registry) lives
here too: an unknown tool is a JSON-RPC error ``-32602``, invalid arguments an ``isError`` result whose one text
reads ``"Invalid arguments: " + "; ".join(errors)``, and a valid call returns ``str()`` of the function's value.

Every entry takes this road. ``registry.handle``, ``handle_async``, stdio, HTTP, the in-memory client,
``mcptools.testing.Client`` and the providers' ``run`` all reach it through the protocol engine, which classifies
each message once and calls ``prepare_call`` once (a provider run's own ``repair=`` reaches the repair hook, not a
check of its own); the bare ``call_tool`` shares ``find_tool`` and ``read_arguments`` (its contract then validates
against the raw schema it was handed and converts nothing). ``tests/test_pipeline.py`` counts it per entry.

The run rule: an ``async def`` tool is awaited. A sync tool runs inline when the entry is synchronous
(``registry.handle``: there is no event loop to block, the caller's thread does the work) and in a worker thread
when the entry is async (``invoke``), so a blocking tool never stalls the loop serving other requests. From
``registry.handle``, a tool that is async or takes a ``Context`` is run by ``invoke`` on an event loop of its own
(``run_coroutine``), after the same single preparation: that is the fast path, the same code taking a shorter
road, not a twin.
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import inspect
import logging
from collections.abc import Callable, Coroutine, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

from ._errors import ProtocolError, ToolError
from ._jsonrpc import INVALID_PARAMS, echo_id, error_response, result_response
from ._protocol.results import build_result, text_result
from ._validation import validate
from ._validation.messages import invalid_arguments
from .auth import missing_scopes

if TYPE_CHECKING:
    from ._tool import Tool

__all__ = [
    "call_tool",
    "failure_result",
    "find_tool",
    "finish",
    "invalid_arguments_result",
    "invoke",
    "prepare_call",
    "read_arguments",
    "run_coroutine",
    "run_inline",
    "text_result",
    "timeout_message",
    "with_notes",
]

logger = logging.getLogger("mcptools")

_NAME_NOT_STRING = "Invalid params: 'name' must be a string"

_T = TypeVar("_T")
_V = TypeVar("_V")


def invalid_arguments_result(errors: list[str]) -> dict[str, Any]:
    return text_result(invalid_arguments(errors), is_error=True)


def failure_result(tool_name: str, exc: BaseException, *, expose_errors: bool = False) -> dict[str, Any]:
    """The result for a tool that raised: the only place an unexpected exception becomes a result.

    A ``ToolError`` is the tool speaking to the model, so its message is shown as is. Anything else is a bug
    or an outage: the traceback goes to the log, and the model learns only which tool failed and how, since
    exception text can hold paths, credentials or data from other users.
    """
    if isinstance(exc, ToolError):
        return text_result(str(exc), is_error=True)
    logger.error("tool %r raised %s", tool_name, type(exc).__name__, exc_info=exc)
    text = f"Tool '{tool_name}' failed: {type(exc).__name__}"
    if expose_errors:
        text += f": {exc}"
    return text_result(text, is_error=True)


def find_tool(params: Mapping[str, Any], lookup: Callable[[str], _V | None]) -> tuple[str, _V]:
    """The tool ``params`` names; a ``ProtocolError`` (-32602) when the name is missing or unknown."""
    name = params.get("name")
    if type(name) is not str:
        raise ProtocolError(INVALID_PARAMS, _NAME_NOT_STRING)
    found = lookup(name)
    if found is None:
        raise ProtocolError(INVALID_PARAMS, f"Unknown tool: {name}")
    return name, found


def read_arguments(params: Mapping[str, Any]) -> dict[str, Any] | None:
    """``params.arguments``, absent or null meaning ``{}``; ``None`` when it is not an object (the caller
    answers with ``invalid_arguments_result(["arguments must be an object"])``)."""
    arguments = params.get("arguments")
    if arguments is None:
        return {}
    return arguments if isinstance(arguments, dict) else None


# What a prepared call carries on: the tool, the arguments as validated, the keyword arguments to call it with,
# what earlier input-required rounds gathered (their answers, and what they already streamed), and the notes of
# a repair (``repair=``) the result must open with. A plain tuple: this is built on every call, and a tuple is
# the cheapest record Python has.
Prepared: TypeAlias = (
    "tuple[Tool, dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any] | None, tuple[str, ...]]"
)
# A hook reading what earlier rounds carried, given the tool's name and the arguments (it may raise
# ProtocolError); the engine passes one only for requests that carry rounds.
Carried: TypeAlias = Callable[[str, dict[str, Any]], "tuple[dict[str, Any], dict[str, Any] | None]"]
# A hook given a tool and arguments that failed validation: repaired arguments that pass and the notes that
# say what was repaired, or None (the registry's repair=, see mcptools._repair; only failing arguments reach it).
Repair: TypeAlias = Callable[["Tool", dict[str, Any]], "tuple[dict[str, Any], tuple[str, ...]] | None"]
# A hook reading arguments in the shape the registry published them (its profile=, see mcptools._profiles: a
# null for an optional property means absent) back into the shape the tool's own schema validates.
Adapt: TypeAlias = Callable[[str, dict[str, Any]], dict[str, Any]]


def prepare_call(
    params: Mapping[str, Any],
    lookup: Callable[[str], Tool | None],
    *,
    expose_errors: bool = False,
    carried: Carried | None = None,
    repair: Repair | None = None,
    adapt: Adapt | None = None,
) -> Prepared | dict[str, Any]:
    """Everything before the tool runs, once: find it, read the arguments (``adapt``: as the profile published
    them; ``carried``: earlier rounds), validate them once (``repair``: only when they fail), convert them once
    and give mutable defaults a fresh copy. A dict return is the call's result already (invalid arguments, a
    conversion that raised); an unknown tool raises ``ProtocolError``."""
    # find_tool and read_arguments, inlined: this runs on every call, and two calls are a tenth of its cost.
    name = params.get("name")
    if type(name) is not str:
        raise ProtocolError(INVALID_PARAMS, _NAME_NOT_STRING)
    tool = lookup(name)
    # A tool whose OAuth scopes the caller lacks (mcptools.auth) does not exist for that caller.
    if tool is None or (tool.scopes and missing_scopes(tool)):
        raise ProtocolError(INVALID_PARAMS, f"Unknown tool: {name}")
    arguments = params.get("arguments")
    if arguments is None:
        arguments = {}
    elif not isinstance(arguments, dict):
        return invalid_arguments_result(["arguments must be an object"])
    if adapt is not None:
        arguments = adapt(name, arguments)
    answers, replay = carried(name, arguments) if carried is not None else ({}, None)
    validator = tool.validator
    notes: tuple[str, ...] = ()
    if not validator.is_valid(arguments):
        repaired = repair(tool, arguments) if repair is not None else None
        if repaired is None:
            return invalid_arguments_result(validator.errors(arguments))
        arguments, notes = repaired
    try:
        kwargs = tool.convert(arguments) if tool.convert is not None else arguments
    except Exception as exc:
        return with_notes(failure_result(tool.name, exc, expose_errors=expose_errors), notes)
    if tool.mutable_defaults:
        # Python made each default once; a call that changes its copy must not change the next call's.
        if kwargs is arguments:
            kwargs = dict(arguments)
        for parameter, default in tool.mutable_defaults:
            if parameter not in kwargs:
                kwargs[parameter] = copy.deepcopy(default)
    return tool, arguments, kwargs, answers, replay, notes


def with_notes(result: dict[str, Any], notes: tuple[str, ...]) -> dict[str, Any]:
    """``result`` opening with the repair notes, so the model reads what was read differently from what it sent."""
    if not notes or not isinstance(result.get("content"), list):
        return result
    return {**result, "content": [{"type": "text", "text": "\n".join(notes)}, *result["content"]]}


def finish(tool: Tool, value: Any, *, expose_errors: bool = False) -> dict[str, Any]:
    """The ``CallToolResult`` for what the tool returned, built once; a failure to build one is a result too."""
    if type(value) is str and tool.output_schema is None:
        return text_result(value, is_error=False)  # the commonest return: no need to enter the builder
    try:
        return build_result(tool, value)
    except Exception as exc:
        return failure_result(tool.name, exc, expose_errors=expose_errors)


def run_inline(prepared: Prepared, *, expose_errors: bool = False) -> dict[str, Any]:
    """Run a prepared sync call in the caller's thread (the synchronous entry) and build its result."""
    tool = prepared[0]
    try:
        value = tool.fn(**prepared[2])
    except (Exception, SystemExit) as exc:
        return with_notes(failure_result(tool.name, exc, expose_errors=expose_errors), prepared[5])
    if type(value) is str and tool.output_schema is None and not prepared[5]:
        return text_result(value, is_error=False)  # finish's first test, here to save a call on every call
    return with_notes(finish(tool, value, expose_errors=expose_errors), prepared[5])


async def invoke(tool: Tool, kwargs: dict[str, Any]) -> Any:
    """Run a tool from async code: awaited when it is async, in a worker thread when it is sync."""
    if tool.timeout is not None:
        return await _invoke_limited(tool, kwargs, tool.timeout)
    if tool.is_async:
        return await tool.fn(**kwargs)
    import asyncio  # lazily: asyncio is most of mcptools' import time

    return await asyncio.to_thread(tool.fn, **kwargs)


def timeout_message(tool: Tool, limit: float) -> str:
    return f"Tool '{tool.name}' did not finish within its time limit of {limit:g} seconds"


async def _invoke_limited(tool: Tool, kwargs: dict[str, Any], limit: float) -> Any:
    """``invoke`` with the tool's time limit: past it the model gets a ``ToolError`` naming the limit.

    An async tool is cancelled and not waited for (one that swallows the cancellation cannot hold the call). A
    sync tool cannot be interrupted: it runs in a daemon thread of its own, which is abandoned (and logged) at the
    limit, so neither the call nor, later, the process's exit waits for it; a ``Context`` tells it
    ``ctx.cancelled`` so it may stop.
    """
    import asyncio  # lazily: asyncio is most of mcptools' import time

    work: asyncio.Future[Any] = (
        asyncio.ensure_future(tool.fn(**kwargs)) if tool.is_async else _in_daemon_thread(tool.fn, kwargs)
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
    mark = getattr(context, "_mark_cancelled", None)
    if mark is not None:
        mark()
    if tool.is_async:
        logger.warning("tool %r passed its time limit of %g s and was cancelled", tool.name, limit)
    else:
        logger.warning(
            "tool %r passed its time limit of %g s; its thread cannot be stopped and is abandoned", tool.name, limit
        )
    raise ToolError(timeout_message(tool, limit))


def _in_daemon_thread(fn: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    """``fn(**kwargs)`` in a new daemon thread; its outcome arrives on the returned future of the running loop."""
    import asyncio
    import threading

    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(ok: bool, value: Any) -> None:
        if future.done():
            return  # abandoned at the limit: nobody waits for this outcome
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def work() -> None:
        try:
            outcome = (True, fn(**kwargs))
        except BaseException as exc:  # handed to the loop, where the pipeline makes it a result
            outcome = (False, exc)
        with contextlib.suppress(RuntimeError):  # the loop has closed: the server stopped while this tool ran
            loop.call_soon_threadsafe(settle, *outcome)

    threading.Thread(target=work, name=f"mcptools-tool-{getattr(fn, '__name__', 'tool')}", daemon=True).start()
    return future


def run_coroutine(coroutine: Coroutine[Any, Any, _T]) -> _T:
    """Run a coroutine to completion from synchronous code.

    With no event loop in this thread, ``asyncio.run`` does it. Inside a running loop we cannot block that loop
    on itself, so the coroutine gets a loop of its own in a short-lived thread.
    """
    import asyncio  # here, not at module top: asyncio costs more to import than the rest of mcptools
    import threading

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        running = False
    else:
        running = True
    if not running:
        # Outside the except block, so a failing tool's traceback is not chained to "no running event loop".
        return asyncio.run(coroutine)
    outcome: list[Any] = []
    # The caller's context variables go along (a provider run's CALL_REPAIRS, the caller mcptools.auth knows),
    # as they would with asyncio.run in this thread.
    context = contextvars.copy_context()

    def runner() -> None:
        try:
            outcome.append((True, context.run(asyncio.run, coroutine)))
        except BaseException as exc:  # handed back to the caller's thread below
            outcome.append((False, exc))

    thread = threading.Thread(target=runner, name="mcptools-async-tool")
    thread.start()
    thread.join()
    ok, value = outcome[0]
    if ok:
        return value  # type: ignore[no-any-return]
    raise value


def call_tool(
    tools: Mapping[str, tuple[Mapping[str, Any], Callable[..., Any]]], request: Mapping[str, Any]
) -> dict[str, Any]:
    """Answer a ``tools/call`` request against ``tools``, a mapping ``{name: (schema, fn)}``.

    Exactly the contract: unknown tool is ``-32602``; invalid arguments give an ``isError`` result and the
    function is not called; otherwise ``fn(**arguments)`` and its ``str()`` as text. ``params.arguments``
    absent means ``{}``. This function does no conversion of argument values (the registry's ``handle`` does).
    """
    request_id = echo_id(request)
    params = request.get("params") if isinstance(request, Mapping) else None
    if not isinstance(params, Mapping):
        return error_response(request_id, INVALID_PARAMS, "Invalid params: 'params' must be an object")
    try:
        name, (schema, fn) = find_tool(params, tools.get)
    except ProtocolError as problem:
        return error_response(request_id, problem.code, problem.message)
    arguments = read_arguments(params)
    if arguments is None:
        return result_response(request_id, invalid_arguments_result(["arguments must be an object"]))
    errors = validate(arguments, schema)
    if errors:
        return result_response(request_id, invalid_arguments_result(errors))
    try:
        value = fn(**arguments)
        if inspect.iscoroutine(value):
            value = run_coroutine(value)
    except (Exception, SystemExit) as exc:
        return result_response(request_id, failure_result(name, exc))
    return result_response(request_id, text_result(str(value), is_error=False))
