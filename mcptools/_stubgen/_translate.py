"""JSON Schema to Python types: the reverse of ``mcptools._schema.derive``.

One :class:`SchemaTranslator` serves a whole module: it hands out class names, keeps the TypedDicts and
aliases it defines in the order they complete (a class after the classes its fields name), and shares a
``$defs`` entry between tools when its whole reference closure is the same. What a Python type cannot say
(``pattern``, ``minimum``, ``format``, an ignored ``not``...) comes back as notes, which end up in docstrings:
nothing in a schema is dropped silently.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, final
from urllib.parse import unquote

from mcptools._json import is_json_type, resolve_pointer
from mcptools._stubgen._text import NameAllocator, pascal_case
from mcptools._stubgen._types import Lit, Name, PyType, Sub, UnionOf, any_type, render, union

__all__ = ["AliasDef", "ClassDef", "Definition", "FieldDef", "RootType", "SchemaTranslator", "json_text"]

# Keywords the translation turns into types; every other keyword becomes a note.
_TYPED_KEYWORDS = frozenset(
    {
        "$defs",
        "$id",
        "$ref",
        "$schema",
        "additionalItems",
        "additionalProperties",
        "allOf",
        "anyOf",
        "const",
        "definitions",
        "description",
        "enum",
        "items",
        "nullable",
        "oneOf",
        "prefixItems",
        "properties",
        "required",
        "title",
        "type",
    }
)
# Keywords that say what a value is; a schema with none of them only constrains (``{"required": ["id"]}``).
_TYPE_INFO_KEYWORDS = frozenset(
    {
        "$ref",
        "additionalProperties",
        "allOf",
        "anyOf",
        "const",
        "enum",
        "items",
        "oneOf",
        "patternProperties",
        "prefixItems",
        "properties",
        "type",
    }
)
_SCALARS: dict[str, PyType] = {
    "string": Name("str"),
    "integer": Name("int"),
    "number": Name("float"),
    "boolean": Name("bool"),
    "null": Name("None"),
}
_NEVER = Name("Never")
# Type checkers take Literal integers in the 64-bit range only; larger ones are typed int (and noted).
_LITERAL_INT_MIN = -(2**63)
_LITERAL_INT_MAX = 2**63 - 1


def json_text(value: object) -> str:
    """A schema value as compact, stable JSON for a note (escaped later, like any text)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=repr)


@final
@dataclass(slots=True)
class FieldDef:
    """One TypedDict key: its type, whether it is required, and its documentation."""

    key: str
    type: PyType
    required: bool
    description: str
    notes: list[str]

    @property
    def doc(self) -> str:
        return _doc(self.description, self.notes)


@final
@dataclass(slots=True)
class ClassDef:
    """A TypedDict the module defines."""

    name: str
    doc: str
    fields: list[FieldDef]
    # Whether the schema says other keys are allowed too (``additionalProperties`` true or a schema): a
    # TypedDict cannot say so (PEP 728's ``extra_items`` is not in mypy yet), so the docs do.
    open: bool = False


@final
@dataclass(slots=True)
class AliasDef:
    """A type alias the module defines: a ``$defs`` entry that is not an object, or a non-object root."""

    name: str
    type: PyType
    doc: str


Definition: TypeAlias = ClassDef | AliasDef
ArgumentsForm: TypeAlias = Literal["typed", "mapping", "positional"]


@final
@dataclass(slots=True)
class RootType:
    """The named type for a tool's ``inputSchema`` or ``outputSchema``, and how a facade method takes it."""

    name: str
    form: ArgumentsForm
    value_type: PyType = field(default_factory=lambda: any_type)


@final
@dataclass(slots=True, eq=False)
class _Document:
    """One root schema: what ``#...`` references resolve against, and the names given to its pointers."""

    root: object
    named: dict[str, PyType] = field(default_factory=dict)
    # Schema objects (by identity) that became classes: a ``$ref`` to ``#/properties/filters`` (as
    # zod-to-json-schema writes for a reused schema) finds the class its inline twin got. The object is
    # kept alongside so its id cannot be reused.
    classes: dict[int, tuple[object, PyType]] = field(default_factory=dict)
    # Inline objects by content: a dataclass used twice in one signature is inlined twice by the
    # derivation, and should still be one class. (References resolve within one document, so equal
    # JSON here means equal types.)
    same_content: dict[str, PyType] = field(default_factory=dict)


