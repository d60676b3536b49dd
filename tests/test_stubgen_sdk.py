"""Generated typed clients over the official SDK's real ``mcp.ClientSession``, against our server over stdio.

The SDK (2.x) hands back pydantic ``CallToolResult`` models whose attributes are ``structured_content`` and
``is_error`` (camelCase is only their JSON alias): the typed client must read those, not only the JSON names.
The server is a small registry served the way users serve one (``python -m mcptools serve FILE``), in both
protocol generations, as tests/test_transport_interop.py does.
"""

from __future__ import annotations

import asyncio
import importlib.util
import sys
import textwrap
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

mcp = pytest.importorskip("mcp")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

from mcptools._stubgen import generate_stubs  # noqa: E402
from mcptools._target import load_registry  # noqa: E402

REGISTRY = textwrap.dedent(
    '''
    from typing import TypedDict

    from mcptools import ToolError, ToolRegistry

    registry = ToolRegistry("stubgen-sdk")


    class Forecast(TypedDict):
        temperature: float
        summary: str


    @registry.tool
    def forecast(location: str) -> Forecast:
        """A structured forecast."""
        return {"temperature": 21.5, "summary": f"sunny in {location}"}


    @registry.tool
    def broken_forecast(location: str) -> Forecast:
        """Always an error result."""
        raise ToolError(f"no forecast for {location}")


    @registry.tool
    def plain(text: str) -> str:
        """No outputSchema: the session's own result comes back."""
        return text.upper()
    '''
)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[types.ModuleType, StdioServerParameters]]:
    """The generated stub module for the registry, and how to spawn the registry as a stdio server."""
    registry_file = tmp_path / "sdk_registry.py"
    registry_file.write_text(REGISTRY)
    stub_file = tmp_path / "sdk_registry_stub.py"
    stub_file.write_text(generate_stubs(load_registry(str(registry_file)).list_tools(), source="test"))
    spec = importlib.util.spec_from_file_location("sdk_registry_stub", stub_file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["sdk_registry_stub"] = module
    spec.loader.exec_module(module)
    params = StdioServerParameters(command=sys.executable, args=["-m", "mcptools", "serve", str(registry_file)])
    yield module, params
    del sys.modules["sdk_registry_stub"]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_async_typed_client_over_a_real_client_session(
    served: tuple[types.ModuleType, StdioServerParameters], mode: str
) -> None:
    module, params = served

    async def run() -> None:
        async with Client(params, mode=mode) as client:
            session = client.session
            assert isinstance(session, mcp.ClientSession)
            typed: Any = module.AsyncTypedClient(session)

            assert await typed.forecast(location="Paris") == {"temperature": 21.5, "summary": "sunny in Paris"}

            with pytest.raises(module.ToolCallError, match="no forecast for Rome") as caught:
                await typed.broken_forecast(location="Rome")
            assert caught.value.result.is_error is True

            raw = await typed.plain(text="abc")
            assert isinstance(raw, mcp.types.CallToolResult)
            assert raw.content[0].text == "ABC"

    asyncio.run(asyncio.wait_for(run(), 60))


def test_sync_typed_client_reads_sdk_result_models(served: tuple[types.ModuleType, StdioServerParameters]) -> None:
    # The same models, handed over by a synchronous session (a wrapper that runs the SDK's calls to completion).
    module, _params = served
    from mcp.types import CallToolResult, TextContent

    answers = [
        CallToolResult(content=[], structured_content={"temperature": 3.0, "summary": "cold"}),
        CallToolResult(content=[TextContent(type="text", text="no forecast for Oslo")], is_error=True),
    ]

    class Session:
        def call_tool(self, name: str, arguments: dict[str, Any]) -> CallToolResult:
            return answers.pop(0)

    typed: Any = module.TypedClient(Session())
    assert typed.forecast(location="Oslo") == {"temperature": 3.0, "summary": "cold"}
    with pytest.raises(module.ToolCallError, match="no forecast for Oslo"):
        typed.forecast(location="Oslo")
