"""The tool context: what a tool may ask of the client during one call.

A parameter annotated ``Context`` is injected by the SDK and never appears in the input schema. Through it a
tool reports progress, logs to the client, asks the client to elicit input from the user, to sample its model
or to list its roots, and sees whether the call was cancelled.

The same code serves both protocol generations. Over a 2025 session a question is a request sent to the
client, awaited on the open stream. Over 2026-07-28 it ends the round with an ``input_required`` result; the
client retries with the answers and the tool runs again from the top, finding them already there (answers
from earlier rounds travel in the sealed ``requestState``). So a tool should ask before it does anything with
side effects, and ask in the same order each time; a ``key`` names a question explicitly when the order may
vary.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Generic, Literal, final, overload

from typing_extensions import NotRequired, TypedDict, TypeVar

from ._errors import ContinueAsTask, InputRequired, ProtocolError, UsageError
from ._jsonrpc import INTERNAL_ERROR
from ._protocol.revisions import LOG_LEVELS, MISSING_CLIENT_CAPABILITY, level_allows
from ._protocol.session import Send, Session, discard

if TYPE_CHECKING:
    from ._elicit import Elicited
    from ._peer_session import PeerSession
    from .auth import Principal

__all__ = ["Context", "ElicitResult", "InputRequest", "LogLevel"]

# What the registry's lifespan yields, as a tool sees it: ``ctx: Context[AppState]`` makes ``ctx.state`` an
# ``AppState``. The default keeps a bare ``ctx: Context`` valid under mypy --strict (its state is ``Any``).
StateT = TypeVar("StateT", default=Any)
T = TypeVar("T")

LogLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]

# Which client capability each server-to-client method needs.
_CAPABILITY: Final = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}


class InputRequest(TypedDict):
    """One question for the client: a JSON-RPC method and its params (see ``Context.elicitation`` etc.)."""

    method: str
    params: dict[str, Any]


class ElicitResult(TypedDict):
    """The user's answer to an elicitation: ``accept`` with ``content``, or ``decline`` / ``cancel``."""

    action: Literal["accept", "decline", "cancel"]
    content: NotRequired[dict[str, Any]]


