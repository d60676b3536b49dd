"""Error paths in the names the model sent: a refused provider call's errors, said as the export spells them.

The validator judges the original value and names its paths in the original schema's names (``$match``); a
model under a profile that renames properties (Gemini's ``_match``) knows only the export's. Each error line's
paths are read back into segments, walked down the shape beside the value the model sent (a union's branch is
the one ``choose`` maps the value through), and written again in the provider's names, in the validator's own
path grammar (``render_path``). A line with no renamed segment is kept as it is, byte for byte, and so is one
whose path cannot be read. This runs only for a refused call of an export that renames (``Exported.renames``).
"""

from __future__ import annotations

import json
from typing import Any, Final

from .._validation.messages import render_path
from .mapping import ArrayShape, ObjectShape, RefShape, Shape, UnionShape, choose

__all__ = ["renames", "with_provider_paths"]

# What comes before a path in the validator's lines (``messages``): a subject, a missing or unexpected name, a
# property name failing ``propertyNames``; and the trigger of a missing dependent property.
_OPENERS: Final = (
    "property '",
    "item '",
    "missing required property '",
    "missing property '",
    "unexpected property '",
    "unexpected item '",
    "name of property '",
    "name of item '",
)
_TRIGGER: Final = " (required when '"

Segments = list[str | int]


def renames(shape: Shape) -> bool:
    """Whether a property somewhere in ``shape`` has another name for the provider."""
    seen: set[int] = set()
    pending: list[Shape] = [shape]
    while pending:
        node = pending.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, RefShape):
            pending.append(node.table.get(node.name))
        elif isinstance(node, UnionShape):
            pending.extend(branch.shape for branch in node.branches)
        elif isinstance(node, ArrayShape):
            pending.append(node.items)
        else:
            for prop in node.properties:
                if prop.original != prop.provider:
                    return True
                pending.append(prop.shape)
    return False


def with_provider_paths(shape: Shape, sent: Any, errors: list[str]) -> list[str]:
    """``errors`` (the validator's lines for the value ``sent`` maps back to) with every path in the names of
    ``sent``."""
    return [_line(shape, sent, line) for line in errors]


def _line(shape: Shape, sent: Any, line: str) -> str:
    for opener in _OPENERS:
        if line.startswith(opener):
            break
    else:
        return line
    start = len(opener)
    renamed = _path(shape, sent, line, start)
    if renamed is not None:
        line = line[:start] + renamed[0] + line[renamed[1] :]
    if opener == "missing property '":  # "... (required when '<path>' is present)"
        start = line.find(_TRIGGER, len(opener)) + len(_TRIGGER)
        trigger = _path(shape, sent, line, start) if start >= len(_TRIGGER) else None
        if trigger is not None:
            line = line[:start] + trigger[0] + line[trigger[1] :]
    return line


def _path(shape: Shape, sent: Any, line: str, start: int) -> tuple[str, int] | None:
    """The path that starts at ``line[start]`` in the provider's names, and where it ends; ``None`` when it
    cannot be read or names nothing the provider calls otherwise."""
    if not isinstance(shape, ObjectShape):
        return None
    # Below the value itself an odd name (``user.age``, ``it's``) stands bare: a whole name of the top level first.
    for prop in shape.properties:
        if prop.original and line.startswith(prop.original + "'", start):
            if prop.original == prop.provider:
                break
            return render_path((prop.provider,)), start + len(prop.original)
    read = _segments(line, start)
    if read is None:
        return None
    segments, end = read
    provider = _provider_segments(shape, sent, segments)
    return None if provider == segments else (render_path(tuple(provider)), end)


def _segments(line: str, start: int) -> tuple[Segments, int] | None:
    """The segments of a path written by ``render_path`` (``a.b``, ``[0].a``, ``a["x.y"]``), up to its closing
    quote."""
    segments: Segments = []
    index = start
    decoder = json.JSONDecoder()
    while index < len(line):
        char = line[index]
        if char == "'":
            return (segments, index) if segments else None
        if char == "[":
            if line.startswith('["', index):
                try:
                    name, after = decoder.raw_decode(line, index + 1)
                except ValueError:
                    return None
                if not isinstance(name, str) or not line.startswith("]", after):
                    return None
                segments.append(name)
                index = after + 1
                continue
            close = line.find("]", index)
            if close < 0 or not line[index + 1 : close].isdigit():
                return None
            segments.append(int(line[index + 1 : close]))
            index = close + 1
            continue
        if char == ".":
            if not segments:
                return None
            index += 1
        elif segments and line[index - 1] not in ".":
            return None
        end = index
        while end < len(line) and line[end] not in ".['":
            end += 1
        if end == index:
            return None
        segments.append(line[index:end])
        index = end
    return None


def _provider_segments(shape: Shape, sent: Any, segments: Segments) -> Segments:
    """``segments`` (original names) walked down ``shape`` beside the value ``sent``: the provider's names."""
    out: Segments = []
    for segment in segments:
        for _ in range(200):  # a union's branch, a named definition: to the shape below them
            if isinstance(shape, RefShape):
                shape = shape.table.get(shape.name)
            elif isinstance(shape, UnionShape):
                shape = choose(shape, sent)[0]
            else:
                break
        if isinstance(segment, int):
            shape = shape.items if isinstance(shape, ArrayShape) else None
            sent = sent[segment] if isinstance(sent, list) and 0 <= segment < len(sent) else None
            out.append(segment)
            continue
        prop = shape.by_original.get(segment) if isinstance(shape, ObjectShape) else None
        name = prop.provider if prop is not None else segment
        out.append(name)
        sent = sent.get(name) if isinstance(sent, dict) else None
        shape = prop.shape if prop is not None else None
    return out
