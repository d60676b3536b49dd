"""The 2025 sessions of the Streamable HTTP app: one entry per ``Mcp-Session-Id``, kept in least-recently-used
order so that admission and expiry cost O(1) amortised however many sessions are open.

* Ownership: a session belongs to the caller that opened it (with authorization on: the token's issuer, subject
  and client id). Anyone else naming its id is told it does not exist (404), as for an unknown id: its POSTs,
  its GET stream, resuming its streams, answers to its questions and DELETE alike.
* Busy: a session is busy while an HTTP response is open on it (a request being answered, a stream being read).
  Work whose client went away does not keep it busy: such a session expires like an idle one, and closing it
  cancels that work.
* Expiry: a session idle longer than the limit is gone. It is checked when the session is used (an expired id
  answers 404) and at the LRU end when the next one is admitted (each session is dropped once, so the work is
  paid for by its own admission). No sweep of the whole table and no background task: an app mounted where no
  lifespan events reach it keeps a bounded table all the same.
* Admission: each client (the owner; without authorization, the peer's address) holds at most
  ``per_client`` sessions: past that its own least recently used idle session makes room, so no single client
  can evict another's. A full table evicts the least recently used session that is not busy; its client gets
  404 on its next request and, as the spec says, initializes again. A busy session met on the way counts as used
  now and moves to the most recently used end; only when the ``EVICTION_SCAN`` sessions looked at are all busy
  is a new one refused (the app answers 503 with the request's id; 429 for a client at its own limit), and the
  next admission looks at others.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from typing import Any, Final, Literal, final

from .._protocol.session import Session
from ..auth import Principal
from .streams import EventStream

__all__ = [
    "EVICTION_SCAN",
    "MAX_GET_STREAMS",
    "MAX_SESSIONS",
    "MAX_SESSIONS_PER_CLIENT",
    "HTTPSession",
    "SessionTable",
    "owner_of",
]

# The defaults of the app's (and ``mcptools serve``'s) limits: sessions open at once, and per client.
MAX_SESSIONS: Final = 10_000
MAX_SESSIONS_PER_CLIENT: Final = 1_000

# How many least-recently-used sessions a full table looks at for an idle one before it refuses: bounded, so
# admission stays O(1) however many sessions are busy.
EVICTION_SCAN: Final = 64
# GET streams one session may hold open at once: its standalone stream and resumed ones (each resumed stream
# has one reader at a time: a new GET for it cuts the old one off).
MAX_GET_STREAMS: Final = 8
# Finished streams a session keeps for a client to resume; past that the oldest finished one goes.
_KEPT_STREAMS: Final = 64

Owner = tuple[str | None, str, str | None]


def owner_of(principal: Principal | None) -> Owner | None:
    """Who a session belongs to: the token's issuer, subject and client id (``None`` without authorization)."""
    if principal is None:
        return None
    issuer = principal.claims.get("iss")
    return (issuer if type(issuer) is str else None, principal.subject, principal.client_id)


@final
class HTTPSession:
    """A 2025 session as HTTP keeps it: the protocol session plus its resumable streams."""

    __slots__ = (
        "attached",
        "client",
        "closed",
        "gets",
        "last_seen",
        "outbox",
        "outbox_changed",
        "owner",
        "session",
        "standalone",
        "streams",
    )

    def __init__(self, owner: Owner | None = None, client: Hashable = None) -> None:
        self.session = Session()
        self.owner = owner
        # What the per-client limit counts against: the owner, or without authorization the peer's address.
        self.client = client
        self.streams: dict[str, EventStream] = {}
        self.standalone = False
        self.last_seen = time.monotonic()
        self.closed = asyncio.Event()
        # HTTP responses open on this session now (requests being answered, streams being read): a session with
        # one is never evicted nor expired. ``gets``: how many of them are GET streams.
        self.attached = 0
        self.gets = 0
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
        return self.attached > 0

    @contextmanager
    def attach(self) -> Iterator[None]:
        """Mark an HTTP response open on this session for the block; its end counts as the session's last use."""
        self.attached += 1
        try:
            yield
        finally:
            self.attached -= 1
            self.last_seen = time.monotonic()

    def keep(self, events: EventStream) -> None:
        """Keep ``events`` for resumption; the oldest finished stream goes when too many are kept."""
        if len(self.streams) >= _KEPT_STREAMS:
            finished = next((key for key, kept in self.streams.items() if kept.done), None)
            if finished is not None:
                del self.streams[finished]
        self.streams[events.id] = events

    def stop(self) -> None:
        """The server is stopping: questions waiting for the client fail (a tool can still answer), no new ones
        are asked, the GET stream ends; calls in flight run on until the server's shutdown deadline."""
        self.session.close(cancel_running=False)
        self.closed.set()

    def close(self) -> None:
        self.session.close()
        self.closed.set()


