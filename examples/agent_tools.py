"""The tools the three agent examples give their model: one registry, served to any model API.

The same registry could be served to MCP clients as it is (`mcptools serve examples/agent_tools.py`).
"""

from __future__ import annotations

from typing import Annotated, Literal

from mcptools import Param, ToolError, ToolRegistry

registry = ToolRegistry("agent-tools")


@registry.tool
def weather(
    location: str,
    days: Annotated[int, Param(minimum=1, maximum=14)] = 1,
    units: Literal["c", "f"] = "c",
) -> str:
    """Forecast the weather for a place.

    Args:
        location: The city or place to forecast, e.g. "Paris".
        days: How many days ahead to forecast.
        units: Degrees Celsius ("c") or Fahrenheit ("f").
    """
    if location.strip().lower() == "atlantis":
        raise ToolError("No forecast for Atlantis; try a real city")
    symbol = "°C" if units == "c" else "°F"
    temperature = 21 if units == "c" else 70
    return f"{location}: sunny, {temperature}{symbol}, for the next {days} day(s)"


@registry.tool(name="units.convert")
def convert(value: float, unit: Literal["km", "mi"]) -> str:
    """Convert a distance between kilometres and miles.

    Args:
        value: The distance to convert.
        unit: The unit the value is in.
    """
    if unit == "km":
        return f"{value} km = {value / 1.609344:.2f} mi"
    return f"{value} mi = {value * 1.609344:.2f} km"
