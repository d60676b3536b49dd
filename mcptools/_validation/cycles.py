"""Reference cycles that never reach a property or an item: refused before any code is generated.

``{"$ref": "#"}`` or ``a -> b -> a`` through ``$ref`` / ``allOf`` / ``anyOf`` ... applies a schema to the same
value forever: no instance can ever be validated against it. A recursive schema that descends (a tree whose
``items`` refer back to the root) is fine, because every round consumes one level of the instance. Only the
in-place applicators are edges here, so a cycle found is one that makes no progress.
"""

from __future__ import annotations

from typing import Any

from mcptools._errors import SchemaError

from .keywords import Spec, SpecTable, any_reachable, node_key
from .resolve import Located

__all__ = ["compares_whole_values", "is_recursive", "refuse_reference_cycles"]


def _in_place_edges(spec: Spec) -> list[tuple[Located, bool]]:
    """(subschema applied to the same value, whether the edge is this schema's own ``$ref``)."""
    edges: list[tuple[Located, bool]] = []
    if spec.ref is not None and spec.dynamic_name is None:
        edges.append((spec.ref, True))
    for node in (*spec.all_of, *spec.any_of, *spec.one_of):
        edges.append((node, False))
    for single in (spec.not_, spec.if_, spec.then, spec.else_):
        if single is not None:
            edges.append((single, False))
    edges.extend((node, False) for _, node in spec.dependent_schemas)
    return edges


def refuse_reference_cycles(specs: SpecTable, roots: list[Located]) -> None:
    """Raise ``SchemaError`` naming the ``$ref`` of the first cycle of in-place applicators found."""
    done: set[tuple[Any, ...]] = set()
    for root in roots:
        if node_key(root) not in done:
            _search(specs, root, done)


def _search(specs: SpecTable, root: Located, done: set[tuple[Any, ...]]) -> None:
    """Iterative depth-first search from ``root``; a schema already searched (``done``) is not entered again."""
    on_path: dict[tuple[Any, ...], int] = {}
    # (node, its edges, next edge index); entered_by_ref[i] says whether frame i was reached by a $ref.
    stack: list[tuple[Located, list[tuple[Located, bool]], int]] = []
    entered_by_ref: list[bool] = []

    def enter(node: Located, by_ref: bool) -> None:
        on_path[node_key(node)] = len(stack)
        stack.append((node, _in_place_edges(specs.spec(node)), 0))
        entered_by_ref.append(by_ref)

    enter(root, False)
    while stack:
        node, edges, position = stack[-1]
        if position == len(edges):
            stack.pop()
            entered_by_ref.pop()
            key = node_key(node)
            del on_path[key]
            done.add(key)
            continue
        stack[-1] = (node, edges, position + 1)
        target, is_ref = edges[position]
        key = node_key(target)
        if key in done:
            continue
        if key in on_path:
            start = on_path[key]
            # The $ref that closes the loop is named; it is on the cycle (the edge just taken, or earlier).
            frames = [frame[0] for frame in stack[start:]]
            refs = [is_ref] + [entered_by_ref[i + 1] for i in range(start, len(stack) - 1)]
            sources = [node, *frames[:-1]]
            culprit = next((source for source, ref in zip(sources, refs, strict=True) if ref), node)
            raise SchemaError(
                f"'$ref' at '{culprit.where_of('$ref')}' refers back to itself without consuming any of the "
                "instance (the loop never goes through 'properties' or 'items'), so no value could ever "
                "be checked against it"
            )
        enter(target, is_ref)


def _all_edges(specs: SpecTable, spec: Spec) -> list[Located]:
    found = [node for node, _ in _in_place_edges(spec)]
    found.extend(node for _, node in spec.properties)
    found.extend(node for _, _, node in spec.pattern_properties)
    found.extend(spec.prefix_items)
    for single in (
        spec.additional,
        spec.property_names,
        spec.items,
        spec.contains,
        spec.unevaluated_items,
        spec.unevaluated_properties,
    ):
        if single is not None:
            found.append(single)
    if spec.dynamic_name is not None:
        # Any schema with the anchor may be the target, depending on the dynamic scope.
        for anchors in specs.index.dynamic_anchors.values():
            target = anchors.get(spec.dynamic_name)
            if target is not None:
                found.append(target)
        if spec.ref is not None:
            found.append(spec.ref)
    return found


def is_recursive(specs: SpecTable, root: Located) -> bool:
    """Whether checking ``root`` can reach ``root``'s own subschemas again: the instance then bounds the depth."""
    done: set[tuple[Any, ...]] = set()
    on_path: set[tuple[Any, ...]] = set()
    stack: list[tuple[Located, list[Located], int]] = [(root, _all_edges(specs, specs.spec(root)), 0)]
    on_path.add(node_key(root))
    while stack:
        node, edges, position = stack[-1]
        if position == len(edges):
            stack.pop()
            on_path.discard(node_key(node))
            done.add(node_key(node))
            continue
        stack[-1] = (node, edges, position + 1)
        target = edges[position]
        key = node_key(target)
        if key in on_path:
            return True
        if key not in done:
            on_path.add(key)
            stack.append((target, _all_edges(specs, specs.spec(target)), 0))
    return False


def compares_whole_values(specs: SpecTable, root: Located) -> bool:
    """Whether some reachable schema compares whole instance values (uniqueItems, a non-string enum / const)."""

    def compares(spec: Spec) -> bool:
        allowed = [*(spec.enum or []), *(spec.const or ())]
        return bool(spec.unique_items) or any(type(value) is not str for value in allowed)

    return any_reachable(specs, root, lambda spec: _all_edges(specs, spec), compares)
