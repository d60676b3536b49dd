"""Running async work from sync code, and sync work from async code, without blocking what must not block.

``run_on_loop`` runs a coroutine to its end from synchronous code (``registry.handle`` serving an async tool, a
tool taking a ``Context``, or middleware). Each thread keeps one event loop for this and reuses it: making and
closing a loop per call costs about ten times what running a coroutine on a kept one does. Inside a thread whose
own loop is running, that loop cannot be blocked on itself, so the coroutine gets a loop in a short-lived thread.

``in_daemon_thread`` runs a sync tool that has a time limit in a daemon thread of its own: one that runs past
the limit is abandoned, and neither the call nor the process's exit waits for it.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import asyncio

__all__ = ["in_daemon_thread", "run_on_loop"]

_T = TypeVar("_T")


class _Kept(threading.local):
    loop: asyncio.AbstractEventLoop | None = None


_KEPT = _Kept()


def _kept_loop() -> asyncio.AbstractEventLoop:
    import asyncio  # here, not at module top: asyncio costs more to import than the rest of mcptools

    loop = _KEPT.loop
    if loop is None or loop.is_closed():
        loop = _KEPT.loop = asyncio.new_event_loop()
        # Closed when its thread is gone (the thread object is collected), so no loop is left open behind it.
        weakref.finalize(threading.current_thread(), loop.close)
    return loop


def run_on_loop(coroutine: Coroutine[Any, Any, _T]) -> _T:
    """Run ``coroutine`` to completion from synchronous code and return its value (or raise what it raised)."""
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        running = False
    else:
        running = True
    if not running:
        # Outside the except block, so a failing tool's traceback is not chained to "no running event loop".
        return _kept_loop().run_until_complete(coroutine)
    outcome: list[tuple[bool, Any]] = []

    def runner() -> None:
        try:
            outcome.append((True, asyncio.run(coroutine)))
        except BaseException as exc:  # handed back to the caller's thread below
            outcome.append((False, exc))

    # The caller's context variables go along, as they would to a task of this thread's loop.
    import contextvars

    thread = threading.Thread(target=contextvars.copy_context().run, args=(runner,), name="mcptools-async-tool")
    thread.start()
    thread.join()
    ok, value = outcome[0]
    if ok:
        return value  # type: ignore[no-any-return]
    raise value


def in_daemon_thread(fn: Callable[..., Any], kwargs: dict[str, Any]) -> asyncio.Future[Any]:
    """``fn(**kwargs)`` in a new daemon thread; its outcome arrives on the returned future of the running loop."""
    import asyncio

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

    # The caller's context variables go along, as asyncio.to_thread takes them.
    import contextvars

    context = contextvars.copy_context()
    threading.Thread(
        target=context.run, args=(work,), name=f"mcptools-tool-{getattr(fn, '__name__', 'tool')}", daemon=True
    ).start()
    return future