def _local_refs(schema: object) -> Iterator[str]:
    """The pointers of every local ``$ref`` anywhere inside ``schema``."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#"):
                yield unquote(ref[1:])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def _closure_fingerprint(root: object, pointer: str) -> str:
    """The JSON of everything ``pointer`` reaches by references: equal fingerprints mean the same types."""
    reached: dict[str, object] = {}
    pending = [pointer]
    while pending:
        current = pending.pop()
        if current in reached:
            continue
        target = resolve_pointer(root, current)
        reached[current] = target
        pending.extend(_local_refs(target))
    return json.dumps(reached, sort_keys=True, default=repr)


def _without_self(value: PyType, alias: Name) -> PyType:
    """An alias's value without the alias itself as a union member: ``X = X | str`` says ``X = str``."""
    if value == alias:
        return any_type
    if isinstance(value, UnionOf) and alias in value.members:
        return union([member for member in value.members if member != alias]) if len(value.members) > 1 else any_type
    return value


def _has_type_info(schema: object) -> bool:
    return isinstance(schema, bool) or (
        isinstance(schema, Mapping) and any(keyword in schema for keyword in _TYPE_INFO_KEYWORDS)
    )


def _declared_types(schema: Mapping[str, Any]) -> list[str] | None:
    declared = schema.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list) and all(isinstance(name, str) for name in declared):
        return list(declared)
    return None


def _inferred_types(schema: Mapping[str, Any]) -> list[str]:
    """The JSON types a schema allows: its ``type``, else what its keywords imply, else any."""
    declared = _declared_types(schema)
    if declared is not None:
        return declared
    if any(key in schema for key in ("properties", "required", "additionalProperties", "patternProperties")):
        return ["object"]
    if any(key in schema for key in ("items", "prefixItems")):
        return ["array"]
    return []


def _literal_member(value: object) -> tuple[PyType, bool]:
    """The type of one ``enum``/``const`` value, and whether that type says exactly this value."""
    if value is None:
        return Name("None"), True
    if isinstance(value, (bool, str)):
        return Lit((value,)), True
    if isinstance(value, int):
        return (Lit((value,)), True) if _LITERAL_INT_MIN <= value <= _LITERAL_INT_MAX else (Name("int"), False)
    if isinstance(value, float):
        if value.is_integer() and _LITERAL_INT_MIN <= value <= _LITERAL_INT_MAX:
            return Lit((int(value),)), True
        return Name("float"), False
    if isinstance(value, list):
        return Sub("list", (any_type,)), False
    if isinstance(value, Mapping):
        return Sub("dict", (Name("str"), any_type)), False
    return any_type, False


def _notes(schema: Mapping[str, Any], skip: frozenset[str] = frozenset()) -> list[str]:
    """``keyword: value`` for every keyword the types do not express, in the schema's order."""
    return [
        f"{keyword}: {json_text(value)}"
        for keyword, value in schema.items()
        if keyword not in _TYPED_KEYWORDS and keyword not in skip and keyword != "$comment"
    ]


def _prefixed(prefix: str, notes: list[str]) -> list[str]:
    return [f"{prefix}.{note}" for note in notes]


def _doc(description: object, notes: Sequence[str]) -> str:
    parts = [description.strip()] if isinstance(description, str) and description.strip() else []
    if notes:
        parts.append("\n".join(notes))
    return "\n\n".join(parts)


