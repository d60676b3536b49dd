"""Our own parse tree for translated patterns, so the NFA and the backtracking rule never read ``re``'s internals.

``regex.translate_pattern`` turns an ECMA-262 pattern into Python ``re`` source with ECMA meaning. That source is
a small subset of Python's syntax: characters and escapes, classes, groups (``(?:``, ``(?P<name>``, ``(?-i:``),
lookaround, ``^``, ``\\Z``, backreferences and quantifiers. ``parse`` reads exactly that subset into the nodes
below. Python's own private parser changes between versions (3.13 added an opcode for ``(?!)``), so
behaviour built on it would change with the interpreter; this parser is ours and the same on every version.

``parse`` expects source that ``re.compile`` has already accepted (``regex.compile_pattern`` checks that first),
so it does not repeat ``re``'s syntax errors; a valid construct outside the subset raises ``Unsupported``.
"""

from __future__ import annotations

import bisect
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypeAlias, final

__all__ = [
    "Alt",
    "Anchor",
    "Backref",
    "CharSet",
    "Chars",
    "Group",
    "Look",
    "Node",
    "Repeat",
    "Seq",
    "Unsupported",
    "is_word",
    "max_width",
    "parse",
]

_MAX_CODE_POINT: Final = sys.maxunicode
# Longer than any text a width check compares against: stands for "unbounded".
UNBOUNDED: Final = 1 << 62


class Unsupported(Exception):
    """The pattern needs memory (a backreference, a long lookaround) or a construct the NFA does not implement."""


def is_word(ch: str) -> bool:
    return ch == "_" or ch.isalnum()


def _not(test: Callable[[str], bool]) -> Callable[[str], bool]:
    return lambda ch: not test(ch)


# Python's unicode classes for str patterns, as its C engine defines them (only \p{...} translates to these).
_CATEGORIES: Final[dict[str, Callable[[str], bool]]] = {
    "d": str.isdecimal,
    "D": _not(str.isdecimal),
    "s": str.isspace,
    "S": _not(str.isspace),
    "w": is_word,
    "W": _not(is_word),
}
_SIMPLE_ESCAPES: Final = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11}
_HEX_LENGTHS: Final = {"x": 2, "u": 4, "U": 8}
_OCTAL: Final = "01234567"
# (?= (?! (?<= (?<! : what follows "(?", whether it looks behind, whether it is negated.
_LOOKS: Final = (("=", False, False), ("!", False, True), ("<=", True, False), ("<!", True, True))


@final
class CharSet:
    """The characters one position may hold: sorted disjoint code point ranges, or a test when a category
    (only ``\\p{...}`` produces one) makes the set unknowable as ranges."""

    __slots__ = ("_categories", "_highs", "_lows", "_negate", "ranges")

    def __init__(
        self, ranges: list[tuple[int, int]], categories: tuple[Callable[[str], bool], ...] = (), negate: bool = False
    ) -> None:
        merged: list[tuple[int, int]] = []
        for low, high in sorted(ranges):
            if merged and low <= merged[-1][1] + 1:
                merged[-1] = (merged[-1][0], max(high, merged[-1][1]))
            else:
                merged.append((low, high))
        if negate and not categories:
            merged, negate = _complement(merged), False
        self.ranges: tuple[tuple[int, int], ...] | None = None if categories else tuple(merged)
        self._lows = [low for low, _ in merged]
        self._highs = [high for _, high in merged]
        self._categories = categories
        self._negate = negate

    def __contains__(self, ch: str) -> bool:
        code = ord(ch)
        at = bisect.bisect_right(self._lows, code) - 1
        hit = at >= 0 and code <= self._highs[at]
        if not hit:
            hit = any(test(ch) for test in self._categories)
        return hit != self._negate

    def disjoint(self, other: CharSet) -> bool:
        """True only when provably no character is in both (unknown sets are assumed to overlap)."""
        if self.ranges is None or other.ranges is None:
            return False
        for low, high in self.ranges:
            at = bisect.bisect_right(other._lows, high) - 1
            if at >= 0 and other._highs[at] >= low:
                return False
        return True


