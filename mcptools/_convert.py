"""Validated JSON arguments -> the Python values a tool's annotations promise, compiled once per tool.

Conversion runs only after validation, so a converter may assume the value has the shape its schema describes
(a dataclass is never built from bad data: validation already went as deep as the schema). Everything that can
be decided from the types is decided here, at definition time: each converter is a closure over the converters
of its parts, and a part that needs no conversion has none, so a tool taking ``str`` and ``int`` gets no
converter at all and pays nothing per call.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any, Final, final

from ._errors import ToolError
from ._schema.model import (
    ArrayNode,
    ChoiceNode,
    DictNode,
    Field,
    MetaNode,
    Node,
    ObjectNode,
    StdNode,
    TupleNode,
    UnionNode,
    disjoint_formats,
    find_tag,
    unwrap,
)
from ._schema.pydantic_support import (
    ModelRejected,
    build_model,
    field_info_fills,
    is_pydantic_dataclass,
    rejection_text,
)
from ._validation.messages import keyword_predicate

__all__ = ["Converter", "build_arguments_converter", "build_converter"]

Converter = Callable[[Any], Any]

_PYTHON_TYPES_OF_KIND: Final[dict[str, tuple[type, ...]]] = {
    "null": (type(None),),
    "boolean": (bool,),
    "integer": (int,),
    "number": (float,),
    "string": (str,),
    "array": (list, tuple),
    "object": (dict,),
}


def build_converter(node: Node) -> Converter | None:
    """JSON value -> Python value for ``node``; None when the JSON value already is the Python value."""
    return _Builder([node]).build(node)


def build_arguments_converter(
    fields: Sequence[Field],
    extra: Node | None,
    fills: Sequence[tuple[str, Callable[[], Any]]] = (),
) -> Callable[[dict[str, Any]], dict[str, Any]] | None:
    """Arguments -> keyword arguments; ``extra`` converts names that are not fields (``**kwargs: T``).

    ``fills`` make the value of a parameter the call leaves out whose Python default is not its value (a
    ``pydantic.Field(...)`` default: the function must get the default or the factory's product, not the
    FieldInfo).
    """
    roots = [field.node for field in fields] + ([extra] if extra is not None else [])
    builder = _Builder(roots)
    pairs = [(field.name, builder.build(field.node)) for field in fields]
    converted = tuple(
        (field.name, _naming(field.name, convert) if _may_refuse(field.node, set()) else convert)
        for field, (_, convert) in zip(fields, pairs, strict=True)
        if convert is not None
    )
    extra_convert = builder.build(extra) if extra is not None else None
    if fills:
        return _filling(_arguments(converted, extra_convert, fields), tuple(fills))
    return _arguments(converted, extra_convert, fields)


def _may_refuse(node: Node, seen: set[int]) -> bool:
    """Whether building a value of this type may refuse it after validation passed: a pydantic model's own
    validators, a bound on the string form of a Decimal / timedelta (see ``_bounds``), or a standard type's
    value Python cannot hold."""
    if isinstance(node, MetaNode) and _bounds(node) and _std_strings(node.inner):
        return True
    node = unwrap(node)
    if isinstance(node, StdNode):  # a value in the published form that Python cannot hold (year 0000)
        return True
    if isinstance(node, ObjectNode):
        if id(node) in seen:
            return False
        seen.add(id(node))
        if node.kind == "pydantic" or is_pydantic_dataclass(node.cls):
            return True
        extra = node.extra is not None and _may_refuse(node.extra, seen)
        return extra or any(_may_refuse(field.node, seen) for field in node.fields)
    if isinstance(node, ArrayNode):
        return _may_refuse(node.item, seen)
    if isinstance(node, DictNode):
        return _may_refuse(node.value, seen)
    if isinstance(node, (TupleNode, UnionNode)):
        members = node.items if isinstance(node, TupleNode) else node.members
        return any(_may_refuse(member, seen) for member in members)
    return False


# JSON Schema applies minimum & co. to numbers only, so a Decimal or timedelta that also arrives as a string
# ("12.50", "PT1H") would pass any bound in that form: the converter holds the string form to the same bounds,
# after parsing, in the validator's words (a timedelta counts in seconds, as its number form does).
_BOUND_TESTS: Final[dict[str, Callable[[Any, Any], bool]]] = {
    "minimum": operator.ge,
    "maximum": operator.le,
    "exclusiveMinimum": operator.gt,
    "exclusiveMaximum": operator.lt,
    "multipleOf": lambda value, step: value % step == 0,
}


def _bounds(node: MetaNode) -> list[tuple[str, Any]]:
    return [(keyword, node.keywords[keyword]) for keyword in _BOUND_TESTS if keyword in node.keywords]


def _std_strings(node: Node) -> bool:
    """Whether a Decimal / timedelta (a type with both a number and a string form) is among ``node``'s values."""
    node = unwrap(node)
    if isinstance(node, StdNode):
        return "string" in node.std.json_types and "number" in node.std.json_types
    return isinstance(node, UnionNode) and any(_std_strings(member) for member in node.members)


