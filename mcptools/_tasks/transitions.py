"""The task state machine, as pure functions: every decision about a task is made here, once.

A ``Change`` takes the current record and the store's clock and returns the next record, or ``None`` when it
does not apply (the task moved on: another worker claimed it, the client cancelled it, its lease was renewed).
Stores apply a change atomically (``apply``) and never decide anything themselves, so the in-memory, SQLite and
Redis stores behave alike by construction, and one contract test holds all three to it.

    working ──claim──▶ working(owned) ──complete/fail──▶ completed | failed
       ▲                 │  │  └──ask──▶ input_required ──answer (all keys)──▶ working
       └──lease lost─────┘  └──lease lost max_attempts times──▶ failed
    any non-terminal ──cancel──▶ cancelled

Cancellation takes effect at once, even while a worker runs the task: the 2025-11-25 revision requires the status
to be ``cancelled`` before ``tasks/cancel`` answers, and the worker learns it at its next heartbeat (or from the
store's event) and stops the tool; a result it still produces is refused, as the task is terminal.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final, final

from .._jsonrpc import INTERNAL_ERROR
from .record import Status, TaskRecord

__all__ = [
    "Change",
    "TaskSpec",
    "answered",
    "apply",
    "asked",
    "cancelled",
    "claimed",
    "completed",
    "failed",
    "lease_lost",
    "new_task",
    "noted",
    "released",
    "renewed",
]

Change = Callable[[TaskRecord, float], TaskRecord | None]
_CANCELLED_MESSAGE: Final = "The task was cancelled at the client's request."


def apply(change: Change, record: TaskRecord, now: float) -> TaskRecord | None:
    """The record after ``change``, with its write counted; ``None`` when the change does not apply."""
    changed = change(record, now)
    return None if changed is None else replace(changed, rev=record.rev + 1)


@final
@dataclass(frozen=True, slots=True)
class TaskSpec:
    """What a task-augmented call asks for: the tool and its arguments, how long the task is kept (``ttl_ms``;
    ``None``: until deleted), the polling interval to suggest, who may see it (``scope``), what the run needs from
    the request (``context``), and the answers gathered by input-required rounds on ``tools/call`` before the task
    was made (``answers``), which the run finds."""

    tool: str
    arguments: Mapping[str, Any]
    ttl_ms: int | None
    poll_interval_ms: int | None = None
    scope: str | None = None
    context: Mapping[str, Any] = field(default_factory=dict)
    answers: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


def new_task(task_id: str, spec: TaskSpec, now: float) -> TaskRecord:
    """A task as created: working and runnable."""
    return TaskRecord(
        task_id,
        spec.tool,
        dict(spec.arguments),
        "working",
        now,
        now,
        spec.ttl_ms,
        spec.poll_interval_ms,
        input_responses={key: dict(value) for key, value in spec.answers.items()},
        scope=spec.scope,
        context=dict(spec.context),
        rev=1,
    )


def claimed(worker: str, lease_ms: int) -> Change:
    """``worker`` takes a runnable task until ``lease_ms`` from now, unless it renews."""

    def change(record: TaskRecord, now: float) -> TaskRecord | None:
        if not record.runnable or record.expired(now):
            return None
        return replace(record, owner=worker, lease_until=now + lease_ms / 1000, attempts=record.attempts + 1)

    return change


def _holds(record: TaskRecord, worker: str) -> bool:
    return record.owner == worker and record.status == "working"


def renewed(worker: str, lease_ms: int) -> Change:
    """The owner extends its lease; a worker that no longer holds the task learns it from the ``None``."""

    def change(record: TaskRecord, now: float) -> TaskRecord | None:
        if not _holds(record, worker):
            return None
        return replace(record, lease_until=now + lease_ms / 1000)

    return change


def released(worker: str) -> Change:
    """The owner gives the task back unfinished (its worker is stopping): runnable again, the claim not counted."""

    def change(record: TaskRecord, now: float) -> TaskRecord | None:
        if not _holds(record, worker):
            return None
        return replace(record, owner=None, lease_until=None, attempts=max(record.attempts - 1, 0))

    return change


def noted(worker: str, message: str) -> Change:
    """The owner reports how far it got (progress and logs from ``Context``) as the task's ``statusMessage``."""

    def change(record: TaskRecord, now: float) -> TaskRecord | None:
        if not _holds(record, worker) or record.status_message == message:
            return None
        return replace(record, status_message=message, updated_at=now)

    return change


