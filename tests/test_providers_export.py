"""Exports: accepted by each SDK's own typed request models, real-world schemas, names, and clear refusals."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Literal

import pytest
from provider_support import Imported, agent_registry

from mcptools import ToolDefinitionError, ToolRegistry, validate
from mcptools._profiles import PROFILES, export_schema
from mcptools.providers import anthropic as p_anthropic
from mcptools.providers import gemini as p_gemini
from mcptools.providers import openai as p_openai

pydantic = pytest.importorskip("pydantic")
chat_types: Any = Imported("openai.types.chat")
responses_types: Any = Imported("openai.types.responses")
anthropic_types: Any = Imported("anthropic.types")
gtypes: Any = Imported("google.genai.types")

BAD_DAYS = "Invalid arguments: property 'days' must be integer"
SCHEMAS = sorted((Path(__file__).parent / "stubgen_schemas").glob("*.json"))


def _accepted(profile: str, name: str, description: str | None, schema: dict[str, Any]) -> None:
    """Raises unless the provider SDK's own request model takes this tool definition."""
    if profile == "openai":
        function: dict[str, Any] = {"name": name, "parameters": schema, "strict": True}
        pydantic.TypeAdapter(chat_types.ChatCompletionFunctionToolParam).validate_python(
            {"type": "function", "function": function}
        )
        pydantic.TypeAdapter(responses_types.FunctionToolParam).validate_python({"type": "function", **function})
    elif profile == "gemini":
        gtypes.FunctionDeclaration.model_validate({"name": name, "description": description, "parameters": schema})
    else:
        pydantic.TypeAdapter(anthropic_types.ToolParam).validate_python({"name": name, "input_schema": schema})


def test_exports_pass_the_sdk_models() -> None:
    registry = agent_registry()
    for tool in p_openai.tools(registry):
        pydantic.TypeAdapter(chat_types.ChatCompletionToolUnionParam).validate_python(tool)
    for tool in p_openai.tools(registry, api="responses"):
        pydantic.TypeAdapter(responses_types.FunctionToolParam).validate_python(tool)
    for tool in p_openai.tools(registry, strict=False):
        pydantic.TypeAdapter(chat_types.ChatCompletionToolUnionParam).validate_python(tool)
    for tool in p_anthropic.tools(registry):
        pydantic.TypeAdapter(anthropic_types.ToolParam).validate_python(tool)
    for tool in p_anthropic.tools(registry, strict=True):
        pydantic.TypeAdapter(anthropic_types.ToolParam).validate_python(tool)
        assert tool["strict"] is True and tool["input_schema"]["additionalProperties"] is False
    declarations = [gtypes.FunctionDeclaration.model_validate(d) for d in p_gemini.tools(registry)]
    assert [d.name for d in declarations] == ["weather", "geo.lookup"]
    as_json = p_gemini.tools(registry, json_schema=True)
    json_declarations = [gtypes.FunctionDeclaration.model_validate(d) for d in as_json]
    assert json_declarations[0].parameters_json_schema == registry.get("weather").input_schema  # type: ignore[union-attr]
    assert [t["function"]["name"] for t in p_openai.tools(registry)] == ["weather", "geo_lookup"]
    assert [t["name"] for t in p_anthropic.tools(registry)] == ["weather", "geo_lookup"]


def test_openai_strict_shape() -> None:
    schema = p_openai.tools(agent_registry())[0]["function"]["parameters"]
    assert schema["required"] == ["location", "days"]
    assert schema["additionalProperties"] is False
    assert schema["properties"]["days"]["type"] == ["integer", "null"]
    # Unsupported keywords are read by the model from the description.
    assert "(default: 1)" in schema["properties"]["days"]["description"]


@pytest.mark.parametrize("path", SCHEMAS, ids=[p.stem for p in SCHEMAS])
@pytest.mark.parametrize("profile", PROFILES)
def test_real_world_schemas_export_or_name_keyword_and_tool(path: Path, profile: str) -> None:
    document = json.loads(path.read_text())
    try:
        exported = export_schema(document["inputSchema"], profile, tool=document["name"])
    except ToolDefinitionError as exc:
        message = str(exc)
        assert f"tool {document['name']!r}" in message
        assert "keyword '" in message
        assert f"{profile} profile" in message
        return
    _accepted(profile, "t", document.get("description"), exported.schema)


