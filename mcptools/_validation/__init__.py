"""The compiled JSON Schema (draft 2020-12) validator behind ``validate``, ``call_tool`` and the registry.

The pipeline, run once per schema by ``compile_schema`` (``compile.py``); a validator is then two functions::

    schema ──draft7──▶ 2020-12 schema          draft7.py: a draft-07 schema rewritten to what it means in 2020-12
       │
       ▼
    index                                       resolve.py: base URIs, $id / $anchor / $dynamicAnchor, $ref
       │                                        targets (Located = a subschema and where it sits)
       ▼
    keyword specs (Spec per subschema)          keywords.py: each keyword read and checked once (a broken schema
       │                                        is a SchemaError here, at definition time); regex.py translates
       │                                        a pattern to ``re`` source, regex_syntax.py parses that into a
       │                                        tree, backtrack.py says from the tree whether ``re`` runs it in
       │                                        linear time, else nfa.py builds a linear-time matcher from it;
       │                                        formats.py picks format checks; cycles.py refuses $ref loops that
       │                                        never descend
       ├──────────────────────────────┐
       ▼                              ▼
    valid path: is_valid(x)        error path: errors(x), run only after the valid path said no
    codegen.py writes Python       errgen.py writes Python for the usual shapes (objects of typed
    source, exec'd once; schema    properties, arrays, unions); collect.py builds closures for the
    values reach it only as        rest (allOf, unevaluated*, dynamic refs ...); choice.py picks the
    named constants                union branch a value was meant for; every word comes from
                                   messages.py (the error grammar, documented there)

``compile_schema`` runs the stages down to the keyword specs; a small schema (up to 64 subschemas, no other
documents) writes its two paths on its first ``is_valid`` / ``errors`` call, a larger one at once (``compile.py``).
So every check of a schema belongs to the keyword specs, never to code generation: an error found only while
writing code would reach a small schema's first call instead of its definition.

Shared by every stage: ``checks.py`` (the table of keywords that test one value against one bound: its rows
drive all three paths), ``mcptools._json.JSON_TYPES`` (the one table of JSON type tests, as run-time
predicates and as inlined source), ``values.py`` (JSON equality, uniqueness, multipleOf), ``depth.py`` (how
deep an instance may nest), ``cache.py`` (``validate`` / ``checker_for``). ``tests/reference_validator.py`` is a slow,
obvious interpreter the fuzz tests hold the compiled validator to.

Adding a keyword
----------------
A keyword that tests a value against a bound (like ``maxLength``, ``multipleOf``, ``uniqueItems``):

1. ``keywords.py``: a ``Spec`` field with its default, read in ``SpecTable._read`` with the existing readers
   (``number``, ``count``) or your own check; a bad value raises ``SchemaError`` naming the keyword, where it
   is and what it must be.
2. ``checks.py``: a row in ``VALUE_KEYWORDS``: the JSON type it constrains, the failing test as source over
   ``{x}`` and ``{b}`` (the bound arrives as a named constant, never as text), the same test at run time, and
   how to get the bound from the ``Spec``. Its place in the table is its place in "first failing keyword".
3. ``messages.py``: its words in ``KEYWORD_WORDS`` (``("be", "at most {}", ("character", "characters"))``);
   the messages and the description of subschemas (``must not ...``, ``item that ...``) follow.
   These three files and no others: the valid path, both error paths and ``errgen``'s choice of path learn
   from the table which of these keywords a schema has (``tests/test_validation_keyword_table.py`` adds a
   row and nothing else). Three on purpose: the words stay in ``messages.py`` because every error text lives
   in that one module, and a ``Spec`` field is typed, so mypy checks every reader and emitter that uses it.
4. ``tests/reference_validator.py``: the same check, plainly, so ``tests/test_validation_fuzz.py`` compares the two.
5. Tests: accepted and rejected values on both error paths (the generated one, and the collectors: wrap the
   schema as ``{"allOf": [schema, True]}``), and the message.

A ``format`` is one function in ``formats.py`` and its entry in ``FORMAT_CHECKS`` (asserted only under
``compile_schema(..., format_assertion=True)``, and in every schema a tool derives); its message is its words in
``messages.FORMAT_WORDS`` (the form and an example), or the generic ``must match format '<name>'``;
``duration`` was added this way. A keyword that applies subschemas (``properties``, ``contains``, ``anyOf``)
needs its own emission in ``codegen.py`` and in ``collect.py``, and in ``errgen.py`` only if ``errgen._simple``
lets schemas holding it take the generated error path (otherwise they fall back to the collectors).
"""

from __future__ import annotations

from .cache import checker_for, validate
from .compile import Validator, compile_schema

__all__ = ["Validator", "checker_for", "compile_schema", "validate"]