def _bounded(convert: Converter, bounds: list[tuple[str, Any]]) -> Converter:
    # Imported here, at definition time of a tool that has such a bound: importing mcptools stays free of them.
    import datetime as dt
    from decimal import Decimal

    def exact(value: Any) -> Decimal:
        if isinstance(value, dt.timedelta):
            return Decimal(value.days * 86400 + value.seconds) + Decimal(value.microseconds).scaleb(-6)
        if isinstance(value, float):
            return Decimal(repr(value))  # the bound as written (0.1), not its binary neighbour
        return Decimal(value)

    checks = [(keyword, bound, _BOUND_TESTS[keyword], exact(bound)) for keyword, bound in bounds]

    def convert_bounded(value: Any) -> Any:
        out = convert(value)
        if type(value) is str:  # a number was held to the bounds by the validator already
            number = exact(out)
            for keyword, bound, test, limit in checks:
                if not test(number, limit):
                    raise ModelRejected([((), keyword_predicate(keyword, bound))], ours=True)
        return out

    return convert_bounded


def _within(part: str | int, rejected: ModelRejected) -> ModelRejected:
    """A model's rejection seen from one level up: its paths start with the key or index it sits under."""
    return ModelRejected([((part, *loc), text) for loc, text in rejected.problems], ours=rejected.ours)


def _keyed(key: str, convert: Converter) -> Converter:
    """A field's converter whose model rejections say which field (pydantic's loc starts inside the model)."""

    def convert_keyed(value: Any) -> Any:
        try:
            return convert(value)
        except ModelRejected as rejected:
            raise _within(key, rejected) from None

    return convert_keyed


def _indexed_array(container: str, item: Converter) -> Converter:
    """An array converter whose model rejections say which item."""
    make: Callable[[Any], Any] = {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}[container]

    def convert_items(value: Any) -> Any:
        out = []
        for index, element in enumerate(value):
            try:
                out.append(item(element))
            except ModelRejected as rejected:
                raise _within(index, rejected) from None
        return out if container == "list" else make(out)

    return convert_items


def _indexed_tuple(items: list[Converter | None]) -> Converter:
    """A fixed tuple's converter whose model rejections say which position (``t[1].n``)."""
    converters = [item or _identity for item in items]

    def convert_positions(value: Any) -> Any:
        out = []
        for index, (convert, element) in enumerate(zip(converters, value, strict=True)):
            try:
                out.append(convert(element))
            except ModelRejected as rejected:
                raise _within(index, rejected) from None
        return tuple(out)

    return convert_positions


def _keyed_dict(key: Converter | None, value: Converter) -> Converter:
    """A dict converter whose model rejections say under which key (``d.k.n``, ``d["a.b"].n``)."""
    convert_key = key or _identity

    def convert_entries(mapping: Any) -> Any:
        out = {}
        for name, element in mapping.items():
            try:
                out[convert_key(name)] = value(element)
            except ModelRejected as rejected:
                raise _within(name, rejected) from None
        return out

    return convert_entries


