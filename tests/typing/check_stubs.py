"""Typing tests for the committed stubs, checked by `mypy --strict` (not run by pytest).

stubs/weather_tools.py is generated from examples/weather.py. The wrong calls carry `type: ignore[code]`: mypy
--strict warns about unused ignores, so if a wrong call stopped being an error, mypy would fail on this file.
"""

from __future__ import annotations

from typing import Any

from typing_extensions import assert_type

from stubs.weather_tools import AsyncTools, AsyncTypedClient, Tools, TypedClient, WeatherArguments


class Session:
    def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"content": [], "isError": False}


class AsyncSession:
    async def call_tool(self, name: str, arguments: dict[str, Any]) -> list[str]:
        return []


client = TypedClient(Session())
# No outputSchema: the session's own result type comes back.
assert_type(client.weather(location="Paris"), dict[str, Any])
assert_type(client.weather(location="Paris", days=2, units="f"), dict[str, Any])
assert_type(client.call_tool("weather", {"location": "Paris"}), dict[str, Any])
as_protocol: Tools[dict[str, Any]] = client
arguments: WeatherArguments = {"location": "Paris"}
client.weather(**arguments)


async def asynchronous() -> None:
    async_client: AsyncTools[list[str]] = AsyncTypedClient(AsyncSession())
    assert_type(await async_client.weather(location="Paris"), list[str])


client.weather(location="Paris", days="two")  # type: ignore[arg-type]
client.weather(days=2)  # type: ignore[call-arg]
client.weather(location="Paris", hours=3)  # type: ignore[call-arg]
client.weather(location="Paris", units="kelvin")  # type: ignore[arg-type]
wrong: WeatherArguments = {"location": 1}  # type: ignore[typeddict-item]
