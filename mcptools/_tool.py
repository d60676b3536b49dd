"""What a tool is: the ``@tool`` mark, its options, and ``Tool``, everything compiled for calling one function.

Like pluggy's markers, the module-level ``@tool`` only tags a function; a registry is where a function becomes a
``Tool``: its schema is derived (or the given one checked) and compiled, and every problem is raised then, as a
``ToolDefinitionError`` naming the function, the parameter and the fix, never later at call time.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from enum import Enum
from types import CodeType
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol, TypeAlias, TypeVar, final, overload

from typing_extensions import ParamSpec, TypedDict, Unpack

from ._errors import SchemaError, ToolDefinitionError
from ._repair import could_repair
from ._schema import derive_tool
from ._schema.derive import kind_problems
from ._validation import Validator, checker_for

if TYPE_CHECKING:
    from ._profiles import Exported

__all__ = [
    "TaskSupport",
    "Tool",
    "ToolAnnotations",
    "ToolDecorator",
    "ToolOptions",
    "ToolSettings",
    "describe",
    "is_tool_name",
    "marked_options",
    "named",
    "tool",
]

P = ParamSpec("P")
R = TypeVar("R")

# MCP's tool-name rule, matched in full so that a trailing newline is not a valid name.
_TOOL_NAME: Final = re.compile(r"[A-Za-z0-9._-]{1,128}")
MARK: Final = "__mcptools_tool__"

TaskSupport: TypeAlias = Literal["forbidden", "optional", "required"]
"""Whether a call may run as a task (the MCP Tasks extension): never, when the client asks for one, or always."""
# The Context method that hands a call over to its task: a tool calling it starts on the call (see _hands_off).
HAND_OFF: Final = "continue_as_task"


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


class _AnnotationsModel(Protocol):
    """The official SDK's ``ToolAnnotations`` (a pydantic model), as ``annotations=`` reads it."""

    def model_dump(self, *, mode: str = ..., by_alias: bool = ..., exclude_none: bool = ...) -> dict[str, Any]: ...


class ToolDecorator(Protocol):
    """What ``@tool(...)`` and ``@registry.tool(...)`` return: a decorator that keeps the signature."""

    def __call__(self, fn: Callable[P, R], /) -> Callable[P, R]: ...


class ToolSettings(TypedDict, total=False):
    """The options ``@tool``, ``@registry.tool`` and ``registry.add`` all take (``None``: as if not given).

    ``name``, ``title``, ``description``: as published (derived from the function when not given);
    ``input_schema``: an explicit JSON Schema instead of the derived one; ``annotations``: MCP's behaviour hints
    (a dict, or the official SDK's ``ToolAnnotations`` model);
    ``scopes``: OAuth scopes a caller needs to see and call the tool (``mcptools.auth``); ``timeout``: seconds
    after which the call ends with an error result; ``tags``: labels for ``registry.enable``/``disable``,
    never published; ``task``: whether a call may run as a task, answered with a task handle the client polls
    (``"optional"`` or ``True``: when the client asks for one; ``"required"``: always; ``"forbidden"``, the
    default: never).
    """

    name: str | None
    title: str | None
    description: str | None
    input_schema: Mapping[str, Any] | None
    annotations: ToolAnnotations | _AnnotationsModel | None
    scopes: Sequence[str] | None
    timeout: float | None
    tags: Iterable[str] | None
    task: TaskSupport | bool | None


