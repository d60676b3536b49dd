"""Tools and the registry that holds them.

Like pluggy's markers, the module-level ``@tool`` only tags a function; the registry is where a function becomes
a tool: its schema is derived (or the given one checked) and compiled, and every problem is raised then, as a
``ToolDefinitionError`` naming the function, the parameter and the fix, never later at call time.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Final, Protocol, TypeVar, final, overload

from typing_extensions import ParamSpec, TypedDict

from . import _server
from ._errors import SchemaError, ToolDefinitionError
from ._schema import derive_tool
from ._validation import Validator, checker_for

__all__ = ["Tool", "ToolAnnotations", "ToolRegistry", "tool"]

P = ParamSpec("P")
R = TypeVar("R")

# MCP's tool-name rule, matched in full so that a trailing newline is not a valid name.
_TOOL_NAME: Final = re.compile(r"[A-Za-z0-9._-]{1,128}")
_MARK: Final = "__mcptools_tool__"


class ToolAnnotations(TypedDict, total=False):
    """MCP's hints about a tool's behaviour; clients treat them as untrusted hints, never as guarantees."""

    title: str
    readOnlyHint: bool
    destructiveHint: bool
    idempotentHint: bool
    openWorldHint: bool


_ANNOTATION_TYPES: Final[Mapping[str, type]] = {
    "title": str,
    "readOnlyHint": bool,
    "destructiveHint": bool,
    "idempotentHint": bool,
    "openWorldHint": bool,
}


class ToolDecorator(Protocol):
    """What ``@tool(...)`` and ``@registry.tool(...)`` return: a decorator that keeps the signature."""

    def __call__(self, fn: Callable[P, R], /) -> Callable[P, R]: ...


@final
class _ToolOptions:
    __slots__ = ("annotations", "description", "input_schema", "name", "title")

    def __init__(
        self,
        name: str | None,
        title: str | None,
        description: str | None,
        input_schema: Mapping[str, Any] | None,
        annotations: ToolAnnotations | Mapping[str, Any] | None,
    ) -> None:
        self.name = name
        self.title = title
        self.description = description
        self.input_schema = input_schema
        self.annotations = annotations


def _describe(fn: Callable[..., Any]) -> str:
    module = getattr(fn, "__module__", None) or "?"
    return f"{module}.{getattr(fn, '__qualname__', repr(fn))}"


def _check_scopes(fn: Callable[..., Any], scopes: Sequence[str] | None) -> tuple[str, ...]:
    if scopes is None:
        return ()
    where = f"function {_describe(fn)}"
    if isinstance(scopes, str):
        raise ToolDefinitionError(f"{where}: scopes must be a list of scope names, e.g. scopes=[{scopes!r}]")
    for scope in scopes:
        # A scope travels in WWW-Authenticate's quoted scope="a b": no space, quote or backslash fits there.
        if type(scope) is not str or not scope or not all(0x21 <= ord(c) <= 0x7E and c not in '"\\' for c in scope):
            raise ToolDefinitionError(
                f"{where}: scope {scope!r} is not an OAuth scope token; use printable ASCII without spaces, "
                f"quotes or backslashes (e.g. scopes=['weather:read'])"
            )
    return tuple(dict.fromkeys(scopes))


def _check_options(fn: Callable[..., Any], options: _ToolOptions) -> None:
    """The checks that need no type hints, so ``@tool`` can run them at decoration, before names resolve."""
    where = f"function {_describe(fn)}"
    if not callable(fn):
        raise ToolDefinitionError(f"@tool needs a function, got {fn!r}")
    name = options.name
    if name is not None:
        if type(name) is not str or not _TOOL_NAME.fullmatch(name):
            raise ToolDefinitionError(
                f"{where}: tool name {name!r} is not valid; MCP tool names are 1 to 128 characters from "
                f"A-Z a-z 0-9 _ - . (pass name='...' with such a name)"
            )
    elif not _TOOL_NAME.fullmatch(getattr(fn, "__name__", "")):
        raise ToolDefinitionError(
            f"{where}: the function's name cannot be an MCP tool name; pass name='...' "
            f"(1 to 128 characters from A-Z a-z 0-9 _ - .)"
        )
    for field in ("title", "description"):
        value = getattr(options, field)
        if value is not None and type(value) is not str:
            raise ToolDefinitionError(f"{where}: {field} must be a string, got {type(value).__name__}")
    if options.input_schema is not None and not isinstance(options.input_schema, Mapping):
        raise ToolDefinitionError(
            f"{where}: input_schema must be a JSON Schema object (a dict), got {type(options.input_schema).__name__}"
        )
    annotations = options.annotations
    if annotations is not None:
        if not isinstance(annotations, Mapping):
            raise ToolDefinitionError(f"{where}: annotations must be a dict of MCP tool annotations")
        for key, value in annotations.items():
            expected = _ANNOTATION_TYPES.get(key)
            if expected is None:
                known = ", ".join(sorted(_ANNOTATION_TYPES))
                raise ToolDefinitionError(f"{where}: unknown tool annotation {key!r}; the known ones are {known}")
            if type(value) is not expected:
                raise ToolDefinitionError(
                    f"{where}: tool annotation {key!r} must be {expected.__name__}, got {type(value).__name__}"
                )
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise ToolDefinitionError(f"{where}: its signature cannot be read ({exc})") from None
    for parameter in signature.parameters.values():
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            raise ToolDefinitionError(
                f"{where}: parameter '*{parameter.name}' cannot be filled from named JSON arguments; "
                f"take a list parameter instead (e.g. {parameter.name}: list[str])"
            )
        if parameter.kind is inspect.Parameter.POSITIONAL_ONLY:
            raise ToolDefinitionError(
                f"{where}: parameter '{parameter.name}' is positional-only, but MCP passes arguments by name; "
                f"remove the '/' from the signature"
            )


@overload
def tool(fn: Callable[P, R], /) -> Callable[P, R]: ...
@overload
def tool(
    *,
    name: str | None = None,
    title: str | None = None,
    description: str | None = None,
    input_schema: Mapping[str, Any] | None = None,
    annotations: ToolAnnotations | None = None,
) -> ToolDecorator: ...
def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    title: str | None = None,
    description: str | None = None,
    input_schema: Mapping[str, Any] | None = None,
    annotations: ToolAnnotations | None = None,
) -> Any:
    """Mark a function as a tool without registering it, so a library defines tools and an application
    registers them with ``registry.add(fn)``. The function is returned unchanged."""
    options = _ToolOptions(name, title, description, input_schema, annotations)

    def mark(function: Callable[P, R]) -> Callable[P, R]:
        _check_options(function, options)
        try:
            setattr(function, _MARK, options)
        except (AttributeError, TypeError):
            raise ToolDefinitionError(
                f"@tool cannot mark {function!r}; wrap it in a def, or register it with registry.add(fn, name=...)"
            ) from None
        return function

    return mark if fn is None else mark(fn)


@final
class Tool:
    """One registered tool: its published description and everything compiled for calling it."""

    __slots__ = (
        "annotations",
        "context_param",
        "convert",
        "description",
        "fn",
        "input_schema",
        "is_async",
        "listing",
        "name",
        "output_schema",
        "scopes",
        "serialize_output",
        "title",
        "validator",
    )

    def __init__(self, fn: Callable[..., Any], options: _ToolOptions, *, suggest_names: bool = False) -> None:
        _check_options(fn, options)
        where = f"function {_describe(fn)}"
        self.fn = fn
        self.name: str = options.name or fn.__name__
        self.title = options.title
        explicit = dict(options.input_schema) if options.input_schema is not None else None
        derived = derive_tool(fn, input_schema=explicit, name=self.name)
        self.input_schema: dict[str, Any] = derived.input_schema
        self.description = options.description if options.description is not None else derived.description
        self.convert = derived.convert
        self.context_param = derived.context_param
        self.output_schema = derived.output_schema
        self.serialize_output = derived.serialize_output
        self.annotations = dict(options.annotations) if options.annotations is not None else None
        try:
            self.validator: Validator = checker_for(self.input_schema, hints=suggest_names)
        except SchemaError as exc:
            raise ToolDefinitionError(f"{where}: input_schema is not a valid JSON Schema: {exc}") from None
        self.is_async = inspect.iscoroutinefunction(fn)
        self.listing = self._listing()
        # OAuth scopes a caller must hold to see and call this tool over HTTP with authorization (mcptools.auth).
        self.scopes: tuple[str, ...] = ()

    def _listing(self) -> dict[str, Any]:
        # Fields with no value are left out rather than sent as null.
        entry: dict[str, Any] = {"name": self.name}
        if self.title is not None:
            entry["title"] = self.title
        if self.description is not None:
            entry["description"] = self.description
        entry["inputSchema"] = self.input_schema
        if self.output_schema is not None:
            entry["outputSchema"] = self.output_schema
        if self.annotations is not None:
            entry["annotations"] = self.annotations
        return entry

    def __repr__(self) -> str:
        return f"<Tool {self.name!r} from {_describe(self.fn)}>"


@final
class ToolRegistry:
    """The tools of one server, and the JSON-RPC entry point that serves them.

    ``registry.tools`` is the contract's mapping ``{name: (schema, fn)}``, usable with ``call_tool`` directly;
    ``registry.handle(message)`` answers one JSON-RPC message.
    """

    __slots__ = (
        "__weakref__",
        "_engine",
        "_entries",
        "_tools",
        "expose_errors",
        "instructions",
        "name",
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
        self._tools: dict[str, Tool] = {}
        self._entries: dict[str, tuple[dict[str, Any], Callable[..., Any]]] = {}
        # The protocol engine (sessions, sealed state) is made on first use by _protocol.engine.engine_for.
        self._engine: Any = None

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
        marked = getattr(fn, _MARK, None)
        base = marked if isinstance(marked, _ToolOptions) else _ToolOptions(None, None, None, None, None)
        options = _ToolOptions(
            name if name is not None else base.name,
            title if title is not None else base.title,
            description if description is not None else base.description,
            input_schema if input_schema is not None else base.input_schema,
            annotations if annotations is not None else base.annotations,
        )
        checked = _check_scopes(fn, scopes)
        entry = self._register(fn, options)
        entry.scopes = checked
        return entry

    def _register(self, fn: Callable[..., Any], options: _ToolOptions) -> Tool:
        name = options.name if options.name is not None else getattr(fn, "__name__", None)
        existing = self._tools.get(name) if type(name) is str else None
        if existing is not None:
            raise ToolDefinitionError(
                f"function {_describe(fn)}: a tool named {name!r} is already registered "
                f"(function {_describe(existing.fn)}); pass name='...' to give one of them another name"
            )
        entry = Tool(fn, options, suggest_names=self.suggest_names)
        self._tools[entry.name] = entry
        self._entries[entry.name] = (entry.input_schema, fn)
        return entry

    @property
    def tools(self) -> Mapping[str, tuple[dict[str, Any], Callable[..., Any]]]:
        """The contract's ``{name: (schema, fn)}``: the schema as published, the function as registered."""
        return MappingProxyType(self._entries)

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def list_tools(self) -> list[dict[str, Any]]:
        """The ``tools`` array of a ``tools/list`` result, in registration order."""
        return [entry.listing for entry in self._tools.values()]

    def handle(self, message: object) -> dict[str, Any] | None:
        """Answer one decoded JSON-RPC message; ``None`` for a notification. Never raises."""
        return _server.handle(self, message)

    async def handle_async(self, message: object) -> dict[str, Any] | None:
        """The async twin of ``handle``: async tools are awaited, sync ones run in a worker thread."""
        return await _server.handle_async(self, message)

    def __repr__(self) -> str:
        return f"<ToolRegistry {self.name!r} with {len(self._tools)} tools>"
