"""The shutdown deadline of an HTTP app: what is still running when it comes is answered, not dropped.

uvicorn's graceful shutdown (``--timeout-graceful-shutdown``, which ``mcptools serve --timeout-shutdown`` sets)
waits for open responses, then cancels the tasks serving them. Cancelled from outside, a response is cut in the
middle: the client gets a broken stream with no JSON-RPC answer, and uvicorn logs "Exception in ASGI
application" with a ``CancelledError`` traceback. So the app cuts its own work first: ``Cutoff.begin(within)``
(called by ``stopping``) sets a timer a little before the host's deadline; when it fires, every request still
running is cancelled where it waits and answered with a JSON-RPC error ("the server is shutting down"), and its
response ends normally before the host's deadline arrives.

The cut applies to the work an HTTP response waits for (``run``). A 2025 session's calls that nobody is waiting
for are cancelled when the app's lifespan closes its sessions, a moment later.
"""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Final, TypeVar, final

from .._jsonrpc import SERVER_BUSY, RequestId, batch_request_ids, error_response

__all__ = ["SHUTTING_DOWN", "Answered", "Cutoff", "cut_answers", "cut_error", "owed_by"]

T = TypeVar("T")

SHUTTING_DOWN: Final = "Server shutting down: the request did not finish before the server's shutdown deadline"

# How long before the host's deadline the app cuts its work: enough for the answers to be written (at most a
# fifth of the whole grace period, so a short one still leaves the calls most of it).
_MARGIN: Final = 0.5


@final
class Cutoff:
    """The running work of one app, and the timer that cuts it when the app is stopping."""

    __slots__ = ("_running", "_timer", "cut")

    def __init__(self) -> None:
        self._running: set[asyncio.Task[Any]] = set()
        self._timer: asyncio.TimerHandle | None = None
        self.cut = False

    def begin(self, within: float | None) -> None:
        """The host stops in ``within`` seconds (``None``: it waits for responses as long as they take): cut
        what still runs shortly before. Called once per connection by uvicorn; only the first call counts."""
        if within is None or self._timer is not None or self.cut:
            return
        delay = max(within - min(_MARGIN, within / 5), 0.0)
        self._timer = asyncio.get_running_loop().call_later(delay, self._cut)

    def reset(self) -> None:
        """The server has stopped: a later start of the same app (in this process) begins with no deadline."""
        if self._timer is not None:
            self._timer.cancel()
        self._timer = None
        self.cut = False

    def _passed(self) -> bool:
        """Whether the cut has come (a call, not the attribute: it changes while a call awaits)."""
        return self.cut

    def _cut(self) -> None:
        self.cut = True
        for task in list(self._running):
            task.cancel()

    async def run(self, work: Awaitable[T], answer_cut: Callable[[], T]) -> T:
        """Await ``work`` in the current task; if the cut cancels it, return ``answer_cut()`` instead. Any other
        cancellation (the client gone, the host's own deadline) goes on as it came."""
        task = asyncio.current_task()
        assert task is not None
        if self._passed():
            if asyncio.iscoroutine(work):
                work.close()
            return answer_cut()
        self._running.add(task)
        try:
            return await work
        except asyncio.CancelledError:
            if not self._passed():
                raise
            if sys.version_info >= (3, 11):
                task.uncancel()  # handled: the task goes on to write the answer
            return answer_cut()
        finally:
            self._running.discard(task)


def cut_error(request_id: RequestId) -> dict[str, Any]:
    """The answer to a request the shutdown deadline cut: -32000, the server's "unavailable" (HTTP 503 when it
    is the whole response), as when it has no room for a session."""
    return error_response(request_id, SERVER_BUSY, SHUTTING_DOWN)


def cut_answers(
    owed: RequestId | list[RequestId], answered: Iterable[dict[str, Any]] = ()
) -> dict[str, Any] | list[dict[str, Any]]:
    """The answer to a request (``owed``: its id) or a batch (the list of its requests' ids) that the shutdown
    deadline cut. For a batch: the responses among the messages ``answered`` already (its members that finished
    in time), then an error for each request still owed one; a member that finished is never reported as cut."""
    if not isinstance(owed, list):
        return cut_error(owed)
    made = [message for message in answered if "method" not in message and ("result" in message or "error" in message)]
    # Counted, not a set: a batch that reuses an id (a client breaking the rule) still gets an answer per request.
    unmatched = Counter(message.get("id") for message in made)
    errors = []
    for request_id in owed:
        if unmatched[request_id]:
            unmatched[request_id] -= 1
        else:
            errors.append(cut_error(request_id))
    return [*made, *errors]


@final
class Answered:
    """A batch's responses as its members finish (``Engine.handle_batch``'s ``deliver``), for ``cut_answers``."""

    __slots__ = ("responses",)
    streaming: Final = False

    def __init__(self) -> None:
        self.responses: list[dict[str, Any]] = []

    async def send(self, message: dict[str, Any]) -> None:
        self.responses.append(message)

    async def close(self) -> None:
        return None


def owed_by(message: Any) -> RequestId | list[RequestId]:
    """What a request (its id) or a batch (its requests' ids) is owed an answer for."""
    if type(message) is list:
        return batch_request_ids(message)
    return message["id"]  # type: ignore[no-any-return]
