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
from typing import Any, final

from .codegen import Generator, type_test
from .keywords import Spec, SpecTable, node_key
from .messages import closest_name, count_phrase, describe_schema, negation_phrase, type_phrase
from .resolve import Located

__all__ = ["ErrorGenerator", "is_simple"]

# Up to this many properties, the checks of a value are inlined in an if-chain on its name; above, a dict
# dispatches to one function per property.
_MAX_CHAIN = 10
_CHILD_PATH = '(p + "." + {0} if p else {0})'
_PROPERTY_PATH = _CHILD_PATH.format("str(k)")
_NOUN = """("item '" if p[0] == "[" else "property '")"""
_ITEM_PATH = 'p + "[" + str(i) + "]"'


def _reached(spec: Spec) -> list[Located]:
    found = [child for _, child in spec.properties]
    found.extend(spec.prefix_items)
    for single in (spec.additional, spec.items, spec.ref, spec.not_, spec.contains):
        if single is not None:
            found.append(single)
    found.extend(spec.any_of)
    found.extend(spec.one_of)
    return found


def _simple(spec: Spec) -> bool:
    if spec.boolean is not None:
        return True
    if spec.all_of or spec.dependent_schemas or spec.pattern_properties or spec.dependent_required:
        return False
    if spec.if_ is not None or spec.has_unevaluated or spec.property_names is not None:
        return False
    if spec.dynamic_name is not None:
        return False
    has_children = bool(spec.properties or spec.prefix_items or spec.additional or spec.items or spec.required)
    if (spec.any_of or spec.one_of) and has_children:
        return False
    # A $ref beside other keywords merges two sources of errors at one location.
    return not (spec.ref is not None and _has_own_checks(spec))


def _has_own_checks(spec: Spec) -> bool:
    return (
        any(
            value
            for value in (
                spec.types,
                spec.enum,
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
                spec.pattern,
                spec.format,
            )
        )
        or any(
            bound is not None
            for bound in (
                spec.minimum,
                spec.maximum,
                spec.exclusive_minimum,
                spec.exclusive_maximum,
                spec.multiple_of,
                spec.min_length,
                spec.max_length,
                spec.min_items,
                spec.max_items,
                spec.min_properties,
                spec.max_properties,
            )
        )
        or spec.unique_items
    )


def is_simple(specs: SpecTable, root: Located) -> bool:
    """Whether every schema object ``root`` reaches suits the generated errors path."""
    seen: set[tuple[Any, ...]] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        key = node_key(node)
        if key in seen:
            continue
        seen.add(key)
        spec = specs.spec(node)
        if not _simple(spec):
            return False
        stack.extend(_reached(spec))
    return True


# In this path a location is its rendered text ("customer.address", "items[0]", "" for the instance itself),
# built by concatenation as the checks descend: cheaper than tuples rendered at the end.


def _missing(path: str, name: str) -> str:
    return "missing required property '" + (path + "." + name if path else name) + "'"


def _unexpected(path: str, name: Any) -> str:
    # JSON keys are strings; a Python caller's other keys are named as json.dumps would write them.
    text = str(name)
    return "unexpected property '" + (path + "." + text if path else text) + "'"


def _subject(path: str) -> str:
    if not path:
        return "value"
    return ("item '" if path[0] == "[" else "property '") + path + "'"


