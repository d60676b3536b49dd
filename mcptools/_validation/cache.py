"""``validate`` and ``checker_for``: compiled validators cached by schema value, so a repeat costs a lookup.

A hit is one dict lookup by ``id(schema)``, an identity check and a C-level ``==`` against a private deep copy
taken when the entry was made. Holding the schema object keeps its id from being reused while the entry lives;
the copy catches a schema mutated in place since. On a miss the schema's canonical JSON text is the key, so
equal schemas built separately share one ``Validator``. Schemas that differ only in annotations that no check and
no message reads (``description``, ``default``, ``examples``, ``$comment``, ``deprecated``, ``readOnly``,
``writeOnly``; not ``title``, which messages name) share the check and the generated code, each with its own
``Validator`` holding its own schema: a thousand tools with the same parameters and their own descriptions are
checked once and compiled once, on the first call of any of them. Where leaving those annotations out could
change a meaning (another dialect's ``$schema``, a ``$ref`` pointing through one) nothing is shared but equal
schemas. The tables are bounded (oldest entry out first); the cache only ever returns what compiling the same
value would, so sharing it is safe.

Python's ``==`` says ``1 == True``: a schema mutated in place from ``"enum": [1]`` to ``"enum": [True]`` keeps
its old validator. Build a new schema object instead of editing one in place.
"""

from __future__ import annotations

from typing import Any

from .compile import Validator, _Checked, check_schema, compile_schema
from .resolve import SCHEMA_ARRAY_KEYWORDS, SCHEMA_MAP_KEYWORDS, SINGLE_SCHEMA_KEYWORDS

__all__ = ["checker_for", "validate"]

_MAX_ENTRIES = 512
_by_identity: dict[int, tuple[Any, Any, Validator]] = {}
_by_value: dict[str, Validator] = {}
_by_shape: dict[str, _Checked] = {}
# Left out of the shape key: nothing in the check, the generated code or the messages reads them.
_SILENT = frozenset({"description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly"})
_SINGLE = frozenset(SINGLE_SCHEMA_KEYWORDS)
_ARRAY = frozenset(SCHEMA_ARRAY_KEYWORDS)
_MAP = frozenset(SCHEMA_MAP_KEYWORDS)


def validate(arguments: Any, schema: Any) -> list[str]:
    """The contract's check: error strings for ``arguments`` against ``schema`` in the contract's order."""
    entry = _by_identity.get(id(schema))
    if entry is not None and entry[0] is schema and entry[1] == schema:
        return entry[2].errors(arguments)
    return _remember(schema).errors(arguments)


def checker_for(schema: Any, *, suggest_names: bool = False, format_assertion: bool = False) -> Validator:
    """The compiled ``Validator`` for ``schema``, from the same cache as ``validate``.

    ``suggest_names`` and ``format_assertion`` are ``compile_schema``'s options; each combination is cached apart.
    Compile once at registration and keep the ``Validator``: a call then costs nothing but the checks.
    """
    if suggest_names or format_assertion:
        return _remember(schema, (suggest_names, format_assertion))
    entry = _by_identity.get(id(schema))
    if entry is not None and entry[0] is schema and entry[1] == schema:
        return entry[2]
    return _remember(schema)


def _remember(schema: Any, options: tuple[bool, bool] = (False, False)) -> Validator:
    references: list[Any] = []
    snapshot, shape = _snapshot(schema, references)
    key = _canonical(snapshot) + repr(options)
    validator = _by_value.get(key)
    if validator is None:
        shape_key = _shape_key(snapshot, shape, references)
        if shape_key is None:
            validator = compile_schema(snapshot, suggest_names=options[0], format_assertion=options[1])
        else:
            shape_key += repr(options)
            checked = _by_shape.get(shape_key)
            if checked is None:
                checked = check_schema(snapshot, suggest_names=options[0], format_assertion=options[1])
                _evict_oldest(_by_shape)
                _by_shape[shape_key] = checked
            validator = Validator(snapshot, checked)
        _evict_oldest(_by_value)
        _by_value[key] = validator
    if options == (False, False):
        _evict_oldest(_by_identity)
        _by_identity[id(schema)] = (schema, snapshot, validator)
    return validator


def _evict_oldest(table: dict[Any, Any]) -> None:
    # Threads may race here; losing the race only means another thread already made room.
    while len(table) >= _MAX_ENTRIES:
        try:
            del table[next(iter(table))]
        except (KeyError, RuntimeError, StopIteration):
            return


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_copy(item) for item in value]
    return value


def _canonical(value: Any) -> str:
    import json

    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=repr)


def _shape_key(snapshot: Any, shape: Any, references: list[Any]) -> str | None:
    """The canonical JSON of the schema without its silent annotations; None when leaving them out is unsafe."""
    if isinstance(snapshot, dict) and "$schema" in snapshot:
        return None  # another dialect may place subschemas where 2020-12 does not
    for reference in references:
        # A pointer through a silent annotation ("#/properties/a/examples/0") would see what the key dropped.
        if not isinstance(reference, str) or any(token in _SILENT for token in reference.split("/")):
            return None
    return _canonical(shape)


def _snapshot(schema: Any, references: list[Any]) -> tuple[Any, Any]:
    """A private deep copy of a schema, and the same without silent annotations (in one walk)."""
    if not isinstance(schema, dict):
        copied = _copy(schema)
        return copied, copied
    copy: dict[str, Any] = {}
    shape: dict[str, Any] = {}
    for keyword, value in schema.items():
        if keyword in _SINGLE:
            copy[keyword], shaped = _snapshot(value, references)
        elif keyword in _ARRAY and isinstance(value, list):
            pairs = [_snapshot(item, references) for item in value]
            copy[keyword], shaped = [pair[0] for pair in pairs], [pair[1] for pair in pairs]
        elif keyword in _MAP and isinstance(value, dict):
            pairs_by_name = {name: _snapshot(item, references) for name, item in value.items()}
            copy[keyword] = {name: pair[0] for name, pair in pairs_by_name.items()}
            shaped = {name: pair[1] for name, pair in pairs_by_name.items()}
        else:
            # A value, not a schema: kept whole, names that look like annotations included.
            copy[keyword] = shaped = _copy(value)
            if keyword in ("$ref", "$dynamicRef"):
                references.append(value)
        if keyword not in _SILENT:
            shape[keyword] = shaped
    return copy, shape
