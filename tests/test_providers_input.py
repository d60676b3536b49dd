"""What ``run`` accepts as the provider's tool calls: a form it cannot read is refused by name, never taken as
"no calls" (an agent would then send nothing back and fail at the provider's next request)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcptools import ToolRegistry, UsageError
from mcptools.providers import anthropic as p_anthropic
from mcptools.providers import gemini as p_gemini
from mcptools.providers import openai as p_openai

registry = ToolRegistry("input")


@registry.tool
def echo(text: str) -> str:
    """Say it back."""
    return text


@pytest.mark.parametrize("provider", [p_openai, p_anthropic, p_gemini])
@pytest.mark.parametrize("calls", ["nonsense", 42, None, 1.5])
def test_input_that_is_no_form_of_tool_calls_is_refused_by_name(provider: Any, calls: object) -> None:
    with pytest.raises(TypeError, match=r"\.run\(\) takes .*; got " + type(calls).__name__):
        provider.run(registry, calls)


def test_an_openai_choice_is_read_through_its_message() -> None:
    choice = {
        "index": 0,
        "finish_reason": "tool_calls",
        "message": {
            "role": "assistant",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "echo", "arguments": '{"text": "hi"}'}}
            ],
        },
    }
    assert p_openai.run(registry, choice) == [{"role": "tool", "tool_call_id": "c1", "content": "hi"}]


def test_a_reply_without_tool_calls_still_answers_nothing() -> None:
    assert p_openai.run(registry, {"role": "assistant", "content": "done"}) == []
    assert p_anthropic.run(registry, {"role": "assistant", "content": [{"type": "text", "text": "done"}]}) == []
    assert p_gemini.run(registry, {"parts": [{"text": "done"}]}) == []


MALFORMED: list[tuple[Any, Any, str]] = [
    (p_openai, {"choices": [None]}, r"openai\.run\(\): choices\[0\] must be an object; got None"),
    (p_openai, {"choices": "x"}, r"openai\.run\(\): 'choices' must be a list of objects; got str"),
    (p_openai, {"choices": ["x"]}, r"openai\.run\(\): choices\[0\] must be an object; got str"),
    (p_openai, {"choices": [{"message": None}]}, r"openai\.run\(\): a choice's message must be an object"),
    (p_gemini, {"candidates": [None]}, r"gemini\.run\(\): candidates\[0\] must be an object; got None"),
    (p_gemini, {"candidates": ["x"]}, r"gemini\.run\(\): candidates\[0\] must be an object; got str"),
]


_CALL = {"id": "c1", "type": "function", "function": {"name": "echo", "arguments": '{"text": "hi"}'}}
# Review of issue 19: each of these answered [] or dropped the item, so a call's id got no answer and the
# provider refused the agent's next request.
MALFORMED += [
    (
        p_openai,
        {"tool_call": [_CALL]},
        r"openai\.run\(\) takes .*; got a dict with keys \['tool_call'\]: a tool call is",
    ),
    (p_openai, {}, r"openai\.run\(\) takes .*; got an empty dict: a tool call is \{'id', 'type': 'function'"),
    (p_openai, {"tool_calls": [_CALL, "x"]}, r"openai\.run\(\): item 1 of the calls must be an object; got str"),
    (p_openai, {"tool_calls": [_CALL, {"id": "c2"}]}, r"got a dict with keys \['id'\]: a tool call is"),
    (p_openai, {"tool_calls": [{"id": "c", "function": "echo"}]}, r"got a dict with keys \['function', 'id'\]"),
    (p_openai, {"role": "assistant", "tool_calls": "x"}, r"openai\.run\(\): 'tool_calls' must be a list; got str"),
    (p_anthropic, {"content": None}, r"anthropic\.run\(\): 'content' must be a list; got None"),
    (p_anthropic, {}, r"anthropic\.run\(\) takes .*; got an empty dict: a content block has a 'type'"),
    (p_anthropic, [{"id": "t", "name": "echo", "input": {}}], r"got a dict with keys \['id', 'input', 'name'\]"),
    (p_gemini, {}, r"gemini\.run\(\) takes .*; got an empty dict: a part holds a 'function_call'"),
    (p_gemini, {"parts": [{"function_call": "echo"}]}, r"got a dict with keys \['function_call'\]: a part holds"),
]


def test_a_turn_with_no_calls_in_a_known_form_answers_nothing() -> None:
    assert p_openai.run(registry, {"choices": []}) == []
    assert p_openai.run(registry, {"role": "assistant", "content": "done", "tool_calls": None}) == []
    reasoning = {"type": "reasoning", "id": "r", "summary": []}
    call = {"type": "function_call", "call_id": "f1", "name": "echo", "arguments": '{"text": "hi"}'}
    assert p_openai.run(registry, {"output": [reasoning, call]}) == [
        {"type": "function_call_output", "call_id": "f1", "output": "hi"}
    ]
    assert p_gemini.run(registry, {"candidates": [{"content": {"role": "model"}}]}) == []
    assert p_anthropic.run(registry, {"role": "assistant", "content": []}) == []


@pytest.mark.parametrize(("provider", "calls", "message"), MALFORMED)
def test_a_malformed_response_is_refused_by_name(provider: Any, calls: Any, message: str) -> None:
    """Review of issue 19, finding 7: these raised a bare AttributeError from inside the reader."""
    with pytest.raises(UsageError, match=message):
        provider.run(registry, calls)


def test_a_list_of_containers_is_refused_not_read_as_no_calls() -> None:
    """``response.choices``, a list of messages or ``response.candidates`` answered [] (no calls) before."""
    turn = {"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "echo", "arguments": "{}"}}]}
    with pytest.raises(UsageError, match=r"openai\.run\(\) takes .*; got a list of dict \(an item holding 'message'\)"):
        p_openai.run(registry, [{"index": 0, "message": turn}])
    message = {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "echo", "input": {}}]}
    with pytest.raises(UsageError, match=r"anthropic\.run\(\) takes .*holding 'role'"):
        p_anthropic.run(registry, [message])
    candidate = {"content": {"role": "model", "parts": [{"function_call": {"name": "echo", "args": {}}}]}}
    with pytest.raises(UsageError, match=r"gemini\.run\(\) takes .*holding 'content'"):
        p_gemini.run(registry, [candidate])


def test_an_unknown_tool_names_at_most_twenty_closest_first() -> None:
    big = ToolRegistry("big")
    for index in range(117):
        big.add(lambda: "ok", name=f"tool_{index:03d}")
    [answer] = p_openai.run(big, [{"id": "1", "function": {"name": "tool_1111", "arguments": "{}"}}])
    text = answer["content"]
    head, _, tail = text.partition("; the tools include: ")
    assert head == "Unknown tool: tool_1111"
    assert len(tail.split(", ")) == 20 and tail.endswith(" (and 97 more)")
    assert tail.startswith("tool_111, ")


REGISTRY_PROFILES = [None, "openai", "anthropic", "gemini"]


def _profiled(profile: Any) -> ToolRegistry:
    profiled = ToolRegistry(f"profiled-{profile}", profile=profile)
    schema = {
        "type": "object",
        "properties": {"x-id": {"type": "integer"}, "n": {"type": "integer", "default": 5}},
        "required": ["x-id"],
    }
    profiled.add(lambda **arguments: json.dumps(arguments, sort_keys=True), name="t", input_schema=schema)
    return profiled


def _answers(profiled: ToolRegistry) -> list[Any]:
    openai_call = {"id": "1", "function": {"name": "t", "arguments": {"x-id": 1, "n": None}}}
    anthropic_call = {"type": "tool_use", "id": "1", "name": "t", "input": {"x-id": 1, "n": None}}
    return [
        p_openai.run(profiled, [openai_call]),
        p_openai.run(profiled, [openai_call], strict=False),
        p_anthropic.run(profiled, [anthropic_call]),
        p_anthropic.run(profiled, [{**anthropic_call, "input": {"x_id": 7}}]),  # a name only Gemini's export has
        p_anthropic.run(profiled, [{**anthropic_call, "input": {"x-id": 1, "n": 2}}], strict=True),
        p_gemini.run(profiled, [{"name": "t", "args": {"x_id": 1}}]),
        p_gemini.run(profiled, [{"name": "t", "args": {"x-id": 1, "n": None}}], json_schema=True),
    ]


@pytest.mark.parametrize("profile", REGISTRY_PROFILES[1:])
def test_a_provider_run_is_the_same_whatever_the_registrys_profile(profile: Any) -> None:
    """Review of issue 19, finding 8: the registry's profile= mapped a provider's arguments a second time (on
    profile="openai" a null became absent for every provider; on "gemini" renamed names were read back)."""
    assert _answers(_profiled(profile)) == _answers(_profiled(None))
    texts = [
        str(answer[0].get("content") or answer[0]["function_response"]["response"])
        for answer in _answers(_profiled(profile))
    ]
    assert texts[0] == '{"x-id": 1}'  # OpenAI strict: null stands for absent, the default applies
    assert "property 'n' must be integer" in texts[1] and "property 'n' must be integer" in texts[2]
    assert "'x-id'" in texts[3] and "required" in texts[3]