def _not_allowed(x: Any, path: str, out: list[str]) -> None:
    if not path:
        out.append("value is not allowed")
    else:
        out.append(("unexpected item '" if path.endswith("]") else "unexpected property '") + path + "'")


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
        namespace.update(SUBJ=_subject, MISSING=_missing, UNEXPECTED=_unexpected)
        namespace.update(NOT_ALLOWED=_not_allowed, NOTHING=_nothing)

    def function(self, node: Located) -> str:
        spec = self.specs.spec(node)
        if spec.boolean is not None:
            return "NOTHING" if spec.boolean else "NOT_ALLOWED"
        if spec.ref is not None and not _has_own_checks(spec):
            return self.function(spec.ref)
        key = node_key(node)
        name = self._functions.get(key)
        if name is None:
            name = self._functions[key] = self.gen.temp("e")
            self._queue.append((name, node))
        return name

    def write_all(self, root: Located) -> str:
        root_function = self.function(root)
        entry = self.gen.temp("errors_of")
        self.gen.lines.append(f"def {entry}(x):\n    out = []\n    {root_function}(x, '', out)\n    return out")
        while self._queue:
            name, node = self._queue.pop()
            self._write(name, self.specs.spec(node))
        return entry

    def _write(self, name: str, spec: Spec) -> None:
        out = self.gen.lines
        out.append(f"def {name}(x, p, out):")
        known, stops, chain = self._checks(spec, "x")
        for condition, words in stops:
            out.append(f"    if not {condition}:\n        out.append(SUBJ(p) + {words})\n        return")
        keyword = "if"
        for condition, words in chain:
            out.append(f"    {keyword} {condition}:\n        out.append(SUBJ(p) + {words})")
            keyword = "elif"
        if spec.any_of or spec.one_of:
            condition, statement = self._choice(spec, "x", "p")
            out.append(f"    {keyword} {condition}:\n        {statement}")
        self._write_object(spec, known)
        self._write_array(spec, known)
        out.append("    return")

    def _checks(self, spec: Spec, var: str) -> tuple[str | None, list[tuple[str, str]], list[tuple[str, str]]]:
        """(known type, checks that end the location: type/enum/const, checks reported first-failure only)."""
        gen = self.gen
        stops: list[tuple[str, str]] = []
        known: str | None = None
        if spec.types is not None:
            tests = [type_test(kind, var) for kind in spec.types]
            stops.append((f"({' or '.join(tests)})", gen.constant(" must be " + type_phrase(spec.types), "W")))
            known = spec.types[0] if len(spec.types) == 1 else None
        if spec.enum is not None:
            test = gen.membership_test(spec.enum, var, known)
            stops.append((test, gen.constant(f" must be one of {spec.enum!r}", "W")))
        if spec.const is not None:
            test = gen.membership_test([spec.const[0]], var, known)
            stops.append((test, gen.constant(f" must be {spec.const[0]!r}", "W")))
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

    def _write_leaf(self, spec: Spec, var: str, key: str, pad: str) -> None:
        """Inline checks of a scalar-like property value ``var`` (named by constant ``key``) of object ``x``."""
        gen, out = self.gen, self.gen.lines
        _, stops, chain = self._checks(spec, var)
        conditions = [(f"not {condition}", words) for condition, words in stops] + chain
        name = gen.namespace[key]
        keyword = "if"
        for condition, words in conditions:
            # At the root (p == ()) the whole message is a constant; deeper, the path is rendered.
            whole = gen.constant(f"property '{name}'" + gen.namespace[words], "W")
            tail = gen.constant(f".{name}'" + gen.namespace[words], "W")
            message = f"{whole} if not p else {_NOUN} + p + {tail}"
            out.append(f"{pad}{keyword} {condition}:\n{pad}    out.append({message})")
            keyword = "elif"
        if spec.any_of or spec.one_of:
            condition, statement = self._choice(spec, var, _CHILD_PATH.format(key))
            out.append(f"{pad}{keyword} {condition}:\n{pad}    {statement}")
            keyword = "elif"
        if keyword == "if":
            out.append(f"{pad}pass")

    def _location_checks(self, spec: Spec, known: str | None, var: str) -> list[tuple[str, str]]:
        gen = self.gen
        checks: list[tuple[str, str]] = []
        number_guard = "" if known in ("integer", "number") else f"{type_test('number', var)} and "
        for bound, operator, words in (
            (spec.minimum, "<", "must be >= {}"),
            (spec.maximum, ">", "must be <= {}"),
            (spec.exclusive_minimum, "<=", "must be > {}"),
            (spec.exclusive_maximum, ">=", "must be < {}"),
        ):
            if bound is not None:
                condition = f"{number_guard}{var} {operator} {gen.constant(bound, 'N')}"
                checks.append((condition, gen.constant(" " + words.format(bound), "W")))
        if spec.multiple_of is not None:
            condition = f"{number_guard}not MULTIPLE({var}, {gen.constant(spec.multiple_of, 'N')})"
            checks.append((condition, gen.constant(f" must be a multiple of {spec.multiple_of}", "W")))
        string_guard = "" if known == "string" else f"isinstance({var}, str) and "
        for size, operator, words in ((spec.min_length, "<", "at least"), (spec.max_length, ">", "at most")):
            if size is not None:
                phrase = f" must be {words} {count_phrase(size, 'character', 'characters')}"
                condition = f"{string_guard}len({var}) {operator} {gen.constant(size, 'N')}"
                checks.append((condition, gen.constant(phrase, "W")))
        if spec.pattern is not None:
            regex, source = spec.pattern
            condition = f"{string_guard}{gen.constant(regex, 'P')}.search({var}) is None"
            checks.append((condition, gen.constant(f" must match pattern {source!r}", "W")))
        if spec.format is not None:
            condition = f"{string_guard}not {gen.constant(spec.format, 'F')}({var})"
            checks.append((condition, gen.constant(f" must match format {spec.format_name!r}", "W")))
        object_guard = "" if known == "object" else f"{type_test('object', var)} and "
        for size, operator, words in ((spec.min_properties, "<", "at least"), (spec.max_properties, ">", "at most")):
            if size is not None:
                phrase = f" must have {words} {count_phrase(size, 'property', 'properties')}"
                condition = f"{object_guard}len({var}) {operator} {gen.constant(size, 'N')}"
                checks.append((condition, gen.constant(phrase, "W")))
        array_guard = "" if known == "array" else f"{type_test('array', var)} and "
        for size, operator, words in ((spec.min_items, "<", "at least"), (spec.max_items, ">", "at most")):
            if size is not None:
                phrase = f" must have {words} {count_phrase(size, 'item', 'items')}"
                condition = f"{array_guard}len({var}) {operator} {gen.constant(size, 'N')}"
                checks.append((condition, gen.constant(phrase, "W")))
        if spec.unique_items:
            words = gen.constant(" must not contain duplicate items", "W")
            checks.append((f"{array_guard}not UNIQUE({var})", words))
        if spec.contains is not None:
            contains = gen.function(spec.contains, "v")
            what = describe_schema(spec.contains.schema)
            hits = f"sum(1 for item in {var} if {contains}(item))"
            for size, operator, words in ((spec.min_contains, "<", "at least"), (spec.max_contains, ">", "at most")):
                if size is not None and (size > 0 or operator == ">"):
                    phrase = f" must contain {words} {count_phrase(size, 'item', 'items')} that match {what}"
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
        checks = [gen.function(branch, "v") for branch in branches]
        explain = [self.function(branch) for branch in branches]
        gates = [_type_gate(self.specs, branch) for branch in branches]
        names = ", ".join(describe_schema(branch.schema) for branch in branches)
        words = f" must match {'exactly' if exactly else 'at least'} one of: {names}"
        choice = gen.constant(_choice_explainer(explain, gates, words, gen.namespace), "CHOICE", key=id(spec))
        if exactly:
            count = " + ".join(f"{check}({var})" for check in checks)
            return f"({count}) != 1", f"{choice}({var}, {path}, out, {count})"
        return f"not ({' or '.join(f'{check}({var})' for check in checks)})", f"{choice}({var}, {path}, out, 0)"

    def _write_object(self, spec: Spec, known: str | None) -> None:
        if not (spec.required or spec.properties or spec.additional is not None):
            return
        gen, out = self.gen, self.gen.lines
        pad = "    "
        if known != "object":
            out.append(f"    if {type_test('object', 'x')}:")
            pad = "        "
        for required in spec.required:
            key = gen.constant(required, "K")
            out.append(f"{pad}if {key} not in x: out.append(MISSING(p, {key}))")
        if not spec.properties and spec.additional is None:
            return
        out.append(f"{pad}for k, v in x.items():")
        if len(spec.properties) <= _MAX_CHAIN:
            keyword = "if"
            for name, child in spec.properties:
                key = gen.constant(name, "K")
                out.append(f"{pad}    {keyword} k == {key}:")
                keyword = "elif"
                child_spec = self.specs.spec(child)
                if self._is_leaf(child_spec):
                    self._write_leaf(child_spec, "v", key, pad + "        ")
                else:
                    out.append(f"{pad}        {self.function(child)}(v, {_PROPERTY_PATH}, out)")
            if not spec.properties:
                out.append(f"{pad}    if False:\n{pad}        pass")
        else:
            table = {name: self.function(child) for name, child in spec.properties}
            dispatch = gen.constant(table, "D", key=("dispatch", id(spec)))
            gen.namespace.setdefault("_dispatch", []).append(table)
            out.append(f"{pad}    f = {dispatch}.get(k)")
            out.append(f"{pad}    if f is not None:\n{pad}        f(v, {_PROPERTY_PATH}, out)")
        if spec.additional is not None and spec.additional.schema is False:
            if self.hints and spec.properties:
                declared = [name for name, _ in spec.properties]
                hint = gen.constant(_hinter(declared), "HINT", key=("hint", id(spec)))
                out.append(f"{pad}    else:\n{pad}        out.append({hint}(p, k, x))")
            else:
                out.append(f"{pad}    else:\n{pad}        out.append(UNEXPECTED(p, k))")
        elif spec.additional is not None and spec.additional.schema is not True:
            out.append(f"{pad}    else:\n{pad}        {self.function(spec.additional)}(v, {_PROPERTY_PATH}, out)")

    def _write_array(self, spec: Spec, known: str | None) -> None:
        if not (spec.prefix_items or (spec.items is not None and spec.items.schema is not True)):
            return
        out = self.gen.lines
        pad = "    "
        if known != "array":
            out.append(f"    if {type_test('array', 'x')}:")
            pad = "        "
        prefix = [self.function(child) for child in spec.prefix_items]
        rest = self.function(spec.items) if spec.items is not None else None
        out.append(f"{pad}for i, v in enumerate(x):")
        for index, function in enumerate(prefix):
            keyword = "if" if index == 0 else "elif"
            out.append(f"{pad}    {keyword} i == {index}:\n{pad}        {function}(v, {_ITEM_PATH}, out)")
        if rest is not None:
            if prefix:
                out.append(f"{pad}    else:\n{pad}        {rest}(v, {_ITEM_PATH}, out)")
            else:
                out.append(f"{pad}    {rest}(v, {_ITEM_PATH}, out)")


