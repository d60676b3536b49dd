"""The error grammar: the contract's strings, and the same voice with a path for everything deeper.

For an object of arguments the strings are the contract's, in its order: ``missing required property '<name>'``
for each missing required name (in ``required`` order), then for each argument in its own order at most one of
``unexpected property '<name>'``, ``property '<name>' must be <type>``, ``property '<name>' must be one of [...]``
(Python's repr of the enum list).

Deeper, the same voice with a path: ``<subject> <predicate>``, where the subject is ``value`` for the instance
itself, ``property '<path>'`` below an object and ``item '<path>'`` below a top-level array; a path joins names
with dots and indices with brackets (``where.street``, ``tags[2]``, ``[0].name``); an empty name, or one holding
``.``, ``[``, ``]`` or ``'``, is written as a JSON string in brackets (``where[""]``, ``sort["user.age"]``), so it
is never mistaken for its parent or for two nested names. A path of one name alone is the name itself, as the
contract writes it (``property 'user.age' must be integer``); only the empty name keeps its brackets there.
Predicates: ``must be string or null``, ``must be null`` / ``must be 'on'`` (const, in
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

import json
import re
from typing import Any

__all__ = [
    "child_text",
    "closest_name",
    "count_phrase",
    "name_segment",
    "render_path",
    "shown_path",
    "subject",
    "type_phrase",
]

# Names holding these would read as a path of several names (or as an index) if written bare.
_ODD = re.compile(r"[.\[\]']").search

Path = tuple[Any, ...]


def name_segment(name: str) -> str:
    """How a property name follows its parent in a path: ``.street``, or ``[""]`` / ``["user.age"]``."""
    if name and _ODD(name) is None:
        return "." + name
    return "[" + json.dumps(name, ensure_ascii=False) + "]"


def child_text(path: str, name: Any) -> str:
    """The path text of property ``name`` under path text ``path`` (odd names always bracketed)."""
    # JSON keys are strings; a Python caller's other keys are named as str() writes them.
    segment = name_segment(str(name))
    if path or segment[0] == "[":
        return path + segment
    return segment[1:]


def shown_path(path: str) -> str:
    """Path text as a message shows it: one odd name alone is the bare name, as the contract writes it."""
    if path[:2] == '["' and path[-2:] == '"]' and len(path) > 4:
        try:
            name = json.loads(path[1:-1])
        except ValueError:  # several segments: '["a.b"]["c.d"]'
            return path
        if isinstance(name, str):
            return name
    return path


def render_path(path: Path) -> str:
    """A path as messages show it: ``where.street``, ``tags[2]``, ``[0].a``, ``sort["user.age"]``."""
    if len(path) == 1 and type(path[0]) is not int and path[0] != "":
        return str(path[0])
    text = ""
    for segment in path:
        text = text + f"[{segment}]" if type(segment) is int else child_text(text, segment)
    return text


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
