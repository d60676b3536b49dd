"""What tasks look like on the wire, in both generations: the task handle, the task as ``tasks/get`` shows it, and
whether a request asked for a task at all.

2026-07-28 with the Tasks extension (``io.modelcontextprotocol/tasks``): a client declares the extension in each
request's ``_meta`` capabilities; a task is a flat object (``taskId``, ``status``, ``ttlMs``, ``pollIntervalMs``,
...), and ``tasks/get`` adds what its status calls for (``inputRequests``, ``result`` or ``error``).
2025-11-25: a session's ``tools/call`` carries ``params.task``; the handle is ``{"task": Task}`` with ``ttl`` and
``pollInterval``, and a tool result with ``isError`` shows as ``failed`` (that revision's rule).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from .._errors import ProtocolError
from .._jsonrpc import METHOD_NOT_FOUND, MISSING_CLIENT_CAPABILITY
from .._protocol.request_rules import TASK_METHODS
from .._protocol.revisions import TASKS_EXTENSION, TASKS_REVISION
from .record import TaskRecord, iso_time

if TYPE_CHECKING:
    from .._call import Call

__all__ = [
    "EXTENSION",
    "LEGACY_TASKS_VERSION",
    "RELATED_TASK",
    "TASK_METHODS",
    "asks_for_task",
    "created",
    "detailed",
    "extension_declared",
    "extension_required",
    "legacy_task",
    "task_required",
]

EXTENSION: Final = TASKS_EXTENSION
RELATED_TASK: Final = "io.modelcontextprotocol/related-task"
LEGACY_TASKS_VERSION: Final = TASKS_REVISION
_REQUIRED: Final[dict[str, Any]] = {"requiredCapabilities": {"extensions": {EXTENSION: {}}}}


def extension_declared(call: Call) -> bool:
    """Whether a 2026-07-28 request declared the Tasks extension in its capabilities (per request: a client may
    declare it on one call only)."""
    extensions = call.capabilities.get("extensions")
    return type(extensions) is dict and type(extensions.get(EXTENSION)) is dict


def asks_for_task(call: Call) -> bool:
    """Whether this ``tools/call`` may be answered with a task: 2026-07-28 with the extension declared (a stray
    ``task`` parameter is ignored there), or a 2025-11-25 session's call carrying ``params.task``."""
    if not call.legacy:
        return extension_declared(call)
    return call.session.protocol_version == LEGACY_TASKS_VERSION and type(call.params.get("task")) is dict


def extension_required(what: str) -> ProtocolError:
    """-32021: the request needs the Tasks extension, which it did not declare."""
    return ProtocolError(
        MISSING_CLIENT_CAPABILITY, f"Missing required client capability: extensions.{EXTENSION} ({what})", _REQUIRED
    )


def task_required(call: Call) -> ProtocolError:
    """A ``required`` task tool called without asking for a task: -32021 naming the extension (2026-07-28), or
    -32601 (2025-11-25, whose task support is per tool and says so in ``tools/list``)."""
    if call.legacy:
        return ProtocolError(
            METHOD_NOT_FOUND,
            f"Method not found: tool {call.name!r} runs only as a task; call it with params.task "
            "(its tools/list entry says execution.taskSupport: required)",
        )
    return extension_required(f"tool {call.name!r} runs only as a task")


def _task(record: TaskRecord, legacy: bool = False) -> dict[str, Any]:
    """The task's own fields: 2026-07-28's, or 2025-11-25's (``ttl``, ``pollInterval``; a tool result with
    ``isError`` is a failed task there)."""
    status = record.status
    if legacy and status == "completed" and record.result is not None and record.result.get("isError") is True:
        status = "failed"
    task: dict[str, Any] = {
        "taskId": record.task_id,
        "status": status,
        "createdAt": iso_time(record.created_at),
        "lastUpdatedAt": iso_time(record.updated_at),
        "ttl" if legacy else "ttlMs": record.ttl_ms,
    }
    if record.poll_interval_ms is not None:
        task["pollInterval" if legacy else "pollIntervalMs"] = record.poll_interval_ms
    if record.status_message is not None:
        task["statusMessage"] = record.status_message
    return task


def created(record: TaskRecord, legacy: bool) -> dict[str, Any]:
    """The answer to the ``tools/call`` that made the task: its handle."""
    if legacy:
        return {"task": legacy_task(record)}
    return {"resultType": "task", **_task(record)}


def detailed(record: TaskRecord) -> dict[str, Any]:
    """A 2026-07-28 ``DetailedTask``: the task, and by status its outstanding questions, its result or its
    error (also the params of ``notifications/tasks``)."""
    task = _task(record)
    if record.status == "input_required":
        task["inputRequests"] = {key: dict(value) for key, value in record.input_requests.items()}
    elif record.status == "completed" and record.result is not None:
        task["result"] = dict(record.result)
    elif record.status == "failed" and record.error is not None:
        task["error"] = dict(record.error)
    return task


def legacy_task(record: TaskRecord) -> dict[str, Any]:
    """A 2025-11-25 ``Task``."""
    return _task(record, legacy=True)