# Not a dataclass: building that frozen dataclass at import was about 0.8 ms of every `import mcptools`.
@final
class ToolOptions:
    """``ToolSettings`` checked at decoration: what a ``Tool`` is built from, once. ``given`` names the options
    that were passed, so options given to ``registry.add`` win over a ``@tool`` mark's and the rest come from it."""

    __slots__ = (
        "annotations",
        "description",
        "given",
        "input_schema",
        "name",
        "scopes",
        "tags",
        "task",
        "timeout",
        "title",
    )

    def __init__(
        self,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        input_schema: Mapping[str, Any] | None = None,
        annotations: Mapping[str, Any] | None = None,
        scopes: tuple[str, ...] = (),
        timeout: float | None = None,
        tags: frozenset[str] = frozenset(),
        task: TaskSupport | None = None,
        given: frozenset[str] = frozenset(),
    ) -> None:
        self.name = name
        self.title = title
        self.description = description
        self.input_schema = input_schema
        self.annotations = annotations
        self.scopes = scopes
        self.timeout = timeout
        self.tags = tags
        self.task = task
        self.given = given

    def __repr__(self) -> str:
        shown = ", ".join(f"{key}={getattr(self, key)!r}" for key in self.__slots__ if key in self.given)
        return f"ToolOptions({shown})"

    @classmethod
    def check(cls, fn: Callable[..., Any], settings: ToolSettings, problems: list[str] | None = None) -> ToolOptions:
        """Every check that needs no type hints, so a mistake is raised at decoration, before names resolve; all
        of the problems found in one ``ToolDefinitionError``, or added to ``problems`` when given (the registry
        then adds the derivation's own and raises them together)."""
        where = f"function {describe(fn)}"
        if not callable(fn):
            raise ToolDefinitionError(f"@tool needs a function, got {fn!r}")
        found: list[str] = []
        unknown = sorted(set(settings) - set(ToolSettings.__annotations__))
        if unknown:
            known = ", ".join(ToolSettings.__annotations__)
            found.append(f"{where}: unknown tool option {unknown[0]!r}; the options are {known}")
        given = {key: value for key, value in settings.items() if value is not None}
        checked: dict[str, Any] = {}
        for field, check in _CHECKS.items():
            try:
                checked[field] = check(where, fn, given.get(field))
            except ToolDefinitionError as problem:
                found.append(str(problem))
        if found and problems is None:
            raise ToolDefinitionError.of(where, found)
        if problems is not None:
            problems.extend(found)
        return cls(**checked, given=frozenset(given) & frozenset(ToolSettings.__annotations__))

    def over(self, base: ToolOptions) -> ToolOptions:
        """These options where given, ``base``'s for the rest."""
        if not base.given:
            return self
        values = {
            field: getattr(self if field in self.given else base, field) for field in ToolSettings.__annotations__
        }
        return ToolOptions(**values, given=self.given | base.given)


def named(name: str, options: ToolSettings) -> ToolSettings:
    """``options`` with the peers' positional name (``@mcp.tool("name")``) as ``name=``."""
    if "name" in options:
        raise ToolDefinitionError(
            f"@tool({name!r}, name={options['name']!r}): give the name once, positionally or as name="
        )
    return {**options, "name": name}


def is_tool_name(name: str) -> bool:
    """MCP's tool-name rule: 1 to 128 characters from A-Z a-z 0-9 _ - ."""
    return _TOOL_NAME.fullmatch(name) is not None


def describe(fn: Callable[..., Any]) -> str:
    module = getattr(fn, "__module__", None) or "?"
    return f"{module}.{getattr(fn, '__qualname__', repr(fn))}"


def _checked_name(where: str, fn: Callable[..., Any], name: object) -> str | None:
    if name is not None:
        if type(name) is not str or not _TOOL_NAME.fullmatch(name):
            raise ToolDefinitionError(
                f"{where}: tool name {name!r} is not valid; MCP tool names are 1 to 128 characters from "
                f"A-Z a-z 0-9 _ - . (pass name='...' with such a name)"
            )
        return name
    if not _TOOL_NAME.fullmatch(getattr(fn, "__name__", "")):
        raise ToolDefinitionError(
            f"{where}: the function's name cannot be an MCP tool name; pass name='...' "
            f"(1 to 128 characters from A-Z a-z 0-9 _ - .)"
        )
    return None


