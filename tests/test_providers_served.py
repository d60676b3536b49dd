"""The providers export what the registry serves now, to the caller asking, and run only that.

Issue 19 C: disabled tools were exported, included ones under unprefixed names, and the export cache (keyed by
the tool count) raised after remove() then add(). D: one tool strict mode cannot take sank the whole export.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from http_support import call as http_call
from http_support import request, stateless_headers

from mcptools import Context, ToolRegistry, UsageError
from mcptools._transports.asgi import StreamableHTTPApp
from mcptools.auth import AuthSettings, Principal, StaticTokenVerifier
from mcptools.providers import anthropic as p_anthropic
from mcptools.providers import gemini as p_gemini
from mcptools.providers import openai as p_openai


def _names(provider: Any, registry: ToolRegistry, **options: Any) -> list[str]:
    exported = provider.tools(registry, **options)
    return [tool["function"]["name"] if "function" in tool else tool["name"] for tool in exported]


def _call(provider: Any, registry: ToolRegistry, name: str, **options: Any) -> str:
    """One call through ``provider.run`` in its own shape; the text the model gets back."""
    if provider is p_openai:
        out = provider.run(registry, [{"id": "1", "function": {"name": name, "arguments": "{}"}}], **options)
        return str(out[0]["content"])
    if provider is p_anthropic:
        out = provider.run(registry, [{"type": "tool_use", "id": "1", "name": name, "input": {}}], **options)
        return str(out[0]["content"])
    out = provider.run(registry, [{"name": name, "args": {}}], **options)
    response = out[0]["function_response"]["response"]
    return str(response.get("result", response.get("error")))


def _app() -> tuple[ToolRegistry, ToolRegistry]:
    github = ToolRegistry("github")

    @github.tool
    def issue() -> str:
        return "issue"

    app = ToolRegistry("app")

    @app.tool(tags={"admin"})
    def reset() -> str:
        return "reset"

    @app.tool(scopes=["files:write"])
    def write() -> str:
        return "written"

    app.include(github, prefix="gh_")
    return app, github


PROVIDERS = [p_openai, p_anthropic, p_gemini]


@pytest.mark.parametrize("provider", PROVIDERS, ids=["openai", "anthropic", "gemini"])
def test_exports_follow_every_change_to_what_is_served(provider: Any) -> None:
    app, github = _app()
    app.remove("write")  # no scoped tool: no principal= needed (see the tests of principal= below)
    assert _names(provider, app) == ["reset", "gh_issue"] == [t["name"] for t in app.list_tools()]
    assert _call(provider, app, "gh_issue") == "issue"
    app.disable(tags={"admin"})
    assert _names(provider, app) == ["gh_issue"]
    assert _call(provider, app, "reset").startswith("Unknown tool: reset; the tools are: gh_issue")
    app.enable(tags={"admin"})
    assert _names(provider, app) == ["reset", "gh_issue"]
    assert _call(provider, app, "reset") == "reset"

    @github.tool
    def pulls() -> str:
        return "pulls"

    assert _names(provider, app)[-1] == "gh_pulls" and _call(provider, app, "gh_pulls") == "pulls"
    github.remove("pulls")
    assert "gh_pulls" not in _names(provider, app)
    removed = app.remove("reset")

    @app.tool
    def status() -> str:
        return "ok"

    app.add(removed.fn, name="reset", tags={"admin"})  # same count as before: the old cache keyed on it
    assert _names(provider, app) == ["status", "reset", "gh_issue"] == [t["name"] for t in app.list_tools()]
    assert _call(provider, app, "reset") == "reset"
    app.disable("gh_issue")
    assert _names(provider, app) == ["status", "reset"]
    assert _call(provider, app, "gh_issue").startswith("Unknown tool: gh_issue")
    later = ToolRegistry("later")

    @later.tool
    def ping() -> str:
        return "pong"

    app.include(later, prefix="l.")
    assert (
        _names(provider, app)[-1] in ("l_ping", "l.ping") and _call(provider, app, _names(provider, app)[-1]) == "pong"
    )


@pytest.mark.parametrize("provider", PROVIDERS, ids=["openai", "anthropic", "gemini"])
def test_a_caller_sees_and_runs_only_the_tools_its_scopes_allow(provider: Any) -> None:
    app, _ = _app()
    reader = Principal("reader", frozenset({"files:read"}))
    writer = Principal("writer", frozenset({"files:write"}))
    assert _names(provider, app, principal=reader) == ["reset", "gh_issue"]
    assert _names(provider, app, principal=writer) == ["reset", "write", "gh_issue"]
    assert _call(provider, app, "write", principal=reader).startswith("Unknown tool: write")
    assert _call(provider, app, "write", principal=writer) == "written"
    # principal=None: no particular caller (scopes not applied, as over stdio): every served tool.
    assert _names(provider, app, principal=None) == ["reset", "write", "gh_issue"]
    assert _call(provider, app, "write", principal=None) == "written"


@pytest.mark.parametrize("provider", PROVIDERS, ids=["openai", "anthropic", "gemini"])
def test_a_registry_with_scoped_tools_needs_principal_said(provider: Any) -> None:
    """Review of issue 19, finding 4: without principal= the export and the run acted for no particular caller
    even inside an authorized request, so an agent tool handed admin tools to any caller. Where a served tool
    has scopes, leaving principal= out is refused; without scoped tools nothing changes."""
    app, _ = _app()
    needed = r"serves tools with scopes \(write\).*principal=ctx\.principal.*principal=None"
    with pytest.raises(UsageError, match=needed):
        _names(provider, app)
    with pytest.raises(UsageError, match=needed):
        provider.relaxed(app)
    with pytest.raises(UsageError, match=needed):
        _call(provider, app, "reset")
    with pytest.raises(UsageError, match=needed):
        asyncio.run(provider.arun(app, []))
    app.disable("write")  # what is served decides, as tools/list shows it
    assert _names(provider, app) == ["reset", "gh_issue"]


def test_the_principal_given_to_run_is_the_tools_caller() -> None:
    registry = ToolRegistry("who")

    @registry.tool(scopes=["me"])
    def whoami(ctx: Context) -> str:
        principal = ctx.principal
        return principal.subject if principal is not None else "nobody"

    ann = Principal("ann", frozenset({"me"}))
    call = [{"id": "1", "function": {"name": "whoami", "arguments": "{}"}}]
    assert p_openai.run(registry, call, principal=ann)[0]["content"] == "ann"
    assert asyncio.run(p_openai.arun(registry, call, principal=ann))[0]["content"] == "ann"
    assert p_openai.run(registry, call, principal=None)[0]["content"] == "nobody"  # nothing of ann's stayed behind


def test_inside_an_authorized_request_an_agent_passes_its_caller() -> None:
    """Over Streamable HTTP with a token: an agent tool exports and runs for ``ctx.principal`` (a tool the caller
    lacks the scopes of is neither exported nor run), and leaving principal= out is refused, not run for all."""
    registry = ToolRegistry("inner-agent")

    @registry.tool(scopes=["admin"])
    def purge() -> str:
        return "purged"

    @registry.tool
    def agent(ctx: Context, say: bool = True) -> str:
        turn = [{"id": "1", "function": {"name": "purge", "arguments": "{}"}}]
        if not say:
            return str(p_openai.run(registry, turn)[0]["content"])
        names = [tool["function"]["name"] for tool in p_openai.tools(registry, principal=ctx.principal)]
        ran = p_openai.run(registry, turn, principal=ctx.principal)[0]["content"]
        return f"{names} {ran}"

    app = StreamableHTTPApp(registry, auth=AuthSettings(StaticTokenVerifier("tok", scopes=["mcp"])))

    def answer(arguments: dict[str, Any]) -> Any:
        body = request("tools/call", {"name": "agent", "arguments": arguments})
        headers = {"authorization": "Bearer tok", **stateless_headers("tools/call", "agent")}
        reply = asyncio.run(http_call(app, body=body, headers=headers))
        assert reply.status == 200
        return reply.json()["result"]

    said = answer({})
    assert said["content"][0]["text"] == "['agent'] Unknown tool: purge; the tools are: agent"
    unsaid = answer({"say": False})
    # The agent that says no caller fails, naming the fix, rather than exporting purge to this caller.
    assert unsaid["isError"] is True
    assert unsaid["content"][0]["text"].startswith("Tool 'agent' failed: UsageError: mcptools.providers.openai: ")
    assert "pass principal=ctx.principal inside an authorized request" in unsaid["content"][0]["text"]


def _mixed() -> ToolRegistry:
    registry = ToolRegistry("mixed")

    @registry.tool
    def fine(text: str) -> str:
        return text

    @registry.tool(input_schema={"type": "object", "additionalProperties": {"type": "integer"}})
    def counts(**values: int) -> str:
        return str(sum(values.values()))

    return registry


@pytest.mark.parametrize(
    ("provider", "options", "flag"),
    [(p_openai, {}, "strict"), (p_anthropic, {"strict": True}, "strict"), (p_gemini, {}, "parameters")],
    ids=["openai", "anthropic", "gemini"],
)
def test_a_tool_the_profile_cannot_take_goes_relaxed_and_the_rest_export(
    provider: Any, options: dict[str, Any], flag: str, caplog: pytest.LogCaptureFixture
) -> None:
    registry = _mixed()
    with caplog.at_level(logging.INFO, logger="mcptools"):
        exported = provider.tools(registry, **options)
        provider.tools(registry, **options)  # a second export reports nothing new
    flat = [tool.get("function", tool) for tool in exported]
    assert [tool["name"] for tool in flat] == ["fine", "counts"]
    if flag == "strict":
        assert [tool.get("strict", False) for tool in flat] == [True, False]
        assert flat[1].get("parameters", flat[1].get("input_schema")) == registry.get("counts").input_schema  # type: ignore[union-attr]
    else:
        assert "parameters" in flat[0] and flat[1]["parameters_json_schema"] == registry.get("counts").input_schema  # type: ignore[union-attr]
    reasons = provider.relaxed(registry, **options)
    assert list(reasons) == ["counts"] and "keyword 'additionalProperties'" in reasons["counts"]
    # Relaxed is the documented default: reported once, at INFO; a tool left out (below) at WARNING.
    reports = [r for r in caplog.records if "counts" in r.getMessage()]
    assert [r.levelno for r in reports] == [logging.INFO] and reasons["counts"] in reports[0].getMessage()
    arguments = {"a": 2, "b": 3}
    if provider is p_openai:
        answer = provider.run(registry, [{"id": "1", "function": {"name": "counts", "arguments": arguments}}])
        assert answer[0]["content"] == "5"
    # fallback=False leaves the tool out, and a call to it is unknown.
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="mcptools"):
        assert _names(provider, registry, fallback=False, **options) == ["fine"]
    assert [r.levelno for r in caplog.records if "'counts' left out" in r.getMessage()] == [logging.WARNING]
    assert list(provider.relaxed(registry, fallback=False, **options)) == ["counts"]
    assert _call(provider, registry, "counts", fallback=False, **options).startswith("Unknown tool: counts")


def test_anthropic_strict_budget_sends_tools_past_it_non_strict() -> None:
    registry = ToolRegistry("many")
    for index in range(22):
        registry.add(lambda: "ok", name=f"t{index}")
    exported = p_anthropic.tools(registry, strict=True)
    assert [tool.get("strict", False) for tool in exported] == [True] * 20 + [False] * 2
    reason = p_anthropic.relaxed(registry, strict=True)["t20"]
    assert reason == (
        "Anthropic strict tool use allows 20 strict tools in one request; this tool has 1 and the strict tools "
        "before it 20"
    )
    optional = ToolRegistry("optional")
    for index in range(3):
        schema = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(10)}}
        optional.add(lambda **kw: "ok", name=f"o{index}", input_schema=schema)
    assert [tool.get("strict", False) for tool in p_anthropic.tools(optional, strict=True)] == [True, True, False]
    assert "24 optional properties" in p_anthropic.relaxed(optional, strict=True)["o2"]


def test_served_version_moves_with_every_change_to_what_is_served_and_only_then() -> None:
    app, github = _app()
    seen = [app.served_version]

    def moved() -> bool:
        seen.append(app.served_version)
        return seen[-1] != seen[-2]

    app.disable("reset")
    assert moved()
    app.disable("reset")  # already disabled: nothing served changes
    assert not moved()
    app.enable("reset")
    assert moved()
    github.add(lambda: "x", name="later")
    assert moved()
    github.remove("later")
    assert moved()
    app.include(ToolRegistry("empty"))  # includes nothing served
    assert not moved()
    app.remove("write")
    assert moved()