@final
class SchemaTranslator:
    """Turns the schemas of one module's tools into named types, collecting the definitions they need."""

    __slots__ = ("_classes", "_merging", "_names", "_shared", "definitions")

    def __init__(self, names: NameAllocator) -> None:
        self._names = names
        self._shared: dict[tuple[str, str], PyType] = {}
        # allOf schemas (by identity) whose members are being merged: merging copies the members' contents,
        # so a member that leads back to the same allOf must be named (its $ref), not merged again.
        self._merging: set[int] = set()
        self._classes: set[str] = set()
        self.definitions: list[Definition] = []

    def root(self, schema: object, name: str, *, arguments: bool) -> RootType:
        """A tool's ``inputSchema`` (``arguments=True``) or ``outputSchema`` as ``name`` (allocated by the caller).

        Arguments follow what the schema accepts. ``additionalProperties: false`` and no properties: an
        empty TypedDict, so the facade method takes no keyword. No properties and other keys open (``{}``,
        ``{"type": "object"}``): ``dict[str, Any]``, so the method takes ``**arguments: Any`` (an empty
        TypedDict there would make every call with an argument a type error, though the tool takes any).
        Listed properties: a TypedDict whatever ``additionalProperties`` says, so a misspelt name is caught;
        keys beyond the listed ones go through the client's untyped ``call_tool(name, arguments)``.
        """
        named = Name(name, generated=True)
        document = _Document(schema)
        document.named[""] = named
        if isinstance(schema, Mapping) and arguments:
            if self._is_closed_empty_object(schema):
                self._object(schema, document, name, claim=name)
                return RootType(name, "typed")
            if not _inferred_types(schema) and not any(key in schema for key in _TYPE_INFO_KEYWORDS):
                # A tool's arguments are always an object (MCP's inputSchema), so a schema that constrains
                # nothing accepts any object, not any JSON value.
                schema = {**schema, "type": "object"}
        translated, notes = self.translate(schema, document, name, claim=name)
        if name in self._classes:
            return RootType(name, "typed")
        if not arguments and translated == _NEVER:
            # No value matches: a method returning Never would not type-check, and the schema is wrong.
            translated, notes = any_type, [*notes, "outputSchema: no value can match it"]
        description = schema.get("description") if isinstance(schema, Mapping) else None
        translated = _without_self(translated, named)
        self.definitions.append(AliasDef(name, translated, _doc(description, notes)))
        if isinstance(translated, Sub) and translated.origin == "dict" and translated.args[0] == Name("str"):
            return RootType(name, "mapping", translated.args[1])
        return RootType(name, "positional")

    @staticmethod
    def _is_closed_empty_object(schema: Mapping[str, Any]) -> bool:
        return (
            _inferred_types(schema) in ([], ["object"])
            and not schema.get("properties")
            and "patternProperties" not in schema
            and schema.get("additionalProperties", True) is False
            and not any(key in schema for key in ("$ref", "anyOf", "oneOf", "allOf", "enum", "const"))
        )

    def translate(
        self, schema: object, document: _Document, hint: str, *, claim: str | None = None
    ) -> tuple[PyType, list[str]]:
        """The type of ``schema`` and the notes it leaves.

        ``hint`` names a class this schema may need; ``claim`` is an already allocated name that the schema
        takes if it turns out to be a class (so a ``$defs`` entry keeps its name).
        """
        if schema is True:
            return any_type, []
        if schema is False:
            return _NEVER, []
        if not isinstance(schema, Mapping):
            return any_type, [f"schema: {json_text(schema)}"]
        if id(schema) in document.classes:
            return document.classes[id(schema)][1], []
        skip: set[str] = set()
        if "$ref" in schema:
            result, notes = self._reference(schema["$ref"], document, hint)
        elif "const" in schema:
            result, notes = self._literal([schema["const"]], schema, "const")
        elif isinstance(schema.get("enum"), list):
            result, notes = self._literal(schema["enum"], schema, "enum")
        else:
            result, notes, skip = self._structural(schema, document, hint, claim)
        if schema.get("nullable") is True:
            result = union([result, Name("None")])
        return result, notes + _notes(schema, frozenset(skip))

    def _literal(self, values: list[Any], schema: Mapping[str, Any], keyword: str) -> tuple[PyType, list[str]]:
        declared = _declared_types(schema)
        if declared is not None:
            values = [value for value in values if any(is_json_type(value, name) for name in declared)]
        members: list[PyType] = []
        exact = True
        for value in values:
            member, is_exact = _literal_member(value)
            members.append(member)
            exact = exact and is_exact
        notes = [] if exact else [f"{keyword}: {json_text(schema[keyword])}"]
        return union(members), notes

    def _reference(self, ref: object, document: _Document, hint: str) -> tuple[PyType, list[str]]:
        if not isinstance(ref, str) or not ref.startswith("#"):
            return any_type, [f"$ref: {json_text(ref)} (not resolved: only local references are)"]
        pointer = unquote(ref[1:])
        if pointer in document.named:
            return document.named[pointer], []
        target = resolve_pointer(document.root, pointer)
        if target is None:
            return any_type, [f"$ref: {json_text(ref)} (not found)"]
        if id(target) in document.classes:
            return document.classes[id(target)][1], []
        shared_key = (pointer, _closure_fingerprint(document.root, pointer))
        if shared_key in self._shared:
            document.named[pointer] = self._shared[shared_key]
            return self._shared[shared_key], []
        base = pascal_case(pointer.rsplit("/", 1)[-1], "Def")
        name = self._names.allocate(base)
        named = Name(name, generated=True)
        document.named[pointer] = named
        self._shared[shared_key] = named
        translated, notes = self.translate(target, document, name, claim=name)
        if name not in self._classes:
            description = target.get("description") if isinstance(target, Mapping) else None
            self.definitions.append(AliasDef(name, _without_self(translated, named), _doc(description, notes)))
        return named, []

    def _structural(
        self, schema: Mapping[str, Any], document: _Document, hint: str, claim: str | None
    ) -> tuple[PyType, list[str], set[str]]:
        """Types from ``anyOf``/``oneOf``/``allOf`` or from ``type``; also the keywords not to note again."""
        for keyword in ("anyOf", "oneOf"):
            members = schema.get(keyword)
            if isinstance(members, list) and members and all(_has_type_info(member) for member in members):
                siblings = {key: value for key, value in schema.items() if key != keyword}
                types: list[PyType] = []
                notes: list[str] = []
                for index, member in enumerate(members):
                    merged = self._merge_objects([siblings, member]) if self._mergeable(siblings, member) else member
                    member_type, member_notes = self.translate(merged, document, f"{hint}Option{index + 1}")
                    types.append(member_type)
                    notes.extend(_prefixed(f"{keyword}[{index}]", member_notes))
                return union(types), notes, set()
        all_of = schema.get("allOf")
        if isinstance(all_of, list) and all_of:
            return self._all_of(schema, all_of, document, hint, claim)
        return self._by_type(schema, document, hint, claim)

    @staticmethod
    def _mergeable(siblings: Mapping[str, Any], member: object) -> bool:
        """Whether an ``anyOf`` member and the object schema around it describe one object together."""
        return (
            isinstance(member, Mapping)
            and "$ref" not in member
            and "properties" in siblings
            and _inferred_types(member) in ([], ["object"])
        )

    def _merge_objects(self, parts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """One object schema with the properties and required names of all ``parts``."""
        properties: dict[str, Any] = {}
        required: list[str] = []
        merged: dict[str, Any] = {"type": "object"}
        for part in parts:
            for key, value in part.items():
                if key == "properties" and isinstance(value, Mapping):
                    for name, subschema in value.items():
                        properties.setdefault(name, subschema)
                elif key == "required" and isinstance(value, list):
                    required.extend(name for name in value if name not in required)
                elif key not in ("type", "anyOf", "oneOf", "allOf", "$defs", "definitions"):
                    merged.setdefault(key, value)
        merged["properties"] = properties
        merged["required"] = required
        return merged

    def _all_of(
        self,
        schema: Mapping[str, Any],
        members: list[Any],
        document: _Document,
        hint: str,
        claim: str | None,
    ) -> tuple[PyType, list[str], set[str]]:
        siblings = {key: value for key, value in schema.items() if key != "allOf"}
        if len(members) == 1 and not _has_type_info(siblings):
            member_type, member_notes = self.translate(members[0], document, hint, claim=claim)
            return member_type, member_notes, set()
        resolved: list[Mapping[str, Any]] = [siblings]
        for member in members if id(schema) not in self._merging else ():
            target = member
            if isinstance(member, Mapping) and isinstance(member.get("$ref"), str):
                target = resolve_pointer(document.root, unquote(str(member["$ref"])[1:]))
            if not isinstance(target, Mapping) or _inferred_types(target) not in ([], ["object"]):
                break
            resolved.append(target)
        else:
            if any("properties" in part for part in resolved) and id(schema) not in self._merging:
                self._merging.add(id(schema))
                try:
                    merged = self._merge_objects(resolved)
                    merged_type, merged_notes = self.translate(merged, document, hint, claim=claim)
                finally:
                    self._merging.discard(id(schema))
                return merged_type, merged_notes, set()
        typed = [member for member in members if _has_type_info(member)]
        if not typed:
            return self._by_type(schema, document, hint, claim)
        first_type, first_notes = self.translate(typed[0], document, hint, claim=claim)
        return first_type, [*first_notes, f"allOf: {json_text(members)}"], set()

    def _by_type(
        self, schema: Mapping[str, Any], document: _Document, hint: str, claim: str | None
    ) -> tuple[PyType, list[str], set[str]]:
        types = _inferred_types(schema)
        if not types:
            return any_type, self._ignored_compositions(schema), set()
        consumed: set[str] = set()
        members: list[PyType] = []
        notes: list[str] = self._ignored_compositions(schema)
        for type_name in types:
            if type_name in _SCALARS:
                members.append(_SCALARS[type_name])
            elif type_name == "object":
                object_type, object_notes = self._object_or_mapping(schema, document, hint, claim)
                members.append(object_type)
                notes.extend(object_notes)
            elif type_name == "array":
                array_type, array_notes, consumed = self._array(schema, document, hint)
                members.append(array_type)
                notes.extend(array_notes)
            else:
                members.append(any_type)
                notes.append(f"type: {json_text(type_name)} (unknown)")
        return union(members), notes, consumed

    @staticmethod
    def _ignored_compositions(schema: Mapping[str, Any]) -> list[str]:
        """``anyOf``/``oneOf`` whose members only constrain (``{"required": ["id"]}``) stay as notes."""
        return [
            f"{keyword}: {json_text(schema[keyword])}"
            for keyword in ("anyOf", "oneOf")
            if keyword in schema and not all(_has_type_info(member) for member in schema[keyword] or [None])
        ]

    def _object_or_mapping(
        self, schema: Mapping[str, Any], document: _Document, hint: str, claim: str | None
    ) -> tuple[PyType, list[str]]:
        properties = schema.get("properties")
        if (isinstance(properties, Mapping) and properties) or schema.get("required"):
            return self._object(schema, document, hint, claim=claim), []
        values: list[PyType] = []
        notes: list[str] = []
        extra = schema.get("additionalProperties", True)
        patterns = schema.get("patternProperties")
        if isinstance(patterns, Mapping):
            for index, (pattern, subschema) in enumerate(patterns.items()):
                value_type, value_notes = self.translate(subschema, document, f"{hint}Value{index + 1}")
                values.append(value_type)
                notes.extend(_prefixed(f"patternProperties[{json_text(pattern)}]", value_notes))
            notes.append(f"patternProperties: keys match {json_text(list(patterns))}")
        if extra is not False and not (isinstance(patterns, Mapping) and extra is True and values):
            value_type, value_notes = self.translate(extra, document, f"{hint}Value")
            values.append(value_type)
            notes.extend(_prefixed("additionalProperties", value_notes))
        return Sub("dict", (Name("str"), union(values) if values else _NEVER)), notes

    def _object(self, schema: Mapping[str, Any], document: _Document, hint: str, *, claim: str | None) -> PyType:
        """A TypedDict for an object with properties; its notes go into its own docstring."""
        content = json.dumps(schema, sort_keys=True, default=repr)
        if claim is None and content in document.same_content:
            return document.same_content[content]
        name = claim if claim is not None else self._names.allocate(hint)
        named = Name(name, generated=True)
        document.classes[id(schema)] = (schema, named)
        document.same_content.setdefault(content, named)
        properties = schema.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        raw_required = schema.get("required")
        listed = raw_required if isinstance(raw_required, list) else []
        required = list(dict.fromkeys(key for key in listed if isinstance(key, str)))
        fields: list[FieldDef] = []
        for key, subschema in properties.items():
            field_type, field_notes = self.translate(subschema, document, name + pascal_case(key, "Field"))
            description = subschema.get("description") if isinstance(subschema, Mapping) else None
            text = description.strip() if isinstance(description, str) else ""
            fields.append(FieldDef(key, field_type, key in required, text, field_notes))
        fields.extend(FieldDef(key, any_type, True, "", []) for key in required if key not in properties)
        # patternProperties gets its own note just below (what it means for the class), not the bare keyword too.
        notes = _notes(schema, frozenset({"patternProperties"})) + self._ignored_compositions(schema)
        extra = schema.get("additionalProperties")
        open_keys = "additionalProperties" in schema and extra is not False
        if open_keys:
            notes.append(f"additionalProperties: {json_text(extra)} (other keys are not typed)")
        if "patternProperties" in schema:
            notes.append(f"patternProperties: {json_text(schema['patternProperties'])} (other keys are not typed)")
        description = schema.get("description") or schema.get("title")
        self.definitions.append(ClassDef(name, _doc(description, notes), fields, open=open_keys))
        self._classes.add(name)
        return named

    def _array(self, schema: Mapping[str, Any], document: _Document, hint: str) -> tuple[PyType, list[str], set[str]]:
        """``list[T]``, or ``tuple[A, B]`` when the items are positional and the length is fixed."""
        prefix = schema.get("prefixItems")
        rest = schema.get("items")
        prefix_keyword, rest_keyword = "prefixItems", "items"
        if not isinstance(prefix, list) and isinstance(rest, list):
            # Draft-07 and earlier spell a tuple ``items: [...]``, its tail ``additionalItems``.
            prefix, rest = rest, schema.get("additionalItems")
            prefix_keyword, rest_keyword = "items", "additionalItems"
        if not isinstance(prefix, list):
            if rest is None:
                return Sub("list", (any_type,)), [], set()
            item_type, item_notes = self.translate(rest, document, f"{hint}Item")
            return Sub("list", (item_type,)), _prefixed("items", item_notes), set()
        item_types: list[PyType] = []
        notes: list[str] = []
        for index, item in enumerate(prefix):
            item_type, item_notes = self.translate(item, document, f"{hint}Item{index + 1}")
            item_types.append(item_type)
            notes.extend(_prefixed(f"{prefix_keyword}[{index}]", item_notes))
        min_items = schema.get("minItems", 0)
        max_items = schema.get("maxItems")
        closed = rest is False or (isinstance(max_items, int) and max_items <= len(prefix))
        if closed:
            # A shorter array is still allowed when minItems is below the length: that stays a note.
            exact = {"maxItems", "minItems"} if isinstance(min_items, int) and min_items >= len(prefix) else set()
            if not item_types:
                return Name("tuple[()]"), notes, exact
            return Sub("tuple", tuple(item_types)), notes, exact
        rest_type, rest_notes = self.translate(True if rest is None else rest, document, f"{hint}Item")
        notes.extend(_prefixed(rest_keyword, rest_notes))
        if prefix:  # more items may follow, so no tuple type fits: the positions are only in the docstring
            positions = ", ".join(render(item) for item in item_types)
            notes.append(f"{prefix_keyword}: the first items are {positions}; more may follow, so typed as a list")
        return Sub("list", (union([*item_types, rest_type]),)), notes, set()
