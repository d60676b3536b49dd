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

from typing import Any, Final

from .nfa import CASE_FLAGS, CharSet, char_set

__all__ = ["needs_memory", "runs_in_linear_time"]

_MAX_UNANCHORED_WIDTH: Final = 256
_MAX_ALTERNATIVE_PATHS: Final = 64
_ANY: Final = CharSet([(0, 0x10FFFF)])
_ZERO_WIDTH: Final = CharSet([])


def needs_memory(tree: Any) -> bool:
    """Whether the pattern has a backreference or a lookaround longer than one character."""
    for op, av in tree:
        name = op.name
        if name in ("GROUPREF", "GROUPREF_EXISTS"):
            return True
        if name in ("ASSERT", "ASSERT_NOT"):
            body = list(av[1])
            if len(body) > 1 or (body and char_set(*body[0]) is None):
                return True
        for child in _children(name, av):
            if needs_memory(child):
                return True
    return False


def _children(name: str, av: Any) -> list[Any]:
    if name == "SUBPATTERN":
        return [av[3]]
    if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        return [av[2]]
    if name == "BRANCH":
        return list(av[1])
    if name in ("ASSERT", "ASSERT_NOT"):
        return [av[1]]
    if name == "ATOMIC_GROUP":
        return [av]
    if name == "GROUPREF_EXISTS":
        return [branch for branch in av[1:] if branch is not None]
    return []


def runs_in_linear_time(tree: Any) -> bool:
    """Whether ``re.search`` with this parse tree is linear in the text's length (see the module's rules)."""
    items = _flatten(tree)
    if items is None or tree.state.flags & CASE_FLAGS:
        return False
    anchored = bool(items) and items[0][0].name == "AT" and items[0][1].name in ("AT_BEGINNING", "AT_BEGINNING_STRING")
    if not anchored and tree.getwidth()[1] > _MAX_UNANCHORED_WIDTH:
        return False
    return _sequence_is_safe(items, anchored)


def _flatten(items: Any) -> list[tuple[Any, Any]] | None:
    """The items with plain groups inlined (a group matters only for what repeats or alternates)."""
    out: list[tuple[Any, Any]] = []
    for op, av in items:
        if op.name == "SUBPATTERN":
            if av[1]:
                return None  # inline flags: leave them to the NFA's own refusal or to re via the NFA route
            inner = _flatten(av[3])
            if inner is None:
                return None
            out.extend(inner)
        else:
            out.append((op, av))
    return out


def _sequence_is_safe(items: list[tuple[Any, Any]], anchored: bool) -> bool:
    # The set of the last variable repeat, until a mandatory character it cannot match; characters it can
    # match in between (``overlaps``) let the region end in a few places, which multiplies the paths tried.
    pending: CharSet | None = None
    overlaps = 0
    paths = 1
    for op, av in items:
        name = op.name
        chars = char_set(op, av)
        if chars is None and name in ("MAX_REPEAT", "MIN_REPEAT"):
            low, high, body = av
            single = _single(body)
            if single is None:
                return False
            if low != high:
                if pending is not None:
                    return False
                pending, overlaps = single, 0
                continue
            if not low:
                continue
            chars = single
        elif chars is None and name == "BRANCH":
            paths *= len(av[1])
            found = _fixed_alternatives(av[1])
            if found is None or paths > _MAX_ALTERNATIVE_PATHS:
                return False
            if found is _ZERO_WIDTH:
                continue
            if pending is not None and not pending.disjoint(found):
                return False
            chars = found
        elif chars is None and name == "GROUPREF":
            if not anchored or pending is not None:
                return False
            chars = _ANY
        elif chars is None and name in ("ASSERT", "ASSERT_NOT"):
            body = _flatten(av[1])
            if body is None:
                return False
            if len(body) == 1 and char_set(*body[0]) is not None:
                continue
            if not anchored or pending is not None or not _sequence_is_safe(body, True):
                return False
            continue
        elif chars is None and name == "AT":
            continue
        elif chars is None:
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


def _single(body: Any) -> CharSet | None:
    """The set of a repeat body that is one character (possibly in a group), else None."""
    items = _flatten(body)
    if items is None or len(items) != 1:
        return None
    return char_set(*items[0])


def _fixed_alternatives(branches: Any) -> CharSet | None:
    """For alternatives that are each a non-empty run of single characters: the set of their first characters.

    Alternatives that are all zero-width (the two halves of a translated ``\\b``) give ``_ZERO_WIDTH``.
    """
    ranges: list[tuple[int, int]] = []
    zero_width = 0
    for branch in branches:
        items = _flatten(branch)
        if items is None:
            return None
        if items and all(op.name in ("AT", "ASSERT", "ASSERT_NOT") for op, _ in items):
            if any(op.name != "AT" and _single(av[1]) is None for op, av in items):
                return None
            zero_width += 1
            continue
        sets = [char_set(op, av) for op, av in items]
        if not sets or any(chars is None or chars.ranges is None for chars in sets):
            return None
        first = sets[0]
        assert first is not None and first.ranges is not None
        ranges.extend(first.ranges)
    if zero_width and zero_width != len(branches):
        return None
    return _ZERO_WIDTH if zero_width else CharSet(ranges)