@final
class Context(Generic[StateT]):
    """Injected into a tool that asks for it by annotating a parameter with ``Context`` (or ``Context[State]``,
    to read the lifespan's state typed as ``ctx.state``)."""

    __slots__ = (
        "_answers",
        "_asked",
        "_cancelled",
        "_close_stream",
        "_counters",
        "_log_level",
        "_logs_sent",
        "_logs_to_skip",
        "_principal",
        "_progress_high",
        "_progress_token",
        "_send",
        "_session",
        "_state_of",
        "_stateless",
        "_task_mode",
        "client_capabilities",
        "request_id",
    )

    def __init__(
        self,
        request_id: str | int | None = None,
        *,
        session: Session | None = None,
        send: Send | None = None,
        progress_token: str | int | None = None,
        log_level: str | None = None,
        client_capabilities: Mapping[str, Any] | None = None,
        answers: Mapping[str, Any] | None = None,
        stateless: bool = True,
        close_stream: Callable[[], Awaitable[None]] | None = None,
        replay: Mapping[str, Any] | None = None,
        state: Callable[[], Any] | None = None,
        principal: Principal | None = None,
        task_mode: str | None = None,
    ) -> None:
        self.request_id = request_id
        # "offered": this call becomes a task at continue_as_task(); "running": it is a task's run; None: neither.
        self._task_mode = task_mode
        self._principal = principal
        self._state_of = state
        self._session = session
        self._send: Send = send if send is not None else discard
        self._progress_token = progress_token
        self._log_level = log_level
        self.client_capabilities: Mapping[str, Any] = client_capabilities if client_capabilities is not None else {}
        self._answers: dict[str, Any] = dict(answers) if answers is not None else {}
        self._asked: dict[str, Any] = {}
        self._stateless = stateless
        self._cancelled = False
        self._counters: dict[str, int] = {}
        self._close_stream = close_stream
        # Over 2026-07-28 a tool that asks a question runs again from the top once the answer is in, so it
        # reports the same progress and logs again. ``replay`` (sealed in requestState by the round before)
        # says how far the earlier rounds got: progress up to that value and that many log messages already
        # reached the client, and are not sent twice.
        high = replay.get("p") if replay is not None else None
        skip = replay.get("n") if replay is not None else None
        self._progress_high: float | None = high if type(high) in (int, float) else None
        self._logs_to_skip: int = skip if type(skip) is int else 0
        self._logs_sent = 0

    @property
    def state(self) -> StateT:
        """What the registry's lifespan yielded (``ToolRegistry(..., lifespan=...)``); ``None`` without one.

        Raises ``LifespanError`` when the registry has a lifespan that is not running (``registry.handle`` used
        bare; enter ``async with registry.running():``)."""
        if self._state_of is None:
            return None  # type: ignore[return-value]  # a Context made by hand, outside any registry
        return self._state_of()  # type: ignore[no-any-return]

    @property
    def request_context(self) -> _RequestContext[StateT]:
        """The peers' spelling, for code written for them: ``ctx.request_context.lifespan_context`` is
        ``ctx.state``, ``ctx.request_context.request_id`` is ``ctx.request_id``."""
        return _RequestContext(self)

    @property
    def session(self) -> PeerSession:
        """The official SDK's spelling, for code written for it: ``await ctx.session.create_message(...)`` and
        the other ``ServerSession`` methods tools call, each answered by this ``Context``'s own."""
        from ._peer_session import PeerSession

        return PeerSession(self)

    @property
    def principal(self) -> Principal | None:
        """Who is calling: the verified token's principal when the HTTP server checks tokens
        (``mcptools.auth``), else ``None`` (stdio, or HTTP without authorization)."""
        return self._principal

    # -- cancellation -----------------------------------------------------------------------------------

    @property
    def cancelled(self) -> bool:
        """Whether the client cancelled this call; a long-running tool should check it and stop early."""
        return self._cancelled

    def _mark_cancelled(self) -> None:
        self._cancelled = True

    # -- progress and logging ---------------------------------------------------------------------------

    async def report_progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Tell the client how far the call has got; a no-op when the client asked for no progress."""
        if self._progress_token is None:
            return
        if self._stateless:
            # Progress only ever increases; in a rerun, what does not pass the earlier rounds' mark was sent.
            if self._progress_high is not None and progress <= self._progress_high:
                return
            if math.isfinite(progress):  # a NaN or Infinity never reaches the client, so it sets no mark
                self._progress_high = progress
        params: dict[str, Any] = {"progressToken": self._progress_token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        await self._send({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})

    async def log(self, level: LogLevel, data: Any, *, logger: str | None = None) -> None:
        """Send a log message to the client, if its log level lets ``level`` through."""
        if level not in LOG_LEVELS:
            raise UsageError(f"Context.log: unknown level {level!r}; use one of {', '.join(LOG_LEVELS)}")
        threshold = (
            self._session.log_level if self._session is not None and self._session.is_legacy else self._log_level
        )
        if not level_allows(threshold, level):
            return
        if self._stateless:
            self._logs_sent += 1
            if self._logs_sent <= self._logs_to_skip:
                return  # the same message an earlier round of this call already sent
        params: dict[str, Any] = {"level": level, "data": data}
        if logger is not None:
            params["logger"] = logger
        await self._send({"jsonrpc": "2.0", "method": "notifications/message", "params": params})

    async def debug(self, data: Any, *, logger: str | None = None) -> None:
        await self.log("debug", data, logger=logger)

    async def info(self, data: Any, *, logger: str | None = None) -> None:
        await self.log("info", data, logger=logger)

    async def warning(self, data: Any, *, logger: str | None = None) -> None:
        await self.log("warning", data, logger=logger)

    async def error(self, data: Any, *, logger: str | None = None) -> None:
        await self.log("error", data, logger=logger)

    # -- questions for the client -----------------------------------------------------------------------

    @staticmethod
    def elicitation(message: str, requested_schema: Mapping[str, Any]) -> InputRequest:
        """A form to show the user: ``requested_schema`` is a flat object schema of primitive properties."""
        return {
            "method": "elicitation/create",
            "params": {"message": message, "requestedSchema": dict(requested_schema)},
        }

    @staticmethod
    def url_elicitation(message: str, url: str, *, elicitation_id: str | None = None) -> InputRequest:
        """A URL for the user to visit (2025-11-25's URL mode): sensitive input (credentials, payment, OAuth
        consent) happens there, out of the client's sight. ``elicitation_id`` names the flow, so the server can
        match its completion later; a random one is made when none is given."""
        return {
            "method": "elicitation/create",
            "params": {
                "mode": "url",
                "message": message,
                "url": url,
                "elicitationId": elicitation_id if elicitation_id is not None else _random_id(),
            },
        }

    @staticmethod
    def sampling(
        messages: str | Sequence[Mapping[str, Any]],
        *,
        max_tokens: int,
        system_prompt: str | None = None,
        temperature: float | None = None,
    ) -> InputRequest:
        """A completion request for the client's model; a ``str`` is one user message."""
        if isinstance(messages, str):
            wire_messages: list[Any] = [{"role": "user", "content": {"type": "text", "text": messages}}]
        else:
            wire_messages = [dict(m) for m in messages]
        params: dict[str, Any] = {"messages": wire_messages, "maxTokens": max_tokens}
        if system_prompt is not None:
            params["systemPrompt"] = system_prompt
        if temperature is not None:
            params["temperature"] = temperature
        return {"method": "sampling/createMessage", "params": params}

    @staticmethod
    def roots() -> InputRequest:
        """A request for the client's roots (the directories or URIs it shares with servers)."""
        return {"method": "roots/list", "params": {}}

    def _require_capabilities(self, requests: Mapping[str, InputRequest]) -> None:
        capabilities = (
            self._session.client_capabilities
            if self._session is not None and self._session.is_legacy
            else self.client_capabilities
        )
        missing: dict[str, dict[str, Any]] = {}
        for request in requests.values():
            name = _CAPABILITY.get(request["method"])
            if name is None:
                continue
            declared = capabilities.get(name)
            if type(declared) is not dict:
                missing[name] = {"url": {}} if _is_url_mode(request) else {}
            elif _is_url_mode(request) and type(declared.get("url")) is not dict:
                # URL mode is declared on its own (``elicitation: {"url": {}}``); a bare ``{}`` means forms.
                missing[name] = {"url": {}}
        if missing:
            raise ProtocolError(
                MISSING_CLIENT_CAPABILITY,
                "Missing required client capability: "
                + ", ".join(f"{key}.url" if value else key for key, value in sorted(missing.items())),
                {"requiredCapabilities": missing},
            )

    def supports(self, capability: Literal["elicitation", "sampling", "roots"]) -> bool:
        """Whether the client declared ``capability``, so a tool can ask only what the client can answer."""
        capabilities = (
            self._session.client_capabilities
            if self._session is not None and self._session.is_legacy
            else self.client_capabilities
        )
        return type(capabilities.get(capability)) is dict

    async def ask(self, requests: Mapping[str, InputRequest]) -> dict[str, dict[str, Any]]:
        """Ask the client several questions at once; returns the answers by the same keys.

        Over 2026-07-28 every unanswered question goes out in one ``input_required`` result. Raises
        ``ProtocolError`` (-32021) when the client lacks a capability a question needs.
        """
        self._require_capabilities(requests)
        if self._stateless:
            missing = {key: dict(request) for key, request in requests.items() if key not in self._answers}
            if missing:
                raise InputRequired(missing)
            answers = {key: self._answers[key] for key in requests}
            self._asked.update(answers)
            return answers
        if self._session is None:
            raise ProtocolError(INTERNAL_ERROR, "this transport cannot carry requests to the client")
        session = self._session
        import asyncio  # lazily: asyncio is most of mcptools' import time

        results = await asyncio.gather(
            *(session.request(request["method"], request["params"], self._send) for request in requests.values())
        )
        answers = dict(zip(requests, results, strict=True))
        self._asked.update(answers)  # a call that becomes a task takes them along (continue_as_task)
        return answers

    def _key(self, kind: str, key: str | None) -> str:
        if key is not None:
            return key
        count = self._counters.get(kind, 0) + 1
        self._counters[kind] = count
        return f"{kind}_{count}"

    # ``schema`` is the official SDK's name for the form (``ctx.elicit(message=..., schema=Model)``), so its
    # elicitation code runs unchanged; the wire calls it ``requestedSchema``.
    @overload
    async def elicit(self, message: str, schema: Mapping[str, Any], *, key: str | None = None) -> ElicitResult: ...
    @overload
    async def elicit(self, message: str, schema: type[T], *, key: str | None = None) -> Elicited[T]: ...
    async def elicit(
        self, message: str, schema: Mapping[str, Any] | type[Any], *, key: str | None = None
    ) -> ElicitResult | Elicited[Any]:
        """Ask the user to fill in a form: a dict schema, or a TypedDict / dataclass / pydantic model type.

        With a dict schema the answer is an ``ElicitResult``; with a type, an ``Elicited[T]`` whose ``content``
        (also ``data``) is a ``T`` when the user accepted. Either way an accepted answer is checked against the
        form first, and one that does not fit raises ``ElicitationError`` (a ``ToolError``: catch it to ask
        again).
        """
        from ._elicit import Elicited, form_for  # not at the top: _elicit reads types with _schema, which imports us

        form = form_for(schema)
        name = self._key("elicit", key)
        answers = await self.ask({name: self.elicitation(message, form.schema)})
        answer = answers[name]
        action = answer.get("action")
        if action != "accept":
            if isinstance(schema, type):
                return Elicited("decline" if action == "decline" else "cancel", None)
            return answer  # type: ignore[return-value]
        content = form.read(message, answer.get("content", {}))
        if isinstance(schema, type):
            return Elicited("accept", content)
        return {"action": "accept", "content": content}

    async def elicit_url(
        self, message: str, url: str, *, elicitation_id: str | None = None, key: str | None = None
    ) -> Elicited[None]:
        """Send the user to ``url`` (URL-mode elicitation) and wait for their answer: ``.action`` is ``accept``
        when they agreed to go (the outcome arrives out of band, at the server behind the URL), ``decline`` or
        ``cancel`` when they did not; there is no content. Needs the client's ``elicitation.url`` capability
        (-32021 otherwise)."""
        from ._elicit import Elicited  # not at the top: see elicit

        name = self._key("elicit", key)
        answers = await self.ask({name: self.url_elicitation(message, url, elicitation_id=elicitation_id)})
        action = answers[name].get("action")
        # An object like the official SDK's answer (``result.action``), so its URL-mode code runs unchanged.
        return Elicited(action if action in ("accept", "decline") else "cancel", None)

    async def complete_elicitation(self, elicitation_id: str) -> None:
        """Tell a 2025-11-25 client that the URL-mode flow ``elicitation_id`` finished, so it can retry what
        waited on it (``notifications/elicitation/complete``); a no-op over 2026-07-28, which has no such
        notification."""
        if self._stateless:
            return
        await self._send(
            {
                "jsonrpc": "2.0",
                "method": "notifications/elicitation/complete",
                "params": {"elicitationId": elicitation_id},
            }
        )

    async def sample(
        self,
        messages: str | Sequence[Mapping[str, Any]],
        *,
        max_tokens: int,
        system_prompt: str | None = None,
        temperature: float | None = None,
        key: str | None = None,
    ) -> dict[str, Any]:
        """Ask the client's model for a completion; returns the ``CreateMessageResult`` (role, content,
        model)."""
        name = self._key("sample", key)
        request = self.sampling(messages, max_tokens=max_tokens, system_prompt=system_prompt, temperature=temperature)
        answers = await self.ask({name: request})
        return answers[name]

    async def list_roots(self, *, key: str | None = None) -> list[dict[str, Any]]:
        """The client's roots, each ``{"uri": ..., "name": ...}``."""
        name = self._key("roots", key)
        answers = await self.ask({name: self.roots()})
        roots = answers[name].get("roots")
        return list(roots) if isinstance(roots, list) else []

    # -- tasks ------------------------------------------------------------------------------------------

    async def continue_as_task(self) -> None:
        """Go on as a task from here: the client gets the task's handle now, and the rest of the tool runs in a
        worker while the client polls (``@registry.tool(task="optional" | "required")``).

        Everything before this line runs on the call itself: put the questions the tool needs answered first
        (``elicit``, ``ask``) there. The task's run starts the tool from the top again and finds those answers
        already given, so it asks nothing twice, and this line then simply returns. Without a task (the client
        did not ask for one, or the tool has no ``task=`` option) it returns at once and the call goes on as a
        plain call.
        """
        if self._task_mode == "offered":
            raise ContinueAsTask
        if self._task_mode == "unseen":
            _warn_unseen_hand_off()

    # -- streams ----------------------------------------------------------------------------------------

    async def close_stream(self) -> None:
        """Close this call's HTTP event stream now; the client reconnects and the rest arrives on the new one.

        For long calls behind proxies that cut idle connections. A no-op where streams cannot be resumed.
        """
        if self._close_stream is not None:
            await self._close_stream()

    def _replay_state(self) -> dict[str, Any]:
        """What the next round needs to skip what this one sent (see ``replay``)."""
        state: dict[str, Any] = {"n": self._logs_sent}
        if self._progress_high is not None:
            state["p"] = self._progress_high
        return state

    @property
    def answers(self) -> Mapping[str, Any]:
        """Answers gathered so far by ``ask`` in this call, by key."""
        return self._asked


