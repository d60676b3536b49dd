"""Python type expressions as a small tree: built from schemas, simplified, then written out formatted.

Keeping types as values (not strings) lets unions flatten and ``Literal`` members merge, lets the writer
decide where a forward reference needs quotes, and lets the writer split a long annotation the way
``ruff format`` would, so generated modules are already formatted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias, final

from mcptools._stubgen._text import py_string

__all__ = [
    "Lit",
    "LiteralValue",
    "Name",
    "PyType",
    "Sub",
    "UnionOf",
    "any_type",
    "layout",
    "mentions_generated",
    "render",
    "union",
]

_INDENT = "    "

LiteralValue: TypeAlias = str | int | bool


@final
@dataclass(frozen=True, slots=True)
class Name:
    """A plain name: a builtin (``str``), a typing name (``Any``) or a class or alias the module defines."""

    text: str
    generated: bool = False


@final
@dataclass(frozen=True, slots=True)
class Lit:
    """``Literal[...]`` over JSON scalars that Python's ``Literal`` accepts."""

    values: tuple[LiteralValue, ...]


@final
@dataclass(frozen=True, slots=True)
class Sub:
    """A subscripted generic: ``list[T]``, ``dict[str, T]``, ``tuple[A, B]``."""

    origin: str
    args: tuple[PyType, ...]


@final
@dataclass(frozen=True, slots=True)
class UnionOf:
    """``A | B | ...``; build it with :func:`union`, which flattens and simplifies."""

    members: tuple[PyType, ...]


PyType: TypeAlias = Name | Lit | Sub | UnionOf

any_type = Name("Any")
_NONE = Name("None")
_NEVER = Name("Never")


def _literal_key(value: LiteralValue) -> tuple[str, LiteralValue]:
    """Literal members compare by type too: ``Literal[1]`` and ``Literal[True]`` are different types."""
    return (type(value).__name__, value)


def union(members: list[PyType]) -> PyType:
    """The union of ``members``: nested unions flattened, duplicates and ``Never`` dropped, ``Any`` absorbing,
    all ``Literal`` members merged into one, ``None`` last."""
    flat: list[PyType] = []
    for member in members:
        flat.extend(member.members if isinstance(member, UnionOf) else (member,))
    if any_type in flat:
        return any_type
    literal_values: list[LiteralValue] = []
    seen_literals: set[tuple[str, LiteralValue]] = set()
    result: list[PyType] = []
    literal_slot = -1
    has_none = False
    for member in flat:
        if member == _NEVER:
            continue
        if member == _NONE:
            has_none = True
            continue
        if isinstance(member, Lit):
            if literal_slot < 0:
                literal_slot = len(result)
                result.append(member)
            for value in member.values:
                if _literal_key(value) not in seen_literals:
                    seen_literals.add(_literal_key(value))
                    literal_values.append(value)
            continue
        if member not in result:
            result.append(member)
    if literal_slot >= 0:
        result[literal_slot] = Lit(tuple(literal_values))
    if has_none:
        result.append(_NONE)
    if not result:
        return _NEVER
    if len(result) == 1:
        return result[0]
    return UnionOf(tuple(result))


def _render_literal_value(value: LiteralValue) -> str:
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        return str(value)
    return py_string(value)


def render(node: PyType) -> str:
    """The expression on one line."""
    if isinstance(node, Name):
        return node.text
    if isinstance(node, Lit):
        return "Literal[" + ", ".join(_render_literal_value(value) for value in node.values) + "]"
    if isinstance(node, Sub):
        return node.origin + "[" + ", ".join(render(arg) for arg in node.args) + "]"
    return " | ".join(render(member) for member in node.members)


def mentions_generated(node: PyType, defined: set[str]) -> bool:
    """Whether the expression names a class or alias of the module that is not in ``defined`` yet."""
    if isinstance(node, Name):
        return node.generated and node.text not in defined
    if isinstance(node, Lit):
        return False
    if isinstance(node, Sub):
        return any(mentions_generated(arg, defined) for arg in node.args)
    return any(mentions_generated(member, defined) for member in node.members)


def _items(node: Lit | Sub) -> tuple[str, list[PyType | str]]:
    if isinstance(node, Lit):
        return "Literal", [_render_literal_value(value) for value in node.values]
    return node.origin, list(node.args)


def _layout_item(item: PyType | str, indent: str, head: str, tail: str, width: int) -> list[str]:
    if isinstance(item, str):
        return [indent + head + item + tail]
    return layout(item, indent, head, tail, width)


def layout(node: PyType | str, indent: str, head: str, tail: str, width: int) -> list[str]:
    """Lines for ``indent + head + node + tail``, split like ``ruff format`` when one line is too long.

    A subscript opens its bracket and puts its arguments on their own lines (with a trailing comma when there
    are several); a union puts each member on its own line after ``|``, inside parentheses unless a bracket
    already holds it. A string (a quoted forward reference) is never split.
    """
    flat = node if isinstance(node, str) else render(node)
    one_line = indent + head + flat + tail
    if len(one_line) <= width or isinstance(node, (str, Name)):
        return [one_line]
    inner = indent + _INDENT
    if isinstance(node, UnionOf):
        if head:
            return [indent + head + "(", *_union_lines(node, inner, width), indent + ")" + tail]
        lines = _union_lines(node, indent, width)
        lines[-1] += tail
        return lines
    origin, args = _items(node)
    lines = [indent + head + origin + "["]
    if len(args) == 1:
        lines.extend(_layout_item(args[0], inner, "", "", width))
    else:
        for arg in args:
            lines.extend(_layout_item(arg, inner, "", ",", width))
    lines.append(indent + "]" + tail)
    return lines


def _union_lines(node: UnionOf, indent: str, width: int) -> list[str]:
    lines: list[str] = []
    for index, member in enumerate(node.members):
        lines.extend(layout(member, indent, "" if index == 0 else "| ", "", width))
    return lines
