"""Elicitation forms: what ``ctx.elicit(message, T)`` shows the user, and how the answer becomes a ``T``.

MCP lets a server ask the user to fill in a flat form: an object whose properties are strings (optionally an
enum, or a ``format`` of email, uri, date or date-time), numbers, integers or booleans. A tool may describe the
form as a dict schema or as a type: a TypedDict, a dataclass or a pydantic model whose fields are of those
kinds (``X | None`` with a default is an optional field). Anything richer cannot be shown as a form, so it is
refused with a ``ToolDefinitionError`` naming the field and the fix, the first time the tool asks.

The answer is a client's word, so it is checked by the compiled validator against the form (closed: a name the
form does not have is an error too) before the tool sees it. Then it is built into ``T`` (Enum members, the
dataclass, the model: its own validators run). An answer that fails either step raises ``ElicitationError``, a
``ToolError``: the tool may catch it and ask again, and if it does not, the model reads what was wrong. Forms
are compiled once per type.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, Final, Generic, Literal, TypeVar, final

from typing_extensions import is_typeddict

from ._errors import ElicitationError, ToolDefinitionError
from ._json import JSONObject
from ._schema.emit import SchemaEmitter
from ._schema.hints import HintError, HintReader, type_text
from ._schema.model import MISSING, ChoiceNode, Field, MetaNode, ObjectNode, ScalarNode, UnionNode, unwrap
from ._schema.pydantic_support import ModelRejected, is_model_class, problem_lines
from ._validation import Validator, checker_for

__all__ = ["Elicited", "Form", "form_for"]

T = TypeVar("T")

# What MCP's elicitation schema (PrimitiveSchemaDefinition) lets a property say.
_KEYWORDS: Final = frozenset(
    {
        "type",
        "title",
        "description",
        "default",
        "minLength",
        "maxLength",
        "format",
        "minimum",
        "maximum",
        "enum",
        "enumNames",
    }
)
_TYPES: Final = frozenset({"string", "number", "integer", "boolean"})
_FORMATS: Final = frozenset({"email", "uri", "date", "date-time"})


@final
@dataclasses.dataclass(slots=True, frozen=True)
class Elicited(Generic[T]):
    """The user's answer to a typed ``ctx.elicit``: ``content`` is a ``T`` exactly when ``action`` is
    ``"accept"``; ``None`` for ``"decline"`` and ``"cancel"``."""

    action: Literal["accept", "decline", "cancel"]
    content: T | None

    @property
    def data(self) -> T | None:
        """``content`` under the name the official SDK gives it, so its elicitation code runs unchanged."""
        return self.content


@final
@dataclasses.dataclass(slots=True, eq=False)
class Form:
    """A compiled form: the ``requestedSchema`` to send, its closed validator, and the builder of ``T``."""

    schema: JSONObject
    validator: Validator
    build: Callable[[dict[str, Any]], Any]

    def read(self, message: str, content: object) -> Any:
        """The answer built into ``T``; ``ElicitationError`` when it does not fit."""
        if not self.validator.is_valid(content):
            raise ElicitationError(message, self.validator.errors(content))
        assert isinstance(content, dict)
        try:
            return self.build(content)
        except Exception as exc:  # the model's own validators: their words, without pydantic's dump
            raise ElicitationError(message, _problems(exc)) from None


_FORMS: dict[object, Form] = {}


def form_for(target: Mapping[str, Any] | type) -> Form:
    """The form for a dict schema (checked as given) or a TypedDict / dataclass / pydantic model type."""
    if isinstance(target, Mapping):
        schema = dict(target)
        closed = schema if "additionalProperties" in schema else {**schema, "additionalProperties": False}
        return Form(schema, checker_for(closed), dict)
    form = _FORMS.get(target)
    if form is None:
        form = _FORMS[target] = _typed_form(target)
    return form


def _typed_form(cls: Any) -> Form:
    """Read by the parameters' own ``HintReader``, so a form's field says what the same parameter would."""
    label = f"ctx.elicit(..., {type_text(cls)})"
    if not (isinstance(cls, type) and (is_typeddict(cls) or dataclasses.is_dataclass(cls) or is_model_class(cls))):
        raise ToolDefinitionError(
            f"{label}: a form is a TypedDict, a dataclass, a pydantic model or a dict schema, not {cls!r}"
        )
    try:
        node = HintReader().read(cls)
    except HintError as exc:
        raise ToolDefinitionError(f"{label}: {' '.join((*exc.where, exc.message))}") from None
    assert isinstance(node, ObjectNode)
    from ._convert import build_converter  # here: _convert and _schema import each other at start-up

    fields = [_flat(label, field) for field in node.fields]
    emitter = SchemaEmitter([field.node for field in fields])
    schema = emitter.object_schema(fields, None, closed=False)
    for field in fields:
        _check_property(label, field.name, schema["properties"][field.name])
    # Formats are asserted, as for a tool's derived parameters: the builder parses what they promise.
    closed = checker_for({**schema, "additionalProperties": False}, format_assertion=True)
    return Form(schema, closed, build_converter(node) or dict)


def _flat(label: str, field: Field) -> Field:
    """``X | None`` on an optional field is just ``X`` in a form: leaving the field out is how to say none."""
    inner = unwrap(field.node)
    if not field.required and isinstance(inner, UnionNode):
        others = [m for m in inner.members if not (isinstance(m, ScalarNode) and m.json_type == "null")]
        if len(others) == 1:
            node = others[0]
            layer = field.node
            while isinstance(layer, MetaNode):  # keep Annotated descriptions and limits
                node = MetaNode(node, layer.keywords)
                layer = layer.inner
            default = MISSING if field.default is None else field.default  # null is not a form's default
            return Field(field.name, node, required=False, default=default, description=field.description)
    if isinstance(inner, ChoiceNode) and not all(type(value) is str for value in inner.values):
        raise ToolDefinitionError(
            f"{label}: field {field.name!r} is a choice of non-string values; a form's choices are strings "
            "(use an Enum or Literal of str)"
        )
    return field


def _check_property(label: str, name: str, schema: JSONObject) -> None:
    kind = schema.get("type")
    extra = sorted(set(schema) - _KEYWORDS)
    problem = None
    if kind not in _TYPES:
        problem = "is not a string, number, integer, boolean or enum of strings"
    elif extra:
        problem = f"uses {', '.join(extra)}, which a form cannot show"
    elif "format" in schema and schema["format"] not in _FORMATS:
        problem = f"has format {schema['format']!r}; a form knows only {', '.join(sorted(_FORMATS))}"
    if problem is not None:
        raise ToolDefinitionError(
            f"{label}: field {name!r} {problem}; MCP forms are flat objects of strings, numbers, integers, "
            "booleans and string enums (ask for the parts separately, or use str and parse it)"
        )


def _problems(exc: Exception) -> list[str]:
    if isinstance(exc, ModelRejected):  # the model's own validators, in the validator's path style
        return problem_lines((), exc)
    # A ValueError is how a dataclass's __post_init__ refuses a value: its text is the author's to show.
    # Any other exception's text may hold internals, so only its class is named.
    return [f"{type(exc).__name__}: {exc}" if isinstance(exc, ValueError) else type(exc).__name__]
