"""Linear-time pattern matching: a Thompson NFA simulated with state sets, cached as a lazy DFA.

Python's ``re`` backtracks, so an ambiguous pattern (``(a|aa)+$``) can take time exponential in the length of a
hostile argument. Simulating every NFA state at once (and every start position at once, since JSON Schema
patterns are unanchored searches) costs O(len(text) x states) whatever the pattern. Each distinct state set
reached becomes a cached DFA state, so a text over a few characters costs one dict look-up per character.

The NFA is built from the parse tree of the already translated (Python syntax, ECMA meaning) pattern. It has no
memory, so backreferences and lookaround that look further than one character cannot be expressed: those raise
``Unsupported`` and the caller decides whether ``re`` may run the pattern instead.
"""

from __future__ import annotations

import bisect
import sys
from collections.abc import Callable
from typing import Any, Final, final

if sys.version_info >= (3, 11):
    from re import _constants as sre_constants
    from re import _parser as sre_parse
else:
    import sre_constants
    import sre_parse

__all__ = [
    "CASE_FLAGS",
    "MAX_STATES",
    "CharSet",
    "NFAMatcher",
    "TooLarge",
    "Unsupported",
    "build_matcher",
    "char_set",
    "parse",
]

MAX_STATES: Final = 10_000
# A DFA state cache bigger than this is dropped and rebuilt, so memory stays bounded on hostile input.
_MAX_CACHED_SETS: Final = 2_000
# Transitions are keyed by character, so a text of many distinct characters grows them; same bound, same cure.
_MAX_CACHED_STEPS: Final = 50_000
_MAX_CODE_POINT: Final = sys.maxunicode
# Flags that change what a pattern matches; the NFA implements none of them.
_MATCH_FLAGS: Final = (
    sre_constants.SRE_FLAG_IGNORECASE
    | sre_constants.SRE_FLAG_MULTILINE
    | sre_constants.SRE_FLAG_DOTALL
    | sre_constants.SRE_FLAG_ASCII
    | sre_constants.SRE_FLAG_LOCALE
)

# Case folding makes disjoint-looking character sets overlap, which the backtracking rule relies on.
CASE_FLAGS: Final = sre_constants.SRE_FLAG_IGNORECASE | sre_constants.SRE_FLAG_LOCALE

_CHAR, _SPLIT, _BEGIN, _END, _BOUNDARY, _NOT_BOUNDARY, _LOOK_AHEAD, _LOOK_BEHIND, _MATCH = range(9)


class Unsupported(Exception):
    """The pattern needs memory (a backreference, a long lookaround) or a flag the NFA does not implement."""


class TooLarge(Exception):
    """Counted repeats would expand into more than ``MAX_STATES`` states."""


def parse(source: str) -> Any:
    """The ``sre`` parse tree of Python ``re`` source (raises ``re.error`` when it is invalid)."""
    return sre_parse.parse(source)


def _is_word(ch: str) -> bool:
    return ch == "_" or ch.isalnum()


# Python's unicode categories, as the C engine defines them for str patterns.
_CATEGORIES: Final[dict[str, Callable[[str], bool]]] = {
    "CATEGORY_DIGIT": str.isdecimal,
    "CATEGORY_NOT_DIGIT": lambda ch: not ch.isdecimal(),
    "CATEGORY_SPACE": str.isspace,
    "CATEGORY_NOT_SPACE": lambda ch: not ch.isspace(),
    "CATEGORY_WORD": _is_word,
    "CATEGORY_NOT_WORD": lambda ch: not _is_word(ch),
}


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


def char_set(op: Any, av: Any) -> CharSet | None:
    """The set of one single-character parse item, or None when the item is not a single character."""
    name = op.name
    if name == "LITERAL":
        return CharSet([(av, av)])
    if name == "NOT_LITERAL":
        return CharSet([(av, av)], negate=True)
    if name == "ANY":
        return CharSet([(10, 10)], negate=True)
    if name == "CATEGORY":
        return CharSet([], (_CATEGORIES[av.name],)) if av.name in _CATEGORIES else None
    if name != "IN":
        return None
    ranges: list[tuple[int, int]] = []
    categories: list[Callable[[str], bool]] = []
    negate = False
    for item_op, item_av in av:
        item = item_op.name
        if item == "NEGATE":
            negate = True
        elif item == "LITERAL":
            ranges.append((item_av, item_av))
        elif item == "RANGE":
            ranges.append((item_av[0], item_av[1]))
        elif item == "CATEGORY" and item_av.name in _CATEGORIES:
            categories.append(_CATEGORIES[item_av.name])
        else:
            return None
    return CharSet(ranges, tuple(categories), negate)


