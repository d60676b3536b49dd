"""Generated all-errors path for the common schema shapes (what tools declare and the derivation emits).

When every schema object a document reaches uses only per-location keywords (type, enum, const, bounds,
lengths, pattern, format, required, properties, additionalProperties, items, prefixItems, not, and anyOf /
oneOf on a leaf such as ``Optional[X]``), each location is visited once in the contract's order, so the
messages come out right without a dedup or sort pass and go straight into the result list. Anything else
(allOf, if/then/else, patternProperties, unevaluated*, dynamic references ...) uses the closure collectors in
``collect``, which merge and order their records afterwards.

Like ``codegen``, the source names every schema value through a constant, never by its text.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from typing import Any, final

from .checks import rows_for
from .choice import BranchChooser, Missing, TypeMismatch, WrongTag
from .codegen import Generator, type_test, value_key
from .keywords import Spec, SpecTable, any_reachable, node_key
from .messages import (
    NOT_ALLOWED,
    any_of_phrase,
    child_text,
    closest_name,
    const_predicate,
    contains_phrase,
    enum_predicate,
    keyword_predicate,
    matches_several,
    missing_at,
    name_segment,
    negation_phrase,
    one_of_phrase,
    shown_path,
    subject_at,
    type_predicate,
    unexpected,
    unexpected_at,
    with_guess,
)
from .resolve import Located

__all__ = ["ErrorGenerator", "is_simple"]

# Up to this many properties, the checks of a value are inlined in an if-chain on its name; above, a dict
# dispatches to one function per property.
_MAX_CHAIN = 10
_MAX_INLINE_DEPTH = 6
# Source templates over generated names only: the child location, the noun of a location, an item's location.
# A name that is empty or holds ``.[]'`` is bracketed (``where[""]``, ``sort["user.age"]``: see ``messages``);
# a declared name's segment is known here, so only names met at run time need ``CHILD``.
_CHILD_PATH = '({0} + "." + {1} if {0} else {1})'
_BRACKETED_CHILD_PATH = "{0} + {1}"
_DYNAMIC_CHILD_PATH = """(({0} + "." + str({1}) if {0} else str({1})) if {1} != "" else {0} + '[""]')"""
_RUNTIME_CHILD_PATH = "CHILD({0}, {1})"
_NOUN = """("item '" if {0}[0] == "[" and {0}[1] != '"' else "property '")"""
_ITEM_PATH = '{0} + "[" + str({1}) + "]"'


def _reached(spec: Spec) -> list[Located]:
    found = [child for _, child in spec.properties]
    found.extend(spec.prefix_items)
    for single in (spec.additional, spec.items, spec.ref, spec.not_, spec.contains):
        if single is not None:
            found.append(single)
    found.extend(spec.any_of)
    found.extend(spec.one_of)
    found.extend(spec.all_of)
    return found


def _alias(spec: Spec) -> Located | None:
    """What a schema stands for when all it holds is ``$ref`` or a one-branch ``allOf`` (plus annotations)."""
    if spec.boolean is not None or _has_own_checks(spec):
        return None
    if spec.ref is not None and not spec.all_of:
        return spec.ref
    if spec.ref is None and len(spec.all_of) == 1:
        return spec.all_of[0]
    return None


def _simple(spec: Spec) -> bool:
    if spec.boolean is not None:
        return True
    if spec.all_of and _alias(spec) is None:
        return False
    if spec.dependent_schemas or spec.pattern_properties or spec.dependent_required:
        return False
    if spec.if_ is not None or spec.has_unevaluated or spec.property_names is not None:
        return False
    if spec.dynamic_name is not None:
        return False
    has_children = bool(spec.properties or spec.prefix_items or spec.additional or spec.items or spec.required)
    if ((spec.any_of or spec.one_of) and has_children) or (spec.any_of and spec.one_of):
        return False
    # A $ref beside other keywords merges two sources of errors at one location.
    return not (spec.ref is not None and _has_own_checks(spec))


def _has_own_checks(spec: Spec) -> bool:
    return (
        any(
            value
            for value in (
                spec.types,
                spec.enum is not None,
                spec.const,
                spec.properties,
                spec.required,
                spec.items,
                spec.prefix_items,
                spec.additional,
                spec.any_of,
                spec.one_of,
                spec.not_,
                spec.contains,
            )
        )
        # Every keyword of checks.VALUE_KEYWORDS (bounds, pattern, format, uniqueItems), from the table itself.
        or bool(rows_for(spec, "number", "string", "object", "array"))
    )


def is_simple(specs: SpecTable, root: Located) -> bool:
    """Whether every schema object ``root`` reaches suits the generated errors path."""
    return not any_reachable(specs, root, _reached, lambda spec: not _simple(spec))


# In this path a location is its rendered text ("customer.address", "items[0]", "" for the instance itself),
# built by concatenation as the checks descend: cheaper than tuples rendered at the end.


def _not_allowed(x: Any, path: str, out: list[str]) -> None:
    if not path:
        out.append(NOT_ALLOWED)
    else:
        out.append(unexpected(shown_path(path), item=path.endswith("]") and not path.endswith('"]')))


def _nothing(x: Any, path: str, out: list[str]) -> None:
    return None


@final
class ErrorGenerator:
    """Writes ``e`` functions: ``e(x, p, out)`` appends the messages for value ``x`` at path ``p``."""

    __slots__ = ("_functions", "_queue", "gen", "hints", "specs")

    def __init__(self, specs: SpecTable, generator: Generator, *, hints: bool) -> None:
        self.specs = specs
        self.gen = generator
        self.hints = hints
        self._functions: dict[tuple[Any, ...], str] = {}
        self._queue: list[tuple[str, Located]] = []
        namespace = generator.namespace
        namespace.update(SUBJ=subject_at, MISSING=missing_at, UNEXPECTED=unexpected_at, CHILD=child_text)
        namespace.update(NOT_ALLOWED=_not_allowed, NOTHING=_nothing)

    def function(self, node: Located) -> str:
        spec = self.specs.spec(node)
        if spec.boolean is not None:
            return "NOTHING" if spec.boolean else "NOT_ALLOWED"
        target = _alias(spec)
        if target is not None:
            return self.function(target)
        key = value_key(node)
        name = self._functions.get(key)
        if name is None:
            name = self._functions[key] = self.gen.temp("e")
            self._queue.append((name, node))
        return name

    def write_all(self, root: Located) -> None:
        """The entry ``errors(x)`` and every function it needs. No valid-path prefix: the generated checks
        report only failures, so a valid instance gets ``[]`` at about a prefix's own cost, and the pipeline asks
        for errors only once ``is_valid`` said no; a value nested too deeply for the stack is ``TOO_DEEP``."""
        w = self.gen.w
        spec = self.specs.spec(self._resolve(root))
        with w.block("def errors(x)"):
            w("out = []")
            with w.block("try"):
                if spec.boolean is None:
                    # The root's checks written here rather than called: one Python call less per refused call
                    # (a reference back to the root still gets the root its own function).
                    # The root's location is the literal '': its messages are whole constants (see
                    # _property_message), with no test of the path per error.
                    self._emit_value(spec, "x", "''", (node_key(spec.node),))
                else:
                    w(f"{self.function(root)}(x, '', out)")
            with w.block("except RecursionError"):
                w("return [TOO_DEEP]")
            # Inline length test: a short list (every contract example) costs one len(), no extra call.
            w("return out if len(out) <= MAX_ERRORS else CAP(out)")
        while self._queue:
            name, node = self._queue.pop()
            self._write(name, self.specs.spec(node))

    def _checks(self, spec: Spec, var: str) -> tuple[str | None, list[tuple[str, str]], list[tuple[str, str]]]:
        """(known type, checks that end the location: type/enum/const, checks reported first-failure only)."""
        gen = self.gen
        stops: list[tuple[str, str]] = []
        known: str | None = None
        if spec.types is not None:
            tests = [type_test(kind, var) for kind in spec.types]
            stops.append((f"({' or '.join(tests)})", gen.constant(" " + type_predicate(spec.types), "W")))
            known = spec.types[0] if len(spec.types) == 1 else None
        if spec.enum is not None:
            test = gen.membership_test(spec.enum, var, known)
            stops.append((test, gen.constant(" " + enum_predicate(spec.enum), "W")))
        if spec.const is not None:
            test = gen.membership_test([spec.const[0]], var, known)
            stops.append((test, gen.constant(" " + const_predicate(spec.const[0]), "W")))
        return known, stops, self._location_checks(spec, known, var)

    @staticmethod
    def _is_leaf(spec: Spec) -> bool:
        return (
            spec.boolean is None
            and spec.ref is None
            and not (
                spec.properties
                or spec.required
                or spec.additional is not None
                or spec.prefix_items
                or (spec.items is not None and spec.items.schema is not True)
            )
        )

    def _location_checks(self, spec: Spec, known: str | None, var: str) -> list[tuple[str, str]]:
        gen = self.gen
        checks: list[tuple[str, str]] = []
        guards = {
            "number": "" if known in ("integer", "number") else f"{type_test('number', var)} and ",
            "string": "" if known == "string" else f"isinstance({var}, str) and ",
            "object": "" if known == "object" else f"{type_test('object', var)} and ",
            "array": "" if known == "array" else f"{type_test('array', var)} and ",
        }
        for row, bound in rows_for(spec, "number", "string", "object", "array"):
            words = gen.constant(" " + keyword_predicate(row.keyword, row.message_value(spec)), "W")
            checks.append((guards[row.applies_to] + gen.fails(row, bound, var), words))
        array_guard = guards["array"]
        if spec.contains is not None:
            contains = gen.function(spec.contains, "v")
            hits = f"sum(1 for item in {var} if {contains}(item))"
            for size, operator, words in ((spec.min_contains, "<", "at least"), (spec.max_contains, ">", "at most")):
                if size is not None and (size > 0 or operator == ">"):
                    phrase = " " + contains_phrase(spec.contains.schema, size, words)
                    condition = f"{array_guard}{hits} {operator} {gen.constant(size, 'N')}"
                    checks.append((condition, gen.constant(phrase, "W")))
        if spec.not_ is not None:
            condition = f"{gen.function(spec.not_, 'v')}({var})"
            checks.append((condition, gen.constant(" " + negation_phrase(spec.not_.schema), "W")))
        return checks

    def _choice(self, spec: Spec, var: str, path: str) -> tuple[str, str]:
        """(condition that the anyOf / oneOf fails, statement explaining it)."""
        gen = self.gen
        branches = spec.any_of or spec.one_of
        exactly = not spec.any_of
        base = spec.node.base
        tests = [gen.test(branch, var, base) for branch in branches]
        explain = [self.function(branch) for branch in branches]
        chooser = BranchChooser(self.specs, spec, branches)
        schemas = [branch.schema for branch in branches]
        words = " " + (one_of_phrase(schemas) if exactly else any_of_phrase(schemas))
        choice = gen.constant(_choice_explainer(explain, chooser, words, gen.namespace), "CHOICE", key=id(spec))
        if exactly:
            count = " + ".join(f"bool({test})" for test in tests)
            return f"({count}) != 1", f"{choice}({var}, {path}, out, {count})"
        return f"not ({' or '.join(tests)})", f"{choice}({var}, {path}, out, 0)"

    def _write(self, name: str, spec: Spec) -> None:
        with self.gen.w.block(f"def {name}(x, p, out)"):
            self._emit_value(spec, "x", "p", (node_key(spec.node),))

    def _resolve(self, node: Located) -> Located:
        """Follow references that are all a schema holds (``{"$ref": ...}``), as derived schemas nest."""
        for _ in range(32):
            target = _alias(self.specs.spec(node))
            if target is None:
                break
            node = target
        return node

    def _emit_value(self, spec: Spec, var: str, path: str, stack: tuple[Any, ...]) -> None:
        """Write the messages for value ``var`` at the location whose rendered text is in variable ``path``."""
        w = self.gen.w
        known, stops, chain = self._checks(spec, var)
        keyword = "if"
        for condition, words in stops:
            with w.block(f"{keyword} not {condition}"):
                w(f"out.append(SUBJ({path}) + {words})")
            keyword = "elif"
        # A wrong type, enum or const ends this location: nothing below it is worth reporting.
        with w.block("else") if stops else nullcontext():
            keyword = "if"
            for condition, words in chain:
                with w.block(f"{keyword} {condition}"):
                    w(f"out.append(SUBJ({path}) + {words})")
                keyword = "elif"
            if spec.any_of or spec.one_of:
                condition, statement = self._choice(spec, var, path)
                with w.block(f"{keyword} {condition}"):
                    w(statement)
            self._emit_object(spec, var, path, known, stack)
            self._emit_array(spec, var, path, known, stack)

    def _emit_child(
        self, node: Located, var: str, path: str, stack: tuple[Any, ...], child_path: str, leaf_message: Any
    ) -> None:
        """A property's or item's value: inline when small and not recursive, else a call to its function."""
        w = self.gen.w
        node = self._resolve(node)
        spec = self.specs.spec(node)
        if spec.boolean is not None:
            if not spec.boolean:
                w(f"NOT_ALLOWED({var}, {child_path}, out)")
        elif self._is_leaf(spec):
            self._write_leaf(spec, var, leaf_message, child_path)
        elif node_key(node) not in stack and len(stack) < _MAX_INLINE_DEPTH:
            location = self.gen.temp("q")
            w(f"{location} = {child_path}")
            self._emit_value(spec, var, location, (*stack, node_key(node)))
        else:
            w(f"{self.function(node)}({var}, {child_path}, out)")

    def _write_leaf(self, spec: Spec, var: str, message: Any, child_path: str) -> None:
        """Inline checks of a scalar-like value, one if/elif chain (at most one message)."""
        w = self.gen.w
        _, stops, chain = self._checks(spec, var)
        conditions = [(f"not {condition}", words) for condition, words in stops] + chain
        keyword = "if"
        for condition, words in conditions:
            with w.block(f"{keyword} {condition}"):
                w(f"out.append({message(words)})")
            keyword = "elif"
        if spec.any_of or spec.one_of:
            condition, statement = self._choice(spec, var, child_path)
            with w.block(f"{keyword} {condition}"):
                w(statement)

    def _property_message(self, name: str, key: str, path: str) -> Any:
        gen = self.gen

        def message(words: str) -> str:
            # At the root the whole message is a constant; deeper, the path is rendered.
            whole = gen.constant(f"property '{shown_path(child_text('', name))}'" + gen.namespace[words], "W")
            if path == "''":
                return whole
            tail = gen.constant(name_segment(name) + "'" + gen.namespace[words], "W")
            noun = _NOUN.format(path)
            return f"{whole} if not {path} else {noun} + {path} + {tail}"

        return message

    def _emit_object(self, spec: Spec, var: str, path: str, known: str | None, stack: tuple[Any, ...]) -> None:
        if not (spec.required or spec.properties or spec.additional is not None):
            return
        gen, w = self.gen, self.gen.w
        with w.block(f"if {type_test('object', var)}") if known != "object" else nullcontext():
            for required in spec.required:
                key = gen.constant(required, "K")
                w(f"if {key} not in {var}: out.append(MISSING({path}, {key}))")
            if spec.properties or spec.additional is not None:
                name_var, value = gen.temp("k"), gen.temp("v")
                with w.block(f"for {name_var}, {value} in {var}.items()"):
                    self._emit_members(spec, var, path, stack, name_var, value)

    def _emit_members(self, spec: Spec, var: str, path: str, stack: tuple[Any, ...], name_var: str, value: str) -> None:
        """Inside the loop over an object's members: each declared name, then every other name."""
        gen, w = self.gen, self.gen.w
        # Declared names are known here: the bare expression serves unless one needs brackets.
        plain = all(name and name_segment(name)[0] == "." for name, _ in spec.properties)
        dynamic_path = (_DYNAMIC_CHILD_PATH if plain else _RUNTIME_CHILD_PATH).format(path, name_var)
        if len(spec.properties) <= _MAX_CHAIN:
            keyword = "if"
            for name, child in spec.properties:
                key = gen.constant(name, "K")
                segment = name_segment(name)
                if segment[0] == ".":
                    child_path = _CHILD_PATH.format(path, key)
                else:
                    child_path = _BRACKETED_CHILD_PATH.format(path, gen.constant(segment, "K"))
                message = self._property_message(name, key, path)
                with w.block(f"{keyword} {name_var} == {key}"):
                    self._emit_child(child, value, path, stack, child_path, message)
                keyword = "elif"
            if not spec.properties:
                # Gives the ``else`` below its ``if``.
                with w.block("if False"):
                    pass
        else:
            table = {name: self.function(child) for name, child in spec.properties}
            dispatch = gen.constant(table, "D", key=("dispatch", id(spec)))
            gen.namespace.setdefault("_dispatch", []).append(table)
            function = gen.temp("f")
            w(f"{function} = {dispatch}.get({name_var})")
            with w.block(f"if {function} is not None"):
                w(f"{function}({value}, {dynamic_path}, out)")
        if spec.additional is not None and spec.additional.schema is False:
            with w.block("else"):
                if self.hints and spec.properties:
                    declared = [name for name, _ in spec.properties]
                    hint = gen.constant(_hinter(declared), "HINT", key=("hint", id(spec)))
                    w(f"out.append({hint}({path}, {name_var}, {var}))")
                else:
                    w(f"out.append(UNEXPECTED({path}, {name_var}))")
        elif spec.additional is not None and spec.additional.schema is not True:
            runtime_path = _RUNTIME_CHILD_PATH.format(path, name_var)
            with w.block("else"):
                self._emit_child(spec.additional, value, path, stack, runtime_path, self._subject_message(runtime_path))

    def _subject_message(self, location: str) -> Any:
        return lambda words: f"SUBJ({location}) + {words}"

    def _emit_array(self, spec: Spec, var: str, path: str, known: str | None, stack: tuple[Any, ...]) -> None:
        if not (spec.prefix_items or (spec.items is not None and spec.items.schema is not True)):
            return
        w = self.gen.w
        index, value = self.gen.temp("i"), self.gen.temp("v")
        location = _ITEM_PATH.format(path, index)
        message = self._subject_message(location)
        with (
            w.block(f"if {type_test('array', var)}") if known != "array" else nullcontext(),
            w.block(f"for {index}, {value} in enumerate({var})"),
        ):
            for position, child in enumerate(spec.prefix_items):
                with w.block(f"{'if' if position == 0 else 'elif'} {index} == {position}"):
                    self._emit_child(child, value, path, stack, location, message)
            if spec.items is not None:
                with w.block("else") if spec.prefix_items else nullcontext():
                    self._emit_child(spec.items, value, path, stack, location, message)