def link_dispatch(namespace: dict[str, Any]) -> None:
    """After exec: dispatch tables hold function names until the functions exist."""
    for table in namespace.pop("_dispatch", []):
        for name, function in table.items():
            table[name] = namespace[function]


def _hinter(declared: list[str]) -> Callable[[str, str, dict[str, Any]], str]:
    def hint(path: str, name: str, value: dict[str, Any]) -> str:
        message = _unexpected(path, name)
        guess = closest_name(str(name), [candidate for candidate in declared if candidate not in value])
        return message if guess is None else f"{message} (did you mean '{guess}'?)"

    return hint


def _type_gate(specs: SpecTable, node: Located) -> Callable[[Any], bool]:
    from .collect import type_gate

    return type_gate(specs, node)


def _choice_explainer(
    explain: list[str], gates: list[Callable[[Any], bool]], words: str, namespace: dict[str, Any]
) -> Callable[[Any, str, list[str], int], None]:
    """Explain a failed anyOf / oneOf: the one branch of the value's type if there is one, else the summary."""

    def choice(x: Any, p: str, out: list[str], hits: int) -> None:
        if hits > 1:
            out.append(f"{_subject(p)}{words} (it matches {hits})")
            return
        candidates = [index for index, gate in enumerate(gates) if gate(x)]
        if len(candidates) == 1:
            namespace[explain[candidates[0]]](x, p, out)
        else:
            out.append(_subject(p) + words)

    return choice