def asked(worker: str, requests: Mapping[str, Mapping[str, Any]], message: str | None = None) -> Change:
    """The tool needs answers (``Context.ask`` in a task run): the run ends, the questions not answered yet wait
    for ``tasks/update``, and the task is no worker's until they are answered."""

    def change(record: TaskRecord, now: float) -> TaskRecord | None:
        if not _holds(record, worker):
            return None
        waiting = {key: dict(value) for key, value in requests.items() if key not in record.input_responses}
        return replace(
            record,
            status="input_required" if waiting else "working",
            input_requests=waiting,
            status_message=message,
            owner=None,
            lease_until=None,
            updated_at=now,
        )

    return change


def answered(responses: Mapping[str, Mapping[str, Any]]) -> Change:
    """``tasks/update``: answers to outstanding questions are kept and those questions retired; answers to keys
    never asked, or already answered, are ignored (the extension says so). Once nothing is outstanding the task
    is runnable again, and its next run finds every answer."""

    def change(record: TaskRecord, now: float) -> TaskRecord | None:
        if record.status != "input_required":
            return None
        matched = {key: dict(value) for key, value in responses.items() if key in record.input_requests}
        if not matched:
            return None
        waiting = {key: value for key, value in record.input_requests.items() if key not in matched}
        return replace(
            record,
            status="input_required" if waiting else "working",
            input_requests=waiting,
            input_responses={**record.input_responses, **matched},
            status_message=record.status_message if waiting else None,
            updated_at=now,
        )

    return change


def completed(worker: str, result: Mapping[str, Any]) -> Change:
    """The run ended with the tool's result (an ``isError`` result too: that is a completed call)."""
    return _finished(worker, "completed", result=dict(result))


def failed(worker: str, error: Mapping[str, Any], message: str | None = None) -> Change:
    """The run ended with a JSON-RPC error (``code``, ``message``, optional ``data``)."""
    return _finished(worker, "failed", error=dict(error), message=message)


def _finished(
    worker: str,
    status: Status,
    *,
    result: Mapping[str, Any] | None = None,
    error: Mapping[str, Any] | None = None,
    message: str | None = None,
) -> Change:
    def change(record: TaskRecord, now: float) -> TaskRecord | None:
        if not _holds(record, worker):
            return None
        return replace(
            record,
            status=status,
            result=result,
            error=error,
            status_message=message,
            input_requests={},
            owner=None,
            lease_until=None,
            updated_at=now,
        )

    return change


def cancelled(record: TaskRecord, now: float) -> TaskRecord | None:
    """``tasks/cancel``: any task not yet terminal ends cancelled at once (a terminal one is left as it is)."""
    if record.terminal:
        return None
    return replace(
        record,
        status="cancelled",
        status_message=_CANCELLED_MESSAGE,
        input_requests={},
        owner=None,
        lease_until=None,
        updated_at=now,
    )


def lease_lost(max_attempts: int) -> Change:
    """The reaper found the lease run out (the worker died or hangs): the task goes back to the queue, or, once
    ``max_attempts`` runs have ended this way, fails with the reason. Runs that ended otherwise (asking for input,
    a worker stopping gracefully) do not count."""

    def change(record: TaskRecord, now: float) -> TaskRecord | None:
        if record.owner is None or record.status != "working" or record.lease_until is None or record.lease_until > now:
            return None
        losses = record.losses + 1
        if losses >= max_attempts:
            reason = (
                f"The task was abandoned: the worker running it stopped renewing its lease "
                f"({losses} attempt{'s' if losses != 1 else ''})."
            )
            error = {"code": INTERNAL_ERROR, "message": reason}
            return replace(
                record,
                status="failed",
                error=error,
                status_message=reason,
                owner=None,
                lease_until=None,
                losses=losses,
                updated_at=now,
            )
        message = f"Retrying: the worker running attempt {losses} of {max_attempts} stopped."
        return replace(record, owner=None, lease_until=None, losses=losses, status_message=message, updated_at=now)

    return change