def _checked_text(field: str) -> Callable[[str, Callable[..., Any], object], str | None]:
    def check(where: str, fn: Callable[..., Any], value: object) -> str | None:
        if value is not None and type(value) is not str:
            raise ToolDefinitionError(f"{where}: {field} must be a string, got {type(value).__name__}")
        return value

    return check


def _checked_schema(where: str, fn: Callable[..., Any], schema: object) -> Mapping[str, Any] | None:
    if schema is not None and not isinstance(schema, Mapping):
        raise ToolDefinitionError(
            f"{where}: input_schema must be a JSON Schema object (a dict), got {type(schema).__name__}"
        )
    return schema


def _checked_annotations(where: str, fn: Callable[..., Any], annotations: object) -> dict[str, Any] | None:
    if annotations is None:
        return None
    dump = getattr(annotations, "model_dump", None)
    if not isinstance(annotations, Mapping) and callable(dump):
        # The peers' pydantic ToolAnnotations model (mcp.types.ToolAnnotations): read in its wire form.
        annotations = dump(mode="json", by_alias=True, exclude_none=True)
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
    return dict(annotations)


def _checked_tags(where: str, fn: Callable[..., Any], tags: Iterable[str] | None) -> frozenset[str]:
    """The labels a tool is grouped by (``registry.disable(tags=...)``)."""
    if tags is None:
        return frozenset()
    if isinstance(tags, str):
        raise ToolDefinitionError(f"{where}: tags must be a set of labels, e.g. tags={{{tags!r}}}")
    checked = frozenset(tags)
    for tag in checked:
        if type(tag) is not str or not tag:
            raise ToolDefinitionError(f"{where}: tags must be non-empty strings, got {tag!r} (e.g. tags={{'admin'}})")
    return checked


def _checked_scopes(where: str, fn: Callable[..., Any], scopes: Sequence[str] | None) -> tuple[str, ...]:
    """The OAuth scopes a tool requires (``mcptools.auth``)."""
    if scopes is None:
        return ()
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


def _checked_timeout(where: str, fn: Callable[..., Any], timeout: float | None) -> float | None:
    """A tool's time limit in seconds (``@registry.tool(timeout=30)``)."""
    if timeout is None:
        return None
    if type(timeout) not in (int, float) or not 0 < timeout < float("inf"):
        raise ToolDefinitionError(
            f"{where}: timeout must be a positive number of seconds (e.g. timeout=30), got {timeout!r}"
        )
    return float(timeout)


def _checked_task(where: str, fn: Callable[..., Any], task: object) -> TaskSupport | None:
    """Whether a call may run as a task: ``None`` for never (the default), else ``"optional"`` or ``"required"``."""
    if task is None or task is False or task == "forbidden":
        return None
    if task is True:
        return "optional"
    if task in ("optional", "required"):
        return task
    raise ToolDefinitionError(
        f"{where}: task must be 'optional' (or True), 'required' or 'forbidden' (or False), got {task!r}"
    )


# One check per option, each returning the option as a Tool keeps it (``ToolOptions.check`` runs them all).
_CHECKS: Final[dict[str, Callable[[str, Callable[..., Any], Any], Any]]] = {
    "name": _checked_name,
    "title": _checked_text("title"),
    "description": _checked_text("description"),
    "input_schema": _checked_schema,
    "annotations": _checked_annotations,
    "scopes": _checked_scopes,
    "timeout": _checked_timeout,
    "tags": _checked_tags,
    "task": _checked_task,
}


@overload
def tool(fn: Callable[P, R], /) -> Callable[P, R]: ...
@overload
def tool(**options: Unpack[ToolSettings]) -> ToolDecorator: ...
def tool(fn: Callable[..., Any] | None = None, /, **options: Unpack[ToolSettings]) -> Any:
    """Mark a function as a tool without registering it, so a library defines tools and an application
    registers them with ``registry.add(fn)``; it takes every option ``@registry.tool`` takes. The function is
    returned unchanged."""

    def mark(function: Callable[P, R]) -> Callable[P, R]:
        problems: list[str] = []
        checked = ToolOptions.check(function, options, problems)
        with contextlib.suppress(TypeError, ValueError):  # a signature that cannot be read: the registry says so
            problems.extend(kind_problems(f"function {describe(function)}", inspect.signature(function)))
        if problems:
            raise ToolDefinitionError.of(f"function {describe(function)}", problems)
        try:
            setattr(function, MARK, checked)
        except (AttributeError, TypeError):
            raise ToolDefinitionError(
                f"@tool cannot mark {function!r}; wrap it in a def, or register it with registry.add(fn, name=...)"
            ) from None
        return function

    return mark if fn is None else mark(fn)


