"""A typed client for examples/weather.py: with stubs/weather_tools.py, mypy checks every call.

The stub comes from ``mcptools stubgen examples/weather.py -o stubs/weather_tools.py``. From the repository
root:

    python examples/weather_client.py

Here ``client.weather(location="Paris", days="two")`` is a mypy error (arg-type), not an isError result found
at run time; so are a missing ``location``, an unknown keyword and ``units="k"``.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root, where stubs/ lives

import weather

from mcptools import ToolRegistry
from stubs.weather_tools import Tools, TypedClient, WeatherArguments


class InProcessSession:
    """A session whose ``call_tool`` runs ``registry.handle`` in this process (a test, an agent loop)."""

    def __init__(self, registry: ToolRegistry) -> None:
        self._registry = registry
        self._ids = itertools.count(1)

    def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        params = {"name": name, "arguments": arguments}
        response = self._registry.handle(
            {"jsonrpc": "2.0", "id": next(self._ids), "method": "tools/call", "params": params}
        )
        if response is None or "error" in response:
            raise RuntimeError(f"tools/call {name} failed: {response}")
        result: dict[str, Any] = response["result"]
        return result


def forecast_texts(tools: Tools[dict[str, Any]]) -> list[str]:
    """Code written against the ``Tools`` protocol works with any typed client, or with a test double."""
    arguments: WeatherArguments = {"location": "Lyon", "units": "f"}
    results = [tools.weather(location="Paris", days=2), tools.weather(**arguments)]
    return [result["content"][0]["text"] for result in results]


def main() -> None:
    client = TypedClient(InProcessSession(weather.registry))
    for text in forecast_texts(client):
        print(text)


if __name__ == "__main__":
    main()
