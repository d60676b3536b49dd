"""Linear-time pattern matching: a Thompson NFA simulated with state sets, cached as a lazy DFA.

Python's ``re`` backtracks, so an ambiguous pattern (``(a|aa)+$``) can take time exponential in the length of a
hostile argument. Simulating every NFA state at once (and every start position at once, since JSON Schema
patterns are unanchored searches) costs O(len(text) x states) whatever the pattern. Each distinct state set
reached becomes a cached DFA state, so a text over a few characters costs one dict look-up per character.

The NFA is built from our own parse tree (regex_syntax.py) of the already translated (Python syntax, ECMA meaning)
pattern, never from ``re``'s private parser, so it behaves the same on every Python version. It has no memory, so
backreferences and lookaround that look further than one character cannot be expressed: those raise
``Unsupported`` and the caller decides whether ``re`` may run the pattern instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, final

from .regex_syntax import (
    Alt,
    Anchor,
    Backref,
    Chars,
    CharSet,
    Group,
    Look,
    Node,
    Repeat,
    Seq,
    Unsupported,
    is_word,
)

__all__ = ["MAX_STATES", "NFAMatcher", "TooLarge", "build_matcher", "single_char"]

MAX_STATES: Final = 10_000
# A DFA state cache bigger than this is dropped and rebuilt, so memory stays bounded on hostile input.
_MAX_CACHED_SETS: Final = 2_000
# Transitions are keyed by character, so a text of many distinct characters grows them; same bound, same cure.
_MAX_CACHED_STEPS: Final = 50_000

_CHAR, _SPLIT, _BEGIN, _END, _BOUNDARY, _NOT_BOUNDARY, _LOOK_AHEAD, _LOOK_BEHIND, _MATCH = range(9)
_ANCHORS: Final = {"begin": _BEGIN, "end": _END, "boundary": _BOUNDARY, "not_boundary": _NOT_BOUNDARY}


class TooLarge(Exception):
    """Counted repeats would expand into more than ``MAX_STATES`` states."""


def single_char(node: Node) -> CharSet | None:
    """The set of a node that is one character (possibly inside groups), else None."""
    while True:
        if isinstance(node, Chars):
            return node.chars
        if isinstance(node, Group):
            node = node.body
        elif isinstance(node, Seq) and len(node.items) == 1:
            node = node.items[0]
        else:
            return None


@final
class _Builder:
    """Builds the NFA back to front: each node is compiled knowing the state that follows it."""

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

    def node(self, node: Node, follow: int) -> int:
        if isinstance(node, Chars):
            return self.add(_CHAR, node.chars, (follow,))
        if isinstance(node, Seq):
            for item in reversed(node.items):
                follow = self.node(item, follow)
            return follow
        if isinstance(node, Group):
            return self.node(node.body, follow)
        if isinstance(node, Alt):
            return self.add(_SPLIT, None, tuple(self.node(branch, follow) for branch in node.branches))
        if isinstance(node, Repeat):
            return self.repeat(node, follow)
        if isinstance(node, Anchor):
            return self.add(_ANCHORS[node.kind], None, (follow,))
        if isinstance(node, Look):
            return self.look(node, follow)
        assert isinstance(node, Backref)
        raise Unsupported("a backreference")

    def repeat(self, node: Repeat, follow: int) -> int:
        # Laziness only changes which match is found, never whether one is, so greedy and lazy build alike.
        if node.high is None:
            loop = self.add(_SPLIT, None, ())
            self.outs[loop] = (self.node(node.body, loop), follow)
            start = loop
        else:
            start = follow
            for _ in range(node.high - node.low):
                start = self.add(_SPLIT, None, (self.node(node.body, start), follow))
        for _ in range(node.low):
            start = self.node(node.body, start)
        return start

    def look(self, node: Look, follow: int) -> int:
        if not node.body.items:  # (?!) never holds, (?=) always does
            return self.add(_CHAR, CharSet([]), (follow,)) if node.negate else follow
        chars = single_char(node.body)
        if chars is None:
            raise Unsupported("lookaround longer than one character")
        kind = _LOOK_BEHIND if node.behind else _LOOK_AHEAD
        return self.add(kind, (chars, node.negate), (follow,))


@final
@dataclass(slots=True, eq=False)
class _DState:
    """One cached set of NFA states (only character-consuming and accepting ones) and its transitions."""

    states: tuple[int, ...]
    matches: bool
    dead: bool
    next: dict[tuple[str, object], _DState] = field(default_factory=dict)


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
        edge = (before is not None and is_word(before)) != (after is not None and is_word(after))
        return edge == (kind == _BOUNDARY)
    chars: CharSet = arg[0]
    negate: bool = arg[1]
    ch = after if kind == _LOOK_AHEAD else before
    return (ch is not None and ch in chars) != negate


def build_matcher(pattern: str, tree: Seq) -> NFAMatcher:
    """The NFA for a parse tree; ``Unsupported`` or ``TooLarge`` when it cannot be built."""
    builder = _Builder()
    accept = builder.add(_MATCH, None, ())
    try:
        start = builder.node(tree, accept)
    except RecursionError:
        raise TooLarge from None
    return NFAMatcher(pattern, builder, start)
