"""The registry: the tools of one server, and its front door ``handle``.

``ToolRegistry`` holds tools (add, get, remove, iterate, the contract's ``tools`` mapping). The protocol state
(sessions' engine, the sealer of ``requestState`` and cursors) is an ``Engine`` the registry owns, typed and made
on first use; transports reach it through ``registry.engine``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar, final, overload

from typing_extensions import ParamSpec

from ._errors import ToolDefinitionError
from ._protocol.engine import Engine
from ._protocol.session import Session, discard
from ._repair import DEFAULT_REPAIRS, repairs_option
from ._tool import MARK, Tool, ToolAnnotations, ToolDecorator, ToolOptions, check_scopes, describe, tool

if TYPE_CHECKING:
    from ._profiles import Exported, ProfileName

__all__ = ["Tool", "ToolAnnotations", "ToolRegistry", "tool"]

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
        "_tools",
        "expose_errors",
        "instructions",
        "name",
        "profile",
        "repair",
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
    ) -> None:
        if type(name) is not str or not name:
            raise ToolDefinitionError("ToolRegistry needs a server name, e.g. ToolRegistry('weather-server')")
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
    ) -> Any:
        """Register a function as a tool; usable bare (``@registry.tool``) or with options."""

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
        entry = self._register(fn, options)
        entry.scopes = checked
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
        return await self.engine.handle(message, Session(), discard)

    def __repr__(self) -> str:
        return f"<ToolRegistry {self.name!r} with {len(self._tools)} tools>"