@final
class _Builder:
    """Builds the NFA back to front: each item is compiled knowing the state that follows it."""

    __slots__ = ("args", "kinds", "outs")

    def __init__(self) -> None:
        self.kinds: list[int] = []
        self.args: list[Any] = []
        self.outs: list[tuple[int, ...]] = []

    def add(self, kind: int, arg: Any, outs: tuple[int, ...]) -> int:
        if len(self.kinds) >= MAX_STATES:
            raise TooLarge
        self.kinds.append(kind)
        self.args.append(arg)
        self.outs.append(outs)
        return len(self.kinds) - 1

    def sequence(self, items: Any, follow: int) -> int:
        for op, av in reversed(list(items)):
            follow = self.item(op, av, follow)
        return follow

    def item(self, op: Any, av: Any, follow: int) -> int:
        name = op.name
        chars = char_set(op, av)
        if chars is not None:
            return self.add(_CHAR, chars, (follow,))
        if name == "SUBPATTERN":
            if av[1] & _MATCH_FLAGS:
                raise Unsupported("an inline flag")
            return self.sequence(av[3], follow)
        if name == "BRANCH":
            return self.add(_SPLIT, None, tuple(self.sequence(branch, follow) for branch in av[1]))
        if name in ("MAX_REPEAT", "MIN_REPEAT"):
            return self.repeat(av[0], av[1], av[2], follow)
        if name == "AT":
            return self.add(self._anchor(av.name), None, (follow,))
        if name in ("ASSERT", "ASSERT_NOT"):
            return self.look(av[0], av[1], name == "ASSERT_NOT", follow)
        raise Unsupported(name.lower().replace("_", " "))

    def repeat(self, low: int, high: int, body: Any, follow: int) -> int:
        # Laziness only changes which match is found, never whether one is, so greedy and lazy build alike.
        if high == sre_constants.MAXREPEAT:
            loop = self.add(_SPLIT, None, ())
            self.outs[loop] = (self.sequence(body, loop), follow)
            start = loop
        else:
            start = follow
            for _ in range(high - low):
                start = self.add(_SPLIT, None, (self.sequence(body, start), follow))
        for _ in range(low):
            start = self.sequence(body, start)
        return start

    def look(self, direction: int, body: Any, negate: bool, follow: int) -> int:
        items = list(body)
        if not items:  # (?!) never holds, (?=) always does
            return self.add(_CHAR, CharSet([]), (follow,)) if negate else follow
        if len(items) != 1 or (chars := char_set(*items[0])) is None:
            raise Unsupported("lookaround longer than one character")
        kind = _LOOK_AHEAD if direction == 1 else _LOOK_BEHIND
        return self.add(kind, (chars, negate), (follow,))

    @staticmethod
    def _anchor(name: str) -> int:
        if name in ("AT_BEGINNING", "AT_BEGINNING_STRING"):
            return _BEGIN
        if name == "AT_END_STRING":
            return _END
        if name == "AT_BOUNDARY":
            return _BOUNDARY
        if name == "AT_NON_BOUNDARY":
            return _NOT_BOUNDARY
        raise Unsupported(name.lower().replace("_", " "))


@final
class _DState:
    """One cached set of NFA states (only character-consuming and accepting ones) and its transitions."""

    __slots__ = ("dead", "matches", "next", "states")

    def __init__(self, states: tuple[int, ...], matches: bool, dead: bool) -> None:
        self.states = states
        self.matches = matches
        self.dead = dead
        self.next: dict[tuple[str, object], _DState] = {}


