"""What a tool is: the ``@tool`` mark, its options, and ``Tool``, everything compiled for calling one function.

Like pluggy's markers, the module-level ``@tool`` only tags a function; a registry is where a function becomes a
``Tool``: its schema is derived (or the given one checked) and compiled, and every problem is raised then, as a
``ToolDefinitionError`` naming the function, the parameter and the fix, never later at call time.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Final, Protocol, TypeVar, final, overload

from typing_extensions import ParamSpec, TypedDict

from ._errors import SchemaError, ToolDefinitionError
from ._schema import derive_tool
from ._validation import Validator, checker_for

__all__ = [
    "MARK",
    "Tool",
    "ToolAnnotations",
    "ToolDecorator",
    "ToolOptions",
    "check_scopes",
    "check_timeout",
    "check_tags",
    "describe",
    "tool",
]

P = ParamSpec("P")
R = TypeVar("R")

# MCP's tool-name rule, matched in full so that a trailing newline is not a valid name.
_TOOL_NAME: Final = re.compile(r"[A-Za-z0-9._-]{1,128}")
MARK: Final = "__mcptools_tool__"


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
@dataclass(slots=True)
class ToolOptions:
    """What ``@tool(...)`` or ``registry.add(fn, ...)`` was told; ``None`` means "derive it"."""

    name: str | None
    title: str | None
    description: str | None
    input_schema: Mapping[str, Any] | None
    annotations: ToolAnnotations | Mapping[str, Any] | None


def describe(fn: Callable[..., Any]) -> str:
    module = getattr(fn, "__module__", None) or "?"
    return f"{module}.{getattr(fn, '__qualname__', repr(fn))}"


def check_tags(fn: Callable[..., Any], tags: Iterable[str] | None) -> frozenset[str]:
    """The labels a tool is grouped by (``registry.disable(tags=...)``), checked at registration."""
    if tags is None:
        return frozenset()
    where = f"function {describe(fn)}"
    if isinstance(tags, str):
        raise ToolDefinitionError(f"{where}: tags must be a set of labels, e.g. tags={{{tags!r}}}")
    checked = frozenset(tags)
    for tag in checked:
        if type(tag) is not str or not tag:
            raise ToolDefinitionError(f"{where}: tags must be non-empty strings, got {tag!r} (e.g. tags={{'admin'}})")
    return checked


def check_scopes(fn: Callable[..., Any], scopes: Sequence[str] | None) -> tuple[str, ...]:
    """The OAuth scopes a tool requires (``mcptools.auth``), checked at registration."""
    if scopes is None:
        return ()
    where = f"function {describe(fn)}"
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


def check_timeout(fn: Callable[..., Any], timeout: float | None) -> float | None:
    """A tool's time limit in seconds (``@registry.tool(timeout=30)``), checked at registration."""
    if timeout is None:
        return None
    if type(timeout) not in (int, float) or not 0 < timeout < float("inf"):
        raise ToolDefinitionError(
            f"function {describe(fn)}: timeout must be a positive number of seconds (e.g. timeout=30), got {timeout!r}"
        )
    return float(timeout)


def _check_options(fn: Callable[..., Any], options: ToolOptions) -> None:
    """The checks that need no type hints, so ``@tool`` can run them at decoration, before names resolve."""
    where = f"function {describe(fn)}"
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
    options = ToolOptions(name, title, description, input_schema, annotations)

    def mark(function: Callable[P, R]) -> Callable[P, R]:
        _check_options(function, options)
        try:
            setattr(function, MARK, options)
        except (AttributeError, TypeError):
            raise ToolDefinitionError(
                f"@tool cannot mark {function!r}; wrap it in a def, or register it with registry.add(fn, name=...)"
            ) from None
        return function

    return mark if fn is None else mark(fn)


# Defaults of these types cannot be changed in place, so the function's own default object is safe to share.
_IMMUTABLE: Final = (type(None), bool, int, float, complex, str, bytes, range, type, frozenset)


def _is_immutable(value: object) -> bool:
    if isinstance(value, tuple):
        return all(_is_immutable(item) for item in value)
    return isinstance(value, (*_IMMUTABLE, Enum)) or callable(value)


def _mutable_defaults(fn: Callable[..., Any], context_param: str | None) -> tuple[tuple[str, Any], ...]:
    """The parameters whose Python default could be changed in place (``tags: list[str] = []``).

    Python evaluates a default once, so a tool appending to it would see earlier calls' values. The call
    pipeline hands each call a deep copy of these (as pydantic does); immutable defaults cost nothing.
    """
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return ()
    return tuple(
        (parameter.name, parameter.default)
        for parameter in parameters
        if parameter.default is not inspect.Parameter.empty
        and parameter.name != context_param
        and parameter.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        and not _is_immutable(parameter.default)
    )


@final
class Tool:
    """One registered tool: its published description and everything compiled for calling it."""

    __slots__ = (
        "_output_checker",
        "annotations",
        "context_param",
        "convert",
        "description",
        "fn",
        "input_schema",
        "is_async",
        "listing",
        "mutable_defaults",
        "name",
        "needs_loop",
        "output_schema",
        "scopes",
        "serialize_output",
        "tags",
        "timeout",
        "title",
        "validator",
    )

    def __init__(self, fn: Callable[..., Any], options: ToolOptions, *, suggest_names: bool = False) -> None:
        _check_options(fn, options)
        where = f"function {describe(fn)}"
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
            # A derived schema's formats are asserted: they come from types (datetime, UUID, ...) whose values the
            # function cannot take in any other form, or from a Param(format=...) the author asked for. An
            # explicit input_schema keeps the dialect's default (format as annotation).
            self.validator: Validator = checker_for(
                self.input_schema, suggest_names=suggest_names, format_assertion=explicit is None
            )
        except SchemaError as exc:
            raise ToolDefinitionError(f"{where}: input_schema is not a valid JSON Schema: {exc}") from None
        self.is_async = inspect.iscoroutinefunction(fn)
        self.mutable_defaults = _mutable_defaults(fn, self.context_param)
        self._output_checker: Validator | None = None
        self.listing = self._listing()
        # OAuth scopes a caller must hold to see and call this tool over HTTP with authorization (mcptools.auth).
        self.scopes: tuple[str, ...] = ()
        self.timeout: float | None = None
        self.needs_loop = self.is_async or self.context_param is not None
        # Labels for enabling and disabling groups of tools (``registry.disable(tags=...)``); never published.
        self.tags: frozenset[str] = frozenset()

    def set_timeout(self, timeout: float | None) -> None:
        """The time limit in seconds (checked by ``check_timeout``): past it the call ends with an error result.
        A limited tool always runs on an event loop, even from ``registry.handle``, where it can be timed."""
        self.timeout = timeout
        self.needs_loop = self.is_async or self.context_param is not None or timeout is not None

    def output_checker(self) -> Validator:
        """The compiled ``outputSchema`` checker, made on the first result that needs it (most tools return
        text, and a server should not pay at start for checkers it may never use)."""
        checker = self._output_checker
        if checker is None:
            # Formats asserted, as for a derived input schema: the outputSchema is always derived from the
            # return type, and a custom serializer that writes '02/12/2026' for a date breaks its promise.
            checker = self._output_checker = checker_for(self.output_schema, format_assertion=True)
        return checker

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
        return f"<Tool {self.name!r} from {describe(self.fn)}>"
