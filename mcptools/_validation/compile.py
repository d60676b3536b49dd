"""``compile_schema``: one JSON Schema (draft 2020-12) -> one ``Validator``, checked now, compiled once and reused.

Compiling is two steps. The check reads every keyword of every subschema (``SpecTable``) and resolves every
reference, so a broken schema raises ``SchemaError`` from ``compile_schema`` itself. Code generation (the valid
path, see ``codegen``; the all-errors path, see ``collect`` and ``errgen``) and ``builtins.compile`` cost about
ten times the check, so for a small schema they wait for the first ``is_valid`` / ``errors`` call: a server
registering many tools pays at start only for the checks, and a tool never called never pays for code. The
generated functions then replace the first-call hooks on the instance, so later calls cost what an eagerly
compiled validator's do; the first call runs the very same code, so it is exactly as strict.

A schema that pulls in other documents (``resources``) or has more than ``_LAZY_NODES`` subschemas is compiled
at once, so that code generation failing on a very deep schema (``RecursionError``) is still reported here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, final

from mcptools._errors import SchemaError

from .codegen import Generator, NeedsDynamicScope
from .collect import Collectors, finish
from .cycles import compares_whole_values, is_recursive, refuse_reference_cycles
from .depth import depth_guarded, room_on_retry
from .draft7 import DRAFT_07, from_draft7
from .errgen import ErrorGenerator, is_simple, link_dispatch
from .keywords import SpecTable
from .messages import TOO_DEEP, more_errors
from .resolve import DEFAULT_BASE, VALIDATION_VOCABULARY, Index, Located, check_dialect

__all__ = ["MAX_ERRORS", "TOO_DEEP", "Validator", "cap_errors", "compile_schema"]

# errors() returns at most this many lines: the first MAX_ERRORS - 1 problems, then "... and N more errors".
MAX_ERRORS = 100
# Up to this many subschemas, code generation recurses at most a few hundred frames (about five a level), far
# below any recursion limit, so deferring it cannot turn a definition-time SchemaError into a first-call one.
_LAZY_NODES: Final = 64
_TOO_DEEP_TO_COMPILE: Final = "the schema nests too deeply to compile; flatten it with $defs"
# One lock for every first-call build: two threads racing one validator's first call build it once, and the
# second reads the finished functions. A build never calls another validator, so holding it cannot deadlock.
_BUILD_LOCK: Final = threading.Lock()


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
@dataclass(slots=True, eq=False)
class _Checked:
    """A schema that passed the check, with everything code generation needs later, and what it generated.

    Validators of schemas that differ only in annotations no check and no message reads (``cache`` decides
    which) may share one: the first call of any of them generates the code, and all of them use it.
    """

    root: Located
    specs: SpecTable
    hints: bool
    lazy: bool
    built: tuple[Callable[[Any], bool], Callable[[Any], list[str]], str] | None = None


@final
class Validator:
    """A compiled schema. ``is_valid(instance) -> bool``; ``errors(instance) -> list[str]``.

    Both are plain generated functions stored on the instance, so calling one costs a single Python call. Until
    the first call they are hooks that generate those functions (see the module docstring).
    """

    __slots__ = ("_checked", "_source", "errors", "is_valid", "schema")

    def __init__(self, schema: Any, checked: _Checked) -> None:
        self.schema = schema
        self._checked: _Checked | None = checked
        self._source = ""
        # Bound methods until the first call; _ensure_built replaces them with the generated functions.
        self.is_valid: Callable[[Any], bool] = self._first_is_valid
        self.errors: Callable[[Any], list[str]] = self._first_errors
        if not checked.lazy:
            self._ensure_built()

    @property
    def source(self) -> str:
        """The generated valid-path source, for debugging and for the tests that check no value was spliced in."""
        self._ensure_built()
        return self._source

    # A caller may have kept the hook itself (``check = validator.is_valid`` before any call): once built, the
    # hook only forwards, without taking the build lock.
    def _first_is_valid(self, instance: Any) -> bool:
        if self._checked is not None:
            self._ensure_built()
        return self.is_valid(instance)

    def _first_errors(self, instance: Any) -> list[str]:
        if self._checked is not None:
            self._ensure_built()
        return self.errors(instance)

    def _ensure_built(self) -> None:
        with _BUILD_LOCK:
            checked = self._checked
            if checked is None:  # another thread finished the build while this one waited
                return
            if checked.built is None:
                try:
                    checked.built = _generate(checked)
                except RecursionError:
                    # Called from deep in some stack: build where a definition-time compile would have run.
                    checked.built = _on_fresh_stack(checked)
            # The functions first, the marker last: a thread that sees no _checked sees the functions too.
            self.is_valid, self.errors, self._source = checked.built
            self._checked = None

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

    ``format_assertion`` makes ``format`` reject strings that do not have the form of a format the validator
    knows (the table ``formats.FORMAT_CHECKS``, listed with each one's message on the documentation's types page,
    which is drawn from it); by default ``format`` is an annotation, as the dialect says. ``suggest_names`` adds
    `` (did you mean 'x'?)`` to ``unexpected property`` errors when a declared name is close; off by default
    because the contract's strings are exact. ``resources`` maps URIs to schema documents that ``$ref`` may
    use; nothing is ever fetched. A draft-07 schema (its ``$schema`` says so) is first rewritten to its 2020-12
    meaning; any other dialect is refused. Raises ``SchemaError`` naming the keyword and its location.
    """
    checked = check_schema(schema, format_assertion=format_assertion, suggest_names=suggest_names, resources=resources)
    return Validator(schema, checked)