@final
class NFAMatcher:
    """A compiled pattern whose ``search`` answers like ``re.Pattern.search(text) is not None``, in linear time."""

    __slots__ = (
        "_anchored",
        "_args",
        "_initial",
        "_interned",
        "_kinds",
        "_needs_next",
        "_outs",
        "_start",
        "_steps",
        "pattern",
    )

    def __init__(self, pattern: str, builder: _Builder, start: int) -> None:
        self.pattern = pattern
        self._kinds = builder.kinds
        self._args = builder.args
        self._outs = builder.outs
        self._start = start
        self._needs_next = any(kind in (_BOUNDARY, _NOT_BOUNDARY, _LOOK_AHEAD) for kind in self._kinds)
        self._anchored = self._only_at_start()
        self._interned: dict[tuple[int, ...], _DState] = {}
        self._initial: dict[object, _DState] = {}
        self._steps = 0

    def _only_at_start(self) -> bool:
        """Whether every path from the start crosses ``^`` before anything else, so restarts are pointless."""
        stack, seen = [self._start], set()
        while stack:
            state = stack.pop()
            if state in seen:
                continue
            seen.add(state)
            kind = self._kinds[state]
            if kind in (_CHAR, _MATCH):
                return False
            if kind != _BEGIN:
                stack.extend(self._outs[state])
        return True

    def __repr__(self) -> str:
        return f"NFAMatcher({self.pattern!r})"

    def search(self, text: str) -> bool | None:
        """``True`` when the pattern matches somewhere in ``text``, else ``None`` (as ``re`` answers)."""
        size = len(text)
        needs_next = self._needs_next
        first = text[0] if size else None
        key: object = first if needs_next else first is None
        current = self._initial.get(key)
        if current is None:
            current = self._initial[key] = self._close([self._start], None, first)
        if current.matches:
            return True
        for index, ch in enumerate(text):
            after = text[index + 1] if index + 1 < size else None
            step = (ch, after if needs_next else after is None)
            following = current.next.get(step)
            if following is None:
                following = current.next[step] = self._advance(current, ch, after)
                self._steps += 1
                if self._steps > _MAX_CACHED_STEPS:
                    self._forget()
            current = following
            if current.matches:
                return True
            if current.dead:
                return None
        return None

    def _forget(self) -> None:
        """Drop the cache (a search in progress keeps the states it holds; later ones start afresh)."""
        self._interned = {}
        self._initial = {}
        self._steps = 0

    def _advance(self, current: _DState, ch: str, after: str | None) -> _DState:
        kinds, args, outs = self._kinds, self._args, self._outs
        seeds = [outs[state][0] for state in current.states if kinds[state] == _CHAR and ch in args[state]]
        if not self._anchored:
            seeds.append(self._start)
        return self._close(seeds, ch, after)

    def _close(self, seeds: list[int], before: str | None, after: str | None) -> _DState:
        """Every state reachable from ``seeds`` without consuming, between the characters ``before`` and ``after``."""
        kinds, args, outs = self._kinds, self._args, self._outs
        kept: list[int] = []
        seen: set[int] = set()
        stack = seeds
        while stack:
            state = stack.pop()
            if state in seen:
                continue
            seen.add(state)
            kind = kinds[state]
            if kind == _SPLIT:
                stack.extend(outs[state])
            elif kind in (_CHAR, _MATCH):
                kept.append(state)
            elif _holds(kind, args[state], before, after):
                stack.append(outs[state][0])
        states = tuple(sorted(kept))
        found = self._interned.get(states)
        if found is None:
            if len(self._interned) >= _MAX_CACHED_SETS:
                self._forget()
            matches = any(kinds[state] == _MATCH for state in states)
            found = self._interned[states] = _DState(states, matches, not states and self._anchored)
        return found


def _holds(kind: int, arg: Any, before: str | None, after: str | None) -> bool:
    if kind == _BEGIN:
        return before is None
    if kind == _END:
        return after is None
    if kind in (_BOUNDARY, _NOT_BOUNDARY):
        edge = (before is not None and _is_word(before)) != (after is not None and _is_word(after))
        return edge == (kind == _BOUNDARY)
    chars: CharSet = arg[0]
    negate: bool = arg[1]
    ch = after if kind == _LOOK_AHEAD else before
    return (ch is not None and ch in chars) != negate


def build_matcher(pattern: str, tree: Any) -> NFAMatcher:
    """The NFA for a parse tree; ``Unsupported`` or ``TooLarge`` when it cannot be built."""
    if tree.state.flags & _MATCH_FLAGS:
        raise Unsupported("an inline flag")
    builder = _Builder()
    accept = builder.add(_MATCH, None, ())
    try:
        start = builder.sequence(tree, accept)
    except RecursionError:
        raise TooLarge from None
    return NFAMatcher(pattern, builder, start)
