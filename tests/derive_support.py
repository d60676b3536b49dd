"""Small annotated types and call helpers shared by the derivation, conversion and round-trip tests."""

import dataclasses
import enum
from typing import Any, NamedTuple

from mcptools import ToolRegistry


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


@dataclasses.dataclass(frozen=True)
class Point:
    x: int
    y: int = 0


class Pair(NamedTuple):
    left: int
    right: Color


def call(registry: ToolRegistry, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The ``CallToolResult`` of ``tools/call`` through ``registry.handle``."""
    response = registry.handle(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
    )
    assert response is not None
    result: dict[str, Any] = response["result"]
    return result


def text_of(result: dict[str, Any]) -> str:
    text: str = result["content"][0]["text"]
    return text


def single(annotation: Any) -> tuple[ToolRegistry, list[Any]]:
    """A registry with one tool ``t(value: annotation)`` that records what it was called with."""
    seen: list[Any] = []

    def t(value: Any) -> str:
        seen.append(value)
        return "ok"

    t.__annotations__ = {"value": annotation, "return": str}
    registry = ToolRegistry("single")
    registry.tool(t)
    return registry, seen