def test_which_real_world_schemas_are_refused() -> None:
    """The refusals are the inexpressible ones: recursion where refs are inlined, open maps under strict and
    under Gemini (no additionalProperties on its Developer API)."""
    refused = set()
    for path in SCHEMAS:
        document = json.loads(path.read_text())
        for profile in PROFILES:
            try:
                export_schema(document["inputSchema"], profile, tool=document["name"])
            except ToolDefinitionError as exc:
                refused.add((path.stem, profile, str(exc).split("keyword ")[1].split(" ")[0]))
    assert refused == {
        ("draft07_family", "gemini", "'$ref'"),
        ("draft07_family", "anthropic-strict", "'$ref'"),
        ("zod_search", "openai", "'additionalProperties'"),
        ("zod_search", "anthropic-strict", "'additionalProperties'"),
        ("zod_search", "gemini", "'additionalProperties'"),
    }


def test_openai_recursive_defs_are_kept() -> None:
    document = json.loads((Path(__file__).parent / "stubgen_schemas" / "draft07_family.json").read_text())
    exported = export_schema(document["inputSchema"], "openai", tool="register_family")
    person = exported.schema["$defs"]["person"]
    assert person["properties"]["children"] == {"type": ["array", "null"], "items": {"$ref": "#/$defs/person"}}
    value = {"owner": {"name": "Ann", "children": [{"name": "Bo"}]}}
    shaped = exported.to_provider(value)
    assert shaped["owner"]["children"][0] == {"name": "Bo", "age": None, "address": None, "children": None}
    assert exported.from_provider(shaped) == value
    assert validate(exported.from_provider(shaped), document["inputSchema"]) == []


def test_names_are_mapped_back_and_a_clash_leaves_the_later_tool_out(caplog: pytest.LogCaptureFixture) -> None:
    registry = ToolRegistry("names")

    @registry.tool(name="a.b")
    def first() -> str:
        return "first"

    answer = p_openai.run(registry, [{"id": "1", "function": {"name": "a_b", "arguments": "{}"}}])
    assert answer[0]["content"] == "first"

    @registry.tool(name="a_b")
    def second() -> str:
        return "second"

    # Review of issue 19, finding 5: the clash raised for the whole registry, so every run() of an agent failed.
    with caplog.at_level(logging.WARNING, logger="mcptools"):
        assert [t["function"]["name"] for t in p_openai.tools(registry)] == ["a_b"]
        p_openai.tools(registry, strict=False)  # the same clash, said once (it was logged per profile)
        p_anthropic.tools(registry)
        p_anthropic.tools(registry, strict=True)
    answer = p_openai.run(registry, [{"id": "1", "function": {"name": "a_b", "arguments": "{}"}}])
    assert answer[0]["content"] == "first"
    reason = p_openai.relaxed(registry)["a_b"]
    assert reason.startswith("tool 'a_b' is 'a_b' under the openai name rule, and so is 'a.b', listed before it")
    assert [r.levelno for r in caplog.records if "openai export: tool 'a_b' left out" in r.getMessage()] == [
        logging.WARNING
    ]
    assert len([r for r in caplog.records if "anthropic export: tool 'a_b' left out" in r.getMessage()]) == 1
    # Gemini allows dots, so the same registry exports both there.
    assert [d["name"] for d in p_gemini.tools(registry)] == ["a.b", "a_b"]


def test_an_included_tool_clashing_with_an_own_one_is_left_out_with_the_prefix_fix() -> None:
    app = ToolRegistry("app")

    @app.tool
    def gh_issue() -> str:
        return "own"

    @app.tool
    def ping() -> str:
        return "pong"

    github = ToolRegistry("github")

    @github.tool
    def issue() -> str:
        return "included"

    app.include(github, prefix="gh.")
    assert [t["name"] for t in app.list_tools()] == ["gh_issue", "ping", "gh.issue"]
    for provider in (p_openai, p_anthropic):
        names = [t.get("function", t)["name"] for t in provider.tools(app)]
        assert names == ["gh_issue", "ping"]
        assert "prefix='...' on registry.include" in provider.relaxed(app)["gh.issue"]
    call = [{"id": "1", "function": {"name": "ping", "arguments": "{}"}}]
    assert p_openai.run(app, call)[0]["content"] == "pong"
    call = [{"id": "2", "function": {"name": "gh_issue", "arguments": "{}"}}]
    assert p_openai.run(app, call)[0]["content"] == "own"


