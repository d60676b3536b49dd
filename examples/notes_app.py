"""A small notes server: what a real server needs around its tools, in one app.

- **Lifespan state**: a SQLite store opened once when the server starts and closed when it stops (every worker
  opens its own); tools reach it typed, as ``ctx.state``. Settings come from this file's own command line.
- **Middleware**: ``Timing`` (per-tool call statistics, which the ``call_stats`` tool reports) and ``RateLimit``
  (each client gets at most 60 calls a minute; past that the model reads when to retry).
- **Tags**: the ``admin`` tools (``purge``) are hidden unless the server starts with ``--admin``.
- **Composition**: the export tools live in their own registry and are served here as ``export_<name>``.

    python examples/notes_app.py                                   # stdio (registry.run())
    python examples/notes_app.py --db notes.sqlite3 --admin        # a file that outlives the server
    mcptools serve examples/notes_app.py --http -- --db notes.sqlite3
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

from typing_extensions import TypedDict

from mcptools import Context, ToolError, ToolRegistry
from mcptools.middleware import RateLimit, Timing


class Note(TypedDict):
    id: int
    title: str
    body: str


class Store:
    """The notes, in SQLite. Sync tools run in worker threads, so one connection is shared under a lock."""

    __slots__ = ("_db", "_lock")

    def __init__(self, path: str) -> None:
        self._db = sqlite3.connect(path, check_same_thread=False)
        self._db.execute("CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, title TEXT, body TEXT)")
        self._lock = threading.Lock()

    @contextmanager
    def _cursor(self) -> Iterator[sqlite3.Cursor]:
        with self._lock, self._db:  # the connection as a context commits, or rolls back on error
            yield self._db.cursor()

    def add(self, title: str, body: str) -> Note:
        with self._cursor() as cursor:
            cursor.execute("INSERT INTO notes (title, body) VALUES (?, ?)", (title, body))
            assert cursor.lastrowid is not None
            return {"id": cursor.lastrowid, "title": title, "body": body}

    def find(self, text: str) -> list[Note]:
        pattern = f"%{text}%"
        with self._cursor() as cursor:
            rows = cursor.execute(
                "SELECT id, title, body FROM notes WHERE title LIKE ? OR body LIKE ? ORDER BY id", (pattern, pattern)
            ).fetchall()
        return [{"id": row[0], "title": row[1], "body": row[2]} for row in rows]

    def get(self, note_id: int) -> Note:
        with self._cursor() as cursor:
            row = cursor.execute("SELECT id, title, body FROM notes WHERE id = ?", (note_id,)).fetchone()
        if row is None:
            raise ToolError(f"No note with id {note_id}; search_notes lists the ids")
        return {"id": row[0], "title": row[1], "body": row[2]}

    def purge(self) -> int:
        with self._cursor() as cursor:
            return cursor.execute("DELETE FROM notes").rowcount

    def close(self) -> None:
        self._db.close()


def _settings(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="notes_app", description="An MCP server keeping notes.")
    parser.add_argument("--db", default=":memory:", help="SQLite file (default: in memory, gone at exit)")
    parser.add_argument("--admin", action="store_true", help="serve the admin tools (purge)")
    known, _ = parser.parse_known_args(argv)
    return known


@asynccontextmanager
async def lifespan(registry: ToolRegistry) -> AsyncIterator[Store]:
    settings = _settings(sys.argv[1:])
    if settings.admin:
        registry.enable(tags={"admin"})
    store = Store(settings.db)
    try:
        yield store
    finally:
        store.close()  # on every way the server stops


timing = Timing()
registry = ToolRegistry(
    "notes",
    instructions="Keeps short notes: add, search, read, and export them as Markdown.",
    lifespan=lifespan,
    middleware=[timing, RateLimit(60, per=60.0)],
)


@registry.tool
def add_note(ctx: Context[Store], title: str, body: str = "") -> Note:
    """Save a note.

    Args:
        title: A short title.
        body: The note's text.
    """
    return ctx.state.add(title, body)


@registry.tool(annotations={"readOnlyHint": True})
def search_notes(ctx: Context[Store], text: str = "") -> list[Note]:
    """The notes whose title or body contains `text` (every note when it is empty)."""
    return ctx.state.find(text)


@registry.tool(annotations={"readOnlyHint": True})
def read_note(ctx: Context[Store], note_id: int) -> Note:
    """One note by its id."""
    return ctx.state.get(note_id)


@registry.tool(annotations={"readOnlyHint": True})
def call_stats() -> dict[str, Any]:
    """How many calls each tool has served in this process, and how long they took (from the Timing middleware)."""
    return {
        name: {"calls": entry.calls, "errors": entry.errors, "mean_ms": round(entry.mean_seconds * 1000, 3)}
        for name, entry in sorted(timing.stats.items())
    }


@registry.tool(tags={"admin"}, annotations={"destructiveHint": True})
def purge(ctx: Context[Store]) -> str:
    """Delete every note (an admin tool: served only with --admin)."""
    return f"deleted {ctx.state.purge()} note(s)"


# Hidden until the lifespan enables them (--admin): tools/list leaves them out, and a call is "Unknown tool".
registry.disable(tags={"admin"})


# The export tools are another module's registry in a real project; included, they are served as export_<name>
# and reach this server's lifespan state like its own tools.
exports = ToolRegistry("notes-export")


@exports.tool(annotations={"readOnlyHint": True})
def markdown(ctx: Context[Store], text: str = "") -> str:
    """The matching notes (every note when `text` is empty) as one Markdown document."""
    notes = ctx.state.find(text)
    return "\n\n".join(f"## {note['title']}\n\n{note['body']}" for note in notes) or "(no notes)"


registry.include(exports, prefix="export_")


if __name__ == "__main__":
    sys.exit(registry.run())
