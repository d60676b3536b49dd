"""The schemas, arguments and hand-written checkers the validation benchmark runs (not collected by pytest).

Three shapes: the contract's weather tool, a flat 20-property tool, and a nested tool shaped like what the
derivation emits for TypedDicts and dataclasses ($defs + $ref, arrays of objects, an optional field). Each has a
valid call and an invalid one with three errors, and a hand-written if-chain that returns the same strings a
careful developer would write by hand: the floor a generated checker is measured against.
"""

from __future__ import annotations

from typing import Any

WEATHER: dict[str, Any] = {
    "type": "object",
    "properties": {
        "location": {"type": "string"},
        "days": {"type": "integer"},
        "units": {"type": "string", "enum": ["c", "f"]},
    },
    "required": ["location"],
    "additionalProperties": False,
}
WEATHER_VALID = {"location": "Paris", "days": 2, "units": "c"}
WEATHER_INVALID = {"location": "Paris", "days": 2.5, "units": "k", "x": 1}


def weather_by_hand(args: Any) -> list[str]:
    if not isinstance(args, dict):
        return ["value must be object"]
    errors = []
    if "location" not in args:
        errors.append("missing required property 'location'")
    for name, value in args.items():
        if name == "location":
            if not isinstance(value, str):
                errors.append("property 'location' must be string")
        elif name == "days":
            if type(value) is not int:
                errors.append("property 'days' must be integer")
        elif name == "units":
            if not isinstance(value, str):
                errors.append("property 'units' must be string")
            elif value not in ("c", "f"):
                errors.append("property 'units' must be one of ['c', 'f']")
        else:
            errors.append(f"unexpected property '{name}'")
    return errors


_WIDE_TYPES = ["string", "integer", "number", "boolean"]
WIDE: dict[str, Any] = {
    "type": "object",
    "properties": {
        f"field{i:02d}": ({"type": _WIDE_TYPES[i % 4]} if i % 5 else {"type": "string", "enum": ["a", "b", "c"]})
        for i in range(20)
    },
    "required": [f"field{i:02d}" for i in range(0, 20, 4)],
    "additionalProperties": False,
}
_WIDE_SAMPLE = {"string": "text", "integer": 7, "number": 2.5, "boolean": True}
WIDE_VALID = {f"field{i:02d}": (_WIDE_SAMPLE[_WIDE_TYPES[i % 4]] if i % 5 else "b") for i in range(0, 20, 2)}
WIDE_INVALID = {**{k: v for k, v in WIDE_VALID.items() if k != "field08"}, "field02": "x"}
WIDE_INVALID["field10"] = "z"


_WIDE_KINDS = {f"field{i:02d}": (_WIDE_TYPES[i % 4] if i % 5 else "enum") for i in range(20)}
_WIDE_REQUIRED = WIDE["required"]


def wide_by_hand(args: Any) -> list[str]:
    if not isinstance(args, dict):
        return ["value must be object"]
    errors = [f"missing required property '{name}'" for name in _WIDE_REQUIRED if name not in args]
    for name, value in args.items():
        kind = _WIDE_KINDS.get(name)
        if kind is None:
            errors.append(f"unexpected property '{name}'")
        elif kind == "string":
            if not isinstance(value, str):
                errors.append(f"property '{name}' must be string")
        elif kind == "integer":
            if type(value) is not int:
                errors.append(f"property '{name}' must be integer")
        elif kind == "number":
            if type(value) is not int and type(value) is not float:
                errors.append(f"property '{name}' must be number")
        elif kind == "boolean":
            if type(value) is not bool:
                errors.append(f"property '{name}' must be boolean")
        elif not isinstance(value, str):
            errors.append(f"property '{name}' must be string")
        elif value not in ("a", "b", "c"):
            errors.append(f"property '{name}' must be one of ['a', 'b', 'c']")
    return errors


