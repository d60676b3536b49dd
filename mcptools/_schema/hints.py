"""Type hints -> model nodes (``model.py``), with the reason and the fix when a hint cannot be mapped.

Hints arrive already resolved by ``get_type_hints(..., include_extras=True)``, so ``Annotated``,
``Required`` and ``NotRequired`` are still visible and ``from __future__ import annotations`` makes no
difference. A ``HintReader`` lives for one tool: it caches one node per TypedDict/dataclass/NamedTuple,
which is how recursive classes become cycles instead of infinite recursion.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import types
import typing
from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any, Final, final, get_args, get_origin

import typing_extensions
from typing_extensions import is_typeddict

from .._json import JSONObject
from .annotations import resolve_hints
from .docstrings import parse_docstring
from .model import (
    MISSING,
    AnyNode,
    ArrayContainer,
    ArrayNode,
    ChoiceNode,
    DictNode,
    Field,
    MetaNode,
    Node,
    ObjectKind,
    ObjectNode,
    ScalarNode,
    StdNode,
    TupleNode,
    UnionNode,
    in_std_module,
    json_kind,
    union_problem,
)
from .param import Param, param_problem
from .pydantic_support import (
    constraint_keywords,
    field_default,
    field_info_keywords,
    is_computed_field,
    is_field_info,
    is_model_class,
    is_url_class,
    model_extra_allowed,
    model_fields,
)

__all__ = ["HintError", "HintReader", "param_keywords", "strip_qualifiers", "type_text"]


def _forms(name: str) -> tuple[object, ...]:
    """A special form from typing and typing_extensions (distinct objects on older Pythons)."""
    found = [getattr(module, name) for module in (typing, typing_extensions) if hasattr(module, name)]
    return tuple(dict.fromkeys(found))


_ANNOTATED: Final = _forms("Annotated")
_LITERAL: Final = _forms("Literal")
_UNION: Final = (typing.Union, types.UnionType)


def _is_null(node: Node) -> bool:
    return isinstance(node, ScalarNode) and node.json_type == "null"


_REQUIRED: Final = _forms("Required")
_NOT_REQUIRED: Final = _forms("NotRequired")
_READ_ONLY: Final = _forms("ReadOnly")
_QUALIFIERS: Final = _REQUIRED + _NOT_REQUIRED + _READ_ONLY
_ALIAS_TYPES: Final = tuple(
    dict.fromkeys(
        module.TypeAliasType
        for module in (typing, typing_extensions)
        if isinstance(getattr(module, "TypeAliasType", None), type)
    )
)

_NO_EXTRA_ITEMS: Final = getattr(typing_extensions, "NoExtraItems", None)
_ARRAYS: Final[dict[object, ArrayContainer]] = {
    list: "list",
    collections.abc.Sequence: "list",
    collections.abc.MutableSequence: "list",
    collections.abc.Collection: "list",
    collections.abc.Iterable: "list",
    set: "set",
    collections.abc.MutableSet: "set",
    frozenset: "frozenset",
    collections.abc.Set: "frozenset",
}
_MAPPINGS: Final = frozenset({dict, collections.abc.Mapping, collections.abc.MutableMapping})
_SCALARS: Final[dict[object, str]] = {str: "string", bool: "boolean", int: "integer", float: "number"}

_GENERIC_FIX: Final = (
    "use a JSON-shaped type (str, int, float, bool, list, dict, Literal, an Enum, a TypedDict, a "
    "dataclass, a pydantic model, or a datetime, date, time, timedelta, UUID, Decimal, Path, bytes or IP "
    "address), "
    "or pass input_schema=..."
)


class HintError(Exception):
    """An unusable hint: ``where`` locates it inside the parameter's type, ``message`` says why.

    ``foreign`` marks a type that is simply not JSON-shaped (a datetime, a content block class), as opposed to
    a mistake in a JSON-shaped one (a Param that does not fit, an ambiguous union): a return annotation of a
    foreign type just means the result is not structured.
    """

    def __init__(self, message: str, where: tuple[str, ...] = (), *, foreign: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.where = where
        self.foreign = foreign


def type_text(hint: object) -> str:
    """How a type is named in messages: ``int``, ``datetime.datetime``, ``list[app.Point]``."""
    if isinstance(hint, type) and not get_args(hint):
        if hint.__module__ == "builtins":
            return hint.__qualname__
        return f"{hint.__module__}.{hint.__qualname__}"
    if hint is type(None):
        return "None"
    return repr(hint).replace("typing_extensions.", "typing.")


def strip_qualifiers(hint: object) -> tuple[object, bool | None]:
    """Remove ``Required``/``NotRequired``/``ReadOnly`` (also under ``Annotated``); report which was seen."""
    required: bool | None = None
    metadata: tuple[object, ...] = ()
    while True:
        origin = get_origin(hint)
        if origin in _ANNOTATED:
            metadata = metadata + tuple(getattr(hint, "__metadata__", ()))
            hint = get_args(hint)[0]
        elif origin in _QUALIFIERS:
            if origin in _REQUIRED:
                required = True
            elif origin in _NOT_REQUIRED:
                required = False
            hint = get_args(hint)[0]
        else:
            break
    if metadata:
        arguments = (hint, *metadata)
        hint = typing_extensions.Annotated[arguments]
    return hint, required


@final
class HintReader:
    """Reads the hints of one tool into nodes; object nodes are shared per class (recursion stays finite)."""

    __slots__ = ("_aliases", "_fallback", "_localns", "_objects", "_output")

    def __init__(
        self,
        localns: Mapping[str, Any] | None = None,
        *,
        fallback: Callable[[HintReader, type], Node | None] | None = None,
        output: bool = False,
    ) -> None:
        self._objects: dict[object, ObjectNode] = {}
        self._aliases: set[int] = set()
        self._localns = localns
        # Asked about a class no rule here maps, before it is refused: how a return annotation reads the
        # types a tool may return but never take (``_schema/outputs.py``).
        self._fallback = fallback
        # Reading a return annotation: a pydantic model is the object its model_dump(by_alias=True) writes.
        self._output = output

    def shared(self, hint: object, make: Callable[[], ObjectNode]) -> tuple[ObjectNode, bool]:
        """The one object node for ``hint`` in this reader (made by ``make`` the first time), and whether it
        is new (its fields are then the caller's to fill: a class may contain itself)."""
        node = self._objects.get(hint)
        if node is not None:
            return node, False
        node = self._objects[hint] = make()
        return node, True

    def read_inside(self, hint: object, where: str) -> Node:
        """``read``, with ``where`` added to the location of any error."""
        return self._inside(hint, where)

    def resolve(self, cls: type) -> dict[str, Any]:
        """The resolved annotations of ``cls``, with this reader's local names."""
        return resolve_hints(cls, self._localns)

    def read(self, hint: object) -> Node:
        if hint is Any or hint is object:
            return AnyNode()
        if hint is None or hint is type(None):
            return ScalarNode("null")
        if isinstance(hint, _ALIAS_TYPES):
            return self._alias(hint)
        supertype = getattr(hint, "__supertype__", None)
        if supertype is not None:  # NewType: the same value at run time
            return self.read(supertype)
        origin = get_origin(hint)
        if origin is None:
            return self._plain(hint)
        args = get_args(hint)
        if origin in _ANNOTATED:
            return self._annotated(args[0], tuple(getattr(hint, "__metadata__", ())))
        if origin in _UNION:
            return self._union(args)
        if origin in _LITERAL:
            return self._literal(hint, args)
        if origin in _QUALIFIERS:
            raise HintError(
                f"{type_text(hint)} only means something on a TypedDict key; remove it here",
            )
        if origin in _ARRAYS:
            item = self._inside(args[0], f"the items of {type_text(hint)}") if args else AnyNode()
            return ArrayNode(item, _ARRAYS[origin])
        if origin is tuple:
            if hint is typing.Tuple:  # bare, like tuple: any length (tuple[()] also has no args)  # noqa: UP006
                return ArrayNode(AnyNode(), "tuple")
            return self._tuple(args)
        if origin in _MAPPINGS:
            return self._mapping(hint, args)
        if isinstance(origin, type) and (is_typeddict(origin) or dataclasses.is_dataclass(origin)):
            return self._object(hint, origin, args)
        raise self._unmappable(hint)

    def _inside(self, hint: object, where: str) -> Node:
        try:
            return self.read(hint)
        except HintError as exc:
            raise HintError(exc.message, (where, *exc.where), foreign=exc.foreign) from None

    def _plain(self, hint: object) -> Node:
        if isinstance(hint, type):
            if issubclass(hint, Enum):
                return self._enum(hint)
            scalar = _SCALARS.get(hint)
            if scalar is not None:
                return ScalarNode(scalar)
            container = _ARRAYS.get(hint)
            if container is not None:
                return ArrayNode(AnyNode(), container)
            if hint is tuple:
                return ArrayNode(AnyNode(), "tuple")
            if hint in _MAPPINGS:
                return DictNode(None, AnyNode())
            if hint is bytes or in_std_module(hint):
                from .stdtypes import std_type_of

                std = std_type_of(hint)
                if std is not None:
                    return StdNode(std)
            if is_url_class(hint):  # AnyUrl, HttpUrl, FileUrl...: a string in URL form (urls.py)
                from .urls import url_type

                try:
                    return StdNode(url_type(hint))
                except ValueError as exc:
                    raise HintError(
                        f"the URL type {type_text(hint)} {exc}; use AnyUrl, or a URL class whose allowed "
                        "schemes are scheme names"
                    ) from None
            if is_model_class(hint):
                return self._model(hint)
            if is_typeddict(hint) or dataclasses.is_dataclass(hint):
                return self._object(hint, hint, ())
            if issubclass(hint, tuple) and hasattr(hint, "_fields"):
                return self._object(hint, hint, ())
        if isinstance(hint, (str, typing.ForwardRef)):
            raise HintError(
                f"the annotation {hint!r} could not be resolved; define that name at module level or import it"
            )
        if isinstance(hint, typing.TypeVar):
            return self._typevar(hint)
        if self._fallback is not None and isinstance(hint, type):
            node = self._fallback(self, hint)
            if node is not None:
                return node
        raise self._unmappable(hint)

    def _unmappable(self, hint: object) -> HintError:
        text = type_text(hint)
        return HintError(
            f"has annotation {text}, which mcptools cannot map to JSON Schema; {_GENERIC_FIX}", foreign=True
        )

    def _alias(self, alias: Any) -> Node:
        if id(alias) in self._aliases:
            raise HintError(
                f"the type alias {alias.__name__} refers to itself; recursive aliases are not supported, "
                "use a recursive dataclass or TypedDict instead"
            )
        self._aliases.add(id(alias))
        try:
            return self.read(alias.__value__)
        finally:
            self._aliases.discard(id(alias))

    def _typevar(self, var: typing.TypeVar) -> Node:
        if var.__bound__ is not None:
            return self.read(var.__bound__)
        if var.__constraints__:
            return self._union(var.__constraints__)
        return AnyNode()

    def _annotated(self, inner_hint: object, metadata: tuple[object, ...]) -> Node:
        inner = self.read(inner_hint)
        keywords: JSONObject = {}
        for given in metadata:
            item = given
            if isinstance(item, str):
                keywords["description"] = item
                continue
            if is_field_info(item):
                if field_default(item)[0] is False:
                    raise HintError(
                        f"{item!r} inside Annotated sets a default; write it after '=' "
                        "(x: Annotated[int, Field(...)] = 3)"
                    )
                found = field_info_keywords(item, inner.kinds, for_parameter=False)
                if isinstance(found, str):
                    raise HintError(f"{item!r} {found}")
                item = Param(**found)
            else:
                constraint = constraint_keywords(item, inner.kinds)
                if isinstance(constraint, str):
                    raise HintError(constraint)
                if constraint is not None:
                    item = Param(**constraint)
            if isinstance(item, Param):
                keywords.update(param_keywords(item, inner.kinds, type_text(inner_hint)))
        return MetaNode(inner, keywords) if keywords else inner

    def _model(self, cls: type) -> Node:
        """A pydantic model: its fields by JSON name, each with what its FieldInfo says."""
        node = self._objects.get(cls)
        if node is not None:
            return node
        node = ObjectNode(cls, "pydantic", parse_docstring(_own_doc(cls)).description)
        self._objects[cls] = node
        try:
            found = model_fields(cls, output=self._output)
        except ValueError as exc:
            raise HintError(str(exc)) from None
        fields: list[Field] = []
        for name, annotation, info in found:
            where = f"field {name!r} of {type_text(cls)}"
            field_node = self._inside(annotation, where)
            if is_computed_field(info):  # only in a result: always written, described by its decorator
                fields.append(Field(name, field_node, required=True, description=info.description))
                continue
            field = self.field_from_info(name, field_node, info, where)
            if self._output and getattr(info, "exclude_if", None) is not None:
                field = dataclasses.replace(field, required=False)  # left out of the dump for some values
            fields.append(field)
        node.fields = tuple(fields)
        if model_extra_allowed(cls):
            node.extra = AnyNode()
        return node

    def field_from_info(self, name: str, node: Node, info: Any, where: str, *, parameter: bool = False) -> Field:
        """A field (or parameter) whose ``pydantic.Field(...)`` says its description, default and constraints."""
        found = field_info_keywords(info, node.kinds, for_parameter=parameter)
        if isinstance(found, str):
            raise HintError(found, (where,))
        description = found.pop("description", None)
        if found:
            node = MetaNode(node, param_keywords(Param(**found), node.kinds, where, (where,)))
        required, default, factory = field_default(info)
        if required:
            return Field(name, node, required=True, description=description)
        return Field(name, node, required=False, default=_FACTORY if factory else default, description=description)

    def _union(self, args: tuple[object, ...]) -> Node:
        pairs = [(self._inside(arg, f"the union member {type_text(arg)}"), arg) for arg in args]
        # Optional[Annotated[X | None, ...]]: the outer None adds nothing when another member already takes null,
        # and keeping it would make null ambiguous between two members.
        if any(_is_null(node) for node, _ in pairs) and any(
            "null" in node.kinds and not _is_null(node) for node, _ in pairs
        ):
            pairs = [(node, arg) for node, arg in pairs if not _is_null(node)]
        members = tuple(node for node, _ in pairs)
        if len(members) == 1:
            return members[0]
        problem = union_problem(members, [type_text(arg) for _, arg in pairs])
        if problem is not None:
            raise HintError(problem)
        return UnionNode(members)

    def _literal(self, hint: object, args: tuple[object, ...]) -> Node:
        values: list[object] = []
        members: list[object] = []
        for arg in args:
            value = arg.value if isinstance(arg, Enum) else arg
            if json_kind(value) not in ("string", "integer", "boolean", "null"):
                raise HintError(
                    f"{type_text(hint)} has the value {arg!r}, which is not a JSON string, integer, boolean "
                    "or null; use one of those"
                )
            values.append(value)
            members.append(arg)
        if values == [None]:
            return ScalarNode("null")
        converts = any(isinstance(member, Enum) for member in members)
        return ChoiceNode(tuple(values), tuple(members) if converts else None)

    def _enum(self, cls: type[Enum]) -> Node:
        members = tuple(cls)
        if not members:
            raise HintError(f"the Enum {type_text(cls)} has no members; give it at least one")
        values = tuple(member.value for member in members)
        for member, value in zip(members, values, strict=True):
            if json_kind(value) not in ("string", "integer", "number", "boolean", "null"):
                raise HintError(
                    f"the Enum member {type_text(cls)}.{member.name} has the value {value!r}, which is not a "
                    "JSON scalar; give the Enum str or int values"
                )
        node = ChoiceNode(values, members)
        description = _own_doc(cls)
        return MetaNode(node, {"description": description}) if description else node

    def _tuple(self, args: tuple[object, ...]) -> Node:
        if len(args) == 2 and args[1] is Ellipsis:
            return ArrayNode(self._inside(args[0], f"the items of tuple[{type_text(args[0])}, ...]"), "tuple")
        if args == ((),):  # typing.Tuple[()] on older Pythons
            args = ()
        return TupleNode(tuple(self._inside(arg, f"tuple item {index}") for index, arg in enumerate(args)))

    def _mapping(self, hint: object, args: tuple[object, ...]) -> Node:
        if not args:
            return DictNode(None, AnyNode())
        key_hint, value_hint = args
        key: ChoiceNode | None = None
        if key_hint is not str and key_hint is not Any:
            key_node = self._inside(key_hint, f"the keys of {type_text(hint)}")
            if not isinstance(key_node, ChoiceNode) or key_node.kinds != {"string"}:
                raise HintError(
                    f"has annotation {type_text(hint)}, but JSON object keys are strings; use str keys "
                    "(or a Literal / Enum of strings)"
                )
            key = key_node
        return DictNode(key, self._inside(value_hint, f"the values of {type_text(hint)}"))

    def _object(self, hint: object, cls: type, args: tuple[object, ...]) -> Node:
        node = self._objects.get(hint)
        if node is not None:
            return node
        kind: ObjectKind
        if is_typeddict(cls):
            kind = "typeddict"
        elif dataclasses.is_dataclass(cls):
            kind = "dataclass"
        else:
            kind = "namedtuple"
        doc = parse_docstring(_own_doc(cls))
        node = ObjectNode(cls, kind, doc.description)
        self._objects[hint] = node
        try:
            hints = resolve_hints(cls, self._localns)
        except Exception as exc:
            raise HintError(
                f"the annotations of {type_text(cls)} could not be resolved ({exc}); define the names they "
                "use at module level or import them"
            ) from None
        substitutions = dict(zip(getattr(cls, "__parameters__", ()), args, strict=False))
        names = _field_names(cls, kind, hints)
        fields: list[Field] = []
        for name, default in names:
            field_hint, required = strip_qualifiers(_substitute(hints[name], substitutions))
            if isinstance(field_hint, dataclasses.InitVar):
                field_hint = field_hint.type
            field_node = self._inside(field_hint, f"field {name!r} of {type_text(cls)}")
            if is_field_info(default):
                fields.append(self.field_from_info(name, field_node, default, f"field {name!r} of {type_text(cls)}"))
                continue
            if kind == "typeddict":
                # __required_keys__ misses Required/NotRequired written as strings (``from __future__ import
                # annotations``), so the resolved qualifier decides and the class's totality is the fallback.
                by_totality = name in getattr(cls, "__required_keys__", ())
                is_required = required if required is not None else by_totality
            else:
                is_required = default is MISSING
            fields.append(
                Field(name, field_node, required=is_required, default=default, description=doc.params.get(name))
            )
        node.fields = tuple(fields)
        extra_items = getattr(cls, "__extra_items__", _NO_EXTRA_ITEMS)
        if kind == "typeddict" and extra_items is not _NO_EXTRA_ITEMS:
            extra_hint, _ = strip_qualifiers(_substitute(extra_items, substitutions))
            node.extra = self._inside(extra_hint, f"the extra items of {type_text(cls)}")
        return node


def param_keywords(param: Param, kinds: frozenset[str], text: str, where: tuple[str, ...] = ()) -> JSONObject:
    """The keywords ``param`` publishes on a type of JSON ``kinds``; a HintError if it does not fit."""
    problem = param_problem(param, kinds, text)
    if problem is not None:
        raise HintError(problem, where)
    return param.keywords()


def _field_names(cls: type, kind: ObjectKind, hints: dict[str, Any]) -> list[tuple[str, object]]:
    """(name, Python default or MISSING) for each field a caller may set, in declaration order."""
    if kind == "typeddict":
        return [(name, MISSING) for name in hints]
    if kind == "namedtuple":
        defaults: dict[str, object] = getattr(cls, "_field_defaults", {})
        return [(name, defaults.get(name, MISSING)) for name in getattr(cls, "_fields", ())]
    out: list[tuple[str, object]] = []
    for field in getattr(cls, "__dataclass_fields__", {}).values():
        if not field.init or field._field_type is dataclasses._FIELD_CLASSVAR:  # type: ignore[attr-defined]
            continue
        if field.default is not dataclasses.MISSING:
            out.append((field.name, field.default))
        elif field.default_factory is not dataclasses.MISSING:
            # A factory's value is not known without calling user code; the field is optional all the same.
            out.append((field.name, _FACTORY))
        else:
            out.append((field.name, MISSING))
    return out


@final
class _Factory:
    __slots__ = ()


_FACTORY: Final = _Factory()


def _substitute(hint: object, substitutions: dict[Any, object]) -> object:
    if not substitutions:
        return hint
    if isinstance(hint, typing.TypeVar):
        return substitutions.get(hint, hint)
    parameters = getattr(hint, "__parameters__", ())
    if parameters:
        return hint[tuple(substitutions.get(p, p) for p in parameters)]  # type: ignore[index]
    return hint


def _own_doc(cls: type) -> str | None:
    """The class docstring its author wrote, not one generated by dataclass/NamedTuple/Enum."""
    doc = cls.__dict__.get("__doc__")
    if not isinstance(doc, str) or doc.startswith(f"{cls.__name__}(") or doc == "An enumeration.":
        return None
    return doc
