"""The official SDK's decorator examples, moved over by their import line: the count docs/migrating.md gives.

python-sdk's examples/snippets/servers has 18 servers with tools. tests/sdk_examples/ holds one server of our own
for each, written in the same spellings as that example (its constructor, decorators, ``Context`` and
``ctx.session`` calls, its result types, its Starlette mounting and ``session_manager.run()``), importing
``from mcptools import ToolRegistry as MCPServer`` where the example imports the SDK's ``MCPServer``; no other line
names mcptools. Each is run here the way the example is meant to be used: tool calls through the in-memory client
(sampling and elicitation answered by its callbacks), the HTTP ones served by uvicorn to the official client.
``RUNS`` is what the guide claims; the test of the guide reads its count from the page.
"""

from __future__ import annotations

import asyncio
import importlib.util
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, Final

import pytest

pytest.importorskip("mcp.server.mcpserver", reason="the SDK's examples import its own types (pip install mcp>=2)")
pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from docs_support import Background
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from mcptools import ProtocolError, ToolDefinitionError
from mcptools.testing import SyncClient

FOLDER = Path(__file__).parent / "sdk_examples"
LEGACY: Final = "2025-11-25"


def load(name: str) -> ModuleType:
    """The example module, imported from its file under a name of its own (they share short names)."""
    spec = importlib.util.spec_from_file_location(f"sdk_example_{name}", FOLDER / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def background() -> Iterator[Background]:
    served = Background()
    try:
        yield served
    finally:
        served.close()


async def _official_call(url: str, tool: str, arguments: dict[str, Any], headers: dict[str, str] | None = None) -> Any:
    import httpx2

    async with (
        httpx2.AsyncClient(headers=headers, timeout=20) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        result = await client.call_tool(tool, arguments)
        return [block.model_dump(exclude_none=True) for block in result.content]


def official_text(url: str, tool: str, arguments: dict[str, Any], headers: dict[str, str] | None = None) -> str:
    blocks = asyncio.run(_official_call(url, tool, arguments, headers))
    assert blocks and blocks[0]["type"] == "text", blocks
    text: str = blocks[0]["text"]
    return text


def _status(base: str, method: str, path: str, host: str) -> int:
    import http.client

    address, port = base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(address, int(port), timeout=10)
    try:
        connection.request(method, path, body=b"{}", headers={"Host": host, "Content-Type": "application/json"})
        return connection.getresponse().status
    finally:
        connection.close()


# -- one check per example: each returns when the example runs as the SDK's does -------------------------------


def basic_tool(_: Background) -> None:
    with SyncClient(load("basic_tool").mcp) as client:
        assert client.call_tool("multiply", {"x": 6, "y": 7}).data == 42
        assert client.call_tool("shout", {"text": "hey"}).text == "HEY"


def direct_execution(_: Background) -> None:
    with SyncClient(load("direct_execution").mcp) as client:
        assert client.call_tool("wave", {}).text == "*waves at everyone*"


def streamable_config(_: Background) -> None:
    from mcptools._options import resolve

    module = load("streamable_config")
    # What its __main__ passes to run() is accepted for Streamable HTTP (stateless_http is said once and dropped).
    resolve("http", {"stateless_http": True, "json_response": True}, module.mcp.settings.given())
    with SyncClient(module.mcp) as client:
        assert client.call_tool("ping", {"note": "x"}).text == "pong x"


def structured_output(_: Background) -> None:
    with SyncClient(load("structured_output").mcp) as client:
        assert client.call_tool("forecast", {"city": "Oslo"}).structured_content == {"city": "Oslo", "celsius": 21.5}
        assert client.call_tool("origin", {}).structured_content == {"x": 0.0, "y": 0.0}
        assert client.call_tool("card", {}).structured_content == {"name": "ace", "rank": 1}
        assert client.call_tool("totals", {}).structured_content == {"a": 1.5, "b": 2.0}
        assert client.call_tool("names", {}).structured_content == {"result": ["oslo", "lima"]}


def lifespan_example(_: Background) -> None:
    with SyncClient(load("lifespan_example").mcp) as client:
        assert client.call_tool("read_store", {}).text == "stored value"


def tool_progress(_: Background) -> None:
    with SyncClient(load("tool_progress").mcp, protocol=LEGACY) as client:
        result = client.call_tool("crunch", {"steps": 2})
        assert result.text == "crunched 2"
        assert [note["message"] for note in result.progress] == ["step 1", "step 2"]


def notifications(_: Background) -> None:
    with SyncClient(load("notifications").mcp, protocol=LEGACY) as client:
        result = client.call_tool("tidy", {"item": "desk"})
        assert result.text == "tidied desk", result
        # Every level reaches a client that set none, debug too, as the SDK sends them.
        assert [log["level"] for log in result.logs] == ["debug", "info", "warning", "error"]


def sampling(_: Background) -> None:
    def model(params: dict[str, Any]) -> dict[str, Any]:
        asked = params["messages"][0]["content"]["text"]
        return {"role": "assistant", "content": {"type": "text", "text": f"({asked})"}, "model": "m"}

    with SyncClient(load("sampling").mcp, sampling=model) as client:
        assert client.call_tool("haiku", {"subject": "rain"}).text == "(A haiku on rain)"


def elicitation(_: Background) -> None:
    module = load("elicitation")
    answer = {"action": "accept", "content": {"window": True}}
    with SyncClient(module.mcp, protocol=LEGACY, elicitation=lambda params: answer) as client:
        assert client.call_tool("book_seat", {"flight": "LH1"}).text == "LH1: window=True"
        # The SDK's UrlElicitationRequiredError is the protocol's -32042, with the elicitation it carries.
        with pytest.raises(ProtocolError) as raised:
            client.call_tool("sign_in", {"service": "git"})
    assert raised.value.code == -32042
    assert raised.value.data["elicitations"][0]["elicitationId"] == "sign-in-1"


def images(_: Background) -> None:
    with SyncClient(load("images").mcp) as client:
        (block,) = client.call_tool("thumbnail", {}).content
    assert block == {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}


def direct_call_tool_result(_: Background) -> None:
    module = load("direct_call_tool_result")
    listed = {tool["name"]: tool for tool in module.mcp.list_tools()}
    assert "outputSchema" not in listed["with_meta"]
    assert listed["checked"]["outputSchema"]["required"] == ["ok", "count"]
    with SyncClient(module.mcp) as client:
        shown = client.call_tool("with_meta", {})
        assert shown.text == "shown to the model" and shown.raw["_meta"] == {"trace": "t-1"}
        assert client.call_tool("checked", {}).structured_content == {"ok": True, "count": 3}
        broken = client.call_tool("miscounted", {})
        assert broken.is_error and broken.structured_content is None
        assert broken.text == (
            "Tool 'miscounted' returned output that does not match its outputSchema: missing required property 'count'"
        )
        missing = client.call_tool("unstructured", {})
        assert missing.is_error and "its result has no structuredContent" in missing.text
        assert client.call_tool("nothing", {}).content == []


def oauth_server(background: Background) -> None:
    module = load("oauth_server")
    base = background.serve(module.mcp.streamable_http_app(json_response=True))
    assert _status(base, "POST", "/mcp", "127.0.0.1") == 401  # no token: refused, with the metadata's address
    good = {"Authorization": "Bearer let-me-in"}
    assert official_text(f"{base}/mcp", "secret", {"name": "ada"}, good) == '{"greeting": "hello ada"}'


def mcpserver_quickstart(_: Background) -> None:
    load("mcpserver_quickstart")  # its @mcp.resource raises: mcptools serves tools only


def streamable_http_basic_mounting(background: Background) -> None:
    base = background.serve(load("streamable_http_basic_mounting").app)
    assert official_text(f"{base}/mcp", "hi", {}) == "hi from the mounted server"


def streamable_http_host_mounting(background: Background) -> None:
    base = background.serve(load("streamable_http_host_mounting").app)
    # The Host route reaches the app, whose DNS-rebinding guard refuses a host it was not told about, as the SDK's
    # guard does by default (it answers 421); any other host is not routed to it at all.
    assert _status(base, "POST", "/mcp", "tools.example.org") == 403
    assert _status(base, "POST", "/mcp", "elsewhere.example.org") == 404


def streamable_http_multiple_servers(background: Background) -> None:
    base = background.serve(load("streamable_http_multiple_servers").app)
    assert official_text(f"{base}/billing/", "balance", {}) == "balance: 12.50"
    assert official_text(f"{base}/search/", "find", {"query": "mcp"}) == "found: mcp"


def streamable_http_path_config(background: Background) -> None:
    base = background.serve(load("streamable_http_path_config").app)
    assert official_text(f"{base}/reverse/", "reverse", {"text": "abc"}) == "cba"


def streamable_starlette_mount(background: Background) -> None:
    base = background.serve(load("streamable_starlette_mount").app)
    assert official_text(f"{base}/words/mcp", "upper", {"word": "mcp"}) == "MCP"
    assert official_text(f"{base}/numbers/mcp", "double", {"n": 21}) == "42"


CHECKS: dict[str, Callable[[Background], None]] = {
    check.__name__: check
    for check in (
        basic_tool,
        direct_execution,
        streamable_config,
        structured_output,
        lifespan_example,
        tool_progress,
        notifications,
        sampling,
        elicitation,
        images,
        direct_call_tool_result,
        oauth_server,
        mcpserver_quickstart,
        streamable_http_basic_mounting,
        streamable_http_host_mounting,
        streamable_http_multiple_servers,
        streamable_http_path_config,
        streamable_starlette_mount,
    )
}
# The one that does not run, and why: it registers a resource and a prompt, which mcptools does not serve.
REFUSED: dict[str, type[Exception]] = {"mcpserver_quickstart": ToolDefinitionError}
RUNS = len(CHECKS) - len(REFUSED)


def test_every_example_has_its_server_and_its_check() -> None:
    assert sorted(path.stem for path in FOLDER.glob("*.py")) == sorted(CHECKS)
    assert len(CHECKS) == 18


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_the_example_runs_with_its_import_line_changed(name: str, background: Background) -> None:
    source = (FOLDER / f"{name}.py").read_text(encoding="utf-8")
    mentions = [line for line in source.splitlines() if "mcptools" in line and not line.lstrip().startswith("#")]
    assert mentions == ["from mcptools import ToolRegistry as MCPServer  # was: " + mentions[0].split("# was: ")[1]]
    if name in REFUSED:
        with pytest.raises(REFUSED[name], match="serves tools only"):
            CHECKS[name](background)
    else:
        CHECKS[name](background)


def test_the_guide_gives_the_count_this_file_checks() -> None:
    page = (Path(__file__).parents[1] / "docs" / "migrating.md").read_text(encoding="utf-8")
    claimed = re.findall(r"\*\*(\d+) of (\d+)\*\* of the official SDK's", page)
    assert claimed == [(str(RUNS), str(len(CHECKS)))], claimed