@final
class SessionTable:
    """Open sessions by id, least recently used first, and each client's own in the same order."""

    __slots__ = ("_by_client", "_entries")

    def __init__(self) -> None:
        self._entries: OrderedDict[str, HTTPSession] = OrderedDict()
        self._by_client: dict[Hashable, OrderedDict[str, HTTPSession]] = {}

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

    def find(self, session_id: str, owner: Owner | None, idle_seconds: float) -> HTTPSession | None:
        """The session with this id, marked as used now; ``None`` when there is none, it belongs to another
        caller (left as it was: a stranger's request is no use of it), or it expired (then it is closed)."""
        entry = self._entries.get(session_id)
        if entry is None or entry.owner != owner or entry.session.closed:
            return None
        now = time.monotonic()
        if not entry.busy and entry.last_seen < now - idle_seconds:
            self.remove(session_id)
            return None
        entry.last_seen = now
        self._entries.move_to_end(session_id)
        self._by_client[entry.client].move_to_end(session_id)
        return entry

    def admit(
        self, owner: Owner | None, client: Hashable, max_sessions: int, per_client: int, idle_seconds: float
    ) -> HTTPSession | Literal["client", "full"]:
        """A new session for ``client``, after expiring idle ones and making room (its own least recently used
        idle session when it is at ``per_client``, anyone's when the table is full); ``"client"`` or ``"full"``
        when the sessions that would have to make room are all busy."""
        now = time.monotonic()
        self._expire(now - idle_seconds, now)
        own = self._by_client.get(client)
        if own is not None and len(own) >= per_client and not self._evict(own, now):
            return "client"
        if len(self._entries) >= max_sessions and not self._evict(self._entries, now):
            return "full"
        entry = HTTPSession(owner, client)
        self._entries[entry.session.id] = entry
        self._by_client.setdefault(client, OrderedDict())[entry.session.id] = entry
        return entry

    def _expire(self, deadline: float, now: float) -> None:
        entries = self._entries
        while entries:
            session_id, oldest = next(iter(entries.items()))
            if oldest.last_seen > deadline:
                return
            if oldest.busy:
                self._touch(session_id, oldest, now)  # a response open on it keeps it alive; look again later
                continue
            self.remove(session_id)

    def _evict(self, order: OrderedDict[str, HTTPSession], now: float) -> bool:
        """Close the least recently used session in ``order`` that is not busy, looking at ``EVICTION_SCAN`` at
        most; whether one was found."""
        for _ in range(min(EVICTION_SCAN, len(order))):
            session_id, candidate = next(iter(order.items()))
            if not candidate.busy:
                self.remove(session_id)
                return True
            # In use right now (a request in flight, a GET stream held open): as recently used as any, so it goes
            # to the other end. Left here, a few held streams would make every admission 503.
            self._touch(session_id, candidate, now)
        return False

    def _touch(self, session_id: str, entry: HTTPSession, now: float) -> None:
        entry.last_seen = now
        self._entries.move_to_end(session_id)
        self._by_client[entry.client].move_to_end(session_id)

    def remove(self, session_id: str) -> None:
        entry = self._entries.pop(session_id, None)
        if entry is None:
            return
        own = self._by_client[entry.client]
        del own[session_id]
        if not own:
            del self._by_client[entry.client]
        entry.close()

    def stop_all(self) -> None:
        """The server is stopping: every session stops (see ``HTTPSession.stop``)."""
        for entry in self._entries.values():
            entry.stop()

    def close_all(self) -> None:
        for entry in self._entries.values():
            entry.close()
        self._entries.clear()
        self._by_client.clear()
