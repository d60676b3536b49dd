"""Running async work from sync code, and sync work from async code, without blocking what must not block.

``run_on_loop`` runs a coroutine to its end from synchronous code (``registry.handle`` serving an async tool, a
tool taking a ``Context``, or middleware). Each thread keeps one event loop for this and reuses it: making and
closing a loop per call costs about ten times what running a coroutine on a kept one does. Inside a thread whose
own loop is running, that loop cannot be blocked on itself, so the coroutine gets a loop in a short-lived thread.

``in_worker`` runs a sync tool from async code on a small pool of worker threads, so a blocking tool never stalls
the loop serving other requests. It hands the call over with one queue put and the answer back with one
``call_soon_threadsafe``: ``asyncio.to_thread`` goes through ``concurrent.futures`` and chains two futures, which
cost a stdio round trip about a quarter of its time. The workers are daemon threads, like ``in_daemon_thread``'s
(which runs a sync tool that has a time limit in a thread of its own): a tool that never returns holds neither
its call past its limit nor the process's exit.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import weakref
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Final, TypeVar

if TYPE_CHECKING:
    import asyncio

__all__ = ["in_daemon_thread", "in_worker", "run_on_loop"]

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


# At most this many workers (as concurrent.futures' default); a call that finds all of them busy waits its turn.
_MAX_WORKERS: Final = min(32, (os.cpu_count() or 1) + 4)


class _Pool:
    """Worker threads taking jobs from one queue; a new one starts when a job finds none idle."""

    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
        self.lock = threading.Lock()
        self.idle = 0
        self.size = 0

    def submit(self, job: tuple[Any, ...]) -> None:
        with self.lock:
            start = self.idle == 0 and self.size < _MAX_WORKERS
            if start:
                self.size += 1
            else:
                self.idle -= 1  # this job takes an idle worker (or waits for the first to become free)
        self.jobs.put(job)
        if start:
            threading.Thread(target=self._work, name="mcptools-worker", daemon=True).start()

    def _work(self) -> None:
        jobs = self.jobs
        while True:
            loop, future, context, fn, kwargs = jobs.get()
            try:
                outcome = (True, context.run(fn, **kwargs))
            except BaseException as exc:  # handed to the loop, where the pipeline makes it a result
                outcome = (False, exc)
            with contextlib.suppress(RuntimeError):  # the loop has closed: the server stopped while this tool ran
                loop.call_soon_threadsafe(_settle, future, *outcome)
            del loop, future, context, fn, kwargs, outcome  # hold nothing of a finished call while idle
            with self.lock:
                self.idle += 1


_POOL = _Pool()


def _settle(future: asyncio.Future[Any], ok: bool, value: Any) -> None:
    if future.done():
        return  # cancelled meanwhile: nobody waits for this outcome
    if ok:
        future.set_result(value)
    else:
        future.set_exception(value)


def in_worker(fn: Callable[..., Any], kwargs: dict[str, Any]) -> asyncio.Future[Any]:
    """``fn(**kwargs)`` on a worker thread, with the caller's context variables; its outcome arrives on the
    returned future of the running loop (cancelling the future abandons the call, which runs on to its end)."""
    import asyncio
    import contextvars

    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    _POOL.submit((loop, future, contextvars.copy_context(), fn, kwargs))
    return future