def check_schema(
    schema: Any,
    *,
    format_assertion: bool = False,
    suggest_names: bool = False,
    resources: Mapping[str, Any] | None = None,
) -> _Checked:
    """``compile_schema``'s check: every keyword read and every reference resolved, or ``SchemaError``."""
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
    lazy = not extra and len(index.nodes) <= _LAZY_NODES and len(own) == len(index.nodes)
    return _Checked(root, specs, suggest_names, lazy)


def _on_fresh_stack(checked: _Checked) -> tuple[Callable[[Any], bool], Callable[[Any], list[str]], str]:
    """``_generate`` in a new thread, whose stack is as empty as a module's top level."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(_generate(checked))
        except BaseException as exc:  # handed to the calling thread below
            outcome.append(exc)

    worker = threading.Thread(target=run, name="mcptools-compile")
    worker.start()
    worker.join()
    if isinstance(outcome[0], RecursionError):
        raise SchemaError(_TOO_DEEP_TO_COMPILE)
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]  # type: ignore[no-any-return]


def _generate(checked: _Checked) -> tuple[Callable[[Any], bool], Callable[[Any], list[str]], str]:
    """The generated ``is_valid``, ``errors`` and valid-path source of a checked schema."""
    root, specs, hints = checked.root, checked.specs, checked.hints
    try:
        is_valid, errors, source = _build(root, specs, hints=hints, dynamic=False)
    except NeedsDynamicScope:
        is_valid, errors, source = _build(root, specs, hints=hints, dynamic=True)
    # A fixed limit (depth.MAX_DEPTH), not the caller's stack, decides when a value nests too deeply.
    if is_recursive(specs, root):
        is_valid, errors = depth_guarded(is_valid, errors, TOO_DEEP)
    elif compares_whole_values(specs, root):
        is_valid, errors = room_on_retry(is_valid, errors, TOO_DEEP)
    return is_valid, errors, source


def _build(
    root: Located, specs: SpecTable, *, hints: bool, dynamic: bool
) -> tuple[Callable[[Any], bool], Callable[[Any], list[str]], str]:
    generator = Generator(specs, dynamic=dynamic)
    generator.write_entry("is_valid", root, "return False", "True", "False")
    if not dynamic and is_simple(specs, root):
        ErrorGenerator(specs, generator, hints=hints).write_all(root)
        generator.write_pending()
        return _finish(generator)
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
    return _finish(generator)


def _finish(generator: Generator) -> tuple[Callable[[Any], bool], Callable[[Any], list[str]], str]:
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
    return namespace["is_valid"], namespace["errors"], source
