"""The contract's weather tool, written with the decorator.

Try it:

    mcptools list examples/weather.py
    mcptools call examples/weather.py weather '{"location": "Paris", "days": 2}'
    mcptools call examples/weather.py weather '{"location": "Paris", "days": "two"}'
"""

from __future__ import annotations

from typing import Literal

from mcptools import ToolRegistry

registry = ToolRegistry("weather-server")


@registry.tool
def weather(location: str, days: int = 1, units: Literal["c", "f"] = "c") -> str:
    """Forecast the weather for a place.

    Args:
        location: The city or place to forecast, e.g. "Paris".
        days: How many days ahead to forecast.
        units: Degrees Celsius ("c") or Fahrenheit ("f").
    """
    symbol = "°C" if units == "c" else "°F"
    temperature = 21 if units == "c" else 70
    return f"{location}: sunny, {temperature}{symbol}, for the next {days} day(s)"
