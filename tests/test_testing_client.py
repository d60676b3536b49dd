"""``mcptools.testing``: the in-memory client drives every Context feature over both protocol generations, and
URL-mode elicitation works in both of its forms (also against the official ``mcp`` client)."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest

from mcptools import Context, ProtocolError, ToolRegistry, URLElicitationRequired
from mcptools.testing import Client, SyncClient

PROTOCOLS = ["2025-11-25", "2025-06-18", "2025-03-26", "2026-07-28"]

registry = ToolRegistry("testing-client")


@registry.tool
async def book(day: str, ctx: Context) -> str:
    await ctx.report_progress(1, 2)
    await ctx.info(f"booking {day}")
    answer = await ctx.elicit("Confirm?", {"type": "object", "properties": {"ok": {"type": "boolean"}}})
    roots = await ctx.list_roots()
    reply = await ctx.sample("Say yes", max_tokens=5)
    await ctx.report_progress(2, 2)
    return f"{answer['action']} {answer.get('content')} {roots[0]['uri']} {reply['content']['text']}"


@registry.tool
async def login(ctx: Context) -> str:
    answer = await ctx.elicit_url("Sign in", "https://auth.example/login", elicitation_id="e-1")
    return answer.action


@registry.tool
def needs_consent(granted: bool = False) -> str:
    if not granted:
        raise URLElicitationRequired(
            [Context.url_elicitation("Consent", "https://auth.example/c", elicitation_id="c-1")]
        )
    return "granted"


@registry.tool
def plain(count: int) -> dict[str, int]:
    return {"double": count * 2}


def _client(protocol: str, **options: Any) -> Client:
    return Client(
        registry,
        protocol=protocol,  # type: ignore[arg-type]
        elicitation=lambda params: {"action": "accept", "content": {"ok": True}},
        roots=[{"uri": "file:///work"}],
        sampling=lambda params: {"role": "assistant", "content": {"type": "text", "text": "yes"}, "model": "m"},
        **options,
    )


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_every_context_feature_over_each_revision(protocol: str) -> None:
    async def run() -> None:
        async with _client(protocol, log_level="info") as client:
            assert [tool["name"] for tool in await client.list_tools()][:2] == ["book", "login"]
            result = await client.call_tool("book", {"day": "monday"})
            assert result.text == "accept {'ok': True} file:///work yes"
            assert [(p["progress"], p["total"]) for p in result.progress] == [(1, 2), (2, 2)]
            assert result.logs == [{"level": "info", "data": "booking monday"}]
            # 2026-07-28 answers the three questions over input_required rounds; 2025 over one session.
            assert result.rounds == (4 if protocol == "2026-07-28" else 1)
            # 2025-03-26 predates structuredContent: the value arrives as JSON text only.
            expected: Any = '{"double": 8}' if protocol == "2025-03-26" else {"double": 8}
            assert (await client.call_tool("plain", {"count": 4})).data == expected
            invalid = await client.call_tool("plain", {"count": "x"})
            assert invalid.is_error and invalid.text.startswith("Invalid arguments: ")
            with pytest.raises(ProtocolError, match="Unknown tool: nope"):
                await client.call_tool("nope")

    asyncio.run(run())


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
def test_a_client_without_callbacks_declares_no_capability(protocol: str) -> None:
    async def run() -> None:
        async with Client(registry, protocol=protocol) as client:  # type: ignore[arg-type]
            with pytest.raises(ProtocolError, match="Missing required client capability: elicitation") as caught:
                await client.call_tool("book", {"day": "monday"})
            assert caught.value.code == -32021

    asyncio.run(run())


def test_sync_client_and_callback_errors() -> None:
    def refuse(params: dict[str, Any]) -> Any:
        raise RuntimeError("the user closed the dialog")

    with SyncClient(registry, elicitation=refuse, roots=[], sampling=refuse) as client:
        failed = client.call_tool("book", {"day": "friday"})
        # The client's error reaches the tool as ClientRequestError; the tool did not catch it.
        assert failed.is_error
        assert failed.text == "Tool 'book' failed: ClientRequestError: the user closed the dialog (code -32603)"


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
def test_url_elicitation_in_both_forms(protocol: str) -> None:
    asked: list[dict[str, Any]] = []

    def answer(params: dict[str, Any]) -> Any:
        asked.append(params)
        return {"action": "accept"}

    async def run() -> None:
        async with Client(registry, protocol=protocol, elicitation=answer) as client:  # type: ignore[arg-type]
            assert (await client.call_tool("login")).text == "accept"
            assert asked[-1] == {
                "mode": "url",
                "message": "Sign in",
                "url": "https://auth.example/login",
                "elicitationId": "e-1",
            }
            if protocol == "2026-07-28":
                # The input-required form: the same question in a round; the retry still lacks consent, so the
                # tool asks again until the client gives up.
                with pytest.raises(ProtocolError, match="still wanted input"):
                    await client.call_tool("needs_consent")
                assert asked[-1]["elicitationId"] == "c-1"
            else:
                with pytest.raises(ProtocolError) as caught:
                    await client.call_tool("needs_consent")
                assert caught.value.code == -32042
                [required] = caught.value.data["elicitations"]
                assert required == {
                    "mode": "url",
                    "message": "Consent",
                    "url": "https://auth.example/c",
                    "elicitationId": "c-1",
                }
            assert (await client.call_tool("needs_consent", {"granted": True})).text == "granted"

    asyncio.run(run())


def test_url_mode_needs_the_url_capability() -> None:
    async def run() -> None:
        # A 2025-06-18 client knows forms only: it declares elicitation as {}.
        client = Client(registry, protocol="2025-06-18", elicitation=lambda params: {"action": "accept"})
        async with client:
            with pytest.raises(ProtocolError, match=r"capability: elicitation\.url") as caught:
                await client.call_tool("login")
            assert caught.value.data == {"requiredCapabilities": {"elicitation": {"url": {}}}}

    asyncio.run(run())


def test_official_client_answers_url_elicitation_and_sees_the_required_error() -> None:
    pytest.importorskip("mcp")
    from pathlib import Path

    from mcp import Client as OfficialClient
    from mcp.client.stdio import StdioServerParameters
    from mcp.shared.exceptions import MCPError

    seen: list[Any] = []

    async def on_elicit(context: Any, params: Any) -> Any:
        from mcp_types import ElicitResult

        seen.append(params)
        return ElicitResult(action="accept")

    target = f"{Path(__file__).resolve()}:registry"
    params = StdioServerParameters(command=sys.executable, args=["-m", "mcptools", "serve", target])

    async def run() -> None:
        async with OfficialClient(params, mode="legacy", elicitation_callback=on_elicit) as client:
            result = await client.call_tool("login", {})
            assert getattr(result.content[0], "text", None) == "accept"
            assert seen[0].mode == "url" and seen[0].url == "https://auth.example/login"
            with pytest.raises(MCPError) as caught:
                await client.call_tool("needs_consent", {})
            assert caught.value.error.code == -32042
            assert caught.value.error.data["elicitations"][0]["elicitationId"] == "c-1"

    asyncio.run(asyncio.wait_for(run(), 60))


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
def test_complete_elicitation_notifies_a_2025_session_only(protocol: str) -> None:
    finishing = ToolRegistry("finishing")

    @finishing.tool
    async def finish(ctx: Context) -> str:
        await ctx.complete_elicitation("e-9")
        return "done"

    async def run() -> list[dict[str, Any]]:
        async with Client(finishing, protocol=protocol) as client:  # type: ignore[arg-type]
            assert (await client.call_tool("finish")).text == "done"
            return client.notifications

    sent = asyncio.run(run())
    expected = [{"jsonrpc": "2.0", "method": "notifications/elicitation/complete", "params": {"elicitationId": "e-9"}}]
    assert sent == (expected if protocol == "2025-11-25" else [])


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
def test_the_client_runs_the_registry_lifespan_around_its_session(protocol: str) -> None:
    from collections.abc import AsyncIterator
    from contextlib import asynccontextmanager

    events: list[str] = []

    @asynccontextmanager
    async def lifespan(_registry: ToolRegistry) -> AsyncIterator[dict[str, str]]:
        events.append("start")
        yield {"greeting": "hi"}
        events.append("stop")

    served = ToolRegistry("with-lifespan", lifespan=lifespan)

    @served.tool
    async def greet(ctx: Context) -> str:
        return str(ctx.state["greeting"])

    async def main() -> None:
        async with Client(served, protocol=protocol) as client:  # type: ignore[arg-type]
            assert events == ["start"]
            assert (await client.call_tool("greet")).text == "hi"
        assert events == ["start", "stop"]

    asyncio.run(main())


def test_the_official_sdks_url_params_model_is_read_by_its_wire_names() -> None:
    # The official SDK's "raise UrlElicitationRequiredError([ElicitRequestURLParams(...)])" runs unchanged with
    # our exception imported under that name: the model is read as the same params Context.url_elicitation builds.
    types = pytest.importorskip("mcp.types")
    model = types.ElicitRequestURLParams(
        mode="url", message="Consent", url="https://auth.example/c", elicitation_id="c-1"
    )
    ours = Context.url_elicitation("Consent", "https://auth.example/c", elicitation_id="c-1")
    assert URLElicitationRequired([model]).elicitations == [ours["params"]]
    assert URLElicitationRequired([ours]).elicitations == [ours["params"]]


def test_a_sync_client_whose_lifespan_fails_to_start_leaves_no_thread_behind() -> None:
    import threading
    from collections.abc import AsyncIterator
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(_registry: ToolRegistry) -> AsyncIterator[None]:
        if _registry.name:
            raise ConnectionError("the database is down")
        yield

    failing = ToolRegistry("failing-lifespan", lifespan=lifespan)
    before = {thread for thread in threading.enumerate() if thread.name == "mcptools-testing"}
    for _ in range(3):
        with pytest.raises(ConnectionError, match="the database is down"), SyncClient(failing):
            pass
    after = {thread for thread in threading.enumerate() if thread.name == "mcptools-testing"}
    assert after == before  # each attempt left its loop running in a thread before


@pytest.mark.parametrize("protocol", ["2025-06-18", "2025-03-26"])
def test_a_client_of_a_revision_before_url_mode_declares_forms_only(protocol: str) -> None:
    # A 2025-06-18 client has no URL mode: the test client declared one anyway, so elicit_url "worked" where no
    # real client of that revision could answer it. Forms still work.
    async def run() -> None:
        async with _client(protocol) as client:
            assert client.capabilities["elicitation"] == {}
            with pytest.raises(ProtocolError, match=r"capability: elicitation\.url"):
                await client.call_tool("login")
            assert (await client.call_tool("book", {"day": "monday"})).is_error is False

    asyncio.run(run())
