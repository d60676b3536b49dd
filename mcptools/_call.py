"""One request as it travels: the record every stage reads and fills in.

The engine's routing makes a ``Call`` from a decoded request: what it is (id, method, params), which generation
it speaks (``legacy``, the client's capabilities and log level), who sent it (``principal``, the ``session``) and
how anything said before the answer reaches the client (``stream``). For ``tools/call`` the pipeline's stages
(``mcptools._pipeline``) fill in the rest in order: route (the tool), authorize, prepare (arguments, keyword
arguments, earlier rounds' answers, repair notes), invoke and finish (the result).

What a stage needs comes on the Call: never through a context variable the core reads, an environment variable
or a positional flag. A transport says how it serves a request with one ``Mode`` and hands over one ``Stream``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import Enum
from typing import TYPE_CHECKING, Any, Final, Protocol, final

from ._jsonrpc import RequestId
from ._protocol.revisions import META_CLIENT_CAPABILITIES, META_LOG_LEVEL
from ._protocol.session import Session

if TYPE_CHECKING:
    from ._context import Context
    from ._middleware import Middleware
    from ._protocol.state import StateSealer
    from ._tasks.config import TaskConfig
    from ._tasks.store import TaskStore
    from ._tool import Tool
    from .auth import Principal

__all__ = ["NO_STREAM", "Call", "Mode", "ProviderCall", "Stream", "TaskAccess", "TaskLink", "ToolSource"]


class Mode(Enum):
    """How a transport serves requests, the one thing it tells the engine besides the message.

    ``LENIENT``: a request without 2026-07-28 ``_meta`` is served on its 2025 session, or (with none) leniently as
    the current revision (stdio, the in-memory client, ``registry.handle``, a POST carrying ``Mcp-Session-Id``).
    ``STATELESS``: every request must name its revision in ``_meta`` (a POST without a session). ``STATELESS_ONLY``:
    that, on a transport that opens no 2025 sessions at all, so the only version it names is 2026-07-28.
    """

    LENIENT = "lenient"
    STATELESS = "stateless"
    STATELESS_ONLY = "stateless-only"


class Stream(Protocol):
    """The way from the server to the client while one request is answered: the transport's side of it.

    ``streaming`` says whether what is sent before the response reaches the client (progress, logs, questions);
    ``close`` ends the transport's stream early so the client resumes on a new one (HTTP's SSE with
    ``Last-Event-ID``; a no-op where streams cannot be resumed).
    """

    @property
    def streaming(self) -> bool: ...
    async def send(self, message: dict[str, Any]) -> None: ...
    async def close(self) -> None: ...


@final
class _NoStream:
    """The stream of a request answered with its response alone (``registry.handle``, a plain JSON answer)."""

    __slots__ = ()
    streaming: Final = False

    async def send(self, message: dict[str, Any]) -> None:
        return None

    async def close(self) -> None:
        return None


NO_STREAM: Final[Stream] = _NoStream()
_NOTHING: Final[Mapping[str, Any]] = {}


class ToolSource(Protocol):
    """What the engine and the pipeline need of a registry; a protocol, so neither imports the registry."""

    @property
    def name(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def server_info(self) -> dict[str, Any]: ...
    @property
    def instructions(self) -> str | None: ...
    @property
    def mask_error_details(self) -> bool: ...
    @property
    def repair(self) -> frozenset[str]: ...
    def get(self, name: str) -> Tool | None: ...
    @property
    def lookup(self) -> Callable[[str], Tool | None]: ...
    def list_tools(self) -> list[dict[str, Any]]: ...
    @property
    def state(self) -> Any: ...
    @property
    def call_layers(self) -> tuple[Middleware, ...]: ...
    @property
    def request_layers(self) -> tuple[Middleware, ...]: ...
    def on_tools_changed(self, callback: Callable[[], None]) -> None: ...
    @property
    def offers_tasks(self) -> bool: ...
    @property
    def task_service(self) -> TaskAccess: ...


class TaskAccess(Protocol):
    """What the call path and the transports need of a registry's tasks (``mcptools._tasks.service``): whether a
    call may become a task now, the store, the settings, and setting them."""

    @property
    def accepting(self) -> bool: ...
    @property
    def store(self) -> TaskStore | None: ...
    @property
    def config(self) -> TaskConfig: ...
    def configure(self, config: TaskConfig) -> None: ...


class TaskLink(Protocol):
    """What ties a call to a task (``Call.task``): ``mode`` is ``"offered"`` on a request that becomes a task
    where its tool calls ``ctx.continue_as_task()``, ``"running"`` on a worker's run of a task."""

    @property
    def mode(self) -> str: ...


