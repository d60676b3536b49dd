"""A task store in an SQLite file (the standard library's ``sqlite3``): tasks survive a restart of the server, and
every process on the machine that opens the same file shares them.

The file is in WAL mode with ``synchronous=NORMAL``: nothing committed is lost when a process dies (a crash, a
``kill -9``, a restart), and only a power loss or an operating system crash may take the last commits back (FULL
would fsync every commit to close that gap, at several times the cost of a change). Readers never wait for the
writer; each change is one ``BEGIN IMMEDIATE`` transaction (read, apply the ``Change``, write), which holds
SQLite's write lock and so is atomic across processes. One thread per store owns its connection (``sqlite3``
connections are not for sharing between threads) and the event loop awaits it, so a write waiting for another
process's lock never blocks the loop.

SQLite has no notifications between processes. Published messages are rows of an ``events`` table, written in
the same transaction as the change they announce; subscribers in this process get them at once, and a poller
delivers the other processes' ones, checking ``PRAGMA data_version`` (which changes when another connection
commits) every ``poll_interval`` seconds and reading the table only then. Events are kept for
``EVENT_RETENTION`` seconds (``purge``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any, Final, TypeVar, final

from .fanout import Fanout
from .record import TaskRecord
from .store import TASKS_CHANNEL, Subscription, TaskStoreError, Updated, task_event
from .transitions import Change, apply

__all__ = ["EVENT_RETENTION", "SqliteTaskStore"]

T = TypeVar("T")
EVENT_RETENTION: Final = 300.0
_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS tasks (
    task_id TEXT PRIMARY KEY,
    doc TEXT NOT NULL,
    runnable INTEGER NOT NULL,
    queued_at REAL,
    lease_until REAL,
    expires_at REAL
);
CREATE INDEX IF NOT EXISTS tasks_queue ON tasks (runnable, queued_at);
CREATE INDEX IF NOT EXISTS tasks_leases ON tasks (lease_until) WHERE lease_until IS NOT NULL;
CREATE INDEX IF NOT EXISTS tasks_expiry ON tasks (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS tasks_scope ON tasks (json_extract(doc, '$.scope'));
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    origin TEXT NOT NULL,
    channel TEXT NOT NULL,
    payload TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS shared (name TEXT PRIMARY KEY, value TEXT NOT NULL, rev INTEGER NOT NULL);
"""


