"""String annotations that are bare class names are resolved without ``get_type_hints`` compiling them, and the
hints come out exactly as ``get_type_hints`` gives them (also ``x: int = None`` on Python 3.10, shadowed
builtins, names that are not classes, and functions whose globals carry their own builtins)."""

from __future__ import annotations

import dataclasses
import enum
from typing import Annotated, Any, ClassVar, Literal, Optional

import pytest
import typing_extensions

from mcptools._schema.annotations import resolve_hints


class Color(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class Line:
    sku: str


Alias = list[int]


def many(
    a: str,
    b: int = None,  # type: ignore[assignment]  # noqa: RUF013
    c: Line = None,  # type: ignore[assignment]
    d: Color = Color.RED,
    e: Literal["x"] = "x",
    g: Alias = [],  # noqa: B006
    h: Optional[int] = None,  # noqa: UP045
    i: Annotated[int, "meta"] = 1,
    *,
    k: bool = None,  # type: ignore[assignment]  # noqa: RUF013
    **extra: str,
) -> None:
    pass


def test_resolved_names_give_the_hints_get_type_hints_gives() -> None:
    assert resolve_hints(many, None) == typing_extensions.get_type_hints(many, include_extras=True)


def test_a_global_shadowing_a_builtin_wins_as_eval_would_have_it() -> None:
    namespace: dict[str, Any] = {"str": Line}
    exec("def tool(a: 'str', b: 'int') -> None: pass", namespace)
    hints = resolve_hints(namespace["tool"], None)
    assert hints["a"] is Line and hints["b"] is int


def test_builtins_of_the_functions_own_globals_are_the_ones_looked_in() -> None:
    namespace: dict[str, Any] = {"__builtins__": {"int": Line}}
    exec("def tool(a: 'int') -> None: pass", namespace)
    assert resolve_hints(namespace["tool"], None)["a"] is Line


def test_names_that_are_not_classes_are_left_to_get_type_hints() -> None:
    namespace: dict[str, Any] = {"Maybe": Optional[int]}  # noqa: UP045
    exec("def tool(a: 'Maybe', b: 'Missing' = None) -> None: pass", namespace)
    namespace["Missing"] = Color
    assert resolve_hints(namespace["tool"], None) == typing_extensions.get_type_hints(
        namespace["tool"], include_extras=True
    )


@pytest.mark.parametrize(
    "annotation",
    [
        "list[str]",
        "set[str] | None",
        "dict[str, Line]",
        "Line | None",
        'Literal["c", "f"]',
        "Optional[Color]",
        'Annotated[int, "meta"]',
        "tuple[int, ...]",
        "list['Line']",
        "ClassVar[int]",
        "5",
        "not valid python(",
        "Undefined | None",
    ],
)
def test_evaluated_strings_give_the_hints_or_the_error_get_type_hints_gives(annotation: str) -> None:
    namespace: dict[str, Any] = {
        "Line": Line,
        "Color": Color,
        "Literal": Literal,
        "Optional": Optional,
        "Annotated": Annotated,
        "ClassVar": ClassVar,
    }
    exec(f"def tool(a: {annotation!r}) -> None: pass", namespace)
    tool = namespace["tool"]
    try:
        expected: Any = typing_extensions.get_type_hints(tool, include_extras=True)
    except Exception as exc:  # the same failure, of the same type, is expected from resolve_hints
        expected = type(exc)
    try:
        got: Any = resolve_hints(tool, None)
    except Exception as exc:
        got = type(exc)
    assert got == expected
