"""Where a schema's references lead: base URIs, ``$id``, ``$anchor``, ``$dynamicAnchor`` and JSON pointers.

Nothing here touches the network. A reference resolves to the document itself, to one of its
embedded resources (``$id``), or to a document the caller passed in ``resources``; anything else is a
``SchemaError``, because a tool server that fetched ``$ref`` URLs would let a schema make it call
arbitrary hosts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, final

from mcptools._errors import SchemaError

# The plain-name grammar of $anchor and $dynamicAnchor (XML's NCName, as 2020-12 specifies).
_ANCHOR = re.compile(r"[A-Za-z_][-A-Za-z0-9._]*")

__all__ = [
    "DEFAULT_BASE",
    "DIALECT_2020_12",
    "SCHEMA_ARRAY_KEYWORDS",
    "SCHEMA_MAP_KEYWORDS",
    "SINGLE_SCHEMA_KEYWORDS",
    "Index",
    "Located",
    "pointer_text",
    "resolve_uri",
]

DIALECT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
# Where the metaschemas mcptools ships (metaschemas/) live; a reference elsewhere never loads them.
_METASCHEMA_PREFIXES = (
    "https://json-schema.org/draft/2020-12/",
    "http://json-schema.org/draft-07/",
    "https://json-schema.org/draft-07/",
)
# A document without ``$id`` needs some hierarchical base so relative ``$id``s below it resolve; the scheme is
# ours, so no real URL can collide with it.
DEFAULT_BASE = "mcptools:///schema.json"

SINGLE_SCHEMA_KEYWORDS = (
    "additionalProperties",
    "unevaluatedProperties",
    "items",
    "unevaluatedItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
)
SCHEMA_ARRAY_KEYWORDS = ("prefixItems", "allOf", "anyOf", "oneOf")
SCHEMA_MAP_KEYWORDS = ("properties", "patternProperties", "$defs", "dependentSchemas")


def pointer_text(tokens: tuple[str | int, ...]) -> str:
    """A location as a URI fragment JSON pointer, as errors show it (``#/properties/a``)."""
    parts = ["#"]
    for token in tokens:
        parts.append("/" + str(token).replace("~", "~0").replace("/", "~1"))
    return "".join(parts) if len(parts) > 1 else "#"


def _split_uri(uri: str) -> tuple[str | None, str | None, str, str | None, str | None]:
    scheme = authority = query = fragment = None
    rest = uri
    if "#" in rest:
        rest, fragment = rest.split("#", 1)
    if "?" in rest:
        rest, query = rest.split("?", 1)
    colon = rest.find(":")
    if colon > 0 and all(c.isalnum() or c in "+-." for c in rest[:colon]) and rest[0].isalpha():
        scheme, rest = rest[:colon], rest[colon + 1 :]
    if rest.startswith("//"):
        slash = rest.find("/", 2)
        authority, rest = (rest[2:], "") if slash < 0 else (rest[2:slash], rest[slash:])
    return scheme, authority, rest, query, fragment


def _remove_dot_segments(path: str) -> str:
    output: list[str] = []
    segments = path.split("/")
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == ".":
            if last:
                output.append("")
        elif segment == "..":
            if len(output) > 1 or (output and output[0] != ""):
                output.pop()
            if last:
                output.append("")
        else:
            output.append(segment)
    return "/".join(output)


def resolve_uri(base: str, reference: str) -> str:
    """RFC 3986 section 5.2 reference resolution (also right for ``urn:`` bases, which urllib gets wrong)."""
    r_scheme, r_auth, r_path, r_query, r_frag = _split_uri(reference)
    b_scheme, b_auth, b_path, b_query, _ = _split_uri(base)
    scheme: str | None
    auth: str | None
    query: str | None
    if r_scheme is not None:
        scheme, auth, path, query = r_scheme, r_auth, _remove_dot_segments(r_path), r_query
    elif r_auth is not None:
        scheme, auth, path, query = b_scheme, r_auth, _remove_dot_segments(r_path), r_query
    elif r_path == "":
        scheme, auth, path = b_scheme, b_auth, b_path
        query = r_query if r_query is not None else b_query
    else:
        if r_path.startswith("/"):
            path = _remove_dot_segments(r_path)
        elif b_auth is not None and b_path == "":
            path = _remove_dot_segments("/" + r_path)
        else:
            cut = b_path.rfind("/")
            path = _remove_dot_segments(b_path[: cut + 1] + r_path)
        scheme, auth, query = b_scheme, b_auth, r_query
    text = ""
    if scheme is not None:
        text += scheme + ":"
    if auth is not None:
        text += "//" + auth
    text += path
    if query is not None:
        text += "?" + query
    if r_frag is not None:
        text += "#" + r_frag
    return text


def _unescape_token(token: str) -> str:
    if "%" in token:
        raw = bytearray()
        i = 0
        while i < len(token):
            if token[i] == "%" and i + 2 < len(token) + 0 and _is_hex(token[i + 1 : i + 3]):
                raw.append(int(token[i + 1 : i + 3], 16))
                i += 3
            else:
                raw.extend(token[i].encode())
                i += 1
        token = raw.decode("utf-8", "replace")
    return token.replace("~1", "/").replace("~0", "~")


def _is_hex(text: str) -> bool:
    return len(text) == 2 and all(c in "0123456789abcdefABCDEF" for c in text)


@final
@dataclass(slots=True, eq=False)
class Located:
    """One schema value with what compiling it needs: its base URI and where it sits (for error messages)."""

    schema: Any
    base: str
    document: str
    pointer: tuple[str | int, ...]

    def where(self) -> str:
        """The location as a message shows it: a pointer, after the document URI unless root."""
        text = pointer_text(self.pointer)
        return text if self.document == "" else self.document + text

    def where_of(self, *tokens: str | int) -> str:
        """The location of a keyword (or deeper) in this schema: errors point at what is wrong."""
        text = pointer_text(self.pointer + tokens)
        return text if self.document == "" else self.document + text

    def child(self, *tokens: str | int) -> Located:
        value = self.schema
        for token in tokens:
            value = value[token]
        base = self.base
        if isinstance(value, dict) and isinstance(value.get("$id"), str):
            base = resolve_uri(base, value["$id"]).split("#", 1)[0]
        return Located(value, base, self.document, self.pointer + tokens)


@final
class Index:
    """Every resource, anchor and dynamic anchor of a document and of the extra documents it may refer to."""

    __slots__ = ("anchors", "dynamic_anchors", "nodes", "pending", "resources")

    def __init__(self) -> None:
        # Documents passed by URI, indexed only once something refers to them: an unused metaschema's
        # dynamic anchors must not join the dynamic scope.
        self.pending: dict[str, Any] = {}
        self.resources: dict[str, Located] = {}
        # Every subschema of every indexed document, so each is checked even if nothing refers to it.
        self.nodes: list[Located] = []
        self.anchors: dict[str, Located] = {}
        # resource URI -> anchor name -> schema: what $dynamicRef searches along the dynamic scope
        self.dynamic_anchors: dict[str, dict[str, Located]] = {}

    def add_document(self, schema: Any, uri: str, document: str) -> Located:
        root = Located(schema, uri, document, ())
        if isinstance(schema, dict) and isinstance(schema.get("$id"), str):
            root = Located(schema, resolve_uri(uri, schema["$id"]).split("#", 1)[0], document, ())
        self.resources.setdefault(uri, root)
        self._walk(root, 0)
        return root

    def _walk(self, node: Located, depth: int) -> None:
        if depth > 256:
            raise SchemaError(f"schema nests deeper than 256 levels at '{node.where()}'; flatten it with $defs")
        self.nodes.append(node)
        schema = node.schema
        if not isinstance(schema, dict):
            return
        identifier = schema.get("$id")
        if identifier is not None:
            if not isinstance(identifier, str):
                raise SchemaError(f"'$id' at '{node.where_of('$id')}' must be a string, got {identifier!r}")
            fragment = resolve_uri(node.base, identifier).partition("#")[2]
            if fragment:
                raise SchemaError(
                    f"'$id' at '{node.where_of('$id')}' must not have a fragment ({identifier!r}); "
                    "use '$anchor' instead"
                )
            self.resources.setdefault(node.base, node)
        for keyword in ("$anchor", "$dynamicAnchor"):
            name = schema.get(keyword)
            if name is None:
                continue
            if not isinstance(name, str) or _ANCHOR.fullmatch(name) is None:
                raise SchemaError(
                    f"'{keyword}' at '{node.where_of(keyword)}' must be a plain name (a letter or '_', then "
                    f"letters, digits, '-', '_' or '.'), got {name!r}"
                )
            self.anchors.setdefault(node.base + "#" + name, node)
            if keyword == "$dynamicAnchor":
                self.dynamic_anchors.setdefault(node.base, {}).setdefault(name, node)
        for keyword in SINGLE_SCHEMA_KEYWORDS:
            if keyword in schema:
                self._walk(node.child(keyword), depth + 1)
        for keyword in SCHEMA_ARRAY_KEYWORDS:
            value = schema.get(keyword)
            if isinstance(value, list):
                for i in range(len(value)):
                    self._walk(node.child(keyword, i), depth + 1)
        for keyword in SCHEMA_MAP_KEYWORDS:
            value = schema.get(keyword)
            if isinstance(value, dict):
                for name in value:
                    self._walk(node.child(keyword, name), depth + 1)

    def lookup(self, reference: str, origin: Located, keyword: str) -> Located:
        """The schema ``reference`` (a ``$ref`` value found at ``origin``) points to, or a ``SchemaError``."""
        uri = resolve_uri(origin.base, reference)
        document_uri, _, fragment = uri.partition("#")
        found: Located | None = None
        if document_uri not in self.resources and document_uri in self.pending:
            self.add_document(self.pending.pop(document_uri), document_uri, document_uri)
        elif document_uri not in self.resources and document_uri.startswith(_METASCHEMA_PREFIXES):
            # Imported here: only schemas that name a metaschema pay for loading one.
            from .metaschemas import builtin_metaschema

            metaschema = builtin_metaschema(document_uri)
            if metaschema is not None:
                self.add_document(metaschema, document_uri, document_uri)
        if not fragment or fragment.startswith("/"):
            resource = self.resources.get(document_uri)
            if resource is not None:
                found = resource if not fragment else self._follow(resource, fragment, reference, origin)
        else:
            found = self.anchors.get(document_uri + "#" + fragment)
        if found is None:
            raise SchemaError(
                f"'{keyword}' {reference!r} at '{origin.where_of(keyword)}' does not resolve to any schema in this "
                f"document "
                f"(resolved to {uri!r}); mcptools never fetches remote references: pass the document in "
                "resources={uri: schema} or move it under '$defs'"
            )
        return found

    def _follow(self, resource: Located, fragment: str, reference: str, origin: Located) -> Located:
        node = resource
        for raw in fragment[1:].split("/"):
            token = _unescape_token(raw)
            value = node.schema
            if isinstance(value, dict) and token in value:
                node = node.child(token)
            elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
                node = node.child(int(token))
            else:
                raise SchemaError(
                    f"'$ref' {reference!r} at '{origin.where_of('$ref')}' points at '#{fragment}', which does not exist"
                )
        return node


def check_dialect(schema: Any, index: Index, resources: Mapping[str, Any]) -> frozenset[str] | None:
    """The vocabularies in force (``None``: all of 2020-12), or ``SchemaError`` for another draft."""
    if not isinstance(schema, dict) or "$schema" not in schema:
        return None
    dialect = schema["$schema"]
    if not isinstance(dialect, str):
        raise SchemaError(f"'$schema' at '#/$schema' must be a URI string, got {dialect!r}")
    if dialect.rstrip("#") == DIALECT_2020_12:
        return None
    meta = resources.get(dialect) or resources.get(dialect.rstrip("#"))
    if isinstance(meta, dict) and isinstance(meta.get("$vocabulary"), dict):
        vocabularies: dict[str, Any] = meta["$vocabulary"]
        known = frozenset(_VOCABULARIES)
        for uri, required in vocabularies.items():
            if required is True and uri not in known:
                raise SchemaError(
                    f"'$schema' {dialect!r} at '#/$schema' requires the vocabulary {uri!r}, "
                    "which mcptools does not know"
                )
        return frozenset(uri for uri in vocabularies if uri in known)
    raise SchemaError(
        f"'$schema' {dialect!r} at '#/$schema' is not supported: mcptools validates JSON Schema draft 2020-12 (the MCP "
        f"default dialect) and converts draft-07; convert the schema and set '$schema' to {DIALECT_2020_12!r}"
    )


VALIDATION_VOCABULARY = "https://json-schema.org/draft/2020-12/vocab/validation"
_VOCABULARIES = (
    "https://json-schema.org/draft/2020-12/vocab/core",
    "https://json-schema.org/draft/2020-12/vocab/applicator",
    "https://json-schema.org/draft/2020-12/vocab/unevaluated",
    VALIDATION_VOCABULARY,
    "https://json-schema.org/draft/2020-12/vocab/meta-data",
    "https://json-schema.org/draft/2020-12/vocab/format-annotation",
    "https://json-schema.org/draft/2020-12/vocab/format-assertion",
    "https://json-schema.org/draft/2020-12/vocab/content",
)
VALIDATION_KEYWORDS = frozenset(
    {
        "type",
        "enum",
        "const",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "pattern",
        "maxItems",
        "minItems",
        "uniqueItems",
        "maxContains",
        "minContains",
        "maxProperties",
        "minProperties",
        "required",
        "dependentRequired",
    }
)