@final
class SqliteTaskStore:
    """A ``TaskStore`` in the SQLite file at ``path`` (created if missing)."""

    __slots__ = ("_connection", "_executor", "_fanout", "_last_event", "_origin", "_poller", "poll_interval")

    def __init__(self, path: str | Path, *, poll_interval: float = 0.05, busy_timeout: float = 30.0) -> None:
        import secrets  # lazily, as everywhere in mcptools

        self.poll_interval = poll_interval
        # Which store instance wrote an event: the poller skips this one's own (already delivered in process).
        self._origin = secrets.token_hex(8)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mcptools-sqlite-tasks")
        self._fanout = Fanout()
        self._poller: asyncio.Task[None] | None = None
        self._last_event = 0
        try:
            self._connection = self._executor.submit(_connect, str(path), busy_timeout).result()
        except sqlite3.Error as problem:
            self._executor.shutdown(wait=False)
            raise TaskStoreError(f"cannot open the task store {str(path)!r}: {problem}") from None

    async def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, work, self._connection)

    # -- tasks ------------------------------------------------------------------------------------------

    async def create(self, make: Callable[[float], TaskRecord]) -> TaskRecord:
        def work(db: sqlite3.Connection) -> TaskRecord:
            with _transaction(db):
                record = make(time.time())
                try:
                    _insert(db, record)
                except sqlite3.IntegrityError:
                    raise TaskStoreError(f"a task with id {record.task_id!r} exists already") from None
                self._event(db, TASKS_CHANNEL, task_event(record), record.created_at)
            return record

        record = await self._run(work)
        self._fanout.deliver(TASKS_CHANNEL, task_event(record))
        return record

    async def get(self, task_id: str) -> TaskRecord | None:
        def work(db: sqlite3.Connection) -> TaskRecord | None:
            return _read(db, task_id, time.time())

        return await self._run(work)

    async def update(self, task_id: str, change: Change, *, announce: bool = True) -> Updated:
        def work(db: sqlite3.Connection) -> Updated:
            with _transaction(db):
                now = time.time()
                record = _read(db, task_id, now)
                if record is None:
                    return Updated(None, False)
                changed = apply(change, record, now)
                if changed is None:
                    return Updated(record, False)
                _write(db, changed, record, now)
                if announce:
                    self._event(db, TASKS_CHANNEL, task_event(changed), now)
                return Updated(changed, True)

        updated = await self._run(work)
        if announce and updated.changed and updated.record is not None:
            self._fanout.deliver(TASKS_CHANNEL, task_event(updated.record))
        return updated

    async def claim(self, change: Change) -> TaskRecord | None:
        def work(db: sqlite3.Connection) -> TaskRecord | None:
            with _transaction(db):
                now = time.time()
                rows = db.execute(
                    "SELECT doc FROM tasks WHERE runnable = 1 AND (expires_at IS NULL OR expires_at > ?) "
                    "ORDER BY queued_at LIMIT 64",
                    (now,),
                ).fetchall()
                for (doc,) in rows:
                    record = TaskRecord.from_json(doc)
                    changed = apply(change, record, now)
                    if changed is not None:
                        _write(db, changed, record, now)
                        return changed
            return None

        return await self._run(work)

    async def list_scope(self, scope: str) -> list[TaskRecord]:
        def work(db: sqlite3.Connection) -> list[TaskRecord]:
            rows = db.execute(
                "SELECT doc FROM tasks WHERE json_extract(doc, '$.scope') = ? "
                "AND (expires_at IS NULL OR expires_at > ?) ORDER BY rowid",
                (scope, time.time()),
            ).fetchall()
            return [TaskRecord.from_json(doc) for (doc,) in rows]

        return await self._run(work)

    async def expired_leases(self) -> list[str]:
        def work(db: sqlite3.Connection) -> list[str]:
            rows = db.execute("SELECT task_id FROM tasks WHERE lease_until <= ?", (time.time(),)).fetchall()
            return [task_id for (task_id,) in rows]

        return await self._run(work)

    async def purge(self) -> int:
        def work(db: sqlite3.Connection) -> int:
            now = time.time()
            with _transaction(db):
                gone = db.execute("DELETE FROM tasks WHERE expires_at <= ?", (now,)).rowcount
                db.execute("DELETE FROM events WHERE at < ?", (now - EVENT_RETENTION,))
            return gone

        return await self._run(work)

    async def delete(self, task_id: str) -> bool:
        def work(db: sqlite3.Connection) -> bool:
            with _transaction(db):
                return db.execute("DELETE FROM tasks WHERE task_id = ?", (task_id,)).rowcount > 0

        return await self._run(work)

    # -- messages ---------------------------------------------------------------------------------------

    def _event(self, db: sqlite3.Connection, channel: str, payload: dict[str, Any], now: float) -> None:
        db.execute(
            "INSERT INTO events (origin, channel, payload, at) VALUES (?, ?, ?, ?)",
            (self._origin, channel, json.dumps(payload), now),
        )

    async def publish(self, channel: str, payload: dict[str, Any]) -> None:
        def work(db: sqlite3.Connection) -> None:
            with _transaction(db):
                self._event(db, channel, payload, time.time())

        await self._run(work)
        self._fanout.deliver(channel, json.loads(json.dumps(payload)))

    def subscribe(self, *channels: str) -> AbstractAsyncContextManager[Subscription]:
        return self._subscription(channels)

    @asynccontextmanager
    async def _subscription(self, channels: tuple[str, ...]) -> AsyncIterator[Subscription]:
        if self._poller is None or self._poller.done():
            # Only the other processes' events written from now on: nothing older is replayed.
            self._last_event = await self._run(_last_event_id)
            self._poller = asyncio.ensure_future(self._poll())
        async with self._fanout.subscribe(channels, on_empty=self._stop_polling) as queue:
            yield queue

    def _stop_polling(self) -> None:
        poller, self._poller = self._poller, None
        if poller is not None:
            poller.cancel()

    async def _poll(self) -> None:
        # No version seen yet: the first pass reads the table, so an event committed between the subscription's
        # start and this poller's first look is delivered, not left until some later commit.
        version = -1
        while self._fanout.active:
            seen = await self._run(_data_version)
            if seen == version:
                await asyncio.sleep(self.poll_interval)
                continue
            version = seen
            events = await self._run(self._events_since)
            for channel, payload in events:
                self._fanout.deliver(channel, payload)

    def _events_since(self, db: sqlite3.Connection) -> list[tuple[str, dict[str, Any]]]:
        rows = db.execute(
            "SELECT id, origin, channel, payload FROM events WHERE id > ? ORDER BY id", (self._last_event,)
        ).fetchall()
        if rows:
            self._last_event = rows[-1][0]
        return [(channel, json.loads(payload)) for _, origin, channel, payload in rows if origin != self._origin]

    # -- shared documents -------------------------------------------------------------------------------

    async def put_shared(self, name: str, value: Any, *, expected: int | None = None) -> int | None:
        text = json.dumps(value)

        def work(db: sqlite3.Connection) -> int | None:
            with _transaction(db):  # BEGIN IMMEDIATE: no other writer between the check and the write
                if expected is not None:
                    row = db.execute("SELECT rev FROM shared WHERE name = ?", (name,)).fetchone()
                    if (int(row[0]) if row is not None else 0) != expected:
                        return None
                db.execute(
                    "INSERT INTO shared (name, value, rev) VALUES (?, ?, 1) "
                    "ON CONFLICT (name) DO UPDATE SET value = excluded.value, rev = shared.rev + 1",
                    (name, text),
                )
                (revision,) = db.execute("SELECT rev FROM shared WHERE name = ?", (name,)).fetchone()
            return int(revision)

        return await self._run(work)

    async def get_shared(self, name: str) -> tuple[Any, int] | None:
        def work(db: sqlite3.Connection) -> tuple[Any, int] | None:
            row = db.execute("SELECT value, rev FROM shared WHERE name = ?", (name,)).fetchone()
            return None if row is None else (json.loads(row[0]), int(row[1]))

        return await self._run(work)

    async def close(self) -> None:
        self._stop_polling()
        with contextlib.suppress(RuntimeError):  # closed already
            await self._run(lambda db: db.close())
        self._executor.shutdown(wait=False)


