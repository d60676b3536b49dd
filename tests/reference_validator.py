"""The slow, obvious validator: one small generator per keyword, yielding ``(path, message)`` errors.

It interprets the schema on every call and favours being plainly right over being fast: equality is
``_json.json_equal`` pairwise, nothing is specialised, annotations for ``unevaluated*`` are the set of names or
indices each valid subschema evaluated. The property tests run random schemas and instances through this and
through the compiled validator and require the same answer; it is never used to validate tool arguments.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from mcptools._json import is_json_type, json_equal
from mcptools._validation.regex import compile_pattern
from mcptools._validation.resolve import DEFAULT_BASE, Index, Located
from mcptools._validation.values import is_multiple_of

__all__ = ["ReferenceValidator"]

Path = tuple[Any, ...]
Error = tuple[Path, str]
Scope = tuple[str, ...]
Keyword = Callable[["ReferenceValidator", Located, Any, Path, Scope, set[Any]], Iterator[Error]]


class ReferenceValidator:
    """``ReferenceValidator(schema).is_valid(instance)`` answers what draft 2020-12 says, slowly."""

    def __init__(self, schema: Any, resources: Mapping[str, Any] | None = None) -> None:
        self.index = Index()
        self.root = self.index.add_document(schema, DEFAULT_BASE, "")
        self.index.pending.update(resources or {})

    def is_valid(self, instance: Any) -> bool:
        return not self.errors(instance)

    def errors(self, instance: Any) -> list[Error]:
        errors, _ = self.evaluate(self.root, instance, (), (self.root.base,))
        return errors

    def evaluate(self, node: Located, instance: Any, path: Path, scope: Scope) -> tuple[list[Error], set[Any]]:
        """The errors of ``instance`` against ``node``, and what it evaluated when there are none."""
        schema = node.schema
        if schema is True:
            return [], set()
        if schema is False:
            return [(path, "is not allowed")], set()
        if scope[-1] != node.base:
            scope = (*scope, node.base)
        errors: list[Error] = []
        evaluated: set[Any] = set()
        late = ("unevaluatedProperties", "unevaluatedItems")
        for keyword in [k for k in schema if k not in late] + [k for k in late if k in schema]:
            check = KEYWORDS.get(keyword)
            if check is not None:
                errors.extend(check(self, node, instance, path, scope, evaluated))
        return errors, (set() if errors else evaluated)

    def apply(self, node: Located, instance: Any, path: Path, scope: Scope, evaluated: set[Any]) -> list[Error]:
        """Evaluate an in-place subschema, keeping what it evaluated when it passes."""
        errors, found = self.evaluate(node, instance, path, scope)
        evaluated |= found
        return errors


def _type(v: ReferenceValidator, node: Located, x: Any, path: Path, scope: Scope, seen: set[Any]) -> Iterator[Error]:
    wanted = node.schema["type"]
    names = [wanted] if isinstance(wanted, str) else wanted
    if not any(is_json_type(x, name) for name in names):
        yield path, f"is not of type {names}"


def _enum(v: ReferenceValidator, node: Located, x: Any, path: Path, scope: Scope, seen: set[Any]) -> Iterator[Error]:
    if not any(json_equal(x, allowed) for allowed in node.schema["enum"]):
        yield path, "is not in enum"


def _const(v: ReferenceValidator, node: Located, x: Any, path: Path, scope: Scope, seen: set[Any]) -> Iterator[Error]:
    if not json_equal(x, node.schema["const"]):
        yield path, "is not the const"


def _number(test: Callable[[Any, Any], bool], keyword: str) -> Keyword:
    def check(
        v: ReferenceValidator, node: Located, x: Any, path: Path, scope: Scope, seen: set[Any]
    ) -> Iterator[Error]:
        if is_json_type(x, "number") and not test(x, node.schema[keyword]):
            yield path, f"fails {keyword}"

    return check


def _size(kind: str, keyword: str, at_least: bool) -> Keyword:
    def check(
        v: ReferenceValidator, node: Located, x: Any, path: Path, scope: Scope, seen: set[Any]
    ) -> Iterator[Error]:
        if is_json_type(x, kind):
            bound = node.schema[keyword]
            if (len(x) < bound) if at_least else (len(x) > bound):
                yield path, f"fails {keyword}"

    return check


def _pattern(v: ReferenceValidator, node: Located, x: Any, path: Path, scope: Scope, seen: set[Any]) -> Iterator[Error]:
    if isinstance(x, str) and compile_pattern(node.schema["pattern"], "#").search(x) is None:
        yield path, "does not match pattern"


def _unique(v: ReferenceValidator, node: Located, x: Any, path: Path, scope: Scope, seen: set[Any]) -> Iterator[Error]:
    if node.schema["uniqueItems"] is True and is_json_type(x, "array"):
        for i in range(len(x)):
            for j in range(i):
                if json_equal(x[i], x[j]):
                    yield path, "has duplicate items"
                    return


def _required(
    v: ReferenceValidator, node: Located, x: Any, path: Path, scope: Scope, seen: set[Any]
) -> Iterator[Error]:
    if isinstance(x, dict):
        for name in node.schema["required"]:
            if name not in x:
                yield (*path, name), "is missing"


def _dependent_required(
    v: ReferenceValidator, node: Located, x: Any, path: Path, scope: Scope, seen: set[Any]
) -> Iterator[Error]:
    if isinstance(x, dict):
        for trigger, names in node.schema["dependentRequired"].items():
            if trigger in x:
                for name in names:
                    if name not in x:
                        yield (*path, name), "is missing"


def _properties(
    v: ReferenceValidator, node: Located, x: Any, path: Path, scope: Scope, seen: set[Any]
) -> Iterator[Error]:
    if isinstance(x, dict):
        for name in node.schema["properties"]:
            if name in x:
                errors, _ = v.evaluate(node.child("properties", name), x[name], (*path, name), scope)
                yield from errors
                seen.add(name)


def _pattern_properties(
    v: ReferenceValidator, node: Located, x: Any, path: Path, scope: Scope, seen: set[Any]
) -> Iterator[Error]:
    if isinstance(x, dict):
        for pattern in node.schema["patternProperties"]:
            regex = compile_pattern(pattern, "#")
            for name in x:
                if regex.search(str(name)) is not None:
                    errors, _ = v.evaluate(node.child("patternProperties", pattern), x[name], (*path, name), scope)
                    yield from errors
                    seen.add(name)


def _additional(
    v: ReferenceValidator, node: Located, x: Any, path: Path, scope: Scope, seen: set[Any]
) -> Iterator[Error]:
    if isinstance(x, dict):
        declared = node.schema.get("properties", {})
        patterns = [compile_pattern(p, "#") for p in node.schema.get("patternProperties", {})]
        for name in x:
            if name not in declared and not any(regex.search(str(name)) for regex in patterns):
                errors, _ = v.evaluate(node.child("additionalProperties"), x[name], (*path, name), scope)
                yield from errors
                seen.add(name)


def _property_names(
    v: ReferenceValidator, node: Located, x: Any, path: Path, scope: Scope, seen: set[Any]
) -> Iterator[Error]:
    if isinstance(x, dict):
        for name in x:
            errors, _ = v.evaluate(node.child("propertyNames"), name, (*path, name), scope)
            yield from errors


def _prefix_items(
    v: ReferenceValidator, node: Located, x: Any, path: Path, scope: Scope, seen: set[Any]
) -> Iterator[Error]:
    if is_json_type(x, "array"):
        for i in range(min(len(x), len(node.schema["prefixItems"]))):
            errors, _ = v.evaluate(node.child("prefixItems", i), x[i], (*path, i), scope)
            yield from errors
            seen.add(i)


def _items(v: ReferenceValidator, node: Located, x: Any, path: Path, scope: Scope, seen: set[Any]) -> Iterator[Error]:
    if is_json_type(x, "array"):
        for i in range(len(node.schema.get("prefixItems", [])), len(x)):
            errors, _ = v.evaluate(node.child("items"), x[i], (*path, i), scope)
            yield from errors
            seen.add(i)


def _contains(
    v: ReferenceValidator, node: Located, x: Any, path: Path, scope: Scope, seen: set[Any]
) -> Iterator[Error]:
    if is_json_type(x, "array"):
        matches = [i for i, item in enumerate(x) if not v.evaluate(node.child("contains"), item, path, scope)[0]]
        seen.update(matches)
        least = node.schema.get("minContains", 1)
        most = node.schema.get("maxContains")
        if len(matches) < least or (most is not None and len(matches) > most):
            yield path, "fails contains"


def _all_of(v: ReferenceValidator, node: Located, x: Any, path: Path, scope: Scope, seen: set[Any]) -> Iterator[Error]:
    for i in range(len(node.schema["allOf"])):
        yield from v.apply(node.child("allOf", i), x, path, scope, seen)


def _any_of(v: ReferenceValidator, node: Located, x: Any, path: Path, scope: Scope, seen: set[Any]) -> Iterator[Error]:
    passed = [not v.apply(node.child("anyOf", i), x, path, scope, seen) for i in range(len(node.schema["anyOf"]))]
    if not any(passed):
        yield path, "fails anyOf"


def _one_of(v: ReferenceValidator, node: Located, x: Any, path: Path, scope: Scope, seen: set[Any]) -> Iterator[Error]:
    found: set[Any] = set()
    passed = [not v.apply(node.child("oneOf", i), x, path, scope, found) for i in range(len(node.schema["oneOf"]))]
    if sum(passed) != 1:
        yield path, "fails oneOf"
    else:
        seen |= found


def _not(v: ReferenceValidator, node: Located, x: Any, path: Path, scope: Scope, seen: set[Any]) -> Iterator[Error]:
    if not v.evaluate(node.child("not"), x, path, scope)[0]:
        yield path, "matches not"


def _if(v: ReferenceValidator, node: Located, x: Any, path: Path, scope: Scope, seen: set[Any]) -> Iterator[Error]:
    branch = "then" if not v.apply(node.child("if"), x, path, scope, seen) else "else"
    if branch in node.schema:
        yield from v.apply(node.child(branch), x, path, scope, seen)


def _dependent_schemas(
    v: ReferenceValidator, node: Located, x: Any, path: Path, scope: Scope, seen: set[Any]
) -> Iterator[Error]:
    if isinstance(x, dict):
        for trigger in node.schema["dependentSchemas"]:
            if trigger in x:
                yield from v.apply(node.child("dependentSchemas", trigger), x, path, scope, seen)


def _ref(v: ReferenceValidator, node: Located, x: Any, path: Path, scope: Scope, seen: set[Any]) -> Iterator[Error]:
    yield from v.apply(v.index.lookup(node.schema["$ref"], node, "$ref"), x, path, scope, seen)


def _dynamic_ref(
    v: ReferenceValidator, node: Located, x: Any, path: Path, scope: Scope, seen: set[Any]
) -> Iterator[Error]:
    reference = node.schema["$dynamicRef"]
    target = v.index.lookup(reference, node, "$dynamicRef")
    name = reference.partition("#")[2]
    if isinstance(target.schema, dict) and target.schema.get("$dynamicAnchor") == name:
        for resource in scope:
            found = v.index.dynamic_anchors.get(resource, {}).get(name)
            if found is not None:
                target = found
                break
    yield from v.apply(target, x, path, scope, seen)


def _unevaluated_properties(
    v: ReferenceValidator, node: Located, x: Any, path: Path, scope: Scope, seen: set[Any]
) -> Iterator[Error]:
    if isinstance(x, dict):
        for name in x:
            if name not in seen:
                errors, _ = v.evaluate(node.child("unevaluatedProperties"), x[name], (*path, name), scope)
                yield from errors
        seen.update(x)


def _unevaluated_items(
    v: ReferenceValidator, node: Located, x: Any, path: Path, scope: Scope, seen: set[Any]
) -> Iterator[Error]:
    if is_json_type(x, "array"):
        for i in range(len(x)):
            if i not in seen:
                errors, _ = v.evaluate(node.child("unevaluatedItems"), x[i], (*path, i), scope)
                yield from errors
        seen.update(range(len(x)))


KEYWORDS: dict[str, Keyword] = {
    "type": _type,
    "enum": _enum,
    "const": _const,
    "minimum": _number(lambda x, bound: x >= bound, "minimum"),
    "maximum": _number(lambda x, bound: x <= bound, "maximum"),
    "exclusiveMinimum": _number(lambda x, bound: x > bound, "exclusiveMinimum"),
    "exclusiveMaximum": _number(lambda x, bound: x < bound, "exclusiveMaximum"),
    "multipleOf": _number(is_multiple_of, "multipleOf"),
    "minLength": _size("string", "minLength", at_least=True),
    "maxLength": _size("string", "maxLength", at_least=False),
    "minItems": _size("array", "minItems", at_least=True),
    "maxItems": _size("array", "maxItems", at_least=False),
    "minProperties": _size("object", "minProperties", at_least=True),
    "maxProperties": _size("object", "maxProperties", at_least=False),
    "pattern": _pattern,
    "uniqueItems": _unique,
    "required": _required,
    "dependentRequired": _dependent_required,
    "properties": _properties,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional,
    "propertyNames": _property_names,
    "prefixItems": _prefix_items,
    "items": _items,
    "contains": _contains,
    "allOf": _all_of,
    "anyOf": _any_of,
    "oneOf": _one_of,
    "not": _not,
    "if": _if,
    "dependentSchemas": _dependent_schemas,
    "$ref": _ref,
    "$dynamicRef": _dynamic_ref,
    "unevaluatedProperties": _unevaluated_properties,
    "unevaluatedItems": _unevaluated_items,
}
