"""The live tool list: remove, tags with enable/disable, include under a prefix, and the change notices a
2025 session receives (2026-07-28 clients see changes on their next tools/list). Driven through
``mcptools.testing.Client``, i.e. the real engine and pipeline."""

from __future__ import annotations

import asyncio
import threading

import pytest

from mcptools import Context, ToolDefinitionError, ToolRegistry
from mcptools.testing import Client, SyncClient


def _names(registry: ToolRegistry) -> list[str]:
    return [entry["name"] for entry in registry.list_tools()]


def _registry() -> ToolRegistry:
    registry = ToolRegistry("live")

    @registry.tool(tags={"admin", "danger"})
    def wipe() -> str:
        return "wiped"

    @registry.tool(tags={"admin"})
    def audit() -> str:
        return "audited"

    @registry.tool
    def hello() -> str:
        return "hello"

    return registry


def test_disable_by_tag_and_name_hides_and_refuses_and_enable_restores() -> None:
    registry = _registry()
    registry.disable(tags={"danger"})
    assert _names(registry) == ["audit", "hello"]
    assert registry.get("wipe") is None and "wipe" in registry and not registry.is_enabled("wipe")
    response = registry.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "wipe"}})
    assert response is not None and response["error"]["message"] == "Unknown tool: wipe"
    assert "wipe" not in registry.tools
    registry.disable("hello")
    assert _names(registry) == ["audit"]
    # Enabling a name does not override a disabled tag: wipe stays hidden until the tag is enabled.
    registry.enable("wipe", "hello")
    assert _names(registry) == ["audit", "hello"]
    registry.enable(tags={"danger"})
    assert _names(registry) == ["wipe", "audit", "hello"]


def test_disable_refuses_unknown_names_and_a_bare_string_of_tags() -> None:
    registry = _registry()
    with pytest.raises(KeyError, match="no tool named 'wipes'"):
        registry.disable("wipes")
    with pytest.raises(TypeError, match=r"tags=\{'admin'\}"):
        registry.disable(tags="admin")
    with pytest.raises(ToolDefinitionError, match=r"hello2.*tags must be a set of labels"):

        @registry.tool(name="hello2", tags="admin")
        def hello2() -> str:
            return "x"


def test_include_serves_the_same_tool_objects_under_a_prefix_live() -> None:
    parent, child = ToolRegistry("parent"), ToolRegistry("child")

    @child.tool
    def issue(number: int) -> str:
        return f"#{number}"

    parent.include(child, prefix="gh_")
    assert _names(parent) == ["gh_issue"]
    assert parent.get("gh_issue") is child.get("issue")
    response = parent.handle(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "gh_issue", "arguments": {"number": 7}}}
    )
    assert response is not None and response["result"]["content"][0]["text"] == "#7"

    @child.tool
    def pr() -> str:  # added after the include: it shows up in the parent too
        return "pr"

    assert _names(parent) == ["gh_issue", "gh_pr"]
    child.disable("pr")
    assert _names(parent) == ["gh_issue"]
    child.remove("issue")
    assert _names(parent) == [] and "gh_pr" in parent
    with pytest.raises(KeyError, match="comes from an included registry"):
        parent.remove("gh_pr")


def test_include_clashes_are_definition_errors_now_and_later() -> None:
    parent, child = ToolRegistry("parent"), ToolRegistry("child")

    @parent.tool
    def gh_issue() -> str:
        return "mine"

    @child.tool
    def issue() -> str:
        return "theirs"

    with pytest.raises(
        ToolDefinitionError, match=r"'issue' of included registry 'child' would be served as 'gh_issue'"
    ):
        parent.include(child, prefix="gh_")
    assert child.included() == [] and parent.included() == []
    parent.include(child, prefix="c_")

    def c_late() -> str:
        return "parent's"

    def late() -> str:
        return "child's"

    parent.add(c_late)
    # A later change in the included registry that would clash is refused there, and undone.
    with pytest.raises(ToolDefinitionError, match="'c_late'"):
        child.add(late)
    assert "late" not in child and _names(parent) == ["gh_issue", "c_late", "c_issue"]
    with pytest.raises(ToolDefinitionError, match="would include itself"):
        child.include(parent)


