"""``open_store(url)``: the task store a URL names, importing only that store's module (and the Redis client only
for a Redis URL)."""

from __future__ import annotations

from .store import TaskStore, TaskStoreError

__all__ = ["open_store"]


def open_store(url: str) -> TaskStore:
    """The store a URL names: ``memory://``, ``sqlite:///absolute/path.db`` (or ``sqlite://relative.db``),
    ``redis://``, ``rediss://`` or ``unix://`` (Redis, with the ``redis`` extra installed)."""
    scheme, separator, rest = url.partition("://")
    if not separator:
        raise TaskStoreError(f"task store URL {url!r} names no scheme; use memory://, sqlite:///path or redis://host")
    if scheme == "memory":
        from .memory_store import MemoryTaskStore

        return MemoryTaskStore()
    if scheme == "sqlite":
        if not rest:
            raise TaskStoreError(f"task store URL {url!r} names no file; use sqlite:///path/to/tasks.db")
        from .sqlite_store import SqliteTaskStore

        return SqliteTaskStore(rest)
    if scheme in ("redis", "rediss", "unix"):
        from .redis_store import RedisTaskStore

        return RedisTaskStore.from_url(url)
    raise TaskStoreError(f"task store URL {url!r}: unknown scheme {scheme!r}; use memory://, sqlite:// or redis://")
