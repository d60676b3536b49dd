"""Schema -> specialised Python source for the valid path, exec'd once per compiled schema.

Security rule: no schema value ever becomes source text. Every name, number, pattern and enum list reaches the
generated code as a constant bound in its namespace (``K3``, ``N1``); the source contains only identifiers we
made up, keywords, and small integers we counted ourselves (indices and lengths of schema arrays).

Each schema object becomes straight-line checks. Children (properties, items) are inlined into their parent;
anything applied in place (``$ref``, ``allOf``, ``anyOf`` ...) or recursive becomes its own function.
A function comes in two modes: ``v`` answers valid/invalid, ``a`` also returns the property names or item
indices it evaluated (``None`` when invalid), which ``unevaluatedProperties`` / ``unevaluatedItems`` need.
Only schemas with a bookended ``$dynamicRef`` pay for a dynamic-scope argument (``dyn``, a tuple of resource
URIs, outermost first).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any, final

from mcptools._json import JSON_TYPES

from .checks import ValueKeyword, rows_for
from .keywords import Spec, SpecTable, node_key
from .resolve import Located
from .values import has_unique_items, is_multiple_of, json_key, matcher

__all__ = ["Generator", "NeedsDynamicScope", "Writer", "type_test", "value_key"]

_TYPE_ONLY_KEYWORDS = frozenset({"type", "title", "description", "$comment", "examples", "default", "deprecated"})
_MAX_INLINE_INDENT = 24
# Up to this many declared properties, each is fetched with get(); above, the arguments are walked instead.
_MAX_GET_PROPERTIES = 32
_MAX_INLINE_LOOPS = 8


class NeedsDynamicScope(Exception):
    """Raised while generating without a dynamic scope when a bookended $dynamicRef turns up: start again."""


def type_test(name: str, var: str) -> str:
    """Source testing ``var`` for JSON type ``name`` (from ``mcptools._json.JSON_TYPES``, the one table)."""
    return JSON_TYPES[name][1].format(var)


@final
@dataclass(slots=True, eq=False)
class Writer:
    """Python source written a line at a time at the current depth.

    ``with w.block("if x"):`` writes the header, indents what is written inside, and gives a block left empty
    its ``pass``: no caller counts spaces, and no pass over the finished text repairs empty blocks.
    """

    lines: list[str]
    depth: int = 0

    def __call__(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    @contextmanager
    def block(self, header: str) -> Iterator[None]:
        self(header + ":")
        start = len(self.lines)
        self.depth += 1
        try:
            yield
        finally:
            if len(self.lines) == start:
                self("pass")
            self.depth -= 1


@final
class Generator:
    """Writes the functions of one compiled schema; ``namespace`` holds the constants the source names."""

    __slots__ = (
        "_constant_names",
        "_counter",
        "_functions",
        "_queue",
        "dynamic",
        "lines",
        "namespace",
        "specs",
        "w",
    )

    def __init__(self, specs: SpecTable, *, dynamic: bool) -> None:
        self.specs = specs
        self.dynamic = dynamic
        self.lines: list[str] = []
        self.w = Writer(self.lines)
        self.namespace: dict[str, Any] = {
            "M": _MISSING,
            "UNIQUE": has_unique_items,
            "MULTIPLE": is_multiple_of,
            "PICK": _pick,
        }
        self._constant_names: dict[tuple[str, Any], str] = {}
        self._functions: dict[tuple[Any, ...], str] = {}
        self._queue: list[tuple[str, Located, str]] = []
        self._counter = 0

    # -- names -------------------------------------------------------------------------------------------
    def constant(self, value: Any, prefix: str = "C", key: Any = None) -> str:
        """Bind ``value`` in the namespace and return its name (the only way schema values reach code)."""
        dedup = (
            prefix,
            key if key is not None else (type(value).__name__, value) if _hashable(value) else id(value),
        )
        name = self._constant_names.get(dedup)
        if name is None:
            self._counter += 1
            name = self._constant_names[dedup] = f"{prefix}{self._counter}"
            self.namespace[name] = value
        return name

    def temp(self, prefix: str = "t") -> str:
        self._counter += 1
        return f"{prefix}{self._counter}"

    def function(self, node: Located, mode: str) -> str:
        """The name of the function checking ``node`` in ``mode`` (``v`` or ``a``), generated later if new."""
        key = (value_key(node), mode)
        name = self._functions.get(key)
        if name is None:
            self._counter += 1
            name = self._functions[key] = f"{mode}{self._counter}"
            self._queue.append((name, node, mode))
        return name

    def test(self, node: Located, var: str, base: str) -> str:
        """An expression: does ``var`` pass ``node``? Inline for a bare type (``Optional[X]``'s null), else a call."""
        schema = node.schema
        if isinstance(schema, dict) and set(schema) <= _TYPE_ONLY_KEYWORDS and self.specs.spec(node).types:
            kinds = self.specs.spec(node).types or []
            return "(" + " or ".join(type_test(kind, var) for kind in kinds) + ")"
        return self.call(node, "v", var, base)

    def call(self, node: Located, mode: str, var: str, base: str) -> str:
        name = self.function(node, mode)
        if not self.dynamic:
            return f"{name}({var})"
        if node.base == base:
            return f"{name}({var}, dyn)"
        return f"{name}({var}, dyn + ({self.constant(node.base, 'R')},))"

    # -- functions ---------------------------------------------------------------------------------------
    def write_pending(self) -> None:
        w = self.w
        while self._queue:
            name, node, mode = self._queue.pop()
            parameters = "x, dyn" if self.dynamic else "x"
            with w.block(f"def {name}({parameters})"):
                if mode == "a":
                    w("ev = set()")
                    self.emit(node, "x", "return None", "ev", 0)
                    w("return ev")
                else:
                    self.emit(node, "x", "return False", None, 0)
                    w("return True")

    def write_entry(self, name: str, root: Located, fail: str, done: str, too_deep: str) -> None:
        """An entry point: the root schema inlined, with ``fail`` on the first failure."""
        w = self.w
        with w.block(f"def {name}(x)"):
            if self.dynamic:
                w(f"dyn = ({self.constant(root.base, 'R')},)")
            with w.block("try"):
                self.emit(root, "x", fail, None, 1)
            with w.block("except RecursionError"):
                w(f"return {too_deep}")
            w(f"return {done}")

    # -- one schema object -------------------------------------------------------------------------------
    def emit(self, node: Located, var: str, fail: str, ev: str | None, loops: int) -> None:
        """The checks of ``node`` on ``var`` at the writer's depth; ``fail`` ends the function on a failure."""
        spec = self.specs.spec(node)
        w = self.w
        if spec.boolean is not None:
            if not spec.boolean:
                w(fail)
            return
        if spec.dynamic_name is not None and not self.dynamic:
            raise NeedsDynamicScope
        if spec.has_unevaluated and ev is None:
            ev = self.temp("ev")
            w(f"{ev} = set()")
        known: str | None = None
        if spec.types is not None:
            tests = [type_test(name, var) for name in spec.types]
            if "integer" in spec.types and "number" in spec.types:
                tests.remove(type_test("integer", var))
            w(f"if not ({' or '.join(tests)}): {fail}")
            if len(spec.types) == 1:
                known = spec.types[0]
        if spec.enum is not None:
            self._emit_membership(spec.enum, var, fail, known)
        if spec.const is not None:
            self._emit_membership([spec.const[0]], var, fail, known)
        self._emit_value_keywords(spec, var, fail, known)
        self._emit_in_place(spec, var, fail, ev)
        self._emit_object(spec, var, fail, ev, loops, known)
        self._emit_array(spec, var, fail, ev, loops, known)

    def membership_test(self, allowed: list[Any], var: str, known: str | None) -> str:
        """An expression: is ``var`` JSON-equal to one of ``allowed``?"""
        if allowed and all(type(value) is str for value in allowed):
            name = self.constant(frozenset(allowed), "E")
            guard = "" if known == "string" else f"isinstance({var}, str) and "
            return f"({guard}{var} in {name})"
        name = self.constant(matcher(allowed), "E", key=("matcher", tuple(json_key(value) for value in allowed)))
        return f"{name}({var})"

    def _emit_membership(self, allowed: list[Any], var: str, fail: str, known: str | None) -> None:
        self.w(f"if not {self.membership_test(allowed, var, known)}: {fail}")

    def _emit_value_keywords(self, spec: Spec, var: str, fail: str, known: str | None) -> None:
        """The number keywords in one test, then the string keywords in another (``checks.VALUE_KEYWORDS``)."""
        for kind, guard in (("number", type_test("number", var)), ("string", f"isinstance({var}, str)")):
            rows = rows_for(spec, kind)
            if not rows:
                continue
            condition = " or ".join(self.fails(row, bound, var) for row, bound in rows)
            if known != kind and not (kind == "number" and known == "integer"):
                condition = f"{guard} and ({condition})"
            self.w(f"if {condition}: {fail}")

    def fails(self, row: ValueKeyword, bound: Any, var: str) -> str:
        """Source that is true when ``var`` fails ``row``'s keyword; the bound is a constant, never source."""
        constant = self.constant(bound, row.prefix) if "{b}" in row.fails else ""
        return row.fails.format(x=var, b=constant)

    def _emit_in_place(self, spec: Spec, var: str, fail: str, ev: str | None) -> None:
        w = self.w
        base = spec.node.base
        mode = "a" if ev is not None else "v"
        if spec.ref is not None and spec.dynamic_name is not None:
            self._emit_dynamic_ref(spec, var, fail, ev)
        elif spec.ref is not None:
            self._emit_applied(spec.ref, var, fail, ev, base)
        for branch in spec.all_of:
            self._emit_applied(branch, var, fail, ev, base)
        for trigger, branch in spec.dependent_schemas:
            with w.block(f"if {_is_object(var)} and {self.constant(trigger, 'K')} in {var}"):
                self._emit_applied(branch, var, fail, ev, base)
        if spec.any_of:
            if ev is None:
                calls = " or ".join(self.test(branch, var, base) for branch in spec.any_of)
                w(f"if not ({calls}): {fail}")
            else:
                ok = self.temp("ok")
                w(f"{ok} = False")
                for branch in spec.any_of:
                    result = self.temp("r")
                    w(f"{result} = {self.call(branch, mode, var, base)}")
                    with w.block(f"if {result} is not None"):
                        w(f"{ok} = True")
                        w(f"{ev} |= {result}")
                w(f"if not {ok}: {fail}")
        if spec.one_of:
            if ev is None:
                calls = " + ".join(self.call(branch, "v", var, base) for branch in spec.one_of)
                w(f"if ({calls}) != 1: {fail}")
            else:
                results = [self.temp("r") for _ in spec.one_of]
                for result, branch in zip(results, spec.one_of, strict=False):
                    w(f"{result} = {self.call(branch, mode, var, base)}")
                hits = self.temp("hits")
                w(f"{hits} = [r for r in ({', '.join(results)},) if r is not None]")
                w(f"if len({hits}) != 1: {fail}")
                w(f"{ev} |= {hits}[0]")
        if spec.not_ is not None:
            w(f"if {self.call(spec.not_, 'v', var, base)}: {fail}")
        if spec.if_ is not None:
            annotations: str | None = None
            if ev is None:
                header = f"if {self.call(spec.if_, 'v', var, base)}"
            else:
                annotations = self.temp("r")
                w(f"{annotations} = {self.call(spec.if_, 'a', var, base)}")
                header = f"if {annotations} is not None"
            with w.block(header):
                if annotations is not None:
                    w(f"{ev} |= {annotations}")
                if spec.then is not None:
                    self._emit_applied(spec.then, var, fail, ev, base)
            if spec.else_ is not None:
                with w.block("else"):
                    self._emit_applied(spec.else_, var, fail, ev, base)

    def _emit_applied(self, node: Located, var: str, fail: str, ev: str | None, base: str) -> None:
        w = self.w
        if ev is None:
            w(f"if not {self.call(node, 'v', var, base)}: {fail}")
            return
        result = self.temp("r")
        w(f"{result} = {self.call(node, 'a', var, base)}")
        w(f"if {result} is None: {fail}")
        w(f"{ev} |= {result}")

    def _emit_dynamic_ref(self, spec: Spec, var: str, fail: str, ev: str | None) -> None:
        assert spec.ref is not None and spec.dynamic_name is not None
        w = self.w
        mode = "a" if ev is not None else "v"
        table: dict[str, list[Any]] = {}
        for resource, anchors in self.specs.index.dynamic_anchors.items():
            target = anchors.get(spec.dynamic_name)
            if target is not None:
                table[resource] = [self.function(target, mode), target.base]
        fallback = [self.function(spec.ref, mode), spec.ref.base]
        links = self.namespace.setdefault("_links", [])
        links.append(table)
        links.append({"": fallback})
        table_name = self.constant(table, "DT", key=id(table))
        fallback_name = self.constant(fallback, "DF", key=id(fallback))
        function, base = self.temp("f"), self.temp("b")
        w(f"{function}, {base} = PICK({table_name}, {fallback_name}, dyn)")
        if ev is None:
            w(f"if not {function}({var}, dyn + ({base},)): {fail}")
        else:
            result = self.temp("r")
            w(f"{result} = {function}({var}, dyn + ({base},))")
            w(f"if {result} is None: {fail}")
            w(f"{ev} |= {result}")

    def _child(self, node: Located, var: str, fail: str, loops: int, base: str) -> None:
        """Check a child value (a property or an item): inline when small enough, else call its function."""
        too_deep = self.w.depth > _MAX_INLINE_INDENT or loops > _MAX_INLINE_LOOPS
        if too_deep or (self.dynamic and node.base != base):
            self.w(f"if not {self.call(node, 'v', var, base)}: {fail}")
        else:
            self.emit(node, var, fail, None, loops)

    @contextmanager
    def _container(self, spec: Spec, kind: str, var: str, known: str | None, fail: str) -> Iterator[None]:
        """Guard the checks of an object or array by its type (unless already known) and emit its own value
        keywords (sizes, uniqueItems) first; the container's other checks go inside."""
        w = self.w
        with w.block(f"if {type_test(kind, var)}") if known != kind else nullcontext():
            for row, bound in rows_for(spec, kind):
                w(f"if {self.fails(row, bound, var)}: {fail}")
            yield

    def _emit_object(self, spec: Spec, var: str, fail: str, ev: str | None, loops: int, known: str | None) -> None:
        has_keywords = (
            spec.required
            or spec.properties
            or spec.pattern_properties
            or spec.additional is not None
            or spec.property_names is not None
            or rows_for(spec, "object")  # minProperties ... (checks.VALUE_KEYWORDS)
            or spec.dependent_required
            or spec.unevaluated_properties is not None
        )
        if not has_keywords:
            return
        w = self.w
        with self._container(spec, "object", var, known, fail):
            base = spec.node.base
            declared = {name for name, _ in spec.properties}
            loose = [self.constant(name, "K") for name in spec.required if name not in declared]
            if loose:
                w(f"if not ({' and '.join(f'{name} in {var}' for name in loose)}): {fail}")
            for trigger, names in spec.dependent_required:
                needed = " and ".join(f"{self.constant(name, 'K')} in {var}" for name in names)
                w(f"if {self.constant(trigger, 'K')} in {var} and not ({needed}): {fail}")
            if len(spec.properties) > _MAX_GET_PROPERTIES and not spec.pattern_properties and not self.dynamic:
                self._emit_wide_properties(spec, var, fail, ev, loops)
            else:
                self._emit_properties(spec, var, fail, ev, loops)
            if spec.property_names is not None:
                name = self.temp("k")
                with w.block(f"for {name} in {var}"):
                    self._child(spec.property_names, name, fail, loops + 1, base)
            if spec.unevaluated_properties is not None:
                assert ev is not None
                key, value = self.temp("k"), self.temp()
                with w.block(f"for {key}, {value} in {var}.items()"), w.block(f"if {key} not in {ev}"):
                    self._child(spec.unevaluated_properties, value, fail, loops + 1, base)
                w(f"{ev}.update({var})")

    def _emit_properties(self, spec: Spec, var: str, fail: str, ev: str | None, loops: int) -> None:
        """Each declared property by ``get``: cheapest while there are few (the common tool)."""
        w = self.w
        base = spec.node.base
        required = set(spec.required)
        counting = spec.additional is not None and spec.additional.schema is False and not spec.pattern_properties
        counter = self.temp("n") if counting else ""
        if counting:
            present = sum(1 for name, _ in spec.properties if name in required)
            w(f"{counter} = {present}")
        for name, child in spec.properties:
            key = self.constant(name, "K")
            if child.schema is True and not counting:
                if name in required:
                    w(f"if {key} not in {var}: {fail}")
                if ev is not None:
                    w(f"if {key} in {var}: {ev}.add({key})")
                continue
            value = self.temp()
            w(f"{value} = {var}.get({key}, M)")
            if name in required:
                w(f"if {value} is M: {fail}")
                scope: AbstractContextManager[None] = nullcontext()
            else:
                scope = w.block(f"if {value} is not M")
            with scope:
                if counting and name not in required:
                    w(f"{counter} += 1")
                self._child(child, value, fail, loops, base)
                if ev is not None:
                    w(f"{ev}.add({key})")
        if counting:
            w(f"if len({var}) != {counter}: {fail}")
        elif spec.pattern_properties or spec.additional is not None:
            self._emit_other_properties(spec, var, fail, ev, loops)

    def _emit_wide_properties(self, spec: Spec, var: str, fail: str, ev: str | None, loops: int) -> None:
        """Many declared properties: walk the arguments (usually few) and dispatch each to its function."""
        w = self.w
        base = spec.node.base
        declared = {name for name, _ in spec.properties}
        wanted = [self.constant(name, "K") for name in spec.required if name in declared]
        if wanted:
            w(f"if not ({' and '.join(f'{name} in {var}' for name in wanted)}): {fail}")
        table = {name: self.function(child, "v") for name, child in spec.properties}
        self.namespace.setdefault("_dispatch", []).append(table)
        dispatch = self.constant(table, "D", key=("dispatch", id(table)))
        key, value, check = self.temp("k"), self.temp(), self.temp("f")
        with w.block(f"for {key}, {value} in {var}.items()"):
            w(f"{check} = {dispatch}.get({key})")
            with w.block(f"if {check} is not None"):
                w(f"if not {check}({value}): {fail}")
                if ev is not None:
                    w(f"{ev}.add({key})")
            if spec.additional is not None:
                with w.block("else"):
                    self._child(spec.additional, value, fail, loops + 1, base)
                    if ev is not None:
                        w(f"{ev}.add({key})")

    def _emit_other_properties(self, spec: Spec, var: str, fail: str, ev: str | None, loops: int) -> None:
        w = self.w
        base = spec.node.base
        key, value = self.temp("k"), self.temp()
        with w.block(f"for {key}, {value} in {var}.items()"):
            declared = self.constant(frozenset(name for name, _ in spec.properties), "S") if spec.properties else None
            if not spec.pattern_properties:
                if declared:
                    w(f"if {key} in {declared}: continue")
                if spec.additional is not None:
                    self._child(spec.additional, value, fail, loops + 1, base)
                if ev is not None:
                    w(f"{ev}.add({key})")
                return
            matched = self.temp("m")
            w(f"{matched} = {f'{key} in {declared}' if declared else 'False'}")
            for regex, _, child in spec.pattern_properties:
                with w.block(f"if {self.constant(regex, 'P')}.search(str({key})) is not None"):
                    w(f"{matched} = True")
                    self._child(child, value, fail, loops + 1, base)
                    if ev is not None:
                        w(f"{ev}.add({key})")
            if spec.additional is not None:
                with w.block(f"if not {matched}"):
                    self._child(spec.additional, value, fail, loops + 1, base)
                    if ev is not None:
                        w(f"{ev}.add({key})")

    def _emit_array(self, spec: Spec, var: str, fail: str, ev: str | None, loops: int, known: str | None) -> None:
        has_keywords = (
            rows_for(spec, "array")  # minItems, uniqueItems ... (checks.VALUE_KEYWORDS)
            or spec.prefix_items
            or spec.items is not None
            or spec.contains is not None
            or spec.unevaluated_items is not None
        )
        if not has_keywords:
            return
        with self._container(spec, "array", var, known, fail):
            self._emit_array_members(spec, var, fail, ev, loops)

    def _emit_array_members(self, spec: Spec, var: str, fail: str, ev: str | None, loops: int) -> None:
        w = self.w
        base = spec.node.base
        for position, child in enumerate(spec.prefix_items):
            with w.block(f"if len({var}) > {position}"):
                value = self.temp()
                w(f"{value} = {var}[{position}]")
                self._child(child, value, fail, loops, base)
        if spec.prefix_items and ev is not None:
            w(f"{ev}.update(range(min(len({var}), {len(spec.prefix_items)})))")
        if spec.items is not None:
            start = len(spec.prefix_items)
            if spec.items.schema is False:
                w(f"if len({var}) > {start}: {fail}")
            elif spec.items.schema is not True:
                value = self.temp()
                source = f"{var}[{start}:]" if start else var
                with w.block(f"for {value} in {source}"):
                    self._child(spec.items, value, fail, loops + 1, base)
            if ev is not None:
                w(f"{ev}.update(range(len({var})))")
        if spec.contains is not None:
            check = self.call(spec.contains, "v", "{item}", base)
            slot, value, hits = self.temp("i"), self.temp(), self.temp("c")
            if ev is None and spec.max_contains is None and spec.min_contains == 1:
                with w.block(f"for {value} in {var}"):
                    w(f"if {check.format(item=value)}: break")
                with w.block("else"):
                    w(fail)
            else:
                w(f"{hits} = 0")
                with w.block(f"for {slot}, {value} in enumerate({var})"), w.block(f"if {check.format(item=value)}"):
                    w(f"{hits} += 1")
                    if ev is not None:
                        w(f"{ev}.add({slot})")
                if spec.min_contains > 0:
                    w(f"if {hits} < {self.constant(spec.min_contains, 'N')}: {fail}")
                if spec.max_contains is not None:
                    w(f"if {hits} > {self.constant(spec.max_contains, 'N')}: {fail}")
        if spec.unevaluated_items is not None:
            assert ev is not None
            slot = self.temp("i")
            with w.block(f"for {slot} in range(len({var}))"), w.block(f"if {slot} not in {ev}"):
                value = self.temp()
                w(f"{value} = {var}[{slot}]")
                self._child(spec.unevaluated_items, value, fail, loops + 1, base)
            w(f"{ev}.update(range(len({var})))")


def value_key(node: Located) -> tuple[Any, ...]:
    """Identity of a subschema by value: equal subschemas under one base URI share one generated function.

    A 200-property tool whose properties are all ``{"type": "string"}`` then compiles one string check, not 200.
    """
    schema = node.schema
    if not isinstance(schema, dict):
        return (repr(schema), node.base)
    import json

    try:
        text = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError):
        return (*node_key(node), "by-identity")
    return (text, node.base)


def _is_object(var: str) -> str:
    return type_test("object", var)


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _pick(table: dict[str, list[Any]], fallback: list[Any], dyn: tuple[str, ...]) -> list[Any]:
    """The $dynamicRef target: the outermost resource in the dynamic scope with the anchor, else static."""
    for resource in dyn:
        found = table.get(resource)
        if found is not None:
            return found
    return fallback


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<missing>"


_MISSING = _Missing()