NESTED: dict[str, Any] = {
    "type": "object",
    "properties": {
        "customer": {"$ref": "#/$defs/Customer"},
        "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}, "minItems": 1},
        "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "express": {"type": "boolean"},
    },
    "required": ["customer", "items"],
    "additionalProperties": False,
    "$defs": {
        "Address": {
            "type": "object",
            "properties": {
                "street": {"type": "string"},
                "city": {"type": "string"},
                "country": {"type": "string", "enum": ["FR", "DE", "US"]},
            },
            "required": ["street", "city", "country"],
            "additionalProperties": False,
        },
        "Customer": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1},
                "address": {"$ref": "#/$defs/Address"},
            },
            "required": ["name", "address"],
            "additionalProperties": False,
        },
        "Item": {
            "type": "object",
            "properties": {
                "sku": {"type": "string"},
                "quantity": {"type": "integer", "minimum": 1},
            },
            "required": ["sku", "quantity"],
            "additionalProperties": False,
        },
    },
}
NESTED_VALID = {
    "customer": {"name": "Ada", "address": {"street": "1 Rue de Rivoli", "city": "Paris", "country": "FR"}},
    "items": [{"sku": "A-1", "quantity": 2}, {"sku": "B-7", "quantity": 1}],
    "note": None,
}
NESTED_INVALID = {
    "customer": {"name": "Ada", "address": {"street": 1, "city": "Paris", "country": "FR"}},
    "items": [{"sku": "A-1", "quantity": 0}, {"sku": "B-7", "quantity": 1, "colour": "red"}],
    "note": None,
}


def _address_by_hand(value: Any, path: str, errors: list[str]) -> None:
    if not isinstance(value, dict):
        errors.append(f"property '{path}' must be object")
        return
    for name in ("street", "city", "country"):
        if name not in value:
            errors.append(f"missing required property '{path}.{name}'")
    for name, item in value.items():
        if name in ("street", "city"):
            if not isinstance(item, str):
                errors.append(f"property '{path}.{name}' must be string")
        elif name == "country":
            if not isinstance(item, str):
                errors.append(f"property '{path}.country' must be string")
            elif item not in ("FR", "DE", "US"):
                errors.append(f"property '{path}.country' must be one of ['FR', 'DE', 'US']")
        else:
            errors.append(f"unexpected property '{path}.{name}'")


def _item_by_hand(value: Any, path: str, errors: list[str]) -> None:
    if not isinstance(value, dict):
        errors.append(f"property '{path}' must be object")
        return
    for name in ("sku", "quantity"):
        if name not in value:
            errors.append(f"missing required property '{path}.{name}'")
    for name, item in value.items():
        if name == "sku":
            if not isinstance(item, str):
                errors.append(f"property '{path}.sku' must be string")
        elif name == "quantity":
            if type(item) is not int:
                errors.append(f"property '{path}.quantity' must be integer")
            elif item < 1:
                errors.append(f"property '{path}.quantity' must be >= 1")
        else:
            errors.append(f"unexpected property '{path}.{name}'")


def nested_by_hand(args: Any) -> list[str]:
    if not isinstance(args, dict):
        return ["value must be object"]
    errors: list[str] = []
    for name in ("customer", "items"):
        if name not in args:
            errors.append(f"missing required property '{name}'")
    for name, value in args.items():
        if name == "customer":
            if not isinstance(value, dict):
                errors.append("property 'customer' must be object")
                continue
            for field in ("name", "address"):
                if field not in value:
                    errors.append(f"missing required property 'customer.{field}'")
            for field, item in value.items():
                if field == "name":
                    if not isinstance(item, str):
                        errors.append("property 'customer.name' must be string")
                    elif len(item) < 1:
                        errors.append("property 'customer.name' must be at least 1 character")
                elif field == "address":
                    _address_by_hand(item, "customer.address", errors)
                else:
                    errors.append(f"unexpected property 'customer.{field}'")
        elif name == "items":
            if not isinstance(value, list):
                errors.append("property 'items' must be array")
                continue
            if len(value) < 1:
                errors.append("property 'items' must have at least 1 item")
            for index, item in enumerate(value):
                _item_by_hand(item, f"items[{index}]", errors)
        elif name == "note":
            if value is not None and not isinstance(value, str):
                errors.append("property 'note' must be string or null")
        elif name == "express":
            if type(value) is not bool:
                errors.append("property 'express' must be boolean")
        else:
            errors.append(f"unexpected property '{name}'")
    return errors


CASES: list[tuple[str, dict[str, Any], Any, Any, Any]] = [
    ("weather", WEATHER, WEATHER_VALID, WEATHER_INVALID, weather_by_hand),
    ("20 properties", WIDE, WIDE_VALID, WIDE_INVALID, wide_by_hand),
    ("nested", NESTED, NESTED_VALID, NESTED_INVALID, nested_by_hand),
]