_UNSEEN_WARNED: list[bool] = []


def _warn_unseen_hand_off() -> None:
    """A task's run reached ``continue_as_task()`` in a tool that was not seen calling it (called from a helper
    function rather than the tool's own body): its task began before it ran, so its questions went through the
    task. Said once per process."""
    if _UNSEEN_WARNED:
        return
    _UNSEEN_WARNED.append(True)
    import logging

    logging.getLogger("mcptools").warning(
        "ctx.continue_as_task() was called outside the tool's own body (in a helper function), where mcptools "
        "cannot see it when the tool is registered: the call became a task before the tool ran, so its questions "
        "were asked through the task; call ctx.continue_as_task() in the tool itself to ask them on the call"
    )


def _is_url_mode(request: InputRequest) -> bool:
    return request["method"] == "elicitation/create" and request["params"].get("mode") == "url"


def _random_id() -> str:
    import secrets  # here, not at the top: with hmac and OpenSSL's bindings it is a tenth of mcptools' import

    return secrets.token_urlsafe(16)


# Not a dataclass: a dataclass is built at import, a cost every `import mcptools` would pay for a rare class.
@final
class _RequestContext(Generic[StateT]):
    """``Context.request_context``: what code written for the peers reads there, read from the ``Context``."""

    __slots__ = ("_context",)

    def __init__(self, context: Context[StateT]) -> None:
        self._context = context

    @property
    def lifespan_context(self) -> StateT:
        return self._context.state

    @property
    def request_id(self) -> str | int | None:
        return self._context.request_id
