"""The all-errors path: runs only after the generated valid path said no, and says what to fix.

Each schema object becomes one collector closure: ``collect(value, path, out, dyn)`` appends
``(path, missing, message)`` records. Rules, so a model gets one actionable line per problem:

- at most one error per location (the first found wins), a location being the instance itself or a property or
  item at any depth;
- a wrong type, enum or const ends the checks of that location (its children are not worth reporting);
- missing required properties come first, in ``required`` order, then each present property in the instance's
  own order, then its children (a stable sort by instance position, only when several keywords contributed).

The collector asks the generated functions (``ns``) whenever it needs a plain yes/no on a subschema (``not``,
``anyOf`` branches, ``if``, ``contains``) or the evaluated names for ``unevaluated*``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, final

from mcptools._json import JSON_TYPES

from .checks import ValueKeyword, rows_for
from .choice import BranchChooser, Missing, TypeMismatch, WrongTag
from .codegen import Generator
from .keywords import Spec, SpecTable, node_key
from .messages import (
    NO_MATCH,
    NOT_ALLOWED,
    any_of_phrase,
    closest_name,
    const_predicate,
    contains_phrase,
    enum_predicate,
    keyword_predicate,
    matches_several,
    missing_dependent,
    missing_required,
    negation_phrase,
    one_of_phrase,
    property_name_error,
    render_path,
    subject,
    type_predicate,
    unexpected,
    with_guess,
)
from .resolve import Located
from .values import matcher

__all__ = ["Collectors", "finish"]

Record = tuple[tuple[Any, ...], bool, str]
Collector = Callable[[Any, tuple[Any, ...], list[Record], tuple[str, ...]], None]
Step = Callable[[Any, tuple[Any, ...], list[Record], tuple[str, ...]], bool]


def _passes(row: ValueKeyword, bound: Any) -> Callable[[Any], bool]:
    """Whether a value passes ``row``'s keyword: any value of another type does."""
    applies, holds = JSON_TYPES[row.applies_to][0], row.holds
    return lambda value: not applies(value) or holds(value, bound)


def _keyword_step(row: ValueKeyword, bound: Any, spec: Spec) -> Step:
    passes, words = _passes(row, bound), keyword_predicate(row.keyword, row.message_value(spec))

    def step(value: Any, path: tuple[Any, ...], out: list[Record], dyn: tuple[str, ...]) -> bool:
        if not passes(value):
            out.append((path, False, f"{subject(path)} {words}"))
        return False

    return step


def _not_allowed(path: tuple[Any, ...]) -> str:
    if not path:
        return NOT_ALLOWED
    return unexpected(render_path(path), item=type(path[-1]) is not str)