def test_a_2025_session_is_told_and_a_2026_client_sees_the_change_on_its_next_list() -> None:
    registry = _registry()

    async def run() -> None:
        async with Client(registry) as legacy, Client(registry, protocol="2026-07-28") as modern:
            assert legacy.tool_list_changes == 0
            registry.disable(tags={"admin"})
            await asyncio.sleep(0)
            assert legacy.tool_list_changes == 1
            assert [t["name"] for t in await legacy.list_tools()] == ["hello"]
            assert [t["name"] for t in await modern.list_tools()] == ["hello"]
            assert modern.tool_list_changes == 0  # no session: nothing is pushed
            registry.disable(tags={"admin"})  # no change to what is served: nothing is sent
            await asyncio.sleep(0)
            assert legacy.tool_list_changes == 1

    asyncio.run(run())


def test_changes_made_inside_running_tools_reach_the_session_sync_and_async() -> None:
    registry = ToolRegistry("inside")

    @registry.tool
    def add_sync(name: str) -> str:  # runs in a worker thread: the notice is handed to the loop's thread
        assert threading.current_thread() is not threading.main_thread()
        registry.add(lambda: name, name=name)
        return "ok"

    @registry.tool
    async def drop(name: str, ctx: Context) -> str:
        registry.remove(name)
        return "ok"

    with SyncClient(registry) as client:
        client.call_tool("add_sync", {"name": "fresh"})
        assert [t["name"] for t in client.list_tools()] == ["add_sync", "drop", "fresh"]
        assert client.call_tool("fresh").text == "fresh"
        client.call_tool("drop", {"name": "fresh"})
        assert [t["name"] for t in client.list_tools()] == ["add_sync", "drop"]
        methods = [m["method"] for m in client.notifications]
    assert methods.count("notifications/tools/list_changed") == 2


def test_listing_advertises_list_changed_and_truthful_cache_fields() -> None:
    registry = _registry()
    response = registry.handle(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}
    )
    assert response is not None and response["result"]["capabilities"]["tools"] == {"listChanged": True}

    async def run() -> None:
        async with Client(registry, protocol="2026-07-28") as client:
            result = await client._request("tools/list", {})
            # A live list must not be cached past a change: the default ttlMs is 0 (always revalidate).
            assert result["ttlMs"] == 0 and result["resultType"] == "complete"

    asyncio.run(run())


def test_changes_from_many_threads_at_once_keep_every_view_whole() -> None:
    parent, child = ToolRegistry("parent"), ToolRegistry("child")
    parent.include(child, prefix="c_")

    def fill(worker: int) -> None:
        for index in range(25):
            target = child if index % 2 else parent
            target.add(lambda: "x", name=f"t{worker}_{index}")

    threads = [threading.Thread(target=fill, args=(worker,)) for worker in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(child) == 6 * 12 and len(parent) == 6 * 25
    assert sorted(_names(parent)) == sorted(parent.tools) and len(parent.tools) == 150


def test_an_included_tool_keeps_its_registry_s_profile_export() -> None:
    parent, child = ToolRegistry("parent"), ToolRegistry("child", profile="gemini")

    @child.tool
    def lookup(query: str) -> str:
        return query

    parent.include(child, prefix="c_")
    assert parent.get("c_lookup") is child.get("lookup")
    assert child.get("lookup").exported is not None  # type: ignore[union-attr]
    assert parent.list_tools()[0]["inputSchema"] == child.list_tools()[0]["inputSchema"]


def test_listeners_are_told_of_changes_and_engines_are_held_weakly() -> None:
    import gc

    from mcptools._protocol.engine import Engine

    registry = _registry()
    heard: list[str] = []
    registry.on_tools_changed(lambda: heard.append("changed"))
    Engine(registry)  # subscribes, then is dropped: the registry must not keep it alive
    gc.collect()
    registry.disable("hello")
    registry.disable("hello")  # nothing served changed: nobody is told
    assert heard == ["changed"]
    assert len(registry._listeners) == 1