def _naming(name: str, convert: Converter) -> Converter:
    """A parameter's converter whose model rejections name the parameter (a model's own validators ran)."""

    def convert_named(value: Any) -> Any:
        try:
            return convert(value)
        except ModelRejected as rejected:
            raise ToolError(rejection_text((name,), rejected)) from None

    return convert_named


def _filling(
    convert: Callable[[dict[str, Any]], dict[str, Any]] | None, fills: tuple[tuple[str, Callable[[], Any]], ...]
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def convert_and_fill(arguments: dict[str, Any]) -> dict[str, Any]:
        out = convert(arguments) if convert is not None else dict(arguments)
        for name, make in fills:
            if name not in out:
                out[name] = make()
        return out

    return convert_and_fill


def _arguments(
    converted: tuple[tuple[str, Converter], ...], extra_convert: Converter | None, fields: Sequence[Field]
) -> Callable[[dict[str, Any]], dict[str, Any]] | None:
    if not converted and extra_convert is None:
        return None
    if extra_convert is None:

        def convert_arguments(arguments: dict[str, Any]) -> dict[str, Any]:
            out = dict(arguments)
            for name, convert in converted:
                if name in out:
                    out[name] = convert(out[name])
            return out

        return convert_arguments

    named = frozenset(field.name for field in fields)
    convert_rest = extra_convert

    def convert_arguments_and_rest(arguments: dict[str, Any]) -> dict[str, Any]:
        out = dict(arguments)
        for name, convert in converted:
            if name in out:
                out[name] = convert(out[name])
        for name in arguments.keys() - named:
            try:
                out[name] = convert_rest(out[name])
            except ModelRejected as rejected:  # a model under **kwargs: name the argument, as _naming does
                raise ToolError(rejection_text((name,), rejected)) from None
        return out

    return convert_arguments_and_rest


def _identity(value: Any) -> Any:
    return value


@final
class _Builder:
    """Builds converters for a graph of nodes, which may be cyclic through recursive classes."""

    __slots__ = ("_built", "_needs")

    def __init__(self, roots: Sequence[Node]) -> None:
        self._needs = _typeddict_needs(roots)
        self._built: dict[int, Converter | None] = {}

    def needs(self, node: Node) -> bool:
        return _needs(node, self._needs)

    def build(self, node: Node) -> Converter | None:
        if isinstance(node, MetaNode) and _std_strings(node.inner) and (bounds := _bounds(node)):
            inner = self.build(node.inner)
            assert inner is not None
            return _bounded(inner, bounds)
        node = unwrap(node)
        if not self.needs(node):
            return None
        if isinstance(node, StdNode):
            return _std(node)
        if isinstance(node, ChoiceNode):
            return _choice(node)
        if isinstance(node, ArrayNode):
            item = self.build(node.item)
            if item is not None and _may_refuse(node.item, set()):
                return _indexed_array(node.container, item)
            return _array(node.container, item)
        if isinstance(node, TupleNode):
            items = [self.build(item) for item in node.items]
            if any(_may_refuse(item, set()) for item in node.items):
                return _indexed_tuple(items)
            return _tuple(items)
        if isinstance(node, DictNode):
            key = _choice(node.key) if node.key is not None and node.key.members is not None else None
            value = self.build(node.value)
            if value is not None and _may_refuse(node.value, set()):
                return _keyed_dict(key, value)
            return _dict(key, value)
        if isinstance(node, ObjectNode):
            return self._object(node)
        if isinstance(node, UnionNode):
            return self._union(node)
        raise AssertionError(f"{node!r} needs conversion but has no converter")

    def _object(self, node: ObjectNode) -> Converter:
        key = id(node)
        if key in self._built:
            built = self._built[key]
            assert built is not None
            return built
        # A recursive class reaches itself while its fields are built: hand out a forwarder until it exists.
        slot: list[Converter] = []

        def forward(value: Any) -> Any:
            return slot[0](value)

        self._built[key] = forward
        converted = tuple(
            (field.name, _keyed(field.name, convert) if _may_refuse(field.node, set()) else convert)
            for field in node.fields
            if (convert := self.build(field.node)) is not None
        )
        extra = self.build(node.extra) if node.extra is not None else None
        convert = _object(node, converted, extra)
        slot.append(convert)
        self._built[key] = convert
        return convert

    def _union(self, node: UnionNode) -> Converter:
        by_type: dict[type, Converter] = {}
        for kind, python_types in _PYTHON_TYPES_OF_KIND.items():
            candidates = [member for member in node.members if kind in member.kinds]
            converting = [member for member in candidates if self.needs(member)]
            if not converting:
                continue
            if len(candidates) == 1:
                convert = self.build(candidates[0])
            else:
                convert = self._dispatch([unwrap(member) for member in candidates])
            assert convert is not None
            for python_type in python_types:
                by_type[python_type] = convert

        def convert_union(value: Any) -> Any:
            convert = by_type.get(type(value))
            return value if convert is None else convert(value)

        return convert_union

    def _dispatch(self, candidates: list[Node]) -> Converter:
        """Several members share a JSON type: dispatch on the value (choices) or on a tag field (objects)."""
        if all(isinstance(node, ChoiceNode) for node in candidates):
            table: dict[object, object] = {}
            for node in candidates:
                assert isinstance(node, ChoiceNode)
                table.update(zip(node.values, node.members or node.values, strict=True))
            return table.__getitem__
        formats = disjoint_formats(candidates)
        if formats is not None:
            return self._by_format(candidates, formats)
        objects = [node for node in candidates if isinstance(node, ObjectNode)]
        tag = find_tag(objects)
        if tag is None or len(objects) != len(candidates):
            raise AssertionError("union_problem() lets only choices, tagged objects or disjoint formats share a type")
        by_tag: dict[object, Converter] = {}
        for node in objects:
            tag_field = next(field for field in node.fields if field.name == tag)
            tag_node = unwrap(tag_field.node)
            assert isinstance(tag_node, ChoiceNode)
            convert = self.build(node) or _identity
            for value in tag_node.values:
                by_tag[value] = convert

        def convert_tagged(value: Any) -> Any:
            return by_tag[value[tag]](value)

        return convert_tagged

    def _by_format(self, candidates: list[Node], formats: list[str]) -> Converter:
        """Standard types whose string forms never overlap: the one whose format check the value passes (the
        validator's own check, so conversion agrees with validation; exactly one passes)."""
        from ._validation.formats import FORMAT_CHECKS

        table = []
        for node, name in zip(candidates, formats, strict=True):
            convert = self.build(node)
            assert convert is not None
            table.append((FORMAT_CHECKS[name], convert))

        def convert_by_format(value: Any) -> Any:
            for check, convert in table:
                if check(value):
                    return convert(value)
            raise AssertionError(f"{value!r} passed validation but no member's format")

        return convert_by_format


def _typeddict_needs(roots: Sequence[Node]) -> dict[int, bool]:
    """Whether each reachable TypedDict needs conversion: a least fixpoint, since TypedDicts may recurse."""
    typeddicts: list[ObjectNode] = []
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        node = stack.pop()
        if isinstance(node, MetaNode):
            stack.append(node.inner)
        elif isinstance(node, ArrayNode):
            stack.append(node.item)
        elif isinstance(node, TupleNode):
            stack.extend(node.items)
        elif isinstance(node, DictNode):
            stack.append(node.value)
        elif isinstance(node, UnionNode):
            stack.extend(node.members)
        elif isinstance(node, ObjectNode) and id(node) not in seen:
            seen.add(id(node))
            if node.kind == "typeddict":
                typeddicts.append(node)
            stack.extend(field.node for field in node.fields)
            if node.extra is not None:
                stack.append(node.extra)
    needs = {id(node): False for node in typeddicts}
    changed = True
    while changed:
        changed = False
        for node in typeddicts:
            extra = node.extra is not None and _needs(node.extra, needs)
            if not needs[id(node)] and (extra or any(_needs(field.node, needs) for field in node.fields)):
                needs[id(node)] = True
                changed = True
    return needs


def _needs(node: Node, typeddicts: dict[int, bool]) -> bool:
    """Whether a JSON value of this type differs from the Python value (TypedDicts looked up, not walked)."""
    node = unwrap(node)
    if isinstance(node, StdNode):
        return True
    if isinstance(node, ChoiceNode):
        return node.members is not None
    if isinstance(node, ArrayNode):
        return node.container != "list" or _needs(node.item, typeddicts)
    if isinstance(node, TupleNode):
        return True
    if isinstance(node, DictNode):
        return (node.key is not None and node.key.members is not None) or _needs(node.value, typeddicts)
    if isinstance(node, ObjectNode):
        return node.kind != "typeddict" or typeddicts[id(node)]
    if isinstance(node, UnionNode):
        return any(_needs(member, typeddicts) for member in node.members)
    return False


def _std(node: StdNode) -> Converter:
    parse = node.std.parse
    name = node.std.cls.__name__

    def convert_std(value: Any) -> Any:
        try:
            return parse(value)
        except (ValueError, OverflowError, ArithmeticError) as exc:
            # The validator passed it, so it is in the published form, yet Python cannot hold it (year 0000, a
            # duration beyond timedelta's range): still the caller's value, so answered as an invalid argument.
            # Raised as a rejection so the converters above add where it is (``property 'slots[1].day'``).
            raise ModelRejected([((), f"cannot be a Python {name}: {value!r} ({exc})")], ours=True) from None

    return convert_std


def _choice(node: ChoiceNode) -> Converter:
    assert node.members is not None
    table = dict(zip(node.values, node.members, strict=True))
    if len(table) == len(node.values):
        return table.__getitem__
    # Python merges True with 1 and False with 0 as dict keys; JSON keeps them apart, so keep the kind too.
    typed = {(isinstance(value, bool), value): member for value, member in zip(node.values, node.members, strict=True)}

    def convert_choice(value: Any) -> Any:
        return typed[(isinstance(value, bool), value)]

    return convert_choice


def _array(container: str, item: Converter | None) -> Converter:
    make: Callable[[Any], Any] = {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}[container]
    if item is None:
        return make
    if container == "list":
        return lambda value: [item(element) for element in value]
    return lambda value: make([item(element) for element in value])


def _tuple(items: list[Converter | None]) -> Converter:
    if all(item is None for item in items):
        return tuple
    converters = [item or _identity for item in items]
    return lambda value: tuple([convert(element) for convert, element in zip(converters, value, strict=True)])


def _dict(key: Converter | None, value: Converter | None) -> Converter:
    if key is None:
        assert value is not None
        return lambda mapping: {k: value(v) for k, v in mapping.items()}
    if value is None:
        return lambda mapping: {key(k): v for k, v in mapping.items()}
    return lambda mapping: {key(k): value(v) for k, v in mapping.items()}


def _object(node: ObjectNode, converted: tuple[tuple[str, Converter], ...], extra: Converter | None) -> Converter:
    cls = node.cls
    if extra is not None:
        named = frozenset(field.name for field in node.fields)
        convert_extra = extra

        def convert_open_typeddict(value: Any) -> Any:
            out = dict(value)
            for name, convert in converted:
                if name in out:
                    out[name] = convert(out[name])
            for name in value.keys() - named:
                try:
                    out[name] = convert_extra(out[name])
                except ModelRejected as rejected:
                    raise _within(name, rejected) from None
            return out

        return convert_open_typeddict
    if node.kind == "typeddict":

        def convert_typeddict(value: Any) -> Any:
            out = dict(value)
            for name, convert in converted:
                if name in out:
                    out[name] = convert(out[name])
            return out

        return convert_typeddict
    if node.kind == "pydantic" or is_pydantic_dataclass(cls):

        def convert_model(value: Any) -> Any:
            arguments = dict(value)
            for name, convert in converted:
                if name in arguments:
                    arguments[name] = convert(arguments[name])
            return build_model(cls, arguments)

        return convert_model
    fills = field_info_fills(cls)
    if not converted and not fills:
        return lambda value: cls(**value)

    def convert_instance(value: Any) -> Any:
        arguments = dict(value)
        for name, convert in converted:
            if name in arguments:
                arguments[name] = convert(arguments[name])
        for name, make in fills:
            if name not in arguments:
                arguments[name] = make()
        return cls(**arguments)

    return convert_instance
