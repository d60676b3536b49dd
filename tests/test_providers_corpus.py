"""The corpus of real servers' tools (``provider_corpus/``, sources and licences in its README) on every profile.

For every tool and every profile: the export either passes the provider's documented rules
(``provider_corpus_support``) or the tool is sent relaxed with a reason; valid arguments made for the original
schema are sent the way a model would under the export, inside each SDK's own response types, through
``run()``, and the tool receives exactly them. A valid call the export refuses fails the test; the only call
allowed to have no form is OpenAI strict's documented one (an optional property that takes null, left out).
Values the export accepts map back to values the original accepts (short of constraints told in words) whose
provider form is the value sent: equal, not only valid.

The counts per profile (tools, relaxed, valid calls, sendable, not sendable, refused, arrived exact, provider
samples) are printed (``pytest -s``) and kept in ``.pytest_cache/v/mcptools/provider-corpus/<profile>``. The
default run takes every tenth tool and three argument sets per tool; ``CI=true`` or ``HYPOTHESIS_PROFILE=ci``
takes all of them with eight.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
from provider_corpus_support import RULES, Maker, corpus
from provider_support import Imported, MappedBack

from mcptools import ToolDefinitionError, ToolRegistry, compile_schema
from mcptools._json import json_equal
from mcptools._profiles import NOT_SENDABLE, export_schema
from mcptools._profiles.gemini import as_json_schema
from mcptools.providers import anthropic as p_anthropic
from mcptools.providers import gemini as p_gemini
from mcptools.providers import openai as p_openai

pydantic: Any = Imported("pydantic")
chat_types: Any = Imported("openai.types.chat")
anthropic_types: Any = Imported("anthropic.types")
gtypes: Any = Imported("google.genai.types")

FULL = os.environ.get("CI", "").lower() in ("1", "true", "yes") or os.environ.get("HYPOTHESIS_PROFILE") == "ci"
TOOLS = corpus()
# The synthetic tools (names Gemini renames, under unions of open objects; union branches OpenAI strict exports
# alike but maps back differently) are few and always taken.
SYNTHETIC = [(server, tool) for server, tool in TOOLS if server.startswith("synthetic")]
SAMPLE = TOOLS if FULL else [*(pair for pair in TOOLS[::10] if pair not in SYNTHETIC), *SYNTHETIC]
SEEDS = range(8 if FULL else 3)
SERVERS = sorted({server for server, _ in SAMPLE})
PROFILES = ("openai", "anthropic-strict", "gemini")


def test_the_corpus_is_there() -> None:
    assert len(TOOLS) >= 300 and len({server for server, _ in TOOLS}) >= 12
    # Gemini's renaming is exercised on tools its profile takes (not only on relaxed ones).
    renamed = [tool for server, tool in SYNTHETIC if server == "synthetic-renamed"]
    assert len(renamed) >= 5 and all(export_schema(tool["inputSchema"], "gemini", tool="t").shape for tool in renamed)
    # Where union branches take one form under OpenAI strict, back() is told apart by the schemas (the tie-break).
    unions = [tool for server, tool in SYNTHETIC if server == "synthetic-unions"]
    setting = export_schema(unions[0]["inputSchema"], "openai", tool="t").schema["$defs"]["Setting"]["anyOf"]
    assert [list(branch["properties"]) for branch in setting] == [["value", "fallback"]] * 2


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


def _sendable_schema(exported: Any, relaxed_tool: bool) -> dict[str, Any]:
    """What a model can send under the export, as JSON Schema: a Gemini ``Schema`` has no extra keys."""
    if exported.profile == "gemini" and not relaxed_tool:
        closed: dict[str, Any] = as_json_schema(exported.schema, closed=True)
        return closed
    return exported.json_schema()  # type: ignore[no-any-return]


def _takes_null(node: Any, maker: Maker) -> bool:
    node = maker.resolve(node)
    if not isinstance(node, dict):
        return False
    kinds = node.get("type")
    if kinds == "null" or (isinstance(kinds, list) and "null" in kinds):
        return True
    if "const" in node or isinstance(node.get("enum"), list):
        return None in (node["enum"] if isinstance(node.get("enum"), list) else [node["const"]])
    return any(_takes_null(branch, maker) for key in ("anyOf", "oneOf") for branch in node.get(key) or [])


def _leaves_out_a_nullable(node: Any, value: Any, maker: Maker, depth: int = 0) -> bool:
    """Whether ``value`` leaves out an optional property whose own schema takes null, somewhere: the one case
    OpenAI strict cannot send (every property must be sent, and null is a value there)."""
    node = maker.resolve(node)
    if not isinstance(node, dict) or depth > 20:
        return False
    parts = [branch for key in ("anyOf", "oneOf", "allOf") for branch in node.get(key) or []]
    if any(_leaves_out_a_nullable(part, value, maker, depth + 1) for part in parts):
        return True
    if isinstance(value, dict):
        required = node.get("required") or []
        for key, sub in (node.get("properties") or {}).items():
            if key not in value and key not in required and _takes_null(sub, maker):
                return True
            if key in value and _leaves_out_a_nullable(sub, value[key], maker, depth + 1):
                return True
    if isinstance(value, list) and isinstance(node.get("items"), dict):
        return any(_leaves_out_a_nullable(node["items"], item, maker, depth + 1) for item in value)
    return False


@pytest.mark.parametrize(("provider", "profile", "options", "turn"), CASES, ids=["openai", "anthropic", "gemini"])
def test_every_call_a_model_can_send_arrives_exact(
    provider: Any, profile: str, options: dict[str, Any], turn: Any, request: pytest.FixtureRequest
) -> None:
    """Valid arguments go out in the export's form, inside the SDK's own types, through run(): each arrives equal
    to the original, or the profile has no form for it (OpenAI strict only, and only for an optional property
    that takes null, left out); a valid call the export refuses fails the test. Values a model could send map
    back to values whose provider form is what was sent (equality), or break only a constraint told in words."""
    counts: Counter[str] = Counter()
    refused: list[Any] = []
    for server in SERVERS:
        registry = _registry(server)
        names = [(tool.get("function") or tool)["name"] for tool in provider.tools(registry, **options)]
        reasons = provider.relaxed(registry, **options)
        calls: list[tuple[str, Any]] = []
        expected: list[Any] = []
        for name, listed in zip(names, registry.list_tools(), strict=True):
            original, served = listed["inputSchema"], listed["name"]
            counts["tools relaxed" if served in reasons else "tools under the profile"] += 1
            exported = export_schema(original, "anthropic" if served in reasons else profile, tool=served)
            checker = compile_schema(_sendable_schema(exported, served in reasons))
            for value in _valid(original):
                counts["valid calls"] += 1
                counts["valid calls, tools under the profile"] += served not in reasons
                shaped = exported.to_provider(value)
                if shaped is NOT_SENDABLE:
                    counts["not sendable"] += 1
                    assert profile == "openai", (served, value)
                    assert _leaves_out_a_nullable(original, value, Maker(original, 0)), (served, value)
                elif not checker.is_valid(shaped):
                    refused.append((server, served, value, shaped))
                else:
                    calls.append((name, shaped))
                    expected.append(value)
            _map_back(exported, original, profile, counts)
        results = _texts(provider, provider.run(registry, turn(calls), **options))
        assert len(results) == len(expected)
        strict_names = {name for name, served in zip(names, [t["name"] for t in registry.list_tools()], strict=True)
                        if served not in reasons}  # fmt: skip
        for (name, shaped), value, text in zip(calls, expected, results, strict=True):
            counts["sendable"] += 1
            counts["sendable, tools under the profile"] += name in strict_names
            assert json_equal(json.loads(text), value), (name, shaped, value, text)
            counts["arrive exact"] += 1
            counts["arrive exact, tools under the profile"] += name in strict_names
    counts["refused by the export"] = len(refused)
    _report(request, profile, counts)
    assert not refused, f"{len(refused)} valid calls the {profile} export refuses, first: {refused[0]}"
    assert counts["arrive exact"] == counts["sendable"] > 0


def _map_back(exported: Any, original: dict[str, Any], profile: str, counts: Counter[str]) -> None:
    """Values a model could send under the export: never a wrong value (``MappedBack``), counted by kind."""
    provider_schema = exported.json_schema()
    checker = compile_schema(provider_schema)
    check = MappedBack(exported, original, profile)
    for seed in SEEDS:
        sent = Maker(provider_schema, 100 + seed).value(provider_schema)
        if checker.is_valid(sent):
            counts["provider samples"] += 1
            counts[f"provider samples: {check(sent)}"] += 1


def _report(request: pytest.FixtureRequest, profile: str, counts: Counter[str]) -> None:
    """The counts go to stdout (``pytest -s``) and to pytest's cache, where a reviewer reads them:
    ``.pytest_cache/v/mcptools/provider-corpus/<profile>`` (one JSON object per profile, last run)."""
    figures = {"full corpus": FULL, "tools": len(SAMPLE), "argument sets per tool": len(SEEDS), **counts}
    print(f"\nprovider corpus, {profile}: {json.dumps(figures)}")
    cache = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider
    if cache is not None:
        cache.set(f"mcptools/provider-corpus/{profile}", figures)
