"""Which union member a JSON value belongs to, decided once per union at definition time.

Validation only says a value matches *some* member (``anyOf``); conversion must know which one to build.
We dispatch on the JSON type of the value, so two members arriving as the same JSON type are a problem only
when one of them needs converting. Two ways out stay cheap at call time: members that are all Literals/Enums
with disjoint values (dispatch on the value), or objects that all carry a Literal tag field (dispatch on the
tag). Anything else is refused at definition time rather than guessed at call time.
"""

from __future__ import annotations

from collections.abc import Sequence

from .model import ChoiceNode, Node, ObjectNode, may_convert, unwrap

__all__ = ["find_tag", "union_problem", "values_disjoint"]


def union_problem(members: Sequence[Node], texts: Sequence[str]) -> str | None:
    """Why a value of this union could not be converted unambiguously, with the fix; None when it can."""
    kinds = sorted(frozenset().union(*(member.kinds for member in members)))
    for kind in kinds:
        candidates = [index for index, member in enumerate(members) if kind in member.kinds]
        if len(candidates) < 2 or not any(may_convert(members[index]) for index in candidates):
            continue
        nodes = [unwrap(members[index]) for index in candidates]
        choices = [node for node in nodes if isinstance(node, ChoiceNode)]
        if len(choices) == len(nodes) and values_disjoint(choices):
            continue
        objects = [node for node in nodes if isinstance(node, ObjectNode)]
        if kind == "object" and len(objects) == len(nodes) and find_tag(objects) is not None:
            continue
        names = " and ".join(texts[index] for index in candidates)
        return (
            f"the union members {names} all arrive as JSON {kind} values and at least one of them is "
            "converted to a Python type, so mcptools cannot tell which member a value is meant to be; keep "
            "one of them, "
            "use Literal/Enum members with distinct values, or give each object member a Literal tag field "
            "with its own value"
        )
    return None


def values_disjoint(choices: Sequence[ChoiceNode]) -> bool:
    seen: set[tuple[bool, object]] = set()
    for choice in choices:
        for value in choice.values:
            key = (isinstance(value, bool), value)
            if key in seen:
                return False
            seen.add(key)
    return True


def find_tag(objects: Sequence[ObjectNode]) -> str | None:
    """A field every object requires, typed as a Literal/Enum, with values no two objects share."""
    if not objects:
        return None
    for field in objects[0].fields:
        choices: list[ChoiceNode] = []
        for node in objects:
            match = next((f for f in node.fields if f.name == field.name and f.required), None)
            tag = unwrap(match.node) if match is not None else None
            if not isinstance(tag, ChoiceNode):
                break
            choices.append(tag)
        else:
            if values_disjoint(choices):
                return field.name
    return None
