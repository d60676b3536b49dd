"""The registry: the tools of one server, and its front door ``handle``.

``ToolRegistry`` holds tools (add, get, remove, iterate, the contract's ``tools`` mapping). The protocol state
(sessions' engine, the sealer of ``requestState`` and cursors) is an ``Engine`` the registry owns, typed and made
on first use; transports reach it through ``registry.engine``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, TypeVar, final, overload

from typing_extensions import ParamSpec

from ._errors import ToolDefinitionError
from ._lifespan import LifespanRunner, check_lifespan
from ._middleware import Middleware, check_middleware, layers
from ._protocol.engine import Engine
from ._protocol.session import Session, discard
from ._repair import DEFAULT_REPAIRS, repairs_option
from ._tool import (
    MARK,
    Tool,
    ToolAnnotations,
    ToolDecorator,
    ToolOptions,
    check_scopes,
    check_timeout,
    describe,
    tool,
)

if TYPE_CHECKING:
    from ._profiles import Exported, ProfileName
    from .auth import AuthSettings

__all__ = ["Lifespan", "Tool", "ToolAnnotations", "ToolRegistry", "tool"]

Lifespan = Callable[["ToolRegistry"], AbstractAsyncContextManager[Any]]
"""``lifespan=``: a function taking the registry and returning an async context manager (see ``_lifespan``)."""

P = ParamSpec("P")
R = TypeVar("R")


@final
class ToolRegistry:
    """The tools of one server, and the JSON-RPC entry point that serves them.

    ``registry.tools`` is the contract's mapping ``{name: (schema, fn)}``, usable with ``call_tool`` directly;
    ``registry.handle(message)`` answers one JSON-RPC message. ``profile=`` publishes the schemas under a model
    API's profile (see ``mcptools._profiles``) and ``repair=`` names the repairs made to arguments that fail
    validation (``mcptools._repair``; JSON text where an object or array is wanted, by default).
    """

    __slots__ = (
        "__weakref__",
        "_engine",
        "_entries",
        "_exports",
        "_lifespan",
        "_tools",
        "call_layers",
        "expose_errors",
        "instructions",
        "middleware",
        "name",
        "profile",
        "repair",
        "request_layers",
        "suggest_names",
        "version",
    )

    def __init__(
        self,
        name: str,
        *,
        version: str = "0.1.0",
        instructions: str | None = None,
        expose_errors: bool = False,
        suggest_names: bool = False,
        profile: ProfileName | None = None,
        repair: bool | str | Collection[str] | None = DEFAULT_REPAIRS,
        lifespan: Lifespan | None = None,
        middleware: Sequence[Middleware] | None = None,
    ) -> None:
        if type(name) is not str or not name:
            raise ToolDefinitionError("ToolRegistry needs a server name, e.g. ToolRegistry('weather-server')")
        check_lifespan(name, lifespan)
        self._lifespan = LifespanRunner(self, lifespan)
        # Plain attributes, not properties: the engine reads them on every call, and with no middleware that read
        # is all middleware costs (registry.use() keeps the three in step).
        self.middleware: tuple[Middleware, ...] = check_middleware(name, middleware)
        self.call_layers, self.request_layers = layers(self.middleware)
        self.name = name
        self.version = version
        self.instructions = instructions
        # Development aid: show exception text (never tracebacks) in results of tools that fail unexpectedly.
        self.expose_errors = expose_errors
        # Off by default because the contract's strings are exact: with it, an unknown argument close to a
        # known one reads "unexpected property 'locaton' (did you mean 'location'?)".
        self.suggest_names = suggest_names
        # Schema profile for picky MCP clients (they forward schemas to model APIs); see mcptools._profiles.
        if profile is not None and profile not in ("openai", "gemini", "anthropic"):
            raise ToolDefinitionError(
                f"ToolRegistry({name!r}, profile={profile!r}): unknown profile; the profiles are openai, gemini, "
                f"anthropic"
            )
        self.profile = profile
        try:
            self.repair = repairs_option(repair, where=f"ToolRegistry({name!r}, repair=...)")
        except ValueError as exc:
            raise ToolDefinitionError(str(exc)) from None
        self._exports: dict[str, Exported] = {}
        self._tools: dict[str, Tool] = {}
        self._entries: dict[str, tuple[dict[str, Any], Callable[..., Any]]] = {}
        # The protocol state (sealed requestState and cursors, paging) is made on first use: a registry that
        # is only ever called through call_tool never builds it.
        self._engine: Engine | None = None

    @overload
    def tool(self, fn: Callable[P, R], /) -> Callable[P, R]: ...
    @overload
    def tool(
        self,
        /,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        input_schema: Mapping[str, Any] | None = None,
        annotations: ToolAnnotations | None = None,
        scopes: Sequence[str] | None = None,
        timeout: float | None = None,
    ) -> ToolDecorator: ...
    def tool(
        self,
        fn: Callable[..., Any] | None = None,
        /,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        input_schema: Mapping[str, Any] | None = None,
        annotations: ToolAnnotations | None = None,
        scopes: Sequence[str] | None = None,
        timeout: float | None = None,
    ) -> Any:
        """Register a function as a tool; usable bare (``@registry.tool``) or with options.

        ``timeout`` (seconds): past it an async tool is cancelled, a sync one abandoned in its thread (and
        logged), and the model gets an error result naming the limit."""

        def register(function: Callable[P, R]) -> Callable[P, R]:
            # Stacked on a @tool mark, the mark's options apply too, exactly as with registry.add(function).
            self.add(
                function,
                name=name,
                title=title,
                description=description,
                input_schema=input_schema,
                annotations=annotations,
                scopes=scopes,
                timeout=timeout,
            )
            return function

        return register if fn is None else register(fn)

    def add(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        input_schema: Mapping[str, Any] | None = None,
        annotations: ToolAnnotations | None = None,
        scopes: Sequence[str] | None = None,
        timeout: float | None = None,
    ) -> Tool:
        """Register ``fn``: the options given here win over those of its ``@tool`` mark, if any."""
        marked = getattr(fn, MARK, None)
        base = marked if isinstance(marked, ToolOptions) else ToolOptions(None, None, None, None, None)
        options = ToolOptions(
            name if name is not None else base.name,
            title if title is not None else base.title,
            description if description is not None else base.description,
            input_schema if input_schema is not None else base.input_schema,
            annotations if annotations is not None else base.annotations,
        )
        checked = check_scopes(fn, scopes)
        limit = check_timeout(fn, timeout)
        entry = self._register(fn, options)
        entry.scopes = checked
        entry.set_timeout(limit)
        return entry

    def _register(self, fn: Callable[..., Any], options: ToolOptions) -> Tool:
        name = options.name if options.name is not None else getattr(fn, "__name__", None)
        existing = self._tools.get(name) if type(name) is str else None
        if existing is not None:
            raise ToolDefinitionError(
                f"function {describe(fn)}: a tool named {name!r} is already registered "
                f"(function {describe(existing.fn)}); pass name='...' to give one of them another name"
            )
        entry = Tool(fn, options, suggest_names=self.suggest_names)
        if self.profile is not None:
            from ._profiles import export_schema  # only registries with a profile pay for importing it

            exported = export_schema(entry.input_schema, self.profile, tool=entry.name)
            self._exports[entry.name] = exported
            entry.listing = {**entry.listing, "inputSchema": exported.json_schema()}
        self._tools[entry.name] = entry
        self._entries[entry.name] = (entry.input_schema, fn)
        return entry

    @property
    def exports(self) -> Mapping[str, Exported]:
        """The tools' schemas under the registry's ``profile=`` (empty without one), by tool name."""
        return self._exports

    @property
    def tools(self) -> Mapping[str, tuple[dict[str, Any], Callable[..., Any]]]:
        """The contract's ``{name: (schema, fn)}``: the schema as published, the function as registered."""
        return MappingProxyType(self._entries)

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def remove(self, name: str) -> Tool:
        """Unregister the tool called ``name`` and return it; ``KeyError`` when there is none."""
        if name not in self._tools:
            known = ", ".join(sorted(self._tools)) or "none"
            raise KeyError(f"no tool named {name!r} is registered (registered: {known})")
        del self._entries[name]
        return self._tools.pop(name)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def list_tools(self) -> list[dict[str, Any]]:
        """The ``tools`` array of a ``tools/list`` result, in registration order."""
        return [entry.listing for entry in self._tools.values()]

    @property
    def engine(self) -> Engine:
        """The protocol engine serving this registry, one per registry so registries never share state;
        transports hand it every message."""
        engine = self._engine
        if engine is None:
            engine = self._engine = Engine(self)
        return engine

    def handle(self, message: object) -> dict[str, Any] | None:
        """Answer one decoded JSON-RPC message; ``None`` for a notification. Never raises.

        Sync tools run inline in the caller's thread; an async tool, or one taking a ``Context``, runs on an
        event loop of its own (see ``_pipeline``)."""
        engine = self._engine
        if engine is None:
            engine = self.engine
        return engine.handle_sync(message)

    async def handle_async(self, message: object) -> dict[str, Any] | None:
        """Answer one message from async code: async tools are awaited, sync ones run in a worker thread."""
        return await self.engine.handle(message, Session(peer="local"), discard)

    # -- lifespan, middleware, run (issue 11 part A) ----------------------------------------------------------

    def running(self) -> AbstractAsyncContextManager[Any]:
        """``async with registry.running() as state:`` runs the lifespan around the block (entries nest; the
        last one out closes it). Servers enter it themselves; enter it to use ``handle_async`` (or a test
        client) with lifespan state. ``registry.handle`` used bare never runs the lifespan."""
        return self._lifespan.running()

    @property
    def state(self) -> Any:
        """What the lifespan yielded (``None`` without one); ``LifespanError`` when it is not running."""
        return self._lifespan.state(self.name)

    def use(self, *middleware: Middleware) -> None:
        """Add middleware after those given to the constructor (innermost last)."""
        self.middleware = check_middleware(self.name, [*self.middleware, *middleware])
        self.call_layers, self.request_layers = layers(self.middleware)

    def run(
        self,
        transport: Literal["stdio", "http"] = "stdio",
        *,
        host: str = "127.0.0.1",
        port: int = 8000,
        workers: int = 1,
        allowed_hosts: Sequence[str] | None = None,
        stateless: bool = False,
        bearer_token_env: str | None = None,
        auth: AuthSettings | None = None,
        timeout_headers: float | None = None,
        timeout_body: float | None = None,
        timeout_keep_alive: int | None = None,
        stack: Literal["auto", "standard", "fast"] = "auto",
    ) -> int:
        """Serve this registry until it stops, its lifespan around it: ``if __name__ == "__main__":
        registry.run()``. stdio by default; ``transport="http"`` takes the options of ``mcptools serve --http``
        (``None`` timeouts mean serve's defaults). Returns the exit status (also on SIGTERM, after the lifespan
        has closed)."""
        from ._run import RunOptions, run_registry

        options = RunOptions(
            host=host,
            port=port,
            workers=workers,
            allowed_hosts=list(allowed_hosts) if allowed_hosts is not None else None,
            stateless=stateless,
            bearer_token_env=bearer_token_env,
            auth=auth,
            timeout_headers=timeout_headers,
            timeout_body=timeout_body,
            timeout_keep_alive=timeout_keep_alive,
            stack=stack,
        )
        return run_registry(self, transport, options)

    def __repr__(self) -> str:
        return f"<ToolRegistry {self.name!r} with {len(self._tools)} tools>"
