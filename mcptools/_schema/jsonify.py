"""Python values a tool returns -> JSON values: the one serializer behind every structured result.

Tools return what their code already has: pydantic models, dataclasses, TypedDicts, plain classes with
annotated attributes, datetimes, UUIDs, Decimals, paths, Enums, sets and tuples, nested in any way. The result
builder (``mcptools/_protocol/results.py``) needs JSON, never Python's repr. Each kind of value is spelt once:

- the standard types (``datetime``, ``date``, ``time``, ``timedelta``, ``UUID``, ``Decimal``, paths, ``bytes``,
  IP addresses) as ``_schema/stdtypes.py`` dumps them, the inverse of how parameters are parsed, so a result
  matches the schema those types derive (ISO 8601 with the value's own offset, local time's for a naive one; a
  duration; base64)
- pydantic's URL types (``HttpUrl``...): their text, as ``_schema/urls.py`` dumps them
- ``Enum``: its value; ``set``/``frozenset``: an array (sorted when its items can be sorted); ``tuple``: an array,
  a ``NamedTuple`` an object; object keys: strings, as ``json.dumps`` spells scalars
- a dataclass or a plain annotated class: an object of its fields; a pydantic model: its own
  ``model_dump(by_alias=True)`` (its serializers and aliases hold), then spelt as above (so bytes are base64
  as its schema says, where pydantic's JSON mode would write them as UTF-8 and fail on binary data)

pydantic is never imported here: a value is a model only if pydantic is already loaded. A value with no JSON
form raises ``NotJSON``, which the result builder answers for; ``model.to_json`` (defaults) passes it through.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
from enum import Enum
from typing import Any, ClassVar, Final, get_origin

from .model import in_std_module
from .pydantic_support import is_model_class, is_url_value

__all__ = ["NotJSON", "annotated_attributes", "jsonify", "to_json"]

_SCALARS: Final = (str, int, float, bool, type(None))
_NOT_STANDARD: Final = object()


class NotJSON(TypeError):
    """A value of a type with no JSON form; ``path`` says where it sits inside the returned value."""

    def __init__(self, value: object, path: str, problem: str | None = None) -> None:
        self.type_name = f"{type(value).__module__}.{type(value).__qualname__}".removeprefix("builtins.")
        self.path = path
        # A type that has a JSON form, but not this value (a naive datetime no local offset fits).
        self.problem = problem
        where = f" at {path}" if path else ""
        super().__init__(
            f"the {self.type_name}{where} {problem}" if problem else f"a {self.type_name}{where} has no JSON form"
        )


def jsonify(value: Any, path: str = "") -> Any:
    """``value`` as a decoded JSON value (dict, list, str, int, float, bool, None); raises ``NotJSON``."""
    cls = type(value)
    if cls in _SCALARS:
        return value
    if cls is list or cls is tuple:
        return [jsonify(item, f"{path}[{index}]") for index, item in enumerate(value)]
    if cls is dict:
        return {_key(key, path): jsonify(item, f"{path}.{key}" if path else str(key)) for key, item in value.items()}
    if isinstance(value, Enum):
        return jsonify(value.value, path)
    if isinstance(value, _SCALARS):  # subclasses of str/int/float (a str-valued class that is not an Enum)
        return value
    if cls is bytes or in_std_module(cls) or is_url_value(value) or isinstance(value, (bytearray, memoryview)):
        standard = _standard(value, cls, path)
        if standard is not _NOT_STANDARD:
            return standard
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return {name: jsonify(item, _join(path, name)) for name, item in zip(value._fields, value, strict=True)}
    if isinstance(value, (list, tuple)):
        return [jsonify(item, f"{path}[{index}]") for index, item in enumerate(value)]
    if isinstance(value, dict):
        return {_key(key, path): jsonify(item, _join(path, str(key))) for key, item in value.items()}
    if isinstance(value, (set, frozenset)):
        items = [jsonify(item, f"{path}[]") for item in value]
        with contextlib.suppress(TypeError):  # mixed types have no order; any order is a correct array for a set
            items.sort()
        return items
    if hasattr(cls, "__pydantic_fields__") and is_model_class(cls):
        # Python mode, then our spelling: its serializers and aliases hold, and bytes are base64 as the schema
        # says (pydantic's JSON mode writes them as UTF-8, which fails on binary data).
        return jsonify(value.model_dump(mode="python", by_alias=True), path)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _dataclass(value, path)
    names = annotated_attributes(cls)
    if names:
        return {name: jsonify(getattr(value, name, None), _join(path, name)) for name in names}
    raise NotJSON(value, path)


def _standard(value: Any, cls: type, path: str) -> Any:
    """A value of a standard type (datetime, UUID, Decimal, ... and bytes), a URL or a binary buffer."""
    if cls is bytes or in_std_module(cls):
        from .stdtypes import dump_std, is_std_value

        if is_std_value(value):
            try:
                return dump_std(value)
            except ValueError as exc:
                raise NotJSON(value, path, str(exc)) from None
        if cls.__module__ == "ipaddress":  # networks and interfaces: no parameter type, but text as results
            return str(value)
    if is_url_value(value):  # as its schema has it (urls.py): str(), pydantic's normalised form
        from .urls import dump_url

        return dump_url(value)
    if isinstance(value, (bytearray, memoryview)):
        import base64  # lazily: only binary results need it

        return base64.b64encode(bytes(value)).decode("ascii")
    return _NOT_STANDARD  # a class of the standard library that is none of these (an OrderedDict): read on


def _dataclass(value: Any, path: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for field in dataclasses.fields(value):
        if not field.init:  # not in the schema (derived from __init__), so not in the value either
            continue
        item = getattr(value, field.name)
        if item is None and field.default is None:
            continue  # as the schema has it: no value, rather than a null the tool never said
        out[field.name] = jsonify(item, _join(path, field.name))
    return out


def to_json(value: object) -> object:
    """``jsonify`` for defaults: a value with no JSON form is returned unchanged, for ``json_problem`` to name
    (such a default is simply not published)."""
    try:
        return jsonify(value)
    except (NotJSON, RecursionError):
        return value


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _key(key: object, path: str) -> str:
    """An object key: JSON has only strings, so scalars are spelt as JSON spells them (as ``json.dumps`` does)."""
    if type(key) is str:
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    spelt = jsonify(key, path)
    if isinstance(spelt, (str, int, float)):
        return str(spelt)
    raise NotJSON(key, f"{path} (an object key)" if path else "an object key")


_CLASSVAR: Final[object] = ClassVar
_ATTRIBUTES: dict[type, tuple[str, ...]] = {}


def annotated_attributes(cls: type) -> tuple[str, ...]:
    """The public attributes a plain class declares with annotations (the official SDK's ``UserProfile``
    form), in declaration order through its bases; ``()`` for a class that declares none."""
    found = _ATTRIBUTES.get(cls)
    if found is not None:
        return found
    names: dict[str, None] = {}
    for base in reversed(cls.__mro__):
        if base is object or base.__module__ == "builtins":
            continue
        for name, hint in inspect.get_annotations(base).items():
            if name.startswith("_") or get_origin(hint) is _CLASSVAR or hint is _CLASSVAR:
                continue
            if isinstance(hint, str) and hint.replace(" ", "").startswith(("ClassVar", "typing.ClassVar")):
                continue
            names[name] = None
    result = tuple(names)
    _ATTRIBUTES[cls] = result
    return result
