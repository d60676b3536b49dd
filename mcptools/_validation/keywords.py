"""One schema object, read once: keyword values checked (else ``SchemaError``), references resolved.

The code generator (valid path) and the error collector (all-errors path) both read ``Spec`` objects, so
a keyword value is checked in exactly one place and the two paths cannot disagree about what a schema means.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, final

from mcptools._errors import SchemaError
from mcptools._json import JSON_TYPE_NAMES

from .formats import FORMAT_CHECKS, is_base64
from .regex import PatternMatcher, compile_pattern
from .resolve import VALIDATION_KEYWORDS, Index, Located

__all__ = ["Spec", "SpecTable", "any_reachable", "is_json_value", "node_key"]


def _names(names: Any) -> bool:
    """An array of distinct strings, as ``required`` and ``dependentRequired`` must be."""
    return isinstance(names, list) and all(isinstance(name, str) for name in names) and len(set(names)) == len(names)


def is_json_value(value: Any) -> bool:
    """Whether ``value`` is something JSON can spell (NaN and Infinity are not: no JSON text means them)."""
    stack = [value]
    seen: set[int] = set()
    while stack:
        item = stack.pop()
        if item is None or isinstance(item, (str, bool, int)):
            continue
        if isinstance(item, (list, tuple, dict)):
            if id(item) in seen:  # shared or self-containing: each container is looked at once
                continue
            seen.add(id(item))
        if isinstance(item, float):
            if not math.isfinite(item):
                return False
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        else:
            return False
    return True


def node_key(node: Located) -> tuple[Any, ...]:
    schema = node.schema
    return (id(schema) if isinstance(schema, dict) else repr(schema), node.base)


@final
@dataclass(slots=True, eq=False)
class Spec:
    """The checked, resolved keywords of one schema object; absent keywords are ``None`` or empty."""

    node: Located
    boolean: bool | None = None
    types: list[str] | None = None
    enum: list[Any] | None = None
    const: tuple[Any] | None = None
    minimum: int | float | None = None
    maximum: int | float | None = None
    exclusive_minimum: int | float | None = None
    exclusive_maximum: int | float | None = None
    multiple_of: int | float | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: tuple[PatternMatcher, str] | None = None
    format: Any = None  # the check function when asserting
    format_name: str | None = None
    min_items: int | None = None
    max_items: int | None = None
    unique_items: bool = False
    prefix_items: list[Located] = field(default_factory=list)
    items: Located | None = None
    contains: Located | None = None
    min_contains: int = 1
    max_contains: int | None = None
    unevaluated_items: Located | None = None
    properties: list[tuple[str, Located]] = field(default_factory=list)
    pattern_properties: list[tuple[PatternMatcher, str, Located]] = field(default_factory=list)
    additional: Located | None = None
    unevaluated_properties: Located | None = None
    property_names: Located | None = None
    required: list[str] = field(default_factory=list)
    dependent_required: list[tuple[str, list[str]]] = field(default_factory=list)
    dependent_schemas: list[tuple[str, Located]] = field(default_factory=list)
    min_properties: int | None = None
    max_properties: int | None = None
    all_of: list[Located] = field(default_factory=list)
    any_of: list[Located] = field(default_factory=list)
    one_of: list[Located] = field(default_factory=list)
    not_: Located | None = None
    if_: Located | None = None
    then: Located | None = None
    else_: Located | None = None
    ref: Located | None = None
    # $dynamicRef: ``ref`` holds its static target; ``dynamic_name`` is set when the target is a bookend
    dynamic_name: str | None = None

    @property
    def has_unevaluated(self) -> bool:
        return self.unevaluated_items is not None or self.unevaluated_properties is not None

    def in_place(self) -> list[Located]:
        """The subschemas applied to this same instance (whose annotations count for unevaluated*)."""
        found = [*self.all_of, *self.any_of, *self.one_of]
        for single in (self.ref, self.if_, self.then, self.else_):
            if single is not None:
                found.append(single)
        found.extend(schema for _, schema in self.dependent_schemas)
        return found


@final
@dataclass(slots=True, eq=False)
class _Reader:
    """Reads one keyword of one schema object, refusing a value of the wrong kind with a ``SchemaError`` that
    names the keyword and where it is."""

    node: Located
    schema: dict[str, Any]
    validation: bool

    def bad(self, keyword: str, expected: str) -> SchemaError:
        where = self.node.where_of(keyword)
        return SchemaError(f"'{keyword}' at '{where}' must be {expected}, got {self.schema[keyword]!r}")

    def count(self, keyword: str) -> int | None:
        if keyword not in self.schema or (not self.validation and keyword in VALIDATION_KEYWORDS):
            return None
        value = self.schema[keyword]
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if type(value) is not int or value < 0:
            raise self.bad(keyword, "a non-negative integer")
        return value

    def number(self, keyword: str) -> int | float | None:
        if keyword not in self.schema or not self.validation:
            return None
        value = self.schema[keyword]
        if type(value) not in (int, float) or (type(value) is float and not math.isfinite(value)):
            raise self.bad(keyword, "a finite number")
        return value  # type: ignore[no-any-return]

    def subschema(self, keyword: str) -> Located | None:
        return self.node.child(keyword) if keyword in self.schema else None

    def subschemas(self, keyword: str) -> list[Located]:
        if keyword not in self.schema:
            return []
        value = self.schema[keyword]
        if not isinstance(value, list) or not value:
            raise self.bad(keyword, "a non-empty array of schemas")
        return [self.node.child(keyword, i) for i in range(len(value))]

    def schema_map(self, keyword: str) -> list[tuple[str, Located]]:
        if keyword not in self.schema:
            return []
        value = self.schema[keyword]
        if not isinstance(value, dict):
            raise self.bad(keyword, "an object of schemas")
        return [(name, self.node.child(keyword, name)) for name in value]


@final
@dataclass(slots=True, eq=False)
class SpecTable:
    """Reads each schema object into a ``Spec`` once, whatever path reaches it."""

    index: Index
    _: KW_ONLY
    format_assertion: bool
    validation: bool
    _specs: dict[tuple[Any, ...], Spec] = field(default_factory=dict)

    def spec(self, node: Located) -> Spec:
        key = node_key(node)
        found = self._specs.get(key)
        if found is None:
            found = self._specs[key] = self._read(node)
        return found

    def _read(self, node: Located) -> Spec:
        spec = Spec(node)
        schema = node.schema
        if isinstance(schema, bool):
            spec.boolean = schema
            return spec
        if not isinstance(schema, dict):
            raise SchemaError(f"the schema at '{node.where()}' must be an object or a boolean, got {schema!r}")
        read = _Reader(node, schema, self.validation)
        if self.validation:
            self._read_validation(spec, schema, read.bad)
        self._read_values(spec, schema, read)
        self._read_applicators(spec, node, read)
        self._read_references(spec, schema, node)
        return spec

    def _read_values(self, spec: Spec, schema: dict[str, Any], read: _Reader) -> None:
        """The keywords holding numbers, counts and the format name."""
        spec.minimum = read.number("minimum")
        spec.maximum = read.number("maximum")
        spec.exclusive_minimum = read.number("exclusiveMinimum")
        spec.exclusive_maximum = read.number("exclusiveMaximum")
        spec.multiple_of = read.number("multipleOf")
        if spec.multiple_of is not None and spec.multiple_of <= 0:
            raise read.bad("multipleOf", "a number greater than 0")
        spec.min_length = read.count("minLength")
        spec.max_length = read.count("maxLength")
        spec.min_items = read.count("minItems")
        spec.max_items = read.count("maxItems")
        spec.min_properties = read.count("minProperties")
        spec.max_properties = read.count("maxProperties")
        spec.max_contains = read.count("maxContains")
        min_contains = read.count("minContains")
        if min_contains is not None:
            spec.min_contains = min_contains
        if "format" in schema:
            name = schema["format"]
            if not isinstance(name, str):
                raise read.bad("format", "a string")
            spec.format_name = name
            if self.format_assertion:
                spec.format = FORMAT_CHECKS.get(name)
        elif self.format_assertion and schema.get("contentEncoding") == "base64":
            # Asserting formats asserts this encoding too: derived schemas say bytes this way (stdtypes.py).
            spec.format_name = "base64"
            spec.format = is_base64

    @staticmethod
    def _read_applicators(spec: Spec, node: Located, read: _Reader) -> None:
        """The keywords holding subschemas (``$defs`` is read too, so a broken one is refused)."""
        spec.prefix_items = read.subschemas("prefixItems")
        spec.items = read.subschema("items")
        spec.contains = read.subschema("contains")
        spec.unevaluated_items = read.subschema("unevaluatedItems")
        spec.properties = read.schema_map("properties")
        for pattern, child in read.schema_map("patternProperties"):
            regex = compile_pattern(pattern, node.where_of("patternProperties", pattern))
            spec.pattern_properties.append((regex, pattern, child))
        spec.additional = read.subschema("additionalProperties")
        spec.unevaluated_properties = read.subschema("unevaluatedProperties")
        spec.property_names = read.subschema("propertyNames")
        spec.dependent_schemas = read.schema_map("dependentSchemas")
        read.schema_map("$defs")
        spec.all_of = read.subschemas("allOf")
        spec.any_of = read.subschemas("anyOf")
        spec.one_of = read.subschemas("oneOf")
        spec.not_ = read.subschema("not")
        spec.if_ = read.subschema("if")
        if spec.if_ is not None:
            spec.then = read.subschema("then")
            spec.else_ = read.subschema("else")

    def _read_validation(self, spec: Spec, schema: dict[str, Any], bad: Any) -> None:
        if "type" in schema:
            kind = schema["type"]
            names = [kind] if isinstance(kind, str) else kind
            if (
                not isinstance(names, list)
                or not names
                or not all(isinstance(name, str) and name in JSON_TYPE_NAMES for name in names)
                or len(set(names)) != len(names)
            ):
                raise bad("type", f"one of {sorted(JSON_TYPE_NAMES)} or a list of distinct ones")
            spec.types = names
        if "enum" in schema:
            if not isinstance(schema["enum"], list) or not is_json_value(schema["enum"]):
                raise bad("enum", "an array of JSON values (no NaN or Infinity)")
            spec.enum = schema["enum"]
        if "const" in schema:
            if not is_json_value(schema["const"]):
                raise bad("const", "a JSON value (no NaN or Infinity)")
            spec.const = (schema["const"],)
        if "pattern" in schema:
            source = schema["pattern"]
            spec.pattern = (compile_pattern(source, spec.node.where_of("pattern")), source)
        if "uniqueItems" in schema:
            if not isinstance(schema["uniqueItems"], bool):
                raise bad("uniqueItems", "a boolean")
            spec.unique_items = schema["uniqueItems"]
        if "required" in schema:
            required = schema["required"]
            if not _names(required):
                raise bad("required", "an array of distinct property names")
            spec.required = list(dict.fromkeys(required))
        if "dependentRequired" in schema:
            value = schema["dependentRequired"]
            if not isinstance(value, dict) or not all(_names(names) for names in value.values()):
                raise bad("dependentRequired", "an object of arrays of distinct property names")
            spec.dependent_required = [(name, names) for name, names in value.items() if names]

    def _read_references(self, spec: Spec, schema: dict[str, Any], node: Located) -> None:
        for keyword in ("$ref", "$dynamicRef"):
            if keyword not in schema:
                continue
            reference = schema[keyword]
            if not isinstance(reference, str):
                raise SchemaError(f"'{keyword}' at '{node.where_of(keyword)}' must be a URI string, got {reference!r}")
            target = self.index.lookup(reference, node, keyword)
            if keyword == "$ref":
                spec.ref = target
                continue
            fragment = reference.partition("#")[2]
            dynamic = (
                fragment
                and not fragment.startswith("/")
                and isinstance(target.schema, dict)
                and target.schema.get("$dynamicAnchor") == fragment
            )
            if spec.ref is None and not dynamic:
                spec.ref = target
            elif spec.ref is None:
                spec.ref = target
                spec.dynamic_name = fragment
            else:
                # Both keywords: keep $ref in ``ref`` and apply the $dynamicRef through allOf semantics.
                spec.all_of = [*spec.all_of, target]
                if dynamic:
                    raise SchemaError(
                        f"'$dynamicRef' beside '$ref' at '{node.where_of('$dynamicRef')}' is not supported; "
                        "wrap one in 'allOf'"
                    )


def any_reachable(
    specs: SpecTable, root: Located, edges: Callable[[Spec], list[Located]], test: Callable[[Spec], bool]
) -> bool:
    """Whether ``test`` holds for some schema object reachable from ``root`` along ``edges`` (each visited once,
    so recursive schemas end)."""
    seen: set[tuple[Any, ...]] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        key = node_key(node)
        if key in seen:
            continue
        seen.add(key)
        spec = specs.spec(node)
        if test(spec):
            return True
        stack.extend(edges(spec))
    return False
