"""The corpus of real servers' tools (``provider_corpus/``, sources and licences in its README) on every profile.

For every tool and every profile: the export either passes the provider's documented rules
(``provider_corpus_support``) or the tool is sent relaxed with a reason; valid arguments made for the original
schema are sent the way a model would under the export, inside each SDK's own response types, through
``run()``, and the tool receives exactly them (or the profile has no form for them, which only OpenAI strict may
say); values the export accepts map back to values the original accepts, short of constraints told in words.

The default run takes every tenth tool and three argument sets per tool; ``CI=true`` or
``HYPOTHESIS_PROFILE=ci`` takes all of them with eight.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
from provider_corpus_support import RULES, Maker, corpus
from provider_support import Imported, relaxed

from mcptools import ToolDefinitionError, ToolRegistry, compile_schema, validate
from mcptools._json import json_equal
from mcptools._profiles import NOT_SENDABLE, export_schema
from mcptools.providers import anthropic as p_anthropic
from mcptools.providers import gemini as p_gemini
from mcptools.providers import openai as p_openai

pydantic: Any = Imported("pydantic")
chat_types: Any = Imported("openai.types.chat")
anthropic_types: Any = Imported("anthropic.types")
gtypes: Any = Imported("google.genai.types")

FULL = os.environ.get("CI", "").lower() in ("1", "true", "yes") or os.environ.get("HYPOTHESIS_PROFILE") == "ci"
TOOLS = corpus()
SAMPLE = TOOLS if FULL else TOOLS[::10]
SEEDS = range(8 if FULL else 3)
SERVERS = sorted({server for server, _ in SAMPLE})
PROFILES = ("openai", "anthropic-strict", "gemini")


def test_the_corpus_is_there() -> None:
    assert len(TOOLS) >= 300 and len({server for server, _ in TOOLS}) >= 12


@cache
def _registry(server: str) -> ToolRegistry:
    """The sampled tools of one server, each answering with the arguments it received."""
    registry = ToolRegistry(server)
    for name, tool in ((s, t) for s, t in SAMPLE if s == server):
        del name

        def echo(**arguments: Any) -> str:
            return json.dumps(arguments, sort_keys=True)

        registry.add(echo, name=tool["name"], description=tool.get("description"), input_schema=tool["inputSchema"])
    return registry


def _valid(schema: dict[str, Any]) -> list[Any]:
    checker = compile_schema(schema)
    made = [Maker(schema, seed).value(schema) for seed in SEEDS]
    return [value for value in made if checker.is_valid(value)]


# -- the exports against the documents ----------------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
def test_every_export_passes_its_providers_documented_rules(profile: str) -> None:
    checked = refused = 0
    for server, tool in SAMPLE:
        try:
            exported = export_schema(tool["inputSchema"], profile, tool=tool["name"])
        except ToolDefinitionError as exc:
            assert f"tool {tool['name']!r}: keyword '" in str(exc)
            refused += 1
            continue
        schema = exported.schema
        if profile == "gemini" and not schema.get("properties"):
            continue  # no parameters: the declaration leaves them unset
        assert RULES[profile](schema) == [], (server, tool["name"])
        checked += 1
    assert checked > refused


def test_the_rule_checkers_can_fail() -> None:
    """The originals break the strict rules the exports keep (so the checks above are not vacuous)."""
    broken = {profile: sum(bool(RULES[profile](tool["inputSchema"])) for _, tool in SAMPLE) for profile in PROFILES}
    assert all(count > len(SAMPLE) // 2 for count in broken.values()), broken


@pytest.mark.parametrize("server", SERVERS)
def test_provider_exports_pass_the_sdks_and_the_rules(server: str) -> None:
    registry = _registry(server)
    adapter = pydantic.TypeAdapter
    for tool in p_openai.tools(registry):
        adapter(chat_types.ChatCompletionFunctionToolParam).validate_python(tool)
        function = tool["function"]
        assert function["strict"] is (function["name"] not in p_openai.relaxed(registry))
        if function["strict"]:
            assert RULES["openai"](function["parameters"]) == []
    for tool in p_anthropic.tools(registry, strict=True):
        adapter(anthropic_types.ToolParam).validate_python(tool)
        if tool.get("strict"):
            assert RULES["anthropic-strict"](tool["input_schema"]) == []
    for declaration in p_gemini.tools(registry):
        gtypes.FunctionDeclaration.model_validate(declaration)
        if "parameters" in declaration:
            assert RULES["gemini"](declaration["parameters"]) == []
        else:
            assert declaration["name"] in p_gemini.relaxed(registry) or "parameters_json_schema" not in declaration


# -- the calls a model can send -----------------------------------------------------------------------------


def _openai_turn(calls: list[tuple[str, Any]]) -> Any:
    tool_calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
        for i, (name, arguments) in enumerate(calls)
    ]
    return chat_types.ChatCompletionMessage.model_validate({"role": "assistant", "tool_calls": tool_calls})


def _anthropic_turn(calls: list[tuple[str, Any]]) -> Any:
    content = [{"type": "tool_use", "id": f"t{i}", "name": name, "input": args} for i, (name, args) in enumerate(calls)]
    usage = {"input_tokens": 1, "output_tokens": 1}
    message = {"id": "m", "type": "message", "role": "assistant", "model": "m", "content": content, "usage": usage}
    return anthropic_types.Message.model_validate({**message, "stop_reason": "tool_use"})


def _gemini_turn(calls: list[tuple[str, Any]]) -> Any:
    parts = [{"function_call": {"id": f"g{i}", "name": name, "args": args}} for i, (name, args) in enumerate(calls)]
    return gtypes.Content.model_validate({"role": "model", "parts": parts})


def _texts(provider: Any, results: list[dict[str, Any]]) -> list[str]:
    if provider is p_gemini:
        return [next(iter(r["function_response"]["response"].values())) for r in results]
    return [str(result["content"]) for result in results]


# (provider module, the profile of its export, its options, a model turn in its SDK's own types)
CASES: list[tuple[Any, str, dict[str, Any], Callable[[list[tuple[str, Any]]], Any]]] = [
    (p_openai, "openai", {}, _openai_turn),
    (p_anthropic, "anthropic-strict", {"strict": True}, _anthropic_turn),
    (p_gemini, "gemini", {}, _gemini_turn),
]


@pytest.mark.parametrize("server", SERVERS)
@pytest.mark.parametrize(("provider", "profile", "options", "turn"), CASES, ids=["openai", "anthropic", "gemini"])
def test_every_call_a_model_can_send_arrives_exact(
    server: str, provider: Any, profile: str, options: dict[str, Any], turn: Any
) -> None:
    registry = _registry(server)
    names = [(tool.get("function") or tool)["name"] for tool in provider.tools(registry, **options)]
    reasons = provider.relaxed(registry, **options)
    calls: list[tuple[str, Any]] = []
    expected: list[Any] = []
    for name, listed in zip(names, registry.list_tools(), strict=True):
        original = listed["inputSchema"]
        served = listed["name"]
        exported = export_schema(original, "anthropic" if served in reasons else profile, tool=served)
        provider_schema = exported.json_schema()
        checker = compile_schema(provider_schema)
        for value in _valid(original):
            shaped = exported.to_provider(value)
            if shaped is NOT_SENDABLE or not checker.is_valid(shaped):
                assert shaped is not NOT_SENDABLE or profile == "openai"
                continue
            calls.append((name, shaped))
            expected.append(value)
        for seed in SEEDS:
            sent = Maker(provider_schema, 100 + seed).value(provider_schema)
            if checker.is_valid(sent):
                back = exported.from_provider(sent)
                assert validate(back, relaxed(original, profile)) == [], (served, sent, back)
    results = _texts(provider, provider.run(registry, turn(calls), **options))
    assert len(results) == len(expected)
    for (name, shaped), value, text in zip(calls, expected, results, strict=True):
        assert json_equal(json.loads(text), value), (name, shaped, value, text)