def test_long_and_leading_digit_names() -> None:
    registry = ToolRegistry("names")
    long_name = "x" * 100

    @registry.tool(name=long_name)
    def long() -> str:
        return "long"

    @registry.tool(name="9lives")
    def nine() -> str:
        return "nine"

    exported = [t["function"]["name"] for t in p_openai.tools(registry)]
    assert len(exported[0]) == 64 and exported[1] == "9lives"
    answer = p_openai.run(registry, [{"id": "1", "function": {"name": exported[0], "arguments": ""}}])
    assert answer[0]["content"] == "long"
    gemini_names = [d["name"] for d in p_gemini.tools(registry)]
    assert gemini_names[1] == "_9lives"
    parts = p_gemini.run(registry, [{"name": "_9lives", "args": {}}])
    assert parts[0]["function_response"]["response"] == {"result": "nine"}


def test_openai_limits_are_checked_at_export() -> None:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(11):
        schema = {"type": "object", "properties": {"n": schema}, "required": ["n"], "additionalProperties": False}
    with pytest.raises(ToolDefinitionError, match=r"tool 'deep': keyword 'properties' .*10 levels of nesting"):
        export_schema(schema, "openai", tool="deep")
    wide = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(5001)}}
    with pytest.raises(ToolDefinitionError, match=r"tool 'wide': keyword 'properties' .*5000 properties"):
        export_schema(wide, "openai", tool="wide")

    def enums(count: int, size: int) -> dict[str, Any]:
        values = [f"{i:0{size}d}" for i in range(count)]
        closed = {"required": ["v"], "additionalProperties": False}
        return {"type": "object", "properties": {"v": {"enum": values}}, **closed}

    export_schema(enums(1000, 4), "openai", tool="many")
    with pytest.raises(ToolDefinitionError, match=r"tool 'many': keyword 'enum' at .*1000 enum values"):
        export_schema(
            {**enums(1000, 4), "properties": {"v": enums(1000, 4)["properties"]["v"], "w": {"enum": ["x"]}}},
            "openai",
            tool="many",
        )
    export_schema(enums(251, 59), "openai", tool="big")  # 14,809 characters
    with pytest.raises(ToolDefinitionError, match=r"15000 characters in an enum of over 250 values, this one has 15"):
        export_schema(enums(251, 60), "openai", tool="big")
    long_names = {"type": "object", "properties": {f"{i:0100d}": {"type": "string"} for i in range(1201)}}
    with pytest.raises(ToolDefinitionError, match=r"120000 characters of property names"):
        export_schema(long_names, "openai", tool="names")
    assert export_schema(enums(1001, 4), "anthropic", tool="many").schema["properties"]["v"]["enum"][1000] == "1000"


def test_gemini_subset() -> None:
    registry = ToolRegistry("g")

    @registry.tool
    def pick(
        mode: Literal["a", "b"], level: Literal[1, 2], note: str | None = None, tags: list[str] | None = None
    ) -> str:
        return mode

    schema = p_gemini.tools(registry)[0]["parameters"]
    assert schema["type"] == "OBJECT"
    assert schema["properties"]["mode"] == {"type": "STRING", "enum": ["a", "b"]}
    # Gemini's enum holds strings only: an integer enum is told to the model in words, checked by us.
    assert schema["properties"]["level"]["type"] == "INTEGER"
    assert "enum: [1, 2]" in schema["properties"]["level"]["description"]
    assert schema["properties"]["note"]["nullable"] is True and schema["properties"]["note"]["type"] == "STRING"
    assert schema["properties"]["tags"]["type"] == "ARRAY" and schema["properties"]["tags"]["nullable"] is True
    gtypes.FunctionDeclaration.model_validate({"name": "pick", "parameters": schema})
    out = p_gemini.run(registry, {"function_call": {"name": "pick", "args": {"mode": "a", "level": 3}}})
    error = "Invalid arguments: property 'level' must be one of [1, 2]"
    assert out[0]["function_response"]["response"] == {"error": error}


def test_unknown_profile_and_non_object_root() -> None:
    with pytest.raises(ToolDefinitionError, match="unknown schema profile 'bard'"):
        export_schema({"type": "object"}, "bard", tool="t")
    with pytest.raises(ToolDefinitionError, match="tool 't': keyword 'type'"):
        export_schema({"anyOf": [{"type": "object"}]}, "gemini", tool="t")
    with pytest.raises(ToolDefinitionError, match="unknown profile"):
        ToolRegistry("r", profile="bard")  # type: ignore[arg-type]