@final
class Collectors:
    """Builds (once) and holds the collector of every schema object the errors path can reach."""

    __slots__ = ("_built", "generator", "hints", "needs_sort", "ns", "specs")

    def __init__(self, specs: SpecTable, generator: Generator, *, hints: bool) -> None:
        self.specs = specs
        self.generator = generator
        self.ns = generator.namespace
        self.hints = hints
        self.needs_sort = False
        self._built: dict[tuple[Any, ...], list[Collector]] = {}

    def collector(self, node: Located) -> Collector:
        key = node_key(node)
        cell = self._built.get(key)
        if cell is None:
            cell = self._built[key] = []
            cell.append(self._build(node))
        if cell:
            return cell[0]

        # A cycle ($ref back to an ancestor): the collector is still being built, so look it up at call time.
        def deferred(value: Any, path: tuple[Any, ...], out: list[Record], dyn: tuple[str, ...]) -> None:
            cell[0](value, path, out, dyn)

        return deferred

    def yes_no(self, node: Located) -> Callable[[Any, tuple[str, ...]], bool]:
        """The generated ``v`` function for ``node``, called the way the errors path calls it."""
        name = self.generator.function(node, "v")
        ns = self.ns
        if self.generator.dynamic:
            return lambda value, dyn: bool(ns[name](value, (*dyn, node.base)))
        return lambda value, dyn: bool(ns[name](value))

    def evaluated(self, node: Located) -> Callable[[Any, tuple[str, ...]], Any]:
        name = self.generator.function(node, "a")
        ns = self.ns
        if self.generator.dynamic:
            return lambda value, dyn: ns[name](value, (*dyn, node.base))
        return lambda value, dyn: ns[name](value)

    def _build(self, node: Located) -> Collector:
        spec = self.specs.spec(node)
        if spec.boolean is not None:
            if spec.boolean:
                return lambda value, path, out, dyn: None

            def never(value: Any, path: tuple[Any, ...], out: list[Record], dyn: tuple[str, ...]) -> None:
                out.append((path, False, _not_allowed(path)))

            return never
        steps = [*self._value_steps(spec), *self._object_steps(spec), *self._array_steps(spec)]
        steps.extend(self._in_place_steps(spec))
        steps.extend(self._unevaluated_steps(spec))

        def collect(value: Any, path: tuple[Any, ...], out: list[Record], dyn: tuple[str, ...]) -> None:
            for step in steps:
                if step(value, path, out, dyn):
                    return

        return collect

    # -- keywords about the value itself ----------------------------------------------------------------
    def _value_steps(self, spec: Spec) -> list[Step]:
        steps: list[Step] = []

        def simple(test: Callable[[Any], bool], predicate: str, stop: bool = False) -> Step:
            def step(value: Any, path: tuple[Any, ...], out: list[Record], dyn: tuple[str, ...]) -> bool:
                if test(value):
                    return False
                out.append((path, False, f"{subject(path)} {predicate}"))
                return stop

            return step

        if spec.types is not None:
            tests = [JSON_TYPES[name][0] for name in spec.types]
            steps.append(simple(lambda v: any(test(v) for test in tests), type_predicate(spec.types), True))
        if spec.enum is not None:
            steps.append(simple(matcher(spec.enum), enum_predicate(spec.enum), True))
        if spec.const is not None:
            steps.append(simple(matcher([spec.const[0]]), const_predicate(spec.const[0]), True))
        steps.extend(_keyword_step(row, bound, spec) for row, bound in rows_for(spec, "number", "string"))
        steps.extend(self._choice_steps(spec))
        return steps

    def _choice_steps(self, spec: Spec) -> list[Step]:
        steps: list[Step] = []
        if spec.not_ is not None:
            check = self.yes_no(spec.not_)
            words = negation_phrase(spec.not_.schema)

            def negation(value: Any, path: tuple[Any, ...], out: list[Record], dyn: tuple[str, ...]) -> bool:
                if check(value, dyn):
                    out.append((path, False, f"{subject(path)} {words}"))
                return False

            steps.append(negation)
        for branches, exactly in ((spec.any_of, False), (spec.one_of, True)):
            if branches:
                steps.append(self._choice(spec, branches, exactly))
        return steps

    def _choice(self, spec: Spec, branches: list[Located], exactly: bool) -> Step:
        checks = [self.yes_no(branch) for branch in branches]
        collectors = [self.collector(branch) for branch in branches]
        chooser = BranchChooser(self.specs, spec, branches)
        schemas = [branch.schema for branch in branches]
        words = one_of_phrase(schemas) if exactly else any_of_phrase(schemas)
        self.needs_sort = True

        def choice(value: Any, path: tuple[Any, ...], out: list[Record], dyn: tuple[str, ...]) -> bool:
            hits = sum(1 for check in checks if check(value, dyn))
            if hits == 1 or (hits > 1 and not exactly):
                return False
            if hits > 1:
                out.append((path, False, matches_several(f"{subject(path)} {words}", hits)))
                return False

            def trial(index: int) -> list[Record]:
                found: list[Record] = []
                collectors[index](value, path, found, dyn)
                return found

            verdict = chooser.choose(value, trial)
            if isinstance(verdict, list):
                out.extend(verdict)
            elif isinstance(verdict, TypeMismatch):
                out.append((path, False, f"{subject(path)} {verdict.words}"))
            elif isinstance(verdict, Missing):
                where = (*path, verdict.name)
                out.append((where, True, missing_required(render_path(where))))
            elif isinstance(verdict, WrongTag):
                where = (*path, verdict.name)
                out.append((where, False, f"{subject(where)} {verdict.words}"))
            else:
                out.append((path, False, f"{subject(path)} {words}"))
            return False

        return choice

    # -- objects ----------------------------------------------------------------------------------------
    def _object_steps(self, spec: Spec) -> list[Step]:
        steps: list[Step] = []
        steps.extend(_keyword_step(row, bound, spec) for row, bound in rows_for(spec, "object"))
        if spec.required or spec.dependent_required:
            required, dependent = spec.required, spec.dependent_required

            def presence(value: Any, path: tuple[Any, ...], out: list[Record], dyn: tuple[str, ...]) -> bool:
                if isinstance(value, dict):
                    for name in required:
                        if name not in value:
                            where = (*path, name)
                            out.append((where, True, missing_required(render_path(where))))
                    for trigger, names in dependent:
                        if trigger in value:
                            for name in names:
                                if name not in value:
                                    where = (*path, name)
                                    because = render_path((*path, trigger))
                                    out.append((where, True, missing_dependent(render_path(where), because)))
                return False

            steps.append(presence)
        if spec.properties or spec.pattern_properties or spec.additional is not None:
            steps.append(self._members(spec))
        if spec.property_names is not None:
            names = self.collector(spec.property_names)

            def property_names(value: Any, path: tuple[Any, ...], out: list[Record], dyn: tuple[str, ...]) -> bool:
                if isinstance(value, dict):
                    for key in value:
                        found: list[Record] = []
                        names(key, (*path, str(key)), found, dyn)
                        for where, _, message in found[:1]:
                            out.append((where, False, property_name_error(message)))
                return False

            steps.append(property_names)
        return steps

    def _members(self, spec: Spec) -> Step:
        declared = {name: self.collector(child) for name, child in spec.properties}
        patterns = [(regex, self.collector(child)) for regex, _, child in spec.pattern_properties]
        extra = self.collector(spec.additional) if spec.additional is not None else None
        suggest = self.hints and spec.additional is not None and spec.additional.schema is False and declared

        def members(value: Any, path: tuple[Any, ...], out: list[Record], dyn: tuple[str, ...]) -> bool:
            if not isinstance(value, dict):
                return False
            for key, item in value.items():
                where = (*path, str(key))
                matched = False
                own = declared.get(key)
                if own is not None:
                    own(item, where, out, dyn)
                    matched = True
                for regex, collect in patterns:
                    if regex.search(str(key)) is not None:
                        collect(item, where, out, dyn)
                        matched = True
                if not matched and extra is not None:
                    if suggest:
                        guess = closest_name(str(key), [name for name in declared if name not in value])
                        if guess is not None:
                            out.append((where, False, with_guess(_not_allowed(where), guess)))
                            continue
                    extra(item, where, out, dyn)
            return False

        return members

    # -- arrays -----------------------------------------------------------------------------------------
    def _array_steps(self, spec: Spec) -> list[Step]:
        steps: list[Step] = []
        steps.extend(_keyword_step(row, bound, spec) for row, bound in rows_for(spec, "array"))
        if spec.contains is not None:
            check = self.yes_no(spec.contains)
            least, most = spec.min_contains, spec.max_contains
            what = spec.contains.schema

            def contains(value: Any, path: tuple[Any, ...], out: list[Record], dyn: tuple[str, ...]) -> bool:
                if isinstance(value, (list, tuple)):
                    hits = sum(1 for item in value if check(item, dyn))
                    if hits < least:
                        out.append((path, False, f"{subject(path)} {contains_phrase(what, least, 'at least')}"))
                    elif most is not None and hits > most:
                        out.append((path, False, f"{subject(path)} {contains_phrase(what, most, 'at most')}"))
                return False

            steps.append(contains)
        if spec.prefix_items or spec.items is not None:
            prefix = [self.collector(child) for child in spec.prefix_items]
            rest = self.collector(spec.items) if spec.items is not None else None

            def items(value: Any, path: tuple[Any, ...], out: list[Record], dyn: tuple[str, ...]) -> bool:
                if isinstance(value, (list, tuple)):
                    for position, item in enumerate(value):
                        if position < len(prefix):
                            prefix[position](item, (*path, position), out, dyn)
                        elif rest is not None:
                            rest(item, (*path, position), out, dyn)
                        else:
                            break
                return False

            steps.append(items)
        return steps

    # -- in-place applicators and unevaluated* ----------------------------------------------------------
    def _in_place_steps(self, spec: Spec) -> list[Step]:
        steps: list[Step] = []
        sources = int(bool(spec.properties or spec.pattern_properties or spec.additional or spec.required))
        applied = [*([spec.ref] if spec.ref is not None and spec.dynamic_name is None else []), *spec.all_of]
        for node in applied:
            collect = self.collector(node)
            steps.append(lambda v, p, o, d, c=collect: c(v, p, o, d) or False)  # type: ignore[misc]
        sources += len(applied)
        if spec.dynamic_name is not None:
            steps.append(self._dynamic_step(spec))
            sources += 1
        for trigger, node in spec.dependent_schemas:
            collect = self.collector(node)

            def dependent(
                v: Any,
                p: tuple[Any, ...],
                o: list[Record],
                d: tuple[str, ...],
                c: Collector = collect,
                t: str = trigger,
            ) -> bool:
                if isinstance(v, dict) and t in v:
                    c(v, p, o, d)
                return False

            steps.append(dependent)
            sources += 1
        if spec.if_ is not None and (spec.then is not None or spec.else_ is not None):
            test = self.yes_no(spec.if_)
            then = self.collector(spec.then) if spec.then is not None else None
            other = self.collector(spec.else_) if spec.else_ is not None else None

            def condition(v: Any, p: tuple[Any, ...], o: list[Record], d: tuple[str, ...]) -> bool:
                chosen = then if test(v, d) else other
                if chosen is not None:
                    chosen(v, p, o, d)
                return False

            steps.append(condition)
            sources += 1
        if sources > 1 or spec.has_unevaluated:
            self.needs_sort = True
        return steps

    def _dynamic_step(self, spec: Spec) -> Step:
        assert spec.ref is not None and spec.dynamic_name is not None
        table = {
            resource: anchors[spec.dynamic_name]
            for resource, anchors in self.specs.index.dynamic_anchors.items()
            if spec.dynamic_name in anchors
        }
        for target in table.values():
            self.collector(target)
        fallback = spec.ref
        self.collector(fallback)

        def dynamic(v: Any, p: tuple[Any, ...], o: list[Record], d: tuple[str, ...]) -> bool:
            target = next((table[r] for r in d if r in table), fallback)
            self.collector(target)(v, p, o, (*d, target.base))
            return False

        return dynamic

    def _unevaluated_steps(self, spec: Spec) -> list[Step]:
        if not spec.has_unevaluated:
            return []
        if_evaluated = self.evaluated(spec.if_) if spec.if_ is not None else None
        if_test = self.yes_no(spec.if_) if spec.if_ is not None else None
        then_or_else = {
            True: self.evaluated(spec.then) if spec.then is not None else None,
            False: self.evaluated(spec.else_) if spec.else_ is not None else None,
        }
        in_place = [self.evaluated(node) for node in spec.in_place() if node not in (spec.if_, spec.then, spec.else_)]
        declared = {name for name, _ in spec.properties}
        patterns = [regex for regex, _, _ in spec.pattern_properties]
        contains = self.yes_no(spec.contains) if spec.contains is not None else None
        leftover_properties = (
            self.collector(spec.unevaluated_properties) if spec.unevaluated_properties is not None else None
        )
        leftover_items = self.collector(spec.unevaluated_items) if spec.unevaluated_items is not None else None
        prefix = len(spec.prefix_items)
        has_items, has_additional = spec.items is not None, spec.additional is not None

        def seen_by_applicators(v: Any, d: tuple[str, ...]) -> set[Any]:
            seen: set[Any] = set()
            for evaluate in in_place:
                found = evaluate(v, d)
                if found is not None:
                    seen |= found
            if if_test is not None and if_evaluated is not None:
                passed = if_test(v, d)
                if passed:
                    seen |= if_evaluated(v, d)
                branch = then_or_else[passed]
                if branch is not None:
                    found = branch(v, d)
                    if found is not None:
                        seen |= found
            return seen

        def unevaluated(v: Any, p: tuple[Any, ...], o: list[Record], d: tuple[str, ...]) -> bool:
            if isinstance(v, dict) and leftover_properties is not None and not has_additional:
                seen = seen_by_applicators(v, d)
                for key, item in v.items():
                    if key in seen or key in declared or any(r.search(str(key)) for r in patterns):
                        continue
                    leftover_properties(item, (*p, str(key)), o, d)
            elif isinstance(v, (list, tuple)) and leftover_items is not None and not has_items:
                seen = seen_by_applicators(v, d)
                for position, item in enumerate(v):
                    if position < prefix or position in seen:
                        continue
                    if contains is not None and contains(item, d):
                        continue
                    leftover_items(item, (*p, position), o, d)
            return False

        return [unevaluated]


def finish(records: list[Record], instance: Any, needs_sort: bool) -> list[str]:
    """One message per location, in the contract's order (missing first, then by position in the instance)."""
    if not records:
        return [NO_MATCH]
    seen: dict[tuple[Any, ...], Record] = {}
    for record in records:
        if record[0] not in seen:
            seen[record[0]] = record
    kept = list(seen.values())
    if needs_sort and len(kept) > 1:
        positions: dict[int, dict[Any, int]] = {}

        def order(record: Record) -> tuple[Any, ...]:
            ranks = []
            current = instance
            for segment in record[0]:
                if isinstance(current, dict):
                    index = positions.get(id(current))
                    if index is None:
                        index = positions[id(current)] = {key: i for i, key in enumerate(current)}
                    rank = index.get(segment)
                    ranks.append((0, 0) if rank is None else (1, rank))
                    current = current.get(segment)
                else:
                    ranks.append((1, segment if isinstance(segment, int) else 0))
                    current = (
                        current[segment]
                        if isinstance(current, (list, tuple)) and isinstance(segment, int) and segment < len(current)
                        else None
                    )
            return tuple(ranks)

        kept.sort(key=order)
    return [message for _, _, message in kept]
