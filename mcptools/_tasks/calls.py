"""Where a ``tools/call`` becomes a task: the call pipeline's task branch (``_pipeline._run``) calls in here for a
tool with ``task=`` set, and for nothing else.

    begin      after the arguments are validated: answer the call with a task's handle (the task made in the
               store, durably, before the handle goes out), or let it run on the call as usual
    hand_over  a tool that asked its questions on the call reached ``ctx.continue_as_task()``: the task takes the
               answers along, and its run finds them

Whether a call becomes a task is the server's decision per request, as the extension says: a tool that may run as
a task (``"optional"``) does so when the request asks for one, and runs on the call otherwise; one that must
(``"required"``) refuses a request that cannot take a task (-32021 naming the extension; -32601 on 2025-11-25).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, final

from .._errors import ProtocolError
from .._jsonrpc import INTERNAL_ERROR
from .operations import create_task
from .transitions import TaskSpec
from .wire import asks_for_task, created, task_required

if TYPE_CHECKING:
    from .._call import Call, TaskAccess

__all__ = ["OFFERED", "begin", "hand_over", "run_context"]


@final
class _Offered:
    """``Call.task`` of a request whose tool starts on the call and becomes a task at ``continue_as_task()``."""

    __slots__ = ()
    mode: Final = "offered"


OFFERED: Final = _Offered()


async def begin(call: Call) -> dict[str, Any] | None:
    """The task's handle when this call becomes a task now; ``None`` when the tool runs on the call (no task was
    asked for, a worker's run of the task, or a tool that asks first and hands over later)."""
    if call.task is not None:
        return None  # a worker running the task through the same driver
    tool = call.tool
    if not asks_for_task(call):
        if tool.task == "required":
            raise task_required(call)
        return None
    service = call.source.task_service
    if not service.accepting:
        if tool.task == "required":
            raise ProtocolError(
                INTERNAL_ERROR,
                f"Internal error: tool {call.name!r} runs only as a task, and tasks run only while the server is "
                "serving (registry.running(), mcptools serve, registry.run())",
            )
        return None
    if tool.hands_off:
        call.task = OFFERED  # the tool asks on the call first; continue_as_task() raises ContinueAsTask
        return None
    return await _create(call, service, call.rounds[0] if call.rounds is not None else {})


async def hand_over(call: Call) -> dict[str, Any]:
    """The call reached ``ctx.continue_as_task()``: the task is made with every answer gathered so far (this
    round's and earlier rounds' over 2026-07-28, those the client gave on the stream over 2025), and the call is
    answered with its handle."""
    answers: dict[str, Any] = dict(call.rounds[0]) if call.rounds is not None else {}
    if call.context is not None:
        answers.update(call.context.answers)
    return await _create(call, call.source.task_service, answers)


def run_context(call: Call) -> dict[str, Any]:
    """What a task's run needs from the request that made it, as JSON: the client's capabilities and log level,
    the caller (its subject and scopes, which a tool reads from ``ctx.principal``) and the repairs chosen."""
    context: dict[str, Any] = {"generation": "2025" if call.legacy else "2026", "capabilities": dict(call.capabilities)}
    if call.log_level is not None:
        context["logLevel"] = call.log_level
    principal = call.principal
    if principal is not None:
        context["principal"] = {
            "subject": principal.subject,
            "scopes": sorted(principal.scopes),
            "clientId": principal.client_id,
        }
    provider = call.provider
    if provider is not None:
        # A provider's run: its arguments are the original schema's already, and it chose its own repairs.
        context["provider"] = {"repairs": None if provider.repairs is None else sorted(provider.repairs)}
    return context


async def _create(call: Call, service: TaskAccess, answers: dict[str, Any]) -> dict[str, Any]:
    config = service.config
    store = service.store
    assert store is not None  # accepting: the store is open
    ttl_ms = config.ttl_ms
    requested = call.params.get("task")
    if call.legacy and type(requested) is dict:
        # 2025-11-25: the client may ask for a shorter retention; never a longer one than the server keeps.
        wanted = requested.get("ttl")
        if type(wanted) is int and 0 < wanted < ttl_ms:
            ttl_ms = wanted
    arguments = call.params.get("arguments")
    principal = call.principal
    spec = TaskSpec(
        call.name,
        arguments if type(arguments) is dict else {},
        ttl_ms,
        config.poll_interval_ms,
        scope=principal.subject if principal is not None else None,
        context=run_context(call),
        answers=answers,
    )
    record = await create_task(store, spec)
    return created(record, call.legacy)