# Not a dataclass: a dataclass is built at import, a cost every `import mcptools` would pay for a rare class.
@final
class ProviderCall:
    """How a provider's ``run`` (``mcptools.providers``) hands a call in: its arguments are in the original
    schema's form already (the provider's own export mapped them back, so a registry's ``profile=`` is not
    applied a second time), and ``repairs`` are the ones its ``run(..., repair=...)`` chose (``None``: the
    registry's ``repair=``). ``paths``, where the provider's export renames properties, writes a refusal's error
    paths in the names the model sent (the validator's are the original schema's)."""

    __slots__ = ("paths", "repairs")

    def __init__(self, repairs: frozenset[str] | None, paths: Callable[[list[str]], list[str]] | None = None) -> None:
        self.repairs = repairs
        self.paths = paths


# Not a dataclass, without __slots__ and without __init__: a Call is made for every request, so the engine's
# routing (its only maker) sets the eight fields above ``mode`` on a bare ``Call()`` and every other field starts
# as the class's default, read from the class until a stage sets it. A dataclass's __init__ would assign all
# twenty fields on every request; a Python __init__ of any kind makes Python 3.11 enter its interpreter loop a
# second time (about 1,200 of the ~29,000 instructions registry.handle spends on a whole call), which ``Call()``
# with no __init__ does not.
@final
class Call:
    """One request on its way through the engine and, for ``tools/call``, the pipeline's stages."""

    # Set by routing on every Call.
    request_id: RequestId
    method: str
    params: dict[str, Any]
    meta: Mapping[str, Any]
    # A request on an initialized 2025 session; otherwise 2026-07-28 (or served leniently as it).
    legacy: bool
    session: Session
    source: ToolSource
    sealer: StateSealer
    mode: Mode = Mode.LENIENT
    # The verified caller (HTTP with authorization); ``None`` where there is none, and then scopes do not apply.
    principal: Principal | None = None
    # A call a provider's ``run`` hands in (its arguments already the original schema's, the repairs it chose);
    # ``None`` for a client's request.
    provider: ProviderCall | None = None
    stream: Stream = NO_STREAM
    # An authorization refusal found while routing: the transport may answer it in its own terms (HTTP's 403).
    refusal: Exception | None = None
    # Filled in by the pipeline's stages, in this order.
    name: str = ""
    tool: Tool = None  # type: ignore[assignment]  # set by the route stage before any other stage reads it
    kwargs: dict[str, Any] | None = None
    # What earlier input-required rounds carried: their answers, and what they already streamed (2026-07-28).
    rounds: tuple[dict[str, Any], dict[str, Any] | None] | None = None
    notes: tuple[str, ...] = ()
    context: Context | None = None
    result: dict[str, Any] | None = None
    # Set only for a task tool's call (``mcptools._tasks``): a request offered a task, or a worker's run of one.
    task: TaskLink | None = None

    def __repr__(self) -> str:
        return f"<Call {self.method} {self.request_id!r}{f' of {self.name!r}' if self.name else ''}>"

    @property
    def capabilities(self) -> Mapping[str, Any]:
        """The client's capabilities: declared at ``initialize`` on a 2025 session, in ``_meta`` otherwise."""
        if self.legacy:
            return self.session.client_capabilities
        declared = self.meta.get(META_CLIENT_CAPABILITIES)
        return declared if type(declared) is dict else _NOTHING

    @property
    def log_level(self) -> str | None:
        """The least severe log level the client wants (``None``: no logs)."""
        return self.session.log_level if self.legacy else self.meta.get(META_LOG_LEVEL)

    @property
    def progress_token(self) -> str | int | None:
        token = self.meta.get("progressToken")
        return token if type(token) in (str, int) else None
