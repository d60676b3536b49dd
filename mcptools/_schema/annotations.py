"""Reading a function's or a class's annotations: ``typing.get_type_hints`` with extras, made cheap for the strings
``from __future__ import annotations`` leaves everywhere, and able to find names local to where a tool was defined.

The text evaluated is the author's own annotation, exactly as ``get_type_hints`` would evaluate it; no schema
value ever reaches ``eval``.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from typing import Any, Final, get_origin

import typing_extensions
from typing_extensions import get_type_hints

__all__ = ["resolve_hints"]


def resolve_hints(obj: Any, localns: Mapping[str, Any] | None) -> dict[str, Any]:
    """``get_type_hints`` with extras; names it cannot find are looked up in ``localns`` on a second try.

    Only on a second try, because passing ``localns`` changes how a class's own namespace is searched.
    """
    try:
        return get_type_hints(_names_resolved(obj), include_extras=True)
    except NameError:
        if not localns:
            raise
        return get_type_hints(obj, include_extras=True, localns=dict(localns))


def _names_resolved(obj: Any) -> Any:
    """``obj``, or a twin of the function whose string annotations hold what they evaluate to.

    Under ``from __future__ import annotations`` every annotation is a string, and ``get_type_hints`` compiles
    each one on every call; for ``"str"`` or ``'Literal["c", "f"]'`` that costs more than the rest of reading the
    hint. Here a bare name is looked up the way ``eval`` would (the function's globals, then their builtins) and
    any other string is evaluated from a code object compiled once per distinct text. Only results
    ``get_type_hints`` would take unchanged (a class, ``list[str]``, ``X | None``, ``Literal``, ``Union``,
    ``Annotated``) are filled in; anything else, and any string that fails to evaluate, stays a string for
    ``get_type_hints``, so the hints and the errors come out the same.
    """
    if type(obj) is not types.FunctionType:
        return obj
    annotations = obj.__annotations__
    if not annotations:
        return obj
    namespace = obj.__globals__
    builtins = namespace.get("__builtins__")
    builtins = vars(builtins) if isinstance(builtins, types.ModuleType) else builtins
    resolved = dict(annotations)
    for name, value in annotations.items():
        if type(value) is not str:
            continue
        if value.isidentifier():
            found = namespace.get(value, _NOT_FOUND)
            if found is _NOT_FOUND and isinstance(builtins, dict):
                found = builtins.get(value, _NOT_FOUND)
        else:
            found = _evaluated(value, namespace)
        if _taken_as_is(found):
            resolved[name] = found
    if resolved == annotations:
        return obj
    twin = types.FunctionType(obj.__code__, namespace, obj.__name__, obj.__defaults__, obj.__closure__)
    twin.__kwdefaults__ = obj.__kwdefaults__
    twin.__annotations__ = resolved
    if hasattr(obj, "__type_params__"):  # Python 3.12+: def f[T](x: "T")
        twin.__type_params__ = obj.__type_params__  # type: ignore[attr-defined,unused-ignore]
    return twin


_NOT_FOUND: Final = object()
_MAX_CODES: Final = 1024
_codes: dict[str, types.CodeType | None] = {}
_PLAIN_FORMS: Final = frozenset(
    {typing.Literal, typing.Union, typing.Annotated, typing_extensions.Literal, typing_extensions.Annotated}
)


def _evaluated(text: str, namespace: dict[str, Any]) -> object:
    code = _codes.get(text, _NOT_FOUND)
    if code is _NOT_FOUND:
        if len(_codes) >= _MAX_CODES:
            _codes.clear()
        try:
            code = compile(text, "<annotation>", "eval")
        except SyntaxError:
            code = None
        _codes[text] = code
    if not isinstance(code, types.CodeType):
        return _NOT_FOUND
    try:
        return eval(code, namespace)  # the author's own annotation text, as get_type_hints would evaluate it
    except Exception:
        return _NOT_FOUND


def _taken_as_is(value: object) -> bool:
    """Whether ``get_type_hints`` would keep ``value`` unchanged had it evaluated the string itself."""
    if isinstance(value, (type, types.GenericAlias, types.UnionType)):
        return True
    return get_origin(value) in _PLAIN_FORMS
