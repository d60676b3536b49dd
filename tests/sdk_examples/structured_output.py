from typing import TypedDict

from pydantic import BaseModel, Field

from mcptools import ToolRegistry as MCPServer  # was: from mcp.server.mcpserver import MCPServer

mcp = MCPServer("Structured")


class Forecast(BaseModel):
    city: str
    celsius: float = Field(description="Temperature in Celsius")


class Point(TypedDict):
    x: float
    y: float


class Card:
    name: str
    rank: int

    def __init__(self, name: str, rank: int) -> None:
        self.name = name
        self.rank = rank


@mcp.tool()
def forecast(city: str) -> Forecast:
    """A model as structured output."""
    return Forecast(city=city, celsius=21.5)


@mcp.tool()
def origin() -> Point:
    """A TypedDict as structured output."""
    return Point(x=0.0, y=0.0)


@mcp.tool()
def card() -> Card:
    """A plain class with annotated attributes."""
    return Card("ace", 1)


@mcp.tool()
def totals() -> dict[str, float]:
    """A dict of numbers."""
    return {"a": 1.5, "b": 2.0}


@mcp.tool()
def names() -> list[str]:
    """A list, wrapped as {"result": [...]}."""
    return ["oslo", "lima"]