def marked_options(fn: Callable[..., Any]) -> ToolOptions:
    """The options of ``fn``'s ``@tool`` mark (none given when it has none)."""
    marked = getattr(fn, MARK, None)
    return marked if isinstance(marked, ToolOptions) else _NO_OPTIONS


_NO_OPTIONS: Final = ToolOptions()


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


def _hands_off(fn: Callable[..., Any]) -> bool:
    """Whether ``fn``'s own code (nested functions included) calls ``ctx.continue_as_task()``: such a task tool
    starts on the call, asks its questions there, and becomes a task at that call. Read from the compiled code's
    names, so the hand-off written in the tool's body is all a tool needs; one made in a helper function is not
    seen, and then the call becomes a task before the tool runs (its questions reach the client through the task,
    and a warning says so at the hand-off)."""
    code = getattr(inspect.unwrap(fn), "__code__", None)
    pending = [code] if isinstance(code, CodeType) else []
    while pending:
        current = pending.pop()
        if HAND_OFF in current.co_names:
            return True
        pending.extend(constant for constant in current.co_consts if isinstance(constant, CodeType))
    return False


@final
class Tool:
    """One registered tool: its published description and everything compiled for calling it. Built once, from
    the function and its checked ``ToolOptions``, and never changed after (``registry.add`` returns it)."""

    __slots__ = (
        "_output_checker",
        "annotations",
        "context_param",
        "convert",
        "description",
        "exported",
        "fn",
        "hands_off",
        "input_schema",
        "is_async",
        "listing",
        "mutable_defaults",
        "name",
        "needs_loop",
        "output_schema",
        "repairable",
        "scopes",
        "serialize_output",
        "tags",
        "task",
        "timeout",
        "title",
        "validator",
    )

    _output_checker: Validator | None
    repairable: dict[frozenset[str], bool]
    """``repairable_by``'s answers so far, read first on the invalid-arguments path (one dict lookup)."""
    fn: Callable[..., Any]
    name: str
    title: str | None
    description: str | None
    input_schema: dict[str, Any]
    annotations: dict[str, Any] | None
    convert: Callable[[dict[str, Any]], dict[str, Any]] | None
    context_param: str | None
    output_schema: dict[str, Any] | None
    serialize_output: Callable[[Any], Any] | None
    validator: Validator
    is_async: bool
    mutable_defaults: tuple[tuple[str, Any], ...]
    scopes: tuple[str, ...]
    """OAuth scopes a caller must hold to see and call this tool over HTTP with authorization (mcptools.auth)."""
    timeout: float | None
    tags: frozenset[str]
    """Labels for enabling and disabling groups of tools (``registry.disable(tags=...)``); never published."""
    task: TaskSupport | None
    """``"optional"`` or ``"required"`` when a call may run as a task (``None``: never); the call pipeline's one
    check for tasks reads it."""
    hands_off: bool
    """Whether a task tool starts on the call and becomes a task where it calls ``ctx.continue_as_task()``."""
    needs_loop: bool
    """Whether a call runs on an event loop: an async tool, one taking a ``Context``, one with a time limit (timed
    on the loop), one that may run as a task (made in the store on the loop). The one place this is decided:
    ``registry.handle`` and the HTTP app both read it."""
    exported: Exported | None
    """The input schema under the registry's ``profile=`` (``mcptools._profiles``); ``None`` without one."""
    listing: dict[str, Any]

    def __init__(
        self,
        fn: Callable[..., Any],
        options: ToolOptions,
        *,
        suggest_names: bool = False,
        profile: str | None = None,
    ) -> None:
        where = f"function {describe(fn)}"
        name = options.name or fn.__name__
        # A copy all the way down: what is published and what is validated stay the schema given here, whatever
        # the caller does with its own dict afterwards.
        explicit = copy.deepcopy(dict(options.input_schema)) if options.input_schema is not None else None
        derived = derive_tool(fn, input_schema=explicit, name=name)
        try:
            # A derived schema's formats are asserted: they come from types (datetime, UUID, ...) whose values the
            # function cannot take in any other form, or from a Param(format=...) the author asked for. An
            # explicit input_schema keeps the dialect's default (format as annotation).
            validator = checker_for(
                derived.input_schema, suggest_names=suggest_names, format_assertion=explicit is None
            )
        except SchemaError as exc:
            raise ToolDefinitionError(f"{where}: input_schema is not a valid JSON Schema: {exc}") from None
        is_async = inspect.iscoroutinefunction(fn)
        exported = None
        if profile is not None:
            from ._profiles import export_schema  # only registries with a profile pay for importing it

            exported = export_schema(derived.input_schema, profile, tool=name)
        built = {
            "fn": fn,
            "name": name,
            "title": options.title,
            "description": options.description if options.description is not None else derived.description,
            "input_schema": derived.input_schema,
            "annotations": dict(options.annotations) if options.annotations is not None else None,
            "convert": derived.convert,
            "context_param": derived.context_param,
            "output_schema": derived.output_schema,
            "serialize_output": derived.serialize_output,
            "validator": validator,
            "is_async": is_async,
            "mutable_defaults": _mutable_defaults(fn, derived.context_param),
            "scopes": options.scopes,
            "timeout": options.timeout,
            "tags": options.tags,
            "task": options.task,
            "hands_off": options.task is not None and derived.context_param is not None and _hands_off(fn),
            "needs_loop": is_async
            or derived.context_param is not None
            or options.timeout is not None
            or options.task is not None,
            "exported": exported,
            "_output_checker": None,
            "repairable": {},
        }
        for field, value in built.items():
            object.__setattr__(self, field, value)
        object.__setattr__(self, "listing", self._listing())

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Tool {self.name!r} is built once and cannot be changed; register a new tool instead")

    def output_checker(self) -> Validator:
        """The compiled ``outputSchema`` checker, made on the first result that needs it (most tools return
        text, and a server should not pay at start for checkers it may never use)."""
        checker = self._output_checker
        if checker is None:
            # Formats asserted, as for a derived input schema: the outputSchema is always derived from the
            # return type, and a custom serializer that writes '02/12/2026' for a date breaks its promise.
            checker = checker_for(self.output_schema, format_assertion=True)
            object.__setattr__(self, "_output_checker", checker)
        return checker

    def repairable_by(self, repairs: frozenset[str]) -> bool:
        """Whether any of ``repairs`` could ever apply to this tool's arguments (``mcptools._repair``), answered
        once per set of repairs: an invalid call to a tool no repair can reach skips the repair walk."""
        known = self.repairable.get(repairs)
        if known is None:
            known = self.repairable[repairs] = could_repair(self.input_schema, repairs)
        return known

    def _listing(self) -> dict[str, Any]:
        # Fields with no value are left out rather than sent as null.
        entry: dict[str, Any] = {"name": self.name}
        if self.title is not None:
            entry["title"] = self.title
        if self.description is not None:
            entry["description"] = self.description
        entry["inputSchema"] = self.exported.json_schema() if self.exported is not None else self.input_schema
        if self.output_schema is not None:
            entry["outputSchema"] = self.output_schema
        if self.annotations is not None:
            entry["annotations"] = self.annotations
        return entry

    def __repr__(self) -> str:
        return f"<Tool {self.name!r} from {describe(self.fn)}>"