def _complement(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    start = 0
    for low, high in ranges:
        if low > start:
            out.append((start, low - 1))
        start = high + 1
    if start <= _MAX_CODE_POINT:
        out.append((start, _MAX_CODE_POINT))
    return out


@final
@dataclass(slots=True, eq=False)
class Chars:
    """One character from ``chars``."""

    chars: CharSet


@final
@dataclass(slots=True, eq=False)
class Seq:
    """The items one after another (the whole pattern is one)."""

    items: tuple[Node, ...]


@final
@dataclass(slots=True, eq=False)
class Alt:
    """One of the branches."""

    branches: tuple[Seq, ...]


@final
@dataclass(slots=True, eq=False)
class Group:
    """A group, capturing or not: it only delimits what a quantifier or alternation applies to."""

    body: Seq


@final
@dataclass(slots=True, eq=False)
class Repeat:
    """``body`` from ``low`` to ``high`` times (``None``: no limit); laziness never changes whether text matches."""

    low: int
    high: int | None
    body: Node


@final
@dataclass(slots=True, eq=False)
class Look:
    """A lookahead (``behind`` false) or lookbehind, holding when ``body`` matches there, or when it does not."""

    behind: bool
    negate: bool
    body: Seq


@final
@dataclass(slots=True, eq=False)
class Anchor:
    """A zero-width test: ``begin`` (``^``), ``end`` (``\\Z``), ``boundary`` (``\\b``), ``not_boundary``."""

    kind: str


@final
@dataclass(slots=True, eq=False)
class Backref:
    """A backreference to a group (by number or name); it needs memory, which only ``re`` has."""

    group: str


Node: TypeAlias = Chars | Seq | Alt | Group | Repeat | Look | Anchor | Backref


def parse(source: str) -> Seq:
    """The tree of translated pattern ``source`` (which ``re.compile`` accepts); ``Unsupported`` outside our subset.

    Deeply nested groups raise ``RecursionError``, which the caller reports as a schema error.
    """
    parser = _Parser(source)
    tree = parser.alternation()
    if parser.at != len(source):
        raise Unsupported(f"an unbalanced ')' at offset {parser.at}")
    return tree


def max_width(node: Node) -> int:
    """The most characters ``node`` can consume (``UNBOUNDED`` when it has no limit)."""
    if isinstance(node, Chars):
        return 1
    if isinstance(node, Seq):
        return min(UNBOUNDED, sum(max_width(item) for item in node.items))
    if isinstance(node, Alt):
        return max((max_width(branch) for branch in node.branches), default=0)
    if isinstance(node, Group):
        return max_width(node.body)
    if isinstance(node, Repeat):
        inner = max_width(node.body)
        if inner == 0:
            return 0
        return UNBOUNDED if node.high is None else min(UNBOUNDED, inner * node.high)
    if isinstance(node, Backref):
        return UNBOUNDED
    return 0


@final
@dataclass(slots=True, eq=False)
class _Parser:
    """Recursive descent over the source; every step moves ``at`` forward, so it ends in linear time."""

    source: str
    at: int = 0

    def _peek(self, offset: int = 0) -> str:
        at = self.at + offset
        return self.source[at] if at < len(self.source) else ""

    def alternation(self) -> Seq:
        branches = [self.sequence()]
        while self._peek() == "|":
            self.at += 1
            branches.append(self.sequence())
        if len(branches) == 1:
            return branches[0]
        return Seq((Alt(tuple(branches)),))

    def sequence(self) -> Seq:
        items: list[Node] = []
        while self._peek() not in ("", "|", ")"):
            items.append(self.quantified(self.atom()))
        return Seq(tuple(items))

    def quantified(self, atom: Node) -> Node:
        c = self._peek()
        if c == "*":
            low, high, self.at = 0, None, self.at + 1
        elif c == "+":
            low, high, self.at = 1, None, self.at + 1
        elif c == "?":
            low, high, self.at = 0, 1, self.at + 1
        elif c == "{" and (counted := self._counted()) is not None:
            low, high = counted
        else:
            return atom
        if self._peek() == "?":
            self.at += 1
        elif self._peek() == "+":
            raise Unsupported("a possessive quantifier")
        return Repeat(low, high, atom)

    def _counted(self) -> tuple[int, int | None] | None:
        """``{m}``, ``{m,}``, ``{,n}`` or ``{m,n}`` as Python reads them; None (a literal ``{``) otherwise."""
        source, at = self.source, self.at + 1
        start = at
        while at < len(source) and source[at].isdigit() and source[at].isascii():
            at += 1
        low_text = source[start:at]
        high_text: str | None = low_text
        if at < len(source) and source[at] == ",":
            at += 1
            start = at
            while at < len(source) and source[at].isdigit() and source[at].isascii():
                at += 1
            high_text = source[start:at]
        if at >= len(source) or source[at] != "}" or (not low_text and high_text == low_text and source[at - 1] == "{"):
            return None
        self.at = at + 1
        return (int(low_text) if low_text else 0), (int(high_text) if high_text else None)

    def atom(self) -> Node:
        c = self._peek()
        self.at += 1
        if c == "(":
            return self.group()
        if c == "[":
            return Chars(self.char_class())
        if c == "\\":
            return self.escape()
        if c == "^":
            return Anchor("begin")
        if c == ".":
            return Chars(CharSet([(10, 10)], negate=True))
        if c == "$":
            raise Unsupported("'$' before a final newline")  # the translator always writes \Z
        return Chars(CharSet([(ord(c), ord(c))]))

    def group(self) -> Node:
        if self._peek() != "?":
            return self._group_body()
        self.at += 1
        for opener, behind, negate in _LOOKS:
            if self.source.startswith(opener, self.at):
                self.at += len(opener)
                body = self.alternation()
                self.at += 1
                return Look(behind, negate, body)
        for opener in (":", "-i:"):  # (?-i:...) only ever switches off a flag no translated pattern sets
            if self.source.startswith(opener, self.at):
                self.at += len(opener)
                return self._group_body()
        if self.source.startswith("P<", self.at):
            self.at = self.source.index(">", self.at) + 1
            return self._group_body()
        if self.source.startswith("P=", self.at):
            end = self.source.index(")", self.at)
            name, self.at = self.source[self.at + 2 : end], end + 1
            return Backref(name)
        raise Unsupported("an inline flag" if self._peek().isalpha() or self._peek() == "-" else "a '(?' extension")

    def _group_body(self) -> Group:
        body = self.alternation()
        self.at += 1  # the ')' that re.compile guarantees
        return Group(body)

    def escape(self) -> Node:
        c = self._peek()
        if c in "bB":
            self.at += 1
            return Anchor("boundary" if c == "b" else "not_boundary")
        if c in "AZ":
            self.at += 1
            return Anchor("begin" if c == "A" else "end")
        if c != "" and c in "123456789" and not self._octal_ahead():
            start = self.at
            self.at += 2 if self._peek(1) != "" and self._peek(1) in "0123456789" else 1
            return Backref(self.source[start : self.at])
        return Chars(self._escaped_chars())

    def _octal_ahead(self) -> bool:
        return all(ch != "" and ch in _OCTAL for ch in (self._peek(), self._peek(1), self._peek(2)))

    def _escaped_chars(self) -> CharSet:
        """The set of the escape after a backslash (``at`` is past the backslash), in or outside a class."""
        c = self._peek()
        self.at += 1
        if c in _CATEGORIES:
            return CharSet([], (_CATEGORIES[c],))
        return CharSet([(code := self._escaped_code(c), code)])

    def _escaped_code(self, c: str) -> int:
        if c in _HEX_LENGTHS:
            digits = self.source[self.at : self.at + _HEX_LENGTHS[c]]
            self.at += len(digits)
            return int(digits, 16)
        if c in _OCTAL:
            digits = c
            while len(digits) < 3 and self._peek() != "" and self._peek() in _OCTAL:
                digits += self._peek()
                self.at += 1
            return int(digits, 8)
        if c in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[c]
        if c.isascii() and c.isalpha():
            raise Unsupported(f"the escape \\{c}")
        return ord(c)

    def char_class(self) -> CharSet:
        negate = self._peek() == "^"
        if negate:
            self.at += 1
        ranges: list[tuple[int, int]] = []
        categories: list[Callable[[str], bool]] = []
        first = True
        while first or self._peek() != "]":
            if self._peek() == "":
                raise Unsupported("an unterminated character class")
            first = False
            low = self._class_item()
            if isinstance(low, CharSet):
                assert low.ranges is None
                categories.extend(low._categories)
                continue
            if self._peek() == "-" and self._peek(1) not in ("]", ""):
                self.at += 1
                high = self._class_item()
                if isinstance(high, CharSet):
                    raise Unsupported("a range ending in a class escape")
                ranges.append((low, high))
            else:
                ranges.append((low, low))
        self.at += 1
        return CharSet(ranges, tuple(categories), negate)

    def _class_item(self) -> int | CharSet:
        c = self._peek()
        self.at += 1
        if c != "\\":
            return ord(c)
        e = self._peek()
        if e in _CATEGORIES:
            self.at += 1
            return CharSet([], (_CATEGORIES[e],))
        self.at += 1
        return self._escaped_code(e)
