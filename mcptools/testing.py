"""A client for tests: ``Client(registry)`` drives a registry in memory, over the same engine and call pipeline
the stdio and HTTP transports use, with no subprocess, pipe or socket.

    async with Client(registry, elicitation=lambda params: {"action": "accept", "content": {"ok": True}}) as c:
        result = await c.call_tool("book", {"day": "monday"})
        assert result.text == "booked" and result.progress[-1]["progress"] == 1.0

It speaks either protocol generation (``protocol="2025-11-25"`` and the other 2025 revisions through an
``initialize`` session; ``"2026-07-28"`` statelessly, answering ``input_required`` rounds itself). Questions a
tool asks through its ``Context`` are answered by the callbacks given (``elicitation``, ``sampling``, ``roots``);
a client given none does not declare the capability, exactly like a real one. Progress and log messages are
collected per call (``result.progress``, ``result.logs``) and for the whole client (``client.notifications``).
``SyncClient`` is the same for synchronous tests.

Tools that run as tasks (``@registry.tool(task=...)``) are tested from the client's side too:

    async with Client(registry, protocol="2026-07-28", elicitation=answer) as c:
        task = await c.call_tool_as_task("build", {"target": "docs"})   # the handle: task.task_id, task.status
        done = await c.wait_for_task(task.task_id)   # polls, answering the task's questions with the callbacks
        assert done.status == "completed" and done.result is not None and done.result.text == "built"

``get_task``, ``update_task`` (2026-07-28) and ``cancel_task`` are the protocol's requests one by one. The client
declares the Tasks extension on these calls only (over 2025-11-25 it sends ``params.task``), so ``call_tool`` on
the same tool runs it directly, or is refused when the tool runs only as a task.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final, Literal, TypeAlias, TypeVar, final

from typing_extensions import NotRequired, Self, TypedDict, Unpack

from ._errors import ProtocolError, UsageError
from ._jsonrpc import INTERNAL_ERROR, METHOD_NOT_FOUND
from ._protocol.revisions import LATEST
from ._transports.memory import MemoryConnection

if TYPE_CHECKING:
    from ._context import LogLevel
    from ._registry import ToolRegistry

__all__ = [
    "CallResult",
    "Client",
    "ClientOptions",
    "ElicitationHandler",
    "Protocol",
    "SamplingHandler",
    "SyncClient",
    "Task",
]

_T = TypeVar("_T")

Protocol = Literal["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]
# A callback gets the request's params and returns the result object; sync or async, as the test prefers.
# What an elicitation callback returns is an ``ElicitResult``: {"action": "accept", "content": {...}}, or a
# decline or cancel; a sampling callback returns a ``CreateMessageResult`` (role, content, model).
ElicitationHandler: TypeAlias = Callable[[dict[str, Any]], Mapping[str, Any] | Awaitable[Mapping[str, Any]]]
SamplingHandler: TypeAlias = Callable[[dict[str, Any]], Mapping[str, Any] | Awaitable[Mapping[str, Any]]]
RootsHandler: TypeAlias = Callable[[], Sequence[Mapping[str, Any]] | Awaitable[Sequence[Mapping[str, Any]]]]

_CLIENT_INFO: Final = {"name": "mcptools-testing", "version": "0"}
_TASKS: Final[dict[str, Any]] = {"io.modelcontextprotocol/tasks": {}}
_TERMINAL: Final = frozenset({"completed", "failed", "cancelled"})
# How often wait_for_task polls: a test waits no longer than it must, whatever interval the server suggests.
_POLL_SECONDS: Final = 0.02
_TOOLS_CHANGED: Final = "notifications/tools/list_changed"
_FORM_ONLY: Final = frozenset({"2025-06-18", "2025-03-26"})


class ClientOptions(TypedDict):
    """What a ``Client`` (and a ``SyncClient``) is made with, besides the registry, in one place.

    ``protocol`` (default ``"2025-11-25"``); ``elicitation``, ``sampling`` and ``roots``, the callbacks that answer
    the server's questions (each declares its capability); ``log_level``, asked of the server; ``max_rounds``
    (default 10), the ``input_required`` rounds a 2026-07-28 call may take.
    """

    protocol: NotRequired[Protocol]
    elicitation: NotRequired[ElicitationHandler | None]
    sampling: NotRequired[SamplingHandler | None]
    roots: NotRequired[Sequence[Mapping[str, Any]] | RootsHandler | None]
    log_level: NotRequired[LogLevel | None]
    max_rounds: NotRequired[int]


@final
@dataclass(slots=True)
class CallResult:
    """A ``tools/call`` result, with what the server sent about this call while it ran."""

    content: list[dict[str, Any]]
    structured_content: dict[str, Any] | None
    is_error: bool
    raw: dict[str, Any]
    progress: list[dict[str, Any]] = field(default_factory=list)
    logs: list[dict[str, Any]] = field(default_factory=list)
    rounds: int = 1

    @property
    def text(self) -> str:
        """The text blocks of ``content``, joined by newlines (most tools return one)."""
        return "\n".join(block["text"] for block in self.content if block.get("type") == "text")

    @property
    def data(self) -> Any:
        """The structured result when there is one (unwrapped from ``{"result": ...}`` for non-object returns),
        else ``text``."""
        structured = self.structured_content
        if structured is None:
            return self.text
        if set(structured) == {"result"}:
            return structured["result"]
        return structured


@final
@dataclass(slots=True)
class Task:
    """A task as the server last described it: its handle (``call_tool_as_task``) or ``tasks/get``'s answer.

    ``status`` is ``working``, ``input_required``, ``completed``, ``failed`` or ``cancelled``; a completed task
    has its tool's ``result``, a failed one its JSON-RPC ``error`` (``code``, ``message``), one waiting for
    answers its ``input_requests`` (by key: ``method`` and ``params``; answer them with ``update_task``).
    """

    task_id: str
    status: str
    status_message: str | None
    raw: dict[str, Any]
    input_requests: dict[str, dict[str, Any]] = field(default_factory=dict)
    result: CallResult | None = None
    error: dict[str, Any] | None = None

    @property
    def done(self) -> bool:
        """Whether the task has ended (completed, failed or cancelled)."""
        return self.status in _TERMINAL

    @classmethod
    def _of(cls, raw: dict[str, Any]) -> Task:
        task = raw.get("task") if isinstance(raw.get("task"), dict) else raw  # 2025-11-25 wraps the handle
        assert isinstance(task, dict)
        result = task.get("result")
        error = task.get("error")
        return cls(
            task_id=str(task.get("taskId")),
            status=str(task.get("status")),
            status_message=task.get("statusMessage"),
            raw=raw,
            input_requests=dict(task.get("inputRequests") or {}),
            result=_call_result(result) if isinstance(result, dict) else None,
            error=dict(error) if isinstance(error, dict) else None,
        )


@final
class Client:
    """An in-memory MCP client for ``registry``: ``async with Client(registry) as client: ...``."""

    __slots__ = (
        "_opened",
        "_rounds",
        "_running",
        "_wire",
        "elicitation",
        "log_level",
        "protocol",
        "registry",
        "roots",
        "sampling",
    )

    def __init__(self, registry: ToolRegistry, **options: Unpack[ClientOptions]) -> None:
        self.registry = registry
        self.protocol: Protocol = options.get("protocol", "2025-11-25")
        self.elicitation = options.get("elicitation")
        self.sampling = options.get("sampling")
        self.roots = options.get("roots")
        self.log_level = options.get("log_level")
        self._rounds = options.get("max_rounds", 10)
        # The in-memory transport: builds the messages of either revision, answers the server's questions.
        self._wire = MemoryConnection(registry, on_request=self._answer, client_info=_CLIENT_INFO)
        self._opened = False
        # The registry's lifespan, entered for as long as this client is open (as a server would).
        self._running: AbstractAsyncContextManager[Any] | None = None

    # -- lifecycle ----------------------------------------------------------------------------------------

    @property
    def capabilities(self) -> dict[str, Any]:
        """What this client declares: one capability per callback it was given."""
        declared: dict[str, Any] = {}
        if self.elicitation is not None:
            # URL mode came with 2025-11-25: an older client knows only forms (declared as an empty object).
            declared["elicitation"] = {} if self.protocol in _FORM_ONLY else {"form": {}, "url": {}}
        if self.sampling is not None:
            declared["sampling"] = {}
        if self.roots is not None:
            declared["roots"] = {}
        return declared

    @property
    def stateless(self) -> bool:
        return self.protocol == LATEST

    async def __aenter__(self) -> Self:
        running = self.registry.running()
        await running.__aenter__()
        self._running = running
        try:
            await self._open()
        except BaseException as exc:
            await self.__aexit__(type(exc), exc, exc.__traceback__)
            raise
        return self

    async def _open(self) -> None:
        self._opened = True
        wire = self._wire
        wire.capabilities = self.capabilities
        wire.open()
        if not self.stateless:
            result = _unwrap("initialize", await wire.initialize(self.protocol))
            if result.get("protocolVersion") != self.protocol:
                raise ProtocolError(INTERNAL_ERROR, f"the server settled on {result.get('protocolVersion')!r}")
            if self.log_level is not None:
                await self._request("logging/setLevel", {"level": self.log_level})

    @property
    def notifications(self) -> list[dict[str, Any]]:
        """Every notification the server sent this client (progress, logs, tools/list_changed), in order."""
        return self._wire.notifications

    async def __aexit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if self._opened:
            self._opened = False
            await self._wire.close()
        running, self._running = self._running, None
        if running is not None:
            await running.__aexit__(kind, value, traceback)

    # -- requests -----------------------------------------------------------------------------------------

    async def list_tools(self) -> list[dict[str, Any]]:
        """Every tool the server lists for this client, following ``nextCursor`` across pages."""
        tools: list[dict[str, Any]] = []
        params: dict[str, Any] = {}
        while True:
            result = await self._request("tools/list", params)
            tools.extend(result.get("tools", []))
            cursor = result.get("nextCursor")
            if cursor is None:
                return tools
            params = {"cursor": cursor}

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None) -> CallResult:
        """Call a tool and return its result; a JSON-RPC error (unknown tool, missing capability) raises
        ``ProtocolError``. Over 2026-07-28, ``input_required`` rounds are answered by the callbacks and the
        call retried until it completes."""
        seen: list[dict[str, Any]] = []
        token = f"progress-{self._wire.next_id()}"
        params: dict[str, Any] = {"name": name, "arguments": dict(arguments or {}), "_meta": {"progressToken": token}}
        result, rounds = await self._call(name, params, seen, tasks=False)
        called = _call_result(result)
        called.progress = [m["params"] for m in seen if m["method"] == "notifications/progress"]
        called.logs = [m["params"] for m in seen if m["method"] == "notifications/message"]
        called.rounds = rounds
        return called

    async def _call(
        self, name: str, params: dict[str, Any], seen: list[dict[str, Any]], *, tasks: bool
    ) -> tuple[dict[str, Any], int]:
        """A ``tools/call`` to its final answer (a result, or a task's handle) and the rounds it took."""
        rounds = 1
        while True:
            result: dict[str, Any] = await self._request("tools/call", params, seen, tasks=tasks)
            if result.get("resultType") != "input_required":
                return result, rounds
            if rounds >= self._rounds:
                raise ProtocolError(INTERNAL_ERROR, f"tool {name!r} still wanted input after {rounds} rounds")
            rounds += 1
            requests = result.get("inputRequests") or {}
            responses = {key: await self._answer(ask["method"], ask.get("params", {})) for key, ask in requests.items()}
            params = {**params, "inputResponses": responses, "requestState": result.get("requestState")}

    # -- tasks --------------------------------------------------------------------------------------------

    async def call_tool_as_task(self, name: str, arguments: Mapping[str, Any] | None = None) -> Task:
        """Call a tool asking for a task (the Tasks extension declared over 2026-07-28, ``params.task`` over
        2025-11-25) and return the task's handle, answering the questions a tool asks before it becomes a task
        (``ctx.continue_as_task()``) with the callbacks; ``UsageError`` when the server answered at once
        instead (a tool without ``task=``, or arguments refused)."""
        params: dict[str, Any] = {"name": name, "arguments": dict(arguments or {})}
        if not self.stateless:
            params["task"] = {}
        result, _ = await self._call(name, params, [], tasks=True)
        if result.get("resultType") != "task" and "task" not in result:
            # A tool without task=, or arguments refused before any task was made: the answer says which.
            raise UsageError(f"tool {name!r} answered at once, without a task: {_call_result(result).text!r}")
        return Task._of(result)

    async def get_task(self, task_id: str) -> Task:
        """``tasks/get``: the task as it is now (-32602 as ``ProtocolError`` for an unknown one)."""
        return Task._of(await self._request("tasks/get", {"taskId": task_id}, tasks=True))

    async def update_task(self, task_id: str, responses: Mapping[str, Mapping[str, Any]]) -> None:
        """``tasks/update`` (2026-07-28): answers to the task's ``input_requests``, by key."""
        if not self.stateless:
            raise UsageError("tasks/update is a 2026-07-28 request; over 2025-11-25 wait_for_task answers questions")
        answers = {key: dict(value) for key, value in responses.items()}
        await self._request("tasks/update", {"taskId": task_id, "inputResponses": answers}, tasks=True)

    async def cancel_task(self, task_id: str) -> None:
        """``tasks/cancel``: the task ends ``cancelled`` unless it had ended already."""
        await self._request("tasks/cancel", {"taskId": task_id}, tasks=True)

    async def wait_for_task(self, task_id: str, *, timeout: float | None = 10.0) -> Task:
        """Poll the task until it ends and return it, answering its questions with the callbacks on the way
        (2025-11-25: ``tasks/result``, whose stream carries them); ``TimeoutError`` after ``timeout`` seconds
        (``None``: wait as long as it takes)."""
        if not self.stateless:
            outcome: dict[str, Any] | None = None
            failure: dict[str, Any] | None = None
            try:
                outcome = await asyncio.wait_for(
                    self._request("tasks/result", {"taskId": task_id}, tasks=True), timeout
                )
            except ProtocolError as problem:  # a failed task's JSON-RPC error, as tasks/result answers it
                failure = {"code": problem.code, "message": problem.message}
            task = await self.get_task(task_id)
            task.result = _call_result(outcome) if outcome is not None else None
            task.error = failure if task.status == "failed" and outcome is None else None
            return task

        async def poll() -> Task:
            while True:
                task = await self.get_task(task_id)
                if task.done:
                    return task
                if task.status == "input_required":
                    answers = {
                        key: await self._answer(str(ask.get("method")), dict(ask.get("params") or {}))
                        for key, ask in task.input_requests.items()
                    }
                    await self.update_task(task_id, answers)
                    continue
                await asyncio.sleep(_POLL_SECONDS)

        return await asyncio.wait_for(poll(), timeout)

    async def ping(self) -> None:
        await self._request("ping", {})

    @property
    def tool_list_changes(self) -> int:
        """How many ``notifications/tools/list_changed`` this client has received (2025 sessions)."""
        return sum(1 for message in self.notifications if message["method"] == _TOOLS_CHANGED)

    async def _request(
        self, method: str, params: dict[str, Any], seen: list[dict[str, Any]] | None = None, *, tasks: bool = False
    ) -> Any:
        if not self._opened:
            raise UsageError("use the client inside 'async with Client(registry) as client:'")
        wire = self._wire
        if self.stateless:
            capabilities = self.capabilities
            if tasks:
                capabilities["extensions"] = dict(_TASKS)
            response = await wire.stateless(
                method, params, capabilities=capabilities, log_level=self.log_level, sink=seen
            )
        else:
            response = await wire.request(method, params, sink=seen)
        return _unwrap(method, response)

    # -- the server's side of the conversation ------------------------------------------------------------

    async def _answer(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Answer one server-to-client request with the matching callback."""
        if method == "elicitation/create" and self.elicitation is not None:
            return dict(await _maybe_await(self.elicitation(params)))
        if method == "sampling/createMessage" and self.sampling is not None:
            return dict(await _maybe_await(self.sampling(params)))
        if method == "roots/list" and self.roots is not None:
            roots = self.roots
            listed = await _maybe_await(roots()) if callable(roots) else roots
            return {"roots": [dict(root) for root in listed]}
        if method == "ping":
            return {}
        raise ProtocolError(METHOD_NOT_FOUND, f"Method not found: {method} (give the Client a callback for it)")


def _call_result(result: dict[str, Any]) -> CallResult:
    structured = result.get("structuredContent")
    return CallResult(
        content=list(result.get("content", [])),
        structured_content=structured if isinstance(structured, dict) else None,
        is_error=result.get("isError") is True,
        raw=result,
    )


def _unwrap(method: str, response: dict[str, Any] | None) -> Any:
    """A response's result; its error as ``ProtocolError``."""
    if response is None:
        raise ProtocolError(INTERNAL_ERROR, f"{method}: the server sent no response (was the call cancelled?)")
    error = response.get("error")
    if error is not None:
        raise ProtocolError(error.get("code", INTERNAL_ERROR), error.get("message", ""), error.get("data"))
    return response["result"]


async def _maybe_await(value: _T | Awaitable[_T]) -> _T:
    if inspect.isawaitable(value):
        return await value
    return value


@final
class SyncClient:
    """``Client`` for synchronous tests: ``with SyncClient(registry) as client: client.call_tool(...)``.

    The async client runs on an event loop in a thread of its own, so this works inside a test that already
    runs a loop too; callbacks run on that thread.
    """

    __slots__ = ("_loop", "_thread", "client")

    def __init__(self, registry: ToolRegistry, **options: Unpack[ClientOptions]) -> None:
        self.client = Client(registry, **options)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def _run(self, coroutine: Coroutine[Any, Any, _T]) -> _T:
        if self._loop is None:
            coroutine.close()
            raise UsageError("use the client inside 'with SyncClient(registry) as client:'")
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def __enter__(self) -> Self:
        loop = self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=loop.run_forever, name="mcptools-testing", daemon=True)
        self._thread.start()
        try:
            self._run(self.client.__aenter__())
        except BaseException:
            self._stop()  # a lifespan that failed to start: no thread or loop is left behind
            raise
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if self._loop is None:
            return
        try:
            self._run(self.client.__aexit__(kind, value, traceback))
        finally:
            self._stop()

    def _stop(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()
        self._loop = self._thread = None

    def list_tools(self) -> list[dict[str, Any]]:
        """The tools a client sees (``tools/list``, every page), as the wire's dicts."""
        return self._run(self.client.list_tools())

    def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None) -> CallResult:
        """Call ``name`` as a client does (``tools/call``): the result, an error result for bad arguments or a
        failing tool, as the model would read it (``.text``, ``.is_error``, ``.data``, ``.structured_content``)."""
        return self._run(self.client.call_tool(name, arguments))

    def ping(self) -> None:
        """``ping``: raises ``ProtocolError`` if the server does not answer it."""
        self._run(self.client.ping())

    def call_tool_as_task(self, name: str, arguments: Mapping[str, Any] | None = None) -> Task:
        return self._run(self.client.call_tool_as_task(name, arguments))

    def get_task(self, task_id: str) -> Task:
        return self._run(self.client.get_task(task_id))

    def update_task(self, task_id: str, responses: Mapping[str, Mapping[str, Any]]) -> None:
        self._run(self.client.update_task(task_id, responses))

    def cancel_task(self, task_id: str) -> None:
        self._run(self.client.cancel_task(task_id))

    def wait_for_task(self, task_id: str, *, timeout: float | None = 10.0) -> Task:
        return self._run(self.client.wait_for_task(task_id, timeout=timeout))

    @property
    def notifications(self) -> list[dict[str, Any]]:
        """Every notification the server sent (progress, logs, list changes), in order."""
        return self.client.notifications

    @property
    def tool_list_changes(self) -> int:
        """How many ``notifications/tools/list_changed`` arrived."""
        return self.client.tool_list_changes
