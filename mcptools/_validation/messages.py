"""The error grammar: the contract's strings, and the same voice with a path for everything deeper.

For an object of arguments the strings are the contract's, in its order: ``missing required property '<name>'``
for each missing required name (in ``required`` order), then for each argument in its own order at most one of
``unexpected property '<name>'``, ``property '<name>' must be <type>``, ``property '<name>' must be one of [...]``
(Python's repr of the enum list).

Deeper, the same voice with a path: ``<subject> <predicate>``, where the subject is ``value`` for the instance
itself, ``property '<path>'`` below an object and ``item '<path>'`` below a top-level array; a path joins names
with dots and indices with brackets (``where.street``, ``tags[2]``, ``[0].name``), and an empty name is spelt
``[""]`` (``where[""]``). Predicates: ``must be string or null``, ``must be null`` / ``must be 'on'`` (const, in
JSON's words), ``must be >= 1``, ``must be at most 20 characters``, ``must match pattern '...'``, ``must match
format 'date-time'``, ``must have at least 1 item``, ``must not contain duplicate items``, ``must contain at least
1 item that is object and has property 'id'``, ``must not have property 'a'``, ``must be >= 5 or <= 1``, ``must
match exactly one of: A, B`` ... (subschemas in words: see ``describe``; a failed union reports the branch the
value was meant for: see ``choice``). Fixed shapes: ``missing required property '<path>'``, ``missing property
'<path>' (required when '<path>' is present)``, ``unexpected property '<path>'`` / ``unexpected item '<path>'``
(plus `` (did you mean '<name>'?)`` only with ``suggest_names=True``), ``value nests too deeply to validate`` (more than
256 levels under a recursive schema), and a last ``... and N more errors`` when there are over 100 lines.

At most one error per location (the instance, or a property or item at any depth): a wrong type, enum or const
ends that location; otherwise its first failing keyword is reported, then its children.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "closest_name",
    "count_phrase",
    "render_path",
    "subject",
    "type_phrase",
]

Path = tuple[Any, ...]


def render_path(path: Path) -> str:
    """A path as messages show it: ``where.street``, ``tags[2]``, ``[0].a``; an empty name is ``[""]``."""
    parts: list[str] = []
    for segment in path:
        if type(segment) is int:
            parts.append(f"[{segment}]")
        elif segment == "":
            parts.append('[""]')
        elif parts:
            parts.append("." + str(segment))
        else:
            parts.append(str(segment))
    return "".join(parts)


def subject(path: Path) -> str:
    if not path:
        return "value"
    noun = "item" if type(path[0]) is int else "property"
    return f"{noun} '{render_path(path)}'"


def type_phrase(types: list[str]) -> str:
    """``['string']`` -> ``string``; ``['string', 'null']`` -> ``string or null``; three -> ``a, b or c``."""
    if len(types) == 1:
        return types[0]
    return ", ".join(types[:-1]) + " or " + types[-1]


def count_phrase(count: Any, singular: str, plural: str) -> str:
    return f"{count} {singular if count == 1 else plural}"


def closest_name(name: str, candidates: list[str]) -> str | None:
    """The candidate a misspelt ``name`` most likely meant (edit distance at most 2, or a case change)."""
    best: str | None = None
    best_distance = 3
    lowered = name.lower()
    for candidate in candidates:
        if candidate.lower() == lowered:
            return candidate
        if abs(len(candidate) - len(name)) >= best_distance:
            continue
        distance = _edit_distance(lowered, candidate.lower(), best_distance)
        if distance < best_distance:
            best, best_distance = candidate, distance
    if best is not None and best_distance >= len(name):
        return None
    return best


def _edit_distance(a: str, b: str, limit: int) -> int:
    """Optimal string alignment distance (a swap of two neighbours counts once), capped at ``limit``."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) >= limit:
            return limit
        previous2, previous = previous, current
    return previous[-1]
