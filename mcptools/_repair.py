"""Opt-in repair of the few mistakes models (and some MCP clients) make again and again.

A pure function of (arguments, schema, validator): it only runs on arguments that fail validation, proposes at
most one repair per value whose JSON type the schema does not allow there, and returns the repaired arguments
only when they then pass. A value with an ``enum`` or ``const`` is never repaired (a near miss there is the
model choosing wrongly, not spelling wrongly), and neither is one where more than one repair fits.

- ``number-text``: ``"2"`` where an integer or number is wanted is read as ``2``
- ``boolean-text``: ``"true"``/``"false"`` where a boolean is wanted is read as ``true``/``false``
- ``json-text``: ``'{"a": 1}'`` where an object (or array) is wanted is read as the decoded value
- ``single-item``: ``"x"`` where an array is wanted is read as ``["x"]``
- ``null-absent``: ``null`` for an optional property that refuses null is read as absent (the default applies)
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, final

from ._errors import UsageError
from ._json import is_json_type
from ._validation import Validator

__all__ = [
    "DEFAULT_REPAIRS",
    "REPAIRS",
    "could_repair",
    "repair",
    "repair_arguments",
    "repairs_option",
]

logger = logging.getLogger("mcptools")

REPAIRS: Final = ("number-text", "boolean-text", "json-text", "single-item", "null-absent")
# On by default for MCP servers (ToolRegistry), off everywhere else: see "Repair" in docs/guides/errors.md.
DEFAULT_REPAIRS: Final = ("json-text",)
_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_MAX_DEPTH: Final = 64


def repairs_option(value: object, *, where: str) -> frozenset[str]:
    """``repair=`` as given by the user: ``False``/``None`` (none), ``True`` (all), or names from ``REPAIRS``."""
    if value is None or value is False:
        return frozenset()
    if value is True:
        return frozenset(REPAIRS)
    if isinstance(value, str):
        value = (value,)
    if isinstance(value, Collection) and all(isinstance(v, str) for v in value):
        unknown = sorted(set(value) - set(REPAIRS))
        if not unknown:
            return frozenset(value)
        raise UsageError(f"{where}: unknown repair {unknown[0]!r}; the repairs are {', '.join(REPAIRS)}")
    raise UsageError(f"{where}: repair= takes True, False or a list of repair names ({', '.join(REPAIRS)})")


# What type a node must declare for each repair to have anything to do there (a node with no declared type
# accepts the value as it is, so no repair applies). null-absent is left out: it is always tried.
_TARGET_KINDS: Final = {
    "number-text": frozenset({"integer", "number"}),
    "boolean-text": frozenset({"boolean"}),
    "json-text": frozenset({"object", "array"}),
    "single-item": frozenset({"array"}),
}


def could_repair(schema: Mapping[str, Any], enabled: frozenset[str]) -> bool:
    """Whether any repair in ``enabled`` could ever apply to arguments of ``schema``.

    Answered once per tool, so a tool whose arguments no repair can reach (the weather tool under the default
    json-text: no argument takes an object or array) pays nothing for it on an invalid call. Conservative: it
    reads every type declared below the arguments object (and the root's own, if a ``$ref`` points back to it).
    """
    if "null-absent" in enabled:
        return True
    kinds: set[str] = set()

    def scan(node: Any, is_root: bool) -> None:
        if isinstance(node, dict):
            if not is_root:
                kinds.update(_types(node))
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.rstrip("/") in ("#", ""):
                kinds.update(_types(schema))
            for key, value in node.items():
                if key not in ("enum", "const", "default", "examples"):
                    scan(value, False)
        elif isinstance(node, list):
            for value in node:
                scan(value, False)

    scan(schema, True)
    return any(kinds & _TARGET_KINDS[name] for name in enabled if name in _TARGET_KINDS)


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _types(node: Mapping[str, Any]) -> set[str]:
    kinds = node.get("type")
    if isinstance(kinds, str):
        return {kinds}
    if isinstance(kinds, list):
        return {k for k in kinds if isinstance(k, str)}
    return set()


def _allows(kinds: set[str], value: Any) -> bool:
    # The validator's own predicates: a repair is offered exactly when the validator would refuse the type.
    return any(is_json_type(value, kind) for kind in kinds)


@final
@dataclass(slots=True, eq=False)
class _Walk:
    root: Mapping[str, Any]
    enabled: frozenset[str]
    # (path, the value before, "repair:new value as JSON" or "null-absent")
    found: list[tuple[str, Any, str]] = field(default_factory=list)

    def resolve(self, node: Any) -> Any:
        for _ in range(_MAX_DEPTH):
            if not isinstance(node, dict) or not isinstance(node.get("$ref"), str):
                return node
            ref: str = node["$ref"]
            target: Any = self.root
            for part in ref.lstrip("#").split("/")[1:] if ref.startswith("#") else [None]:
                if part is None or not isinstance(target, dict):
                    return None
                target = target.get(part.replace("~1", "/").replace("~0", "~"))
            node = target
        return None

    def branches(self, node: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        """The node itself and the branches of its anyOf/oneOf/allOf, refs resolved."""
        out = [node]
        for key in ("anyOf", "oneOf", "allOf"):
            for raw in node.get(key, []) if isinstance(node.get(key), list) else []:
                branch = self.resolve(raw)
                if isinstance(branch, dict):
                    out.extend(self.branches(branch))
        return out

    def candidates(self, value: Any, nodes: list[Mapping[str, Any]]) -> list[tuple[str, Any]]:
        if any("enum" in n or "const" in n for n in nodes):
            return []
        kinds: set[str] = set()
        for n in nodes:
            kinds |= _types(n)
        if not kinds or _allows(kinds, value):
            return []
        found: list[tuple[str, Any]] = []
        if isinstance(value, str):
            text = value.strip()
            if "number-text" in self.enabled and kinds & {"integer", "number"} and _NUMBER.fullmatch(text):
                number = json.loads(text)
                if "integer" in kinds and isinstance(number, float) and number.is_integer() and "e" not in text:
                    number = int(number)
                if _allows(kinds, number):
                    found.append(("number-text", number))
            if "boolean-text" in self.enabled and "boolean" in kinds and text in ("true", "false"):
                found.append(("boolean-text", text == "true"))
            if "json-text" in self.enabled and kinds & {"object", "array"} and text[:1] in ("{", "["):
                try:
                    decoded = json.loads(text)
                except ValueError:
                    decoded = None
                if isinstance(decoded, (dict, list)) and _allows(kinds, decoded):
                    found.append(("json-text", decoded))
        if "single-item" in self.enabled and "array" in kinds and not isinstance(value, (list, dict)):
            found.append(("single-item", [value]))
        return found

    def visit(self, value: Any, node: Any, path: str, depth: int) -> Any:
        """``value`` with the repairs below it applied; notes collected in ``found``."""
        node = self.resolve(node)
        if not isinstance(node, dict) or depth > _MAX_DEPTH:
            return value
        nodes = self.branches(node)
        fixes = self.candidates(value, nodes)
        if len(fixes) == 1:
            name, fixed = fixes[0]
            self.found.append((path, value, f"{name}:{_show(fixed)}"))
            return fixed
        if isinstance(value, dict):
            properties: dict[str, Any] = {}
            required: set[str] = set()
            for n in nodes:
                if isinstance(n.get("properties"), dict):
                    for key, sub in n["properties"].items():
                        properties.setdefault(key, sub)
                if isinstance(n.get("required"), list):
                    required.update(k for k in n["required"] if isinstance(k, str))
            out: dict[str, Any] = {}
            for key, item in value.items():
                where = f"{path}.{key}" if path else key
                sub = properties.get(key)
                if sub is None:
                    out[key] = item
                    continue
                if (
                    item is None
                    and "null-absent" in self.enabled
                    and key not in required
                    and not self.accepts_null(sub)
                ):
                    self.found.append((where, None, "null-absent"))
                    continue
                out[key] = self.visit(item, sub, where, depth + 1)
            return out
        if isinstance(value, list):
            items = next((n["items"] for n in nodes if isinstance(n.get("items"), dict)), None)
            if items is None:
                return value
            return [self.visit(item, items, f"{path}[{i}]", depth + 1) for i, item in enumerate(value)]
        return value

    def accepts_null(self, node: Any) -> bool:
        resolved = self.resolve(node)
        if not isinstance(resolved, dict):
            return resolved is True
        nodes = self.branches(resolved)
        if any(n.get("const", 0) is None or None in (n.get("enum") or ()) for n in nodes):
            return True
        kinds: set[str] = set()
        for n in nodes:
            kinds |= _types(n)
        return not kinds or "null" in kinds


def repair(
    arguments: Any,
    schema: Mapping[str, Any],
    validator: Validator,
    enabled: Collection[str] = REPAIRS,
    *,
    known_invalid: bool = False,
) -> tuple[dict[str, Any], list[str]] | None:
    """The repaired arguments and one note per repair, or ``None`` when no repair makes them valid.

    Valid arguments are never repaired (``None``), so a caller that repairs after a failed check can never
    change a value that was already right; ``known_invalid`` is that caller saying it checked already (the
    pipeline validates a call once).
    """
    if not isinstance(arguments, dict) or (not known_invalid and validator.is_valid(arguments)):
        return None
    walk = _Walk(schema, frozenset(enabled))
    repaired = walk.visit(arguments, schema, "", 0)
    if not walk.found or not isinstance(repaired, dict) or not validator.is_valid(repaired):
        return None
    notes: list[str] = []
    for path, before, what in walk.found:
        if what == "null-absent":
            notes.append(f"note: '{path}' was null, read as absent")
        else:
            notes.append(f"note: '{path}' was {_show(before)}, read as {what.split(':', 1)[1]}")
    return repaired, notes


def repair_arguments(
    enabled: frozenset[str], name: str, schema: Mapping[str, Any], validator: Validator, arguments: dict[str, Any]
) -> tuple[dict[str, Any], tuple[str, ...]] | None:
    """Called by the pipeline only for arguments that failed validation: the repaired ones and the notes that
    say what was repaired (for the result and, here, the server log), or ``None``."""
    if not enabled:
        return None
    fixed = repair(arguments, schema, validator, enabled, known_invalid=True)
    if fixed is None:
        return None
    repaired, notes = fixed
    logger.info("mcptools: repaired the arguments of %r: %s", name, "; ".join(notes))
    return repaired, tuple(notes)
