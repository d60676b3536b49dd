"""What ``run`` accepts as the provider's tool calls: a form it cannot read is refused by name, never taken as
"no calls" (an agent would then send nothing back and fail at the provider's next request)."""

from __future__ import annotations

from typing import Any

import pytest

from mcptools import ToolRegistry
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