def test_anthropic_strict_has_its_own_profile() -> None:
    """Issue 19 F: Anthropic's strict subset keeps optional properties and has no numeric bounds."""
    registry = agent_registry()
    weather = p_anthropic.tools(registry, strict=True)[0]
    schema = weather["input_schema"]
    assert weather["strict"] is True and schema["required"] == ["location"]
    assert "minimum" not in schema["properties"]["days"] and "minimum: 1" in schema["properties"]["days"]["description"]
    block = {"type": "tool_use", "id": "t", "name": "weather", "input": {"location": "Oslo"}}
    assert p_anthropic.run(registry, [block], strict=True)[0]["content"] == "Oslo: sunny for 1 days"
    # null is a value Anthropic strict never sends for an integer; the original schema refuses it.
    block["input"] = {"location": "Oslo", "days": None}
    assert p_anthropic.run(registry, [block], strict=True)[0]["content"] == BAD_DAYS


def test_json_text_that_is_not_json_or_not_an_object() -> None:
    registry = agent_registry()
    calls = [
        {"id": "1", "type": "function", "function": {"name": "weather", "arguments": '{"location": "Oslo",'}},
        {"id": "2", "type": "function", "function": {"name": "weather", "arguments": "[1]"}},
    ]
    bad_json, not_object = p_openai.run(registry, {"tool_calls": calls})
    assert bad_json["content"].startswith("Invalid arguments: arguments are not valid JSON (")
    assert bad_json["content"].endswith("); send one JSON object")
    assert not_object["content"] == "Invalid arguments: arguments must be an object"


def test_tool_errors_and_failures_speak_like_mcp() -> None:
    registry = agent_registry()

    @registry.tool
    def broken() -> str:
        raise RuntimeError("secret path /etc/x")

    blocks = [
        {"type": "tool_use", "id": "a", "name": "weather", "input": {"location": "Atlantis"}},
        {"type": "tool_use", "id": "b", "name": "broken", "input": {}},
    ]
    refused, failed = p_anthropic.run(registry, {"role": "assistant", "content": blocks})
    assert refused == {"type": "tool_result", "tool_use_id": "a", "is_error": True,
                       "content": "No forecast for Atlantis; try a real city"}  # fmt: skip
    # The raised message as the peers send it (through the registry's one failure_result; masking is its option).
    assert failed["content"] == "Tool 'broken' failed: RuntimeError: secret path /etc/x" and failed["is_error"] is True


