"""A tool function -> everything the SDK publishes and needs about it, derived once at definition time.

``derive_tool`` reads the signature, the resolved type hints and the docstring, and returns a ``DerivedTool``:
the ``inputSchema``, the description, the argument converter, the injected ``Context`` parameter and, from the
return annotation, the ``outputSchema`` with its serializer. Every problem is a ``ToolDefinitionError`` raised
here, naming the tool, the function, the parameter and the fix, so nothing about a tool's shape fails later.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import types
import typing
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, final, get_args, get_origin

import typing_extensions

from .._context import Context
from .._convert import build_arguments_converter
from .._errors import ToolDefinitionError, ToolDefinitionWarning
from .._json import JSONObject
from .._peers import is_peer_result_hint, peer_output_hint
from .annotations import resolve_hints
from .defaults import surely_accepts
from .docstrings import parse_docstring
from .emit import SchemaEmitter
from .hints import HintError, HintReader
from .jsonify import jsonify, to_json
from .model import (
    MISSING,
    AnyNode,
    DictNode,
    Field,
    MetaNode,
    Node,
    ObjectNode,
    ScalarNode,
    UnionNode,
    json_problem,
    unwrap,
)
from .outputs import output_reader
from .pydantic_support import field_filler, is_field_info

__all__ = ["DerivedTool", "derive_tool", "kind_problems"]

_UNPACK: Final = tuple(
    dict.fromkeys(module.Unpack for module in (typing, typing_extensions) if hasattr(module, "Unpack"))
)
# bytes: a result builder decision (binary content), not a base64 structured result.
_PLAIN_TEXT_RETURNS: Final = (None, type(None), str, Any, bytes)
_NO_HINT: Final = object()


@final
@dataclass(slots=True, eq=False, kw_only=True)
class DerivedTool:
    """What ``derive_tool`` learned about one tool function.

    - ``input_schema``: the ``inputSchema`` to publish (derived, or the explicit one as given);
    - ``description``: from the docstring's summary and body, None when there is none;
    - ``convert``: validated JSON arguments -> keyword arguments with Python values; None when no parameter
      needs converting (and always None for an explicit input_schema);
    - ``context_param``: the parameter annotated ``Context`` (injected, not in the schema), if any;
    - ``output_schema``: the ``outputSchema`` from the return annotation; None for str / None / Any / no
      annotation / a type that is not JSON-shaped (the result is then plain content);
    - ``serialize_output``: return value -> ``structuredContent``; set exactly when ``output_schema`` is;
    - ``output_wrapped``: True when the return type is not an object, so ``structuredContent`` is
      ``{"result": value}`` (MCP requires an object) and the text content should show the bare value.
    """

    input_schema: JSONObject
    description: str | None
    convert: Callable[[dict[str, Any]], dict[str, Any]] | None
    context_param: str | None
    output_schema: JSONObject | None
    serialize_output: Callable[[Any], Any] | None
    output_wrapped: bool = False

    # The schemas and names only: the two functions' reprs say nothing a reader needs.
    def __repr__(self) -> str:
        return (
            f"DerivedTool(input_schema={self.input_schema!r}, description={self.description!r}, "
            f"context_param={self.context_param!r}, output_schema={self.output_schema!r})"
        )


def derive_tool(
    fn: Callable[..., Any],
    *,
    input_schema: Mapping[str, Any] | None = None,
    name: str | None = None,
    localns: Mapping[str, Any] | None = None,
) -> DerivedTool:
    """Derive schemas, description and converters of tool ``fn`` (published as ``name``, default its name).

    With ``input_schema`` the schema is the author's: it is checked against the signature, not derived, and
    arguments reach the function as plain JSON values. ``localns`` resolves string annotations naming things
    local to the scope the tool was defined in (a decorator can pass its caller's ``f_locals``).
    """
    label = _label(fn, name)
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise ToolDefinitionError(
            f"{label}: its signature cannot be read ({exc}); define the tool with def or async def"
        ) from None
    hints, hint_failure = _type_hints(fn, localns)
    if hint_failure is not None and input_schema is None:
        # What needs no hints is still reported with it: one round of fixes.
        unresolved = (
            f"{label}: its annotations cannot be resolved ({hint_failure}); define or import the names they "
            "use at module level, or pass input_schema=..."
        )
        raise ToolDefinitionError.of(label, [*kind_problems(label, signature), unresolved])
    doc = parse_docstring(inspect.getdoc(fn))
    # Every problem found is reported at once, so a port is not fixed one restart at a time.
    problems: list[str] = []
    context_param = _check_signature(label, signature, hints, problems)
    try:
        output_schema, serialize_output, output_wrapped = _output(label, hints.get("return", _NO_HINT), localns)
    except ToolDefinitionError as exc:
        problems.append(str(exc))
        output_schema, serialize_output, output_wrapped = None, None, False
    if input_schema is not None:
        _raise_problems(label, problems)
        schema, convert = _check_explicit_schema(label, signature, context_param, input_schema), None
    else:
        schema, convert = _derived_schema(fn, label, doc.params, signature, hints, context_param, localns, problems)
    return DerivedTool(
        input_schema=schema,
        description=doc.description,
        convert=convert,
        context_param=context_param,
        output_schema=output_schema,
        serialize_output=serialize_output,
        output_wrapped=output_wrapped,
    )


def _derived_schema(
    fn: Callable[..., Any],
    label: str,
    described: dict[str, str],
    signature: inspect.Signature,
    hints: dict[str, Any],
    context_param: str | None,
    localns: Mapping[str, Any] | None,
    problems: list[str],
) -> tuple[JSONObject, Callable[[dict[str, Any]], dict[str, Any]] | None]:
    """The input schema read from the parameters, and the converter of their arguments; every problem found on
    the way (and before it, in ``problems``) raised as one error."""
    read = _parameters(label, described, signature, hints, context_param, localns, problems)
    emitter = SchemaEmitter([field.node for field in read.fields] + ([read.extra] if read.extra is not None else []))
    schema = emitter.finish(emitter.object_schema(read.fields, read.extra, closed=read.closed))
    _check_defaults(label, read.fields, schema, problems)
    _raise_problems(label, problems)
    if read.unannotated:
        _warn_unannotated(fn, label, read.unannotated)
    return schema, build_arguments_converter(read.fields, read.extra, read.fills)


def _raise_problems(label: str, problems: list[str]) -> None:
    """One problem is raised as its own message; several as one error listing each (each names the fix)."""
    if problems:
        raise ToolDefinitionError.of(label, problems)


def _warn_unannotated(fn: Callable[..., Any], label: str, names: list[str]) -> None:
    """One warning per tool, at the function's own line (not at whichever decorator or ``add`` registered it).

    A warning rather than a log line: it is about the source, shown once at import, and a test suite or CI can
    turn it into an error (``-W error::mcptools.ToolDefinitionWarning``) while a server keeps running.
    """
    listed = ", ".join(repr(name) for name in names)
    one = len(names) == 1
    message = (
        f"{label}: parameter{'' if one else 's'} {listed} {'has' if one else 'have'} no annotation, so "
        f"{'it accepts' if one else 'they accept'} any JSON value unchecked (schema {{}}); annotate "
        f"{'it' if one else 'them'} (for example {names[0]}: str) to publish and check the type, or write "
        f"{names[0]}: typing.Any to accept any value on purpose"
    )
    code = getattr(inspect.unwrap(fn), "__code__", None)
    if code is None:  # a callable object or a builtin: no source line to point at
        warnings.warn(message, ToolDefinitionWarning, stacklevel=2)
        return
    warnings.warn_explicit(
        message, ToolDefinitionWarning, code.co_filename, code.co_firstlineno, module=getattr(fn, "__module__", None)
    )


def _check_defaults(label: str, fields: list[Field], schema: JSONObject, problems: list[str]) -> None:
    """A default the parameter's own schema rejects is a bug the model would copy: refuse it now.

    A default that is not JSON at all (an object, a factory's product) is fine: it is simply not published.
    """
    from .._validation import compile_schema

    properties = schema.get("properties", {})
    for field in fields:
        if field.default is MISSING or json_problem(to_json(field.default)) is not None:
            continue
        published = properties.get(field.name, {})
        if "default" not in published:
            problems.append(
                f"{label}: parameter {field.name!r} defaults to {field.default!r}, which its annotation does "
                "not accept; change the default, or widen the annotation (e.g. add '| None')"
            )
            continue
        if surely_accepts(published, published["default"], schema.get("$defs")):
            continue  # the common case, decided without compiling a validator
        rules = {key: value for key, value in published.items() if key != "default"}
        wrapper: JSONObject = {"type": "object", "properties": {field.name: rules}}
        if "$defs" in schema:
            wrapper["$defs"] = schema["$defs"]
        errors = compile_schema(wrapper).errors({field.name: published["default"]})
        if errors:
            problems.append(
                f"{label}: parameter {field.name!r} defaults to {field.default!r}, which breaks its own "
                f"constraints ({'; '.join(errors)}); change the default or the Param(...) constraints"
            )


def _label(fn: Callable[..., Any], name: str | None) -> str:
    function = f"{getattr(fn, '__module__', None) or '?'}.{getattr(fn, '__qualname__', None) or repr(fn)}"
    tool_name = name if name is not None else getattr(fn, "__name__", function)
    return f"tool {tool_name!r} (function {function})"


def _type_hints(fn: Callable[..., Any], localns: Mapping[str, Any] | None) -> tuple[dict[str, Any], str | None]:
    target: Any = inspect.unwrap(fn)
    while isinstance(target, functools.partial):
        target = inspect.unwrap(target.func)
    if not inspect.isroutine(target) and callable(target):
        target = type(target).__call__  # a callable object: its __call__ carries the annotations
    try:
        return resolve_hints(target, localns), None
    except Exception as exc:  # NameError, TypeError, SyntaxError from user annotations
        return {}, f"{type(exc).__name__}: {exc}"


# The peers' Context classes: a tool written for them and annotated with theirs gets ours (the same methods, and
# ``ctx.request_context.lifespan_context``), so a port need not change that import too.
_PEER_CONTEXTS: Final = frozenset(
    {
        ("mcp.server.fastmcp.server", "Context"),  # the official SDK 1.x
        ("mcp.server.mcpserver.context", "Context"),  # the official SDK 2.x
        ("fastmcp.server.context", "Context"),  # fastmcp 2 and later
    }
)


def _is_context(hint: object) -> bool:
    """``Context``, ``Context | None``, a peer's ``Context``, or (when annotations could not be resolved) a string
    naming it."""
    if hint is Context or get_origin(hint) is Context:  # Context, Context[State]
        return True
    cls = get_origin(hint) or hint
    # Along the MRO: the SDK 1.x Context is a pydantic generic, and Context[ServerSession, AppContext] is a subclass.
    if isinstance(cls, type) and any((base.__module__, base.__qualname__) in _PEER_CONTEXTS for base in cls.__mro__):
        return True
    if isinstance(hint, str):
        text = hint.replace(" ", "")
        if text.startswith(("Context[", "mcptools.Context[")):
            return True
        return text in ("Context", "Context|None", "Optional[Context]", "mcptools.Context")
    if get_origin(hint) in (typing.Union, types.UnionType):
        members = [Context if _is_context(arg) else arg for arg in get_args(hint)]
        return len(members) == 2 and set(members) == {Context, type(None)}
    return False


def kind_problems(label: str, signature: inspect.Signature) -> list[str]:
    """Parameters MCP cannot fill, since arguments come by name only: ``*args`` and positional-only ones. Needs
    no type hints, so ``@tool`` reports them at decoration, before the names a hint uses exist."""
    problems = []
    for param in signature.parameters.values():
        if param.kind is param.VAR_POSITIONAL:
            problems.append(
                f"{label}: parameter '*{param.name}' collects positional arguments, but MCP passes arguments "
                f"by name; take a list parameter instead (e.g. {param.name}: list[str])"
            )
        if param.kind is param.POSITIONAL_ONLY:
            problems.append(
                f"{label}: parameter {param.name!r} is positional-only, but MCP passes arguments by name; "
                "remove the '/' from the signature"
            )
    return problems


def _check_signature(
    label: str, signature: inspect.Signature, hints: dict[str, Any], problems: list[str]
) -> str | None:
    """Refuse what MCP cannot call (arguments come by name only); find the Context parameter."""
    problems.extend(kind_problems(label, signature))
    context_param: str | None = None
    for param in signature.parameters.values():
        annotation = hints.get(param.name, param.annotation)
        if param.kind is not param.VAR_KEYWORD and _is_context(annotation):
            if context_param is not None:
                problems.append(
                    f"{label}: parameter {param.name!r} is a second Context parameter (the first is "
                    f"{context_param!r}); keep only one"
                )
                continue
            context_param = param.name
    return context_param


@final
@dataclass(slots=True)
class _Parameters:
    """What the parameters give: the schema's fields, the node for extra names (``**kwargs: T``), whether the
    schema is closed, the defaults to fill in for parameters whose default is a ``pydantic.Field(...)``, and the
    names of parameters with no annotation (accepted as any JSON value, with a warning)."""

    fields: list[Field]
    extra: Node | None = None
    closed: bool = True
    fills: list[tuple[str, Callable[[], Any]]] = dataclasses.field(default_factory=list)
    unannotated: list[str] = dataclasses.field(default_factory=list)


def _parameters(
    label: str,
    docs: dict[str, str],
    signature: inspect.Signature,
    hints: dict[str, Any],
    context_param: str | None,
    localns: Mapping[str, Any] | None,
    problems: list[str],
) -> _Parameters:
    """Read every parameter; a parameter with a problem adds it to ``problems`` and the others are still read."""
    reader = HintReader(localns)
    read = _Parameters([])
    for param in signature.parameters.values():
        # *args, positional-only and second Context parameters are already reported by _check_signature.
        if param.name == context_param or param.kind in (param.VAR_POSITIONAL, param.POSITIONAL_ONLY):
            continue
        if param.kind is not param.VAR_KEYWORD and _is_context(hints.get(param.name, param.annotation)):
            continue
        try:
            if param.kind is param.VAR_KEYWORD:
                _extra_names(label, reader, param.name, hints.get(param.name, _NO_HINT), read)
            else:
                _parameter(label, reader, param, hints.get(param.name, _NO_HINT), docs.get(param.name), read)
        except ToolDefinitionError as exc:
            problems.append(str(exc))
    return read


def _extra_names(label: str, reader: HintReader, name: str, hint: object, read: _Parameters) -> None:
    """``**kwargs: T`` (an open schema) or ``**kwargs: Unpack[TD]`` (the TypedDict's keys as parameters)."""
    origin_args = get_args(hint) if get_origin(hint) in _UNPACK else ()
    if not origin_args:
        read.closed = False
        read.extra = AnyNode() if hint is _NO_HINT else _read(reader, hint, f"{label}: parameter '**{name}'")
        return
    node = _read(reader, origin_args[0], f"{label}: parameter '**{name}'")
    if not isinstance(node, ObjectNode) or node.kind != "typeddict":
        raise ToolDefinitionError(
            f"{label}: parameter '**{name}' unpacks something that is not a TypedDict; "
            "use Unpack[SomeTypedDict] or a plain **kwargs: T"
        )
    names = {field.name for field in read.fields}
    for field in node.fields:
        if field.name in names:
            raise ToolDefinitionError(
                f"{label}: key {field.name!r} of '**{name}' repeats a parameter name; rename one of them"
            )
        read.fields.append(field)


def _parameter(
    label: str, reader: HintReader, param: inspect.Parameter, hint: object, doc: str | None, read: _Parameters
) -> None:
    where = f"{label}: parameter {param.name!r}"
    if hint is _NO_HINT:
        # As the peers do: any JSON value, unconverted; the definition warns once, naming the fix.
        node: Node = AnyNode()
        read.unannotated.append(param.name)
    else:
        node = _read(reader, hint, where)
    if is_field_info(param.default):
        # x: T = Field(default, description=...): metadata, and the default the function is called with.
        try:
            field = reader.field_from_info(param.name, node, param.default, where, parameter=True)
        except HintError as exc:
            raise ToolDefinitionError(f"{where}: {exc.message}") from None
        if field.description is None:
            field.description = doc
        if field.default is None:
            field.node = _accepting_null(field.node)
        read.fields.append(field)
        if not field.required:
            read.fills.append((param.name, field_filler(param.default)))
        return
    required = param.default is param.empty
    if param.default is None:
        node = _accepting_null(node)
    default = MISSING if required else param.default
    read.fields.append(Field(param.name, node, required=required, default=default, description=doc))


def _accepting_null(node: Node) -> Node:
    """``x: T = None`` means ``x: T | None = None`` (PEP 484's implicit Optional, as both peers read it): the
    node as if the annotation had said ``| None``, inside any ``Annotated`` layers so they keep describing it."""
    if "null" in node.kinds:
        return node
    if isinstance(node, MetaNode):
        return MetaNode(_accepting_null(node.inner), node.keywords)
    members = node.members if isinstance(node, UnionNode) else (node,)
    return UnionNode((*members, ScalarNode("null")))


def _read(reader: HintReader, hint: object, where: str) -> Node:
    try:
        return reader.read(hint)
    except HintError as exc:
        raise _definition_error(where, exc) from None


def _definition_error(where: str, exc: HintError) -> ToolDefinitionError:
    location = f" (in {', '.join(exc.where)})" if exc.where else ""
    separator = " " if exc.message.startswith("has ") else ": "
    return ToolDefinitionError(f"{where}{location}{separator}{exc.message}")


def _output(
    label: str, hint: object, localns: Mapping[str, Any] | None
) -> tuple[JSONObject | None, Callable[[Any], Any] | None, bool]:
    """outputSchema, serializer and whether it wraps as ``{"result": ...}``; no schema for plain content."""
    if hint is _NO_HINT or any(hint is plain for plain in _PLAIN_TEXT_RETURNS) or is_peer_result_hint(hint):
        return None, None, False
    # The SDK's ``-> Annotated[CallToolResult, Model]``: a whole result is returned, its structured part a Model.
    hint = peer_output_hint(hint) or hint
    try:
        node = output_reader(localns).read(hint)
    except HintError as exc:
        if exc.foreign:
            return None, None, False  # content blocks and other non-JSON returns: not structured output
        raise _definition_error(f"{label}: the return annotation", exc) from None
    emitter = SchemaEmitter([node])
    # Always the one serializer: a value typed dict[str, Any] may still hold a datetime or a set.
    if isinstance(unwrap(node), (ObjectNode, DictNode)):
        schema = emitter.emit(node)
        if "$ref" in schema:  # a recursive class: MCP wants "type": "object" at the root, so inline it there
            schema = {**emitter.defs[schema.pop("$ref").rsplit("/", 1)[1]], **schema}
        return emitter.finish(schema), jsonify, False
    wrapped = {"type": "object", "properties": {"result": emitter.emit(node)}, "required": ["result"]}
    return emitter.finish(wrapped), _wrap, True


def _wrap(value: Any) -> dict[str, Any]:
    return {"result": jsonify(value)}


def _check_explicit_schema(
    label: str, signature: inspect.Signature, context_param: str | None, schema: Mapping[str, Any]
) -> JSONObject:
    """An explicit schema must describe an object the function can be called with."""
    fix = "pass an object schema like {'type': 'object', 'properties': {...}, 'required': [...]}"
    if not isinstance(schema, Mapping) or schema.get("type") != "object":
        raise ToolDefinitionError(f'{label}: input_schema must have "type": "object" at the top; {fix}')
    properties = schema.get("properties", {})
    if not isinstance(properties, Mapping):
        raise ToolDefinitionError(f'{label}: input_schema\'s "properties" must be an object; {fix}')
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(name, str) for name in required):
        raise ToolDefinitionError(f'{label}: input_schema\'s "required" must be a list of names; {fix}')
    parameters = {
        param.name: param
        for param in signature.parameters.values()
        if param.kind is not param.VAR_KEYWORD and param.name != context_param
    }
    takes_kwargs = any(param.kind is param.VAR_KEYWORD for param in signature.parameters.values())
    if context_param is not None and context_param in properties:
        raise ToolDefinitionError(
            f"{label}: parameter {context_param!r} is the injected Context, but input_schema declares it "
            "as a property; remove it from the schema"
        )
    for name in [*required, *properties]:
        if name not in parameters and not takes_kwargs:
            raise ToolDefinitionError(
                f"{label}: input_schema declares property {name!r}, but the function has no parameter "
                f"{name!r}; add the parameter (or **kwargs), or remove {name!r} from the schema"
            )
    for name, param in parameters.items():
        if param.default is param.empty and name not in required:
            raise ToolDefinitionError(
                f"{label}: parameter {name!r} has no default, but input_schema does not require it; add "
                f'{name!r} to "required" or give the parameter a default'
            )
    closed = schema.get("additionalProperties") is False or schema.get("unevaluatedProperties") is False
    if not takes_kwargs and not closed:
        raise ToolDefinitionError(
            f"{label}: input_schema allows properties the function has no parameter for, so a call could "
            'reach it with names it cannot take; add "additionalProperties": false to the schema, or take '
            "**kwargs"
        )
    return dict(schema)
