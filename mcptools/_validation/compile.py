"""``compile_schema``: one JSON Schema (draft 2020-12) -> one ``Validator``, compiled once and reused.

The valid path is generated Python (see ``codegen``); the all-errors path (see ``collect``) runs only when the
valid path has already said no, so a valid call pays for nothing but its own checks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, final

from mcptools._errors import SchemaError

from .codegen import Generator, NeedsDynamicScope
from .collect import Collectors, finish
from .cycles import compares_whole_values, is_recursive, refuse_reference_cycles
from .depth import depth_guarded, room_on_retry
from .draft7 import DRAFT_07, from_draft7
from .errgen import ErrorGenerator, is_simple, link_dispatch
from .keywords import SpecTable
from .messages import TOO_DEEP, more_errors
from .resolve import DEFAULT_BASE, VALIDATION_VOCABULARY, Index, check_dialect

__all__ = ["MAX_ERRORS", "TOO_DEEP", "Validator", "cap_errors", "compile_schema"]

# errors() returns at most this many lines: the first MAX_ERRORS - 1 problems, then "... and N more errors".
MAX_ERRORS = 100


def cap_errors(found: list[str]) -> list[str]:
    """At most ``MAX_ERRORS`` lines; a longer list keeps its first problems and counts the rest."""
    if len(found) <= MAX_ERRORS:
        return found
    rest = len(found) - (MAX_ERRORS - 1)
    return [*found[: MAX_ERRORS - 1], more_errors(rest)]


def _capped(call: str) -> str:
    # Inline length test: a short list (every contract example) costs one len(), no extra call.
    return f"return r if len(r := {call}) <= MAX_ERRORS else CAP(r)"


@final
class Validator:
    """A compiled schema. ``is_valid(instance) -> bool``; ``errors(instance) -> list[str]``.

    Both are plain generated functions stored on the instance, so calling one costs a single Python call.
    """

    __slots__ = ("errors", "is_valid", "schema", "source")

    def __init__(
        self,
        schema: Any,
        is_valid: Callable[[Any], bool],
        errors: Callable[[Any], list[str]],
        source: str,
    ) -> None:
        self.schema = schema
        self.is_valid = is_valid
        self.errors = errors
        # The generated valid-path source, for debugging and for the tests that check no value was spliced in.
        self.source = source

    def __repr__(self) -> str:
        return f"Validator({self.schema!r})"


def compile_schema(
    schema: Any,
    *,
    format_assertion: bool = False,
    suggest_names: bool = False,
    resources: Mapping[str, Any] | None = None,
) -> Validator:
    """Compile ``schema`` (a draft 2020-12 JSON Schema) into a ``Validator``.

    ``format_assertion`` makes ``format`` reject strings not in date-time, date, time, email, uri, uuid, ipv4,
    ipv6, hostname or duration format (by default it is an annotation, as the dialect says). ``suggest_names`` adds
    `` (did you mean 'x'?)`` to ``unexpected property`` errors when a declared name is close; off by default
    because the contract's strings are exact. ``resources`` maps URIs to schema documents that ``$ref`` may
    use; nothing is ever fetched. A draft-07 schema (its ``$schema`` says so) is first rewritten to its 2020-12
    meaning; any other dialect is refused. Raises ``SchemaError`` naming the keyword and its location.
    """
    original = schema
    dialect = schema.get("$schema") if isinstance(schema, dict) else None
    if isinstance(dialect, str) and dialect.rstrip("#").replace("https:", "http:") == DRAFT_07:
        schema = from_draft7(schema)
    index = Index()
    root = index.add_document(schema, DEFAULT_BASE, "")
    extra = dict(resources or {})
    index.pending.update(extra)
    vocabularies = check_dialect(schema, index, extra)
    validation = vocabularies is None or VALIDATION_VOCABULARY in vocabularies
    specs = SpecTable(index, format_assertion=format_assertion, validation=validation)
    # Every subschema is checked, also the $defs nothing refers to: a broken schema is refused, never half-used.
    own = [node for node in index.nodes if node.document == ""]
    for node in own:
        specs.spec(node)
    refuse_reference_cycles(specs, own)
    try:
        try:
            validator = _build(original, root, specs, hints=suggest_names, dynamic=False)
        except NeedsDynamicScope:
            validator = _build(original, root, specs, hints=suggest_names, dynamic=True)
        recursive = is_recursive(specs, root)
        compares = not recursive and compares_whole_values(specs, root)
    except RecursionError:
        raise SchemaError("the schema nests too deeply to compile; flatten it with $defs") from None
    # A fixed limit (depth.MAX_DEPTH), not the caller's stack, decides when a value nests too deeply.
    if recursive:
        validator.is_valid, validator.errors = depth_guarded(validator.is_valid, validator.errors, TOO_DEEP)
    elif compares:
        validator.is_valid, validator.errors = room_on_retry(validator.is_valid, validator.errors, TOO_DEEP)
    return validator


def _build(schema: Any, root: Any, specs: SpecTable, *, hints: bool, dynamic: bool) -> Validator:
    generator = Generator(specs, dynamic=dynamic)
    generator.write_entry("is_valid", root, "return False", "True", "False")
    if not dynamic and is_simple(specs, root):
        entry = ErrorGenerator(specs, generator, hints=hints).write_all(root)
        generator.write_entry("errors", root, _capped(f"{entry}(x)"), "[]", "[TOO_DEEP]")
        generator.write_pending()
        return _finish(schema, generator)
    collectors = Collectors(specs, generator, hints=hints)
    collect_root = collectors.collector(root)
    generator.write_entry("errors", root, _capped("SLOW(x)"), "[]", "[TOO_DEEP]")
    generator.write_pending()
    namespace = generator.namespace
    root_scope = (root.base,) if dynamic else ()

    def slow(instance: Any) -> list[str]:
        records: list[Any] = []
        try:
            collect_root(instance, (), records, root_scope)
            return finish(records, instance, collectors.needs_sort)
        except RecursionError:
            return [TOO_DEEP]

    namespace["SLOW"] = slow
    return _finish(schema, generator)


def _finish(schema: Any, generator: Generator) -> Validator:
    # The writer indents every block and gives an empty one its ``pass``: the lines are the source as they are.
    source = "\n".join(generator.lines) + "\n"
    namespace = generator.namespace
    namespace["TOO_DEEP"] = TOO_DEEP
    namespace["MAX_ERRORS"] = MAX_ERRORS
    namespace["CAP"] = cap_errors
    exec(compile(source, "<mcptools compiled schema>", "exec"), namespace)
    for table in namespace.pop("_links", []):
        for entry in table.values():
            entry[0] = namespace[entry[0]]
    link_dispatch(namespace)
    return Validator(schema, namespace["is_valid"], namespace["errors"], source)
