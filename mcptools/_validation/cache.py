"""``validate`` and ``checker_for``: compiled validators cached by schema value, so a repeat costs a lookup.

A hit is one dict lookup by ``id(schema)``, an identity check and a C-level ``==`` against a private deep copy
taken when the entry was made. Holding the schema object keeps its id from being reused while the entry lives;
the copy catches a schema mutated in place since. On a miss the schema's canonical JSON text is the key, so
equal schemas built separately share one compiled validator. Both tables are bounded (oldest entry out first);
the cache only ever returns what compiling the same value would, so sharing it is safe.

Python's ``==`` says ``1 == True``: a schema mutated in place from ``"enum": [1]`` to ``"enum": [True]`` keeps
its old validator. Build a new schema object instead of editing one in place.
"""

from __future__ import annotations

from typing import Any

from .compile import Validator, compile_schema

__all__ = ["checker_for", "validate"]

_MAX_ENTRIES = 512
_by_identity: dict[int, tuple[Any, Any, Validator]] = {}
_by_value: dict[str, Validator] = {}


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
    snapshot = _copy(schema)
    key = _canonical(snapshot) + repr(options)
    validator = _by_value.get(key)
    if validator is None:
        validator = compile_schema(snapshot, suggest_names=options[0], format_assertion=options[1])
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
