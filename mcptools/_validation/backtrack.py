"""Which patterns Python's backtracking ``re`` provably runs in linear time.

``re`` is C and fast, so a pattern it cannot blow up on stays with it; every other pattern goes to the NFA. The
rule is deliberately simple and conservative (a ``False`` costs speed, never correctness):

- Repetition applies to one character at a time (``\\d+``, ``[a-z]{2,5}``), never to a group holding more.
- Between two variable repeats stands a mandatory character the first cannot match (``\\d+\\.\\d+``,
  ``[^@]+@.+``), so the second is entered from a bounded number of places, not from every split of a run.
- Alternatives are non-empty fixed-length sequences of characters (``(red|green)``), not inside repetition.
- An unanchored pattern (no leading ``^``) is tried at every start, so it must also be short (bounded width).
- Lookaround longer than one character and backreferences are allowed only in an anchored pattern, never
  right after a variable repeat (before the character that ends its run), and lookaround only with a body that
  obeys these rules itself; they are then tried from a bounded number of places.
"""

from __future__ import annotations

from typing import Final

from .nfa import single_char
from .regex_syntax import Alt, Anchor, Backref, Chars, CharSet, Group, Look, Node, Repeat, Seq, max_width

__all__ = ["needs_memory", "runs_in_linear_time"]

_MAX_UNANCHORED_WIDTH: Final = 256
_MAX_ALTERNATIVE_PATHS: Final = 64
_ANY: Final = CharSet([(0, 0x10FFFF)])
_ZERO_WIDTH: Final = CharSet([])


def needs_memory(node: Node) -> bool:
    """Whether the pattern has a backreference or a lookaround longer than one character."""
    if isinstance(node, Backref):
        return True
    if isinstance(node, Look) and node.body.items and single_char(node.body) is None:
        return True
    return any(needs_memory(child) for child in _children(node))


def _children(node: Node) -> tuple[Node, ...]:
    if isinstance(node, Seq):
        return node.items
    if isinstance(node, Alt):
        return node.branches
    if isinstance(node, (Group, Repeat, Look)):
        return (node.body,)
    return ()


def runs_in_linear_time(tree: Seq) -> bool:
    """Whether ``re.search`` with this parse tree is linear in the text's length (see the module's rules)."""
    items = _flatten(tree)
    anchored = bool(items) and isinstance(items[0], Anchor) and items[0].kind == "begin"
    if not anchored and max_width(tree) > _MAX_UNANCHORED_WIDTH:
        return False
    return _sequence_is_safe(items, anchored)


def _flatten(node: Seq) -> list[Node]:
    """The items with groups inlined (a group matters only for what repeats or alternates)."""
    out: list[Node] = []
    for item in node.items:
        if isinstance(item, Group):
            out.extend(_flatten(item.body))
        else:
            out.append(item)
    return out


def _sequence_is_safe(items: list[Node], anchored: bool) -> bool:
    # The set of the last variable repeat, until a mandatory character it cannot match; characters it can
    # match in between (``overlaps``) let the region end in a few places, which multiplies the paths tried.
    pending: CharSet | None = None
    overlaps = 0
    paths = 1
    for item in items:
        chars: CharSet | None
        if isinstance(item, Chars):
            chars = item.chars
        elif isinstance(item, Repeat):
            single = single_char(item.body)
            if single is None:
                return False
            if item.low != item.high:
                if pending is not None:
                    return False
                pending, overlaps = single, 0
                continue
            if not item.low:
                continue
            chars = single
        elif isinstance(item, Alt):
            paths *= len(item.branches)
            found = _fixed_alternatives(item.branches)
            if found is None or paths > _MAX_ALTERNATIVE_PATHS:
                return False
            if found is _ZERO_WIDTH:
                continue
            if pending is not None and not pending.disjoint(found):
                return False
            chars = found
        elif isinstance(item, Backref):
            if not anchored or pending is not None:
                return False
            chars = _ANY
        elif isinstance(item, Look):
            if single_char(item.body) is not None:
                continue
            if not anchored or pending is not None or not _sequence_is_safe(_flatten(item.body), True):
                return False
            continue
        elif isinstance(item, Anchor):
            continue
        else:
            return False
        if pending is None:
            continue
        if pending.disjoint(chars):
            paths *= overlaps + 1
            if paths > _MAX_ALTERNATIVE_PATHS:
                return False
            pending, overlaps = None, 0
        else:
            overlaps += 1
    return True


def _fixed_alternatives(branches: tuple[Seq, ...]) -> CharSet | None:
    """For alternatives that are each a non-empty run of single characters: the set of their first characters.

    Alternatives that are all zero-width (the two halves of a translated ``\\b``) give ``_ZERO_WIDTH``.
    """
    ranges: list[tuple[int, int]] = []
    zero_width = 0
    for branch in branches:
        items = _flatten(branch)
        if items and all(isinstance(item, (Anchor, Look)) for item in items):
            if any(isinstance(item, Look) and single_char(item.body) is None for item in items):
                return None
            zero_width += 1
            continue
        sets = [item.chars if isinstance(item, Chars) else None for item in items]
        if not sets or any(chars is None or chars.ranges is None for chars in sets):
            return None
        first = sets[0]
        assert first is not None and first.ranges is not None
        ranges.extend(first.ranges)
    if zero_width and zero_width != len(branches):
        return None
    return _ZERO_WIDTH if zero_width else CharSet(ranges)
