"""The three agent examples run their loop against the loopback replay server: bad call, retry, answer."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from provider_support import replay_server

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
BAD = {"location": "Paris", "days": 30}
GOOD = {"location": "Paris", "days": 3}
ERROR = "Invalid arguments: property 'days' must be <= 14"
RESULT = "Paris: sunny, 21°C, for the next 3 day(s)"


def _example(name: str) -> ModuleType:
    sys.path.insert(0, str(EXAMPLES))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(EXAMPLES))


def test_openai_agent() -> None:
    openai = pytest.importorskip("openai")
    example = _example("openai_agent")

    def turn(arguments: dict[str, Any] | None, call_id: str = "c") -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": None if arguments else "Sunny."}
        if arguments:
            message["tool_calls"] = [{"id": call_id, "type": "function",
                                      "function": {"name": "weather", "arguments": json.dumps(arguments)}}]  # fmt: skip
        return {"id": "x", "object": "chat.completion", "created": 1, "model": "m",
                "choices": [{"index": 0, "finish_reason": "stop", "message": message}]}  # fmt: skip

    with replay_server([turn(BAD, "c1"), turn(GOOD, "c2"), turn(None)]) as (url, replay):
        answer = example.ask(openai.OpenAI(base_url=url + "/v1", api_key="k", max_retries=0), "Weather?", model="m")
    assert answer == "Sunny."
    assert replay.requests[1][1]["messages"][-1] == {"role": "tool", "tool_call_id": "c1", "content": ERROR}
    assert replay.requests[2][1]["messages"][-1] == {"role": "tool", "tool_call_id": "c2", "content": RESULT}
    names = [tool["function"]["name"] for tool in replay.requests[0][1]["tools"]]
    assert names == ["weather", "units_convert"]


def test_anthropic_agent() -> None:
    anthropic = pytest.importorskip("anthropic")
    example = _example("anthropic_agent")

    def turn(arguments: dict[str, Any] | None, call_id: str = "t") -> dict[str, Any]:
        content = (
            [{"type": "tool_use", "id": call_id, "name": "weather", "input": arguments}]
            if arguments
            else [{"type": "text", "text": "Sunny."}]
        )
        return {"id": "m", "type": "message", "role": "assistant", "model": "m", "content": content,
                "stop_reason": "tool_use" if arguments else "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1}}  # fmt: skip

    with replay_server([turn(BAD, "t1"), turn(GOOD, "t2"), turn(None)]) as (url, replay):
        answer = example.ask(anthropic.Anthropic(base_url=url, api_key="k", max_retries=0), "Weather?", model="m")
    assert answer == "Sunny."
    assert replay.requests[1][1]["messages"][-1]["content"] == [
        {"type": "tool_result", "tool_use_id": "t1", "content": ERROR, "is_error": True}
    ]
    assert replay.requests[2][1]["messages"][-1]["content"] == [
        {"type": "tool_result", "tool_use_id": "t2", "content": RESULT}
    ]


def test_gemini_agent() -> None:
    genai = pytest.importorskip("google.genai")
    from google.genai import types

    example = _example("gemini_agent")

    def turn(arguments: dict[str, Any] | None, call_id: str = "g") -> dict[str, Any]:
        call = {"functionCall": {"id": call_id, "name": "weather", "args": arguments}}
        part = call if arguments else {"text": "Sunny."}
        return {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP"}]}

    with replay_server([turn(BAD, "g1"), turn(GOOD, "g2"), turn(None)]) as (url, replay):
        client = genai.Client(api_key="k", http_options=types.HttpOptions(base_url=url + "/"))
        answer = example.ask(client, "Weather?", model="m")
    assert answer == "Sunny."
    assert replay.requests[1][1]["contents"][-1]["parts"] == [
        {"functionResponse": {"id": "g1", "name": "weather", "response": {"error": ERROR}}}
    ]
    assert replay.requests[2][1]["contents"][-1]["parts"] == [
        {"functionResponse": {"id": "g2", "name": "weather", "response": {"result": RESULT}}}
    ]
    declared = replay.requests[0][1]["tools"][0]["functionDeclarations"]
    assert [d["name"] for d in declared] == ["weather", "units.convert"]


@pytest.mark.parametrize(
    ("name", "variables"),
    [
        ("openai_agent", ["OPENAI_API_KEY"]),
        ("anthropic_agent", ["ANTHROPIC_API_KEY"]),
        ("gemini_agent", ["GEMINI_API_KEY", "GOOGLE_API_KEY"]),
    ],
)
def test_examples_say_which_key_is_missing(
    name: str, variables: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for variable in variables:
        monkeypatch.delenv(variable, raising=False)
    assert _example(name).main() == 2
    assert variables[0] in capsys.readouterr().err