def _connect(path: str, busy_timeout: float) -> sqlite3.Connection:
    # isolation_level=None: no implicit transactions; each change opens its own BEGIN IMMEDIATE.
    db = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    # With WAL, NORMAL loses no committed transaction when the process dies (a kill -9, a crash); only a power
    # loss may take the last ones back.
    db.execute("PRAGMA synchronous=NORMAL")
    with _transaction(db):
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                db.execute(statement)
    return db


@contextlib.contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _read(db: sqlite3.Connection, task_id: str, now: float) -> TaskRecord | None:
    row = db.execute("SELECT doc FROM tasks WHERE task_id = ?", (task_id,)).fetchone()
    if row is None:
        return None
    record = TaskRecord.from_json(row[0])
    return None if record.expired(now) else record


def _insert(db: sqlite3.Connection, record: TaskRecord) -> None:
    db.execute(
        "INSERT INTO tasks (task_id, doc, runnable, queued_at, lease_until, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
        (
            record.task_id,
            record.to_json(),
            int(record.runnable),
            record.created_at if record.runnable else None,
            record.lease_until,
            record.expires_at,
        ),
    )


def _write(db: sqlite3.Connection, record: TaskRecord, before: TaskRecord, now: float) -> None:
    # A task keeps its place in the queue while it stays runnable; one that becomes runnable joins at the end.
    queued_at = None
    if record.runnable:
        queued_at = now if not before.runnable else None
    db.execute(
        "UPDATE tasks SET doc = ?, runnable = ?, queued_at = COALESCE(?, CASE WHEN ? THEN queued_at END), "
        "lease_until = ? WHERE task_id = ?",
        (record.to_json(), int(record.runnable), queued_at, int(record.runnable), record.lease_until, record.task_id),
    )


def _last_event_id(db: sqlite3.Connection) -> int:
    (found,) = db.execute("SELECT COALESCE(MAX(id), 0) FROM events").fetchone()
    return int(found)


def _data_version(db: sqlite3.Connection) -> int:
    (version,) = db.execute("PRAGMA data_version").fetchone()
    return int(version)
