"""One task as every store keeps it: ``TaskRecord``, its statuses, and its JSON form.

A record is immutable; a change is a new record (``transitions``) written atomically by a store. Everything in it
is JSON data (the tool's name and arguments, the client's answers, the result), never pickled objects, so a store
shared between machines can never be made to run code. Times are seconds since the epoch on the store's clock
(Redis' own ``TIME`` for a Redis store, so replicas with skewed clocks agree on leases and TTLs).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import Any, Final, Literal, final

from .._errors import TaskStoreError

__all__ = ["TERMINAL", "Status", "TaskRecord", "iso_time"]

Status = Literal["working", "input_required", "completed", "failed", "cancelled"]
# Once there, a task never changes status again (both generations of the protocol say so).
TERMINAL: Final = frozenset({"completed", "failed", "cancelled"})
_STATUSES: Final = frozenset({"working", "input_required", *TERMINAL})


@final
@dataclass(frozen=True, slots=True)
class TaskRecord:
    """A task: what was called, where it stands, who is running it, and its outcome.

    ``rev`` counts the writes (a store refuses a write made from a stale read); ``owner`` and ``lease_until`` say
    which worker runs it and until when that worker must renew; ``attempts`` counts the claims and ``losses`` the
    runs that ended with the lease lost (the worker died or hung), so a task whose workers keep dying ends
    ``failed`` instead of being retried forever, while one that merely waited for answers between runs does not.
    ``input_requests`` are the questions outstanding, ``input_responses`` every answer gathered so far (a rerun
    of the tool finds them); ``context`` is what the run needs from the request that created the task (protocol
    generation, client capabilities, ...); ``scope`` binds the task to the caller who created it.
    """

    task_id: str
    tool: str
    arguments: Mapping[str, Any]
    status: Status
    created_at: float
    updated_at: float
    ttl_ms: int | None
    poll_interval_ms: int | None = None
    status_message: str | None = None
    result: Mapping[str, Any] | None = None
    error: Mapping[str, Any] | None = None
    input_requests: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    input_responses: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    owner: str | None = None
    lease_until: float | None = None
    attempts: int = 0
    losses: int = 0
    scope: str | None = None
    context: Mapping[str, Any] = field(default_factory=dict)
    rev: int = 0

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    @property
    def expires_at(self) -> float | None:
        """When the task may be deleted: its creation plus its TTL (``None``: kept until deleted)."""
        return None if self.ttl_ms is None else self.created_at + self.ttl_ms / 1000

    def expired(self, now: float) -> bool:
        expires_at = self.expires_at
        return expires_at is not None and now >= expires_at

    @property
    def runnable(self) -> bool:
        """Whether a worker may claim it: working and held by nobody (new, answered, or its worker was lost)."""
        return self.status == "working" and self.owner is None

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str | bytes) -> TaskRecord:
        """Read a record a store wrote; anything else (a foreign or damaged value) raises ``TaskStoreError`` (also
        a ``ValueError``)."""
        data = json.loads(text)
        if type(data) is not dict or data.get("status") not in _STATUSES:
            raise TaskStoreError("not a task record")
        try:
            return cls(**data)
        except TypeError as problem:
            raise TaskStoreError(f"not a task record: {problem}") from None


def iso_time(seconds: float) -> str:
    """An ISO 8601 UTC timestamp for the wire (``createdAt``, ``lastUpdatedAt``), to the millisecond."""
    moment = datetime.fromtimestamp(seconds, tz=timezone.utc)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
