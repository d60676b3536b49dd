"""The round trip: Python annotations -> derived JSON Schema -> generated stub -> the same types.

For every type the derivation supports, the stub's argument (and result) types must say what the function's
own annotations say, on the JSON side: an Enum is the Literal of its values, a set or a variadic tuple is a
list, a Mapping is a dict, a dataclass, TypedDict or NamedTuple is a TypedDict with the same keys (required
exactly when the field has no default), Annotated and NewType are their underlying types.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import importlib.util
import inspect
import sys
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum, IntEnum
from pathlib import Path
from typing import Annotated, Any, Literal, NamedTuple, NewType, Union, get_args, get_origin

import pytest
import typing_extensions
from typing_extensions import NotRequired, TypedDict, get_type_hints, is_typeddict

from mcptools import Param, ToolRegistry
from mcptools._stubgen import generate_stubs


class Color(Enum):
    RED = "red"
    GREEN = "green"


class Level(IntEnum):
    LOW = 1
    HIGH = 2


class Address(TypedDict):
    street: str
    postcode: NotRequired[str]


@dataclass
class Point:
    x: float
    y: float
    label: str | None = None


@dataclass
class Tree:
    value: int
    children: list[Tree] = dataclasses.field(default_factory=list)


class Pair(NamedTuple):
    left: int
    right: str = "r"


UserId = NewType("UserId", int)


def scalars(text: str, count: int, ratio: float, flag: bool, anything: Any, nothing: None = None) -> str:
    return ""


def choices(
    choice: Literal["a", "b"],
    mixed: Literal["x", 1, True],
    color: Color,
    level: Level,
    maybe: int | None = None,
    either: int | str = 0,
    optional_choice: Literal["a", "b"] | None = None,
) -> str:
    return ""


def containers(
    words: list[str],
    sequence: Sequence[int],
    unique: set[int],
    frozen: frozenset[str],
    pair: tuple[int, str],
    many: tuple[float, ...],
    scores: dict[str, float],
    mapping: Mapping[str, int],
    nested: list[dict[str, list[int | None]]],
) -> str:
    return ""


def objects(address: Address, point: Point, tree: Tree, named: Pair, points: list[Point] | None = None) -> Point:
    return point


def wrappers(
    user: UserId,
    bounded: Annotated[int, Param("How many", minimum=1, maximum=9)],
    described: Annotated[list[str], Param(min_items=1)],
    days: int = 3,
) -> dict[str, int]:
    return {}


def lists_of_results(count: int) -> list[Point]:
    return []


TOOLS: list[Callable[..., Any]] = [scalars, choices, containers, objects, wrappers, lists_of_results]
_UNION_ORIGINS = (Union, types.UnionType)
_SEQUENCES = (list, set, frozenset, collections.abc.Sequence, collections.abc.Set, collections.abc.MutableSet)
_MAPPINGS = (dict, collections.abc.Mapping, collections.abc.MutableMapping)
_QUALIFIERS = (typing_extensions.NotRequired, typing_extensions.Required)


def _fields(cls: type) -> list[tuple[str, Any, bool]]:
    """(name, type, required) for a TypedDict, a dataclass or a NamedTuple."""
    hints = get_type_hints(cls, include_extras=True)
    if is_typeddict(cls):
        # From the qualifiers, not __required_keys__: that one is wrong for string annotations at run time.
        total: bool = cls.__total__  # type: ignore[attr-defined]
        return [(name, kind, _is_required(kind, total)) for name, kind in hints.items()]
    if dataclasses.is_dataclass(cls):
        return [
            (
                field.name,
                hints[field.name],
                field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING,
            )
            for field in dataclasses.fields(cls)
        ]
    defaults = getattr(cls, "_field_defaults", {})
    return [(name, hints[name], name not in defaults) for name in cls._fields]  # type: ignore[attr-defined]


def _is_required(hint: Any, total: bool) -> bool:
    origin = get_origin(hint)
    if origin is Annotated:
        return _is_required(get_args(hint)[0], total)
    if origin in _QUALIFIERS:
        return origin is not typing_extensions.NotRequired
    return total


def canon(hint: Any, stack: tuple[type, ...] = ()) -> str:
    """The JSON-side meaning of a type, written so that equal meanings give equal text."""
    origin, args = get_origin(hint), get_args(hint)
    if origin is Annotated or origin in _QUALIFIERS:
        return canon(args[0], stack)
    if hasattr(hint, "__supertype__"):  # NewType
        return canon(hint.__supertype__, stack)
    if hint is Any:
        return "Any"
    if hint is None or hint is type(None):
        return "None"
    if hint in (str, int, float, bool):
        return str(hint.__name__)
    if isinstance(hint, type) and issubclass(hint, Enum):
        return _literal([member.value for member in hint])
    if origin is Literal:
        return _literal([arg.value if isinstance(arg, Enum) else arg for arg in args])
    if origin in _UNION_ORIGINS:
        literal_values = [value for arg in args if get_origin(arg) is Literal for value in get_args(arg)]
        members = {canon(arg, stack) for arg in args if get_origin(arg) is not Literal}
        if literal_values:
            members.add(_literal(literal_values))
        return "Union[" + ", ".join(sorted(members)) + "]"
    if origin in _SEQUENCES:
        return f"list[{canon(args[0], stack)}]"
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return f"list[{canon(args[0], stack)}]"
        return "tuple[" + ", ".join(canon(arg, stack) for arg in args) + "]"
    if origin in _MAPPINGS:
        return f"dict[{canon(args[0], stack)}, {canon(args[1], stack)}]"
    if isinstance(hint, type) and (is_typeddict(hint) or dataclasses.is_dataclass(hint) or hasattr(hint, "_fields")):
        if hint in stack:
            return f"<cycle {len(stack) - stack.index(hint)}>"
        inner = (*stack, hint)
        fields = [f"{name}{'' if required else '?'}: {canon(kind, inner)}" for name, kind, required in _fields(hint)]
        return "{" + ", ".join(fields) + "}"
    raise AssertionError(f"no JSON-side meaning for {hint!r}")


def _literal(values: list[Any]) -> str:
    unique = sorted({(type(value).__name__, repr(value)) for value in values})
    return "Literal[" + ", ".join(text for _, text in unique) + "]"


def _load(text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    path = tmp_path / "roundtrip_stub.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("roundtrip_stub", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Registered while the test runs: get_type_hints resolves the stub's forward references through it.
    monkeypatch.setitem(sys.modules, "roundtrip_stub", module)
    spec.loader.exec_module(module)
    return module


def test_stub_types_match_the_annotations_of_derived_tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    registry = ToolRegistry("roundtrip")
    for function in TOOLS:
        registry.tool(function)
    stub = _load(generate_stubs(registry.list_tools(), source="roundtrip"), tmp_path, monkeypatch)
    mismatches: list[str] = []
    for function in TOOLS:
        base = "".join(word.capitalize() for word in function.__name__.split("_"))
        annotations = get_type_hints(function, include_extras=True)
        parameters = inspect.signature(function).parameters
        expected = {
            name: (canon(annotations[name]), parameter.default is inspect.Parameter.empty)
            for name, parameter in parameters.items()
        }
        arguments = getattr(stub, f"{base}Arguments")
        found = {name: (canon(kind), required) for name, kind, required in _fields(arguments)}
        # The generated TypedDicts also know their required keys at run time.
        assert arguments.__required_keys__ == {name for name, (_, required) in found.items() if required}
        if found != expected:
            mismatches.append(f"{function.__name__} arguments:\n  function {expected}\n  stub     {found}")
        result = getattr(stub, f"{base}Result", None)
        returns = annotations["return"]
        if returns is str:
            if result is not None:
                mismatches.append(f"{function.__name__}: a str result has no outputSchema, yet the stub has {result}")
            continue
        assert result is not None, f"{function.__name__}: no Result type in the stub"
        return_origin: Any = get_origin(returns)
        wrapped = not (dataclasses.is_dataclass(returns) or return_origin in _MAPPINGS)
        expected_result = "{result: " + canon(returns) + "}" if wrapped else canon(returns)
        if canon(result) != expected_result:
            mismatches.append(f"{function.__name__} result:\n  function {expected_result}\n  stub     {canon(result)}")
    assert not mismatches, "\n".join(mismatches)


def test_the_comparison_itself_tells_types_apart() -> None:
    # The check above is only as good as canon(): it must see real differences.
    assert canon(list[int]) != canon(list[str])
    assert canon(int | None) != canon(int)
    assert canon(Literal["a", "b"]) != canon(Literal["a"])
    assert canon(tuple[int, str]) != canon(list[int | str])
    assert canon(Point) != canon(Address)
    assert canon(Color) == canon(Literal["red", "green"])
    assert canon(set[int]) == canon(list[int]) == canon(tuple[int, ...])
