"""The 2025 sessions of the Streamable HTTP app: one entry per ``Mcp-Session-Id``, kept in least-recently-used
order so that admission and expiry cost O(1) amortised however many sessions are open.

* Expiry: a session idle longer than the limit is dropped from the LRU end when the next one is admitted (each
  session is dropped once, so the work is paid for by its own admission). No sweep of the whole table and no
  background task: an app mounted where no lifespan events reach it keeps a bounded table all the same.
* A full table evicts the least recently used session that has no request in flight and no open GET stream;
  its client gets 404 on its next request and, as the spec says, initializes again. A busy session met on the
  way counts as used now and moves to the most recently used end; only when the ``EVICTION_SCAN`` sessions
  looked at are all busy is a new one refused (the app answers 503 with the request's id), and the next
  admission looks at others.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any, Final, final

from .._protocol.session import Session
from .streams import EventStream

__all__ = ["EVICTION_SCAN", "HTTPSession", "SessionTable"]

# How many least-recently-used sessions a full table looks at for an idle one before it refuses: bounded, so
# admission stays O(1) however many sessions are busy.
EVICTION_SCAN: Final = 64


@final
class HTTPSession:
    """A 2025 session as HTTP keeps it: the protocol session plus its resumable streams."""

    __slots__ = ("closed", "in_flight", "last_seen", "outbox", "outbox_changed", "session", "standalone", "streams")

    def __init__(self) -> None:
        self.session = Session()
        self.streams: dict[str, EventStream] = {}
        self.standalone = False
        self.last_seen = time.monotonic()
        self.closed = asyncio.Event()
        # Requests of this session being answered now: a session with one is never evicted.
        self.in_flight = 0
        # Server-initiated notifications (the tool list changed) waiting for the GET stream, which carries
        # them; kept until a GET stream takes them, and each kind once (a second list_changed adds nothing).
        self.outbox: list[dict[str, Any]] = []
        self.outbox_changed = asyncio.Event()
        self.session.open_outlet(self.post)

    async def post(self, message: dict[str, Any]) -> None:
        if message not in self.outbox:
            self.outbox.append(message)
        self.outbox_changed.set()

    def take(self) -> list[dict[str, Any]]:
        taken, self.outbox = self.outbox, []
        self.outbox_changed.clear()
        return taken

    @property
    def busy(self) -> bool:
        return self.in_flight > 0 or self.standalone

    def close(self) -> None:
        self.session.close()
        self.closed.set()


@final
class SessionTable:
    """Open sessions by id, least recently used first."""

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: OrderedDict[str, HTTPSession] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._entries

    def __getitem__(self, session_id: str) -> HTTPSession:
        return self._entries[session_id]

    def values(self) -> Iterator[HTTPSession]:
        return iter(list(self._entries.values()))

    def touch(self, session_id: str) -> HTTPSession | None:
        """The session with this id, marked as used now; ``None`` when there is none."""
        entry = self._entries.get(session_id)
        if entry is not None:
            entry.last_seen = time.monotonic()
            self._entries.move_to_end(session_id)
        return entry

    def admit(self, max_sessions: int, idle_seconds: float) -> HTTPSession | None:
        """A new session, after expiring idle ones and (when full) evicting one; ``None`` when the table is
        full of busy sessions."""
        entries = self._entries
        now = time.monotonic()
        deadline = now - idle_seconds
        while entries:
            session_id, oldest = next(iter(entries.items()))
            if oldest.last_seen > deadline:
                break
            if oldest.busy:
                oldest.last_seen = now  # a long call keeps its session alive; look at it again later
                entries.move_to_end(session_id)
                continue
            del entries[session_id]
            oldest.close()
        if len(entries) >= max_sessions:
            victim = None
            for _ in range(min(EVICTION_SCAN, len(entries))):
                session_id, candidate = next(iter(entries.items()))
                if not candidate.busy:
                    victim = session_id
                    break
                # In use right now (a request in flight, a GET stream held open): as recently used as any, so it
                # goes to the other end. Left here, a few held streams would make every admission 503.
                candidate.last_seen = now
                entries.move_to_end(session_id)
            if victim is None:
                return None
            entries.pop(victim).close()
        entry = HTTPSession()
        entries[entry.session.id] = entry
        return entry

    def remove(self, session_id: str) -> None:
        entry = self._entries.pop(session_id, None)
        if entry is not None:
            entry.close()

    def wake_streams(self) -> None:
        """Wake every GET stream (the server is stopping: each sees that and ends)."""
        for entry in self._entries.values():
            entry.outbox_changed.set()

    def close_all(self) -> None:
        for entry in self._entries.values():
            entry.close()
        self._entries.clear()
