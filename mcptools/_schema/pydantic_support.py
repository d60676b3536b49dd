"""pydantic v2 and annotated-types, read without depending on them.

pydantic is never imported by mcptools: a class can only be a ``BaseModel`` if the user's code already imported
pydantic, so every test first looks in ``sys.modules``. annotated-types constraints (``Ge(1)``, ``MaxLen(3)``)
are recognised by their module name and read through their attributes, so they need no import either.

What is read: a model's fields (JSON names are aliases when set, as pydantic validates by alias), their
annotations and ``FieldInfo`` (description, title, examples, default or factory, deprecated, constraints), the
model's ``extra`` setting, the same ``FieldInfo`` used in ``Annotated`` or as a parameter's default, and
whether a class is one of pydantic's URL types (``_schema/urls.py`` maps those). What
cannot be mapped (``json_schema_extra``, an ``AliasPath``, a constraint with no JSON Schema keyword) is
reported, never dropped. Values are built with ``model_validate``, so the model's own validators run; their
``ValidationError`` becomes ``ModelRejected``, which the argument converter words as an invalid argument.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable
from typing import Any, Final, final

from .._validation.messages import invalid_arguments, render_path

__all__ = [
    "ModelRejected",
    "build_model",
    "constraint_keywords",
    "field_default",
    "field_filler",
    "field_info_fills",
    "field_info_keywords",
    "is_computed_field",
    "is_field_info",
    "is_model_class",
    "is_pydantic_dataclass",
    "is_url_class",
    "is_url_value",
    "model_extra_allowed",
    "model_fields",
    "problem_lines",
    "rejection_text",
]


def is_model_class(cls: object) -> bool:
    """Whether ``cls`` is a pydantic ``BaseModel`` subclass (False, and no import, when pydantic is not loaded)."""
    pydantic = sys.modules.get("pydantic")
    return pydantic is not None and isinstance(cls, type) and issubclass(cls, pydantic.BaseModel)


def is_pydantic_dataclass(cls: object) -> bool:
    return isinstance(cls, type) and "pydantic" in sys.modules and hasattr(cls, "__pydantic_validator__")


def _url_bases() -> tuple[type, ...]:
    networks = sys.modules.get("pydantic.networks")
    if networks is None:
        return ()
    return tuple(
        base
        for base in (getattr(networks, "_BaseUrl", None), getattr(networks, "_BaseMultiHostUrl", None))
        if isinstance(base, type)
    )


def is_url_class(cls: object) -> bool:
    """Whether ``cls`` is one of pydantic's URL classes or a subclass (False, and no import, when pydantic's
    networks module is not loaded)."""
    bases = _url_bases()
    return bool(bases) and isinstance(cls, type) and issubclass(cls, bases)


def is_url_value(value: object) -> bool:
    bases = _url_bases()
    return bool(bases) and isinstance(value, bases)


def is_field_info(value: object) -> bool:
    """Whether ``value`` is a ``pydantic.Field(...)`` (a ``FieldInfo``)."""
    fields = sys.modules.get("pydantic.fields")
    return fields is not None and isinstance(value, fields.FieldInfo)


# annotated-types class name -> (attribute, Param field); MinLen/MaxLen depend on the type (see below).
_BOUNDS: Final = (("gt", "exclusive_minimum"), ("ge", "minimum"), ("lt", "exclusive_maximum"), ("le", "maximum"))
_LENGTH_FIELDS: Final = (
    ("string", "min_length", "max_length"),
    ("array", "min_items", "max_items"),
    ("object", "min_properties", "max_properties"),
)
# pydantic metadata that cannot change which JSON values are accepted (we are strict already; JSON has no NaN).
_HARMLESS: Final = frozenset({"strict", "allow_inf_nan", "fail_fast", "union_mode"})


def constraint_keywords(item: object, kinds: frozenset[str]) -> dict[str, Any] | str | None:
    """``Param`` fields for one annotated-types / pydantic metadata item; None if it is not one; a problem text
    (ending with the fix) when it is one we cannot map."""
    module = type(item).__module__
    if not (module == "annotated_types" or module.startswith("pydantic")):
        return None
    name = type(item).__name__
    out: dict[str, Any] = {}
    if name in ("Gt", "Ge", "Lt", "Le", "Interval"):
        for attribute, field in _BOUNDS:
            value = getattr(item, attribute, None)
            if value is not None:
                out[field] = value
        return out
    if name == "MultipleOf":
        return {"multiple_of": item.multiple_of}  # type: ignore[attr-defined]
    if name in ("MinLen", "MaxLen", "Len"):
        low = getattr(item, "min_length", None)
        high = getattr(item, "max_length", None)
        for kind, low_field, high_field in _LENGTH_FIELDS:
            if kind in kinds:
                if low:
                    out[low_field] = low
                if high is not None:
                    out[high_field] = high
                return out
        return f"{item!r} limits a length, but the type has none (it is not a string, array or object)"
    if name == "Strict":
        return out
    if name == "StringConstraints" and "string" in kinds:  # constr(...) / Annotated[str, StringConstraints(...)]
        for key in ("min_length", "max_length", "pattern"):
            value = getattr(item, key, None)
            if value is not None:
                out[key] = value if isinstance(value, (int, str)) else getattr(value, "pattern", value)
        for key in ("strip_whitespace", "to_upper", "to_lower", "ascii_only"):
            if getattr(item, key, None):
                # It changes or narrows the string in pydantic's own validation, which a parameter never gets.
                return f"pydantic's {key}=True has no JSON Schema keyword mcptools publishes; remove it"
        return out
    if name == "_PydanticGeneralMetadata":
        for key, value in vars(item).items():
            if key == "pattern":
                out["pattern"] = value
            elif key not in _HARMLESS:
                return f"pydantic's {key}={value!r} has no JSON Schema keyword mcptools publishes; remove it"
        return out
    return (
        f"{item!r} has no JSON Schema keyword mcptools publishes; express it with Param(...) or a validator in "
        "a pydantic model"
    )


def field_info_keywords(info: Any, kinds: frozenset[str], *, for_parameter: bool) -> dict[str, Any] | str:
    """``Param`` fields for a ``FieldInfo`` (its metadata included), or what cannot be mapped."""
    if info.json_schema_extra is not None:
        return "sets json_schema_extra, which mcptools does not copy into schemas; remove it, or use Param(...)"
    if for_parameter and (info.alias is not None or info.validation_alias is not None):
        return "sets an alias, but a tool parameter's name is its JSON name; rename the parameter instead"
    if not for_parameter and info.validation_alias is not None and not isinstance(info.validation_alias, str):
        return "sets an AliasPath/AliasChoices validation_alias, which mcptools cannot map; use a plain alias"
    out: dict[str, Any] = {}
    for item in info.metadata:
        if isinstance(item, str):
            out["description"] = item
            continue
        found = constraint_keywords(item, kinds)
        if isinstance(found, str):
            return found
        if found is None:
            return f"carries {item!r}, which mcptools cannot map to JSON Schema; remove it"
        out.update(found)
    if info.description is not None:
        out["description"] = info.description
    if info.title is not None:
        out["title"] = info.title
    if info.examples is not None:
        out["examples"] = list(info.examples)
    if info.deprecated:
        out["deprecated"] = True
    return out


def field_default(info: Any) -> tuple[bool, object, Any]:
    """(required, default or ``factory`` marker, the factory or None) of a ``FieldInfo``."""
    if info.is_required():
        return True, None, None
    if info.default_factory is not None:
        return False, None, info.default_factory
    return False, info.default, None


def field_filler(info: Any) -> Callable[[], Any]:
    """What a left-out value is made of when its default is a ``FieldInfo`` (a parameter's, or a stdlib
    dataclass or NamedTuple field's, whose class would otherwise hold the FieldInfo itself): the factory, the
    default, or a fresh copy of a mutable default for each call."""
    _, default, factory = field_default(info)
    if factory is not None:
        return factory  # type: ignore[no-any-return]
    if default is None or isinstance(default, (str, int, float, bool, bytes, tuple, frozenset)):
        return lambda: default
    return lambda: copy.deepcopy(default)


def model_fields(cls: Any, *, output: bool = False) -> list[tuple[str, Any, Any]]:
    """(JSON name, annotation, FieldInfo) of each field; a model with unresolved annotations is a problem.

    ``output``: the fields as a returned model is written (``model_dump(by_alias=True)``): by their
    serialization alias, without ``exclude=True`` fields, and with its ``@computed_field`` properties (their
    FieldInfo is pydantic's ``ComputedFieldInfo``). Taken as a parameter, the names are the validation ones."""
    if not getattr(cls, "__pydantic_complete__", True):
        raise ValueError(
            f"the pydantic model {cls.__qualname__} is not fully defined (a forward reference is unresolved); "
            f"define the names it uses, then call {cls.__qualname__}.model_rebuild()"
        )
    if getattr(cls, "__pydantic_root_model__", False):
        raise ValueError(
            f"the pydantic RootModel {cls.__qualname__} is not mapped (it is its root value, not an object); "
            "annotate with its root type instead"
        )
    out: list[tuple[str, Any, Any]] = []
    for name, info in cls.model_fields.items():
        if output:
            if info.exclude is True:
                continue
            alias = info.serialization_alias if isinstance(info.serialization_alias, str) else info.alias
        else:
            alias = info.validation_alias if isinstance(info.validation_alias, str) else info.alias
        out.append((alias or name, info.annotation, info))
    if output:
        computed: dict[str, Any] = getattr(cls, "__pydantic_computed_fields__", None) or {}
        for name, info in computed.items():
            returns = info.return_type
            if type(returns).__name__ == "PydanticUndefinedType":  # a property without a return annotation
                returns = Any
            out.append((info.alias or name, returns, info))
    return out


def is_computed_field(info: object) -> bool:
    """Whether ``info`` (from ``model_fields(..., output=True)``) is a ``@computed_field``'s."""
    return type(info).__name__ == "ComputedFieldInfo"


def model_extra_allowed(cls: Any) -> bool:
    """Only ``extra="allow"`` opens the schema: ``ignore`` (pydantic's default) would drop a misspelt name
    silently, so we refuse it instead, and ``forbid`` is what we do anyway."""
    return bool(cls.model_config.get("extra") == "allow")


@final
class ModelRejected(Exception):
    """A model's own validation refused a value our schema passed: ``problems`` are (path parts, message).

    ``ours``: the converter's own check refused it (a bound on a Decimal's string form), so the lines are in the
    validator's voice (``property 'price' must be >= 0``), not the model's (``property 'qty': must be even``)."""

    def __init__(self, problems: list[tuple[tuple[str | int, ...], str]], *, ours: bool = False) -> None:
        super().__init__(problems)
        self.problems = problems
        self.ours = ours


_PREFIXES: Final = ("Value error, ", "Assertion failed, ")


def build_model(cls: Any, value: Any) -> Any:
    """``cls.model_validate(value)`` (or ``cls(**value)`` for a pydantic dataclass); a ``ValidationError``
    becomes ``ModelRejected`` with plain messages, never pydantic's multi-line dump."""
    pydantic = sys.modules["pydantic"]
    try:
        if isinstance(cls, type) and issubclass(cls, pydantic.BaseModel):
            return cls.model_validate(value)  # type: ignore[attr-defined]
        return cls(**value)
    except pydantic.ValidationError as exc:
        problems: list[tuple[tuple[str | int, ...], str]] = []
        for error in exc.errors(include_url=False):
            message = str(error.get("msg", "is invalid"))
            for prefix in _PREFIXES:
                message = message.removeprefix(prefix)
            problems.append((tuple(error.get("loc", ())), message))
        raise ModelRejected(problems) from None


def problem_lines(prefix: tuple[str | int, ...], rejected: ModelRejected) -> list[str]:
    """``property 'order.quantity': must be even`` per problem, the path written as the validator writes its
    own (``d["a.b"].n``, ``t[1].n``), so a model's own complaint reads like ours."""
    lines: list[str] = []
    joint = " " if rejected.ours else ": "
    for loc, message in rejected.problems:
        path = (*prefix, *loc)
        lines.append(f"property '{render_path(path)}'{joint}{message}" if path else message)
    return lines


def rejection_text(prefix: tuple[str | int, ...], rejected: ModelRejected) -> str:
    """``Invalid arguments: property 'order.quantity': must be even; ...``."""
    return invalid_arguments(problem_lines(prefix, rejected))


def field_info_fills(cls: type) -> tuple[tuple[str, Callable[[], Any]], ...]:
    """A stdlib dataclass or NamedTuple field whose default is a ``pydantic.Field(...)``: the schema reads it as
    metadata, and a value that leaves the field out must get its default, not the FieldInfo the class holds."""
    fields = getattr(cls, "__dataclass_fields__", None)
    defaults: dict[str, object] = (
        {name: field.default for name, field in fields.items()}
        if fields is not None
        else getattr(cls, "_field_defaults", {})
    )
    return tuple((name, field_filler(default)) for name, default in defaults.items() if is_field_info(default))