def link_dispatch(namespace: dict[str, Any]) -> None:
    """After exec: dispatch tables hold function names until the functions exist."""
    for table in namespace.pop("_dispatch", []):
        for name, function in table.items():
            table[name] = namespace[function]


def _hinter(declared: list[str]) -> Callable[[str, str, dict[str, Any]], str]:
    def hint(path: str, name: str, value: dict[str, Any]) -> str:
        message = unexpected_at(path, name)
        guess = closest_name(str(name), [candidate for candidate in declared if candidate not in value])
        return with_guess(message, guess)

    return hint


def _choice_explainer(
    explain: list[str], chooser: BranchChooser, words: str, namespace: dict[str, Any]
) -> Callable[[Any, str, list[str], int], None]:
    """Explain a failed anyOf / oneOf through the branch the value was meant for (see ``choice``)."""

    def choice(x: Any, p: str, out: list[str], hits: int) -> None:
        if hits > 1:
            out.append(matches_several(subject_at(p) + words, hits))
            return

        def trial(index: int) -> list[str]:
            found: list[str] = []
            namespace[explain[index]](x, p, found)
            return found

        verdict = chooser.choose(x, trial)
        if isinstance(verdict, list):
            out.extend(verdict)
        elif isinstance(verdict, TypeMismatch):
            out.append(f"{subject_at(p)} {verdict.words}")
        elif isinstance(verdict, Missing):
            out.append(missing_at(p, verdict.name))
        elif isinstance(verdict, WrongTag):
            out.append(f"{subject_at(child_text(p, verdict.name))} {verdict.words}")
        else:
            out.append(subject_at(p) + words)

    return choice