def test_provider_modules_import_no_sdk() -> None:
    import subprocess
    import sys

    code = (
        "import sys, mcptools, mcptools.providers.openai, mcptools.providers.anthropic, mcptools.providers.gemini\n"
        "loaded = sorted({m.split('.')[0] for m in sys.modules} & {'openai', 'anthropic', 'google', 'pydantic'})\n"
        "print(loaded)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_gemini_parameter_names_are_mapped_both_ways() -> None:
    registry = ToolRegistry("kebab")

    nested = {"type": "object", "properties": {"on-off": {"type": "boolean"}}}
    schema = {"type": "object", "properties": {"x-request-id": {"type": "string"}, "2fa": nested}}

    @registry.tool(input_schema={**schema, "required": ["x-request-id"]})
    def send(**arguments: Any) -> str:
        return json.dumps(arguments, sort_keys=True)

    exported_schema = p_gemini.tools(registry)[0]["parameters"]
    assert list(exported_schema["properties"]) == ["x_request_id", "_2fa"]
    assert exported_schema["required"] == ["x_request_id"]
    assert list(exported_schema["properties"]["_2fa"]["properties"]) == ["on_off"]
    gtypes.FunctionDeclaration.model_validate({"name": "send", "parameters": exported_schema})
    call = {"name": "send", "args": {"x_request_id": "r1", "_2fa": {"on_off": True}}}
    answer = p_gemini.run(registry, [call])[0]["function_response"]["response"]
    assert json.loads(answer["result"]) == {"x-request-id": "r1", "2fa": {"on-off": True}}
    exported = export_schema(registry.get("send").input_schema, "gemini", tool="send")  # type: ignore[union-attr]
    assert exported.to_provider({"x-request-id": "r1"}) == {"x_request_id": "r1"}
    clash = {"type": "object", "properties": {"a-b": {"type": "string"}, "a_b": {"type": "string"}}}
    with pytest.raises(ToolDefinitionError, match=r"tool 'c': keyword 'properties'.*two property names become one"):
        export_schema(clash, "gemini", tool="c")


def test_gemini_errors_name_paths_as_the_model_sent_them() -> None:
    """Review of issue 19: a Gemini model sends ``_match`` (its name for ``$match``) and read back "property
    '$match' must be string", a name it never saw. Paths are said in the export's names, through unions, arrays
    and a dependency's trigger; MCP's own tools/call keeps the contract's strings, in the served names."""
    registry = ToolRegistry("mongo")
    limit = {"type": "object", "properties": {"$limit": {"type": "integer", "minimum": 1}}, "required": ["$limit"]}
    stage = {"anyOf": [limit, {"type": "string"}]}
    odd = {"type": "object", "properties": {"user.age": {"type": "integer"}, "@id": {"type": "string"}}}
    schema = {
        "type": "object",
        "properties": {
            "$match": {"type": "string"},
            "$hint": {"type": "string"},
            "stage": stage,
            "pipeline": {"type": "array", "items": {"anyOf": [odd, {"type": "integer"}]}},
            "plain": {"type": "integer"},
        },
        "required": ["$match"],
        "dependentRequired": {"$hint": ["plain"]},
    }

    @registry.tool(input_schema=schema)
    def aggregate(**arguments: Any) -> str:
        return json.dumps(arguments, sort_keys=True)

    def refusal(args: dict[str, Any]) -> str:
        answer = p_gemini.run(registry, [{"name": "aggregate", "args": args}])[0]["function_response"]["response"]
        return str(answer["error"])

    assert refusal({"_match": 1}) == "Invalid arguments: property '_match' must be string"
    assert refusal({}) == "Invalid arguments: missing required property '_match'"
    assert refusal({"_match": "a", "stage": {"_limit": 0}}) == "Invalid arguments: property 'stage._limit' must be >= 1"
    assert refusal({"_match": "a", "pipeline": [3, {"user_age": "x", "_id": 2}], "plain": "p"}) == (
        "Invalid arguments: property 'pipeline[1].user_age' must be integer; property 'pipeline[1]._id' must be "
        "string; property 'plain' must be integer"
    )
    assert refusal({"_match": "a", "_hint": "h"}) == (
        "Invalid arguments: missing property 'plain' (required when '_hint' is present)"
    )
    # MCP's own tools/call: the served schema's names, in the contract's words.
    params = {"name": "aggregate", "arguments": {"$match": 1}}
    answer = registry.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    assert answer is not None and answer["result"]["content"][0]["text"] == BAD_MATCH
    # OpenAI renames no property: its refusals are the validator's own lines.
    call = {"id": "c", "type": "function", "function": {"name": "aggregate", "arguments": '{"$match": 1}'}}
    assert p_openai.run(registry, [call], strict=False)[0]["content"] == BAD_MATCH


BAD_MATCH = "Invalid arguments: property '$match' must be string"


def test_error_paths_a_profile_renames_nothing_in_are_kept_byte_for_byte() -> None:
    schema = {"type": "object", "properties": {"user.age": {"type": "integer"}, "plain": {"type": "integer"}}}
    exported = export_schema(schema, "gemini", tool="t")
    lines = [
        "property 'user.age' must be integer",  # a top-level odd name stands bare
        "property 'plain' must be integer",
        "value must be object",
        "unexpected property '[x'",
        "... and 3 more errors",
    ]
    assert exported.provider_paths({"user_age": "a"}, lines) == ["property 'user_age' must be integer", *lines[1:]]
    assert export_schema(schema, "openai", tool="t").provider_paths({}, lines) is lines


@pytest.mark.parametrize("profile", ["openai", "anthropic-strict", "gemini"])
def test_a_tuple_is_refused_with_advice_a_user_can_follow(profile: str) -> None:
    """Review of issue 19: ``tuple[int, str]`` was refused for its ``items: false`` ("remove it")."""
    registry = ToolRegistry("tuples")

    @registry.tool
    def place(pair: tuple[int, str]) -> str:
        return str(pair)

    with pytest.raises(ToolDefinitionError) as refused:
        export_schema(registry.list_tools()[0]["inputSchema"], profile, tool="place")
    assert str(refused.value) == (
        f"tool 'place': keyword 'prefixItems' at /properties/pair cannot be exported to the {profile} profile: a "
        f"tuple has no {profile} form (its items cannot be told apart by position); take a list[...] of one item "
        "type, or a TypedDict with named fields"
    )
