"""The agent loop end to end: each official SDK client against a loopback server replaying recorded responses.

Turn one asks for four calls: good arguments, bad arguments, an unknown tool, and an object sent as JSON text.
The test checks that our results reach the next request in the provider's own shape, and that the model's
retry of the bad call succeeds.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from provider_support import Imported, agent_registry, replay_server

from mcptools.providers import anthropic as p_anthropic
from mcptools.providers import gemini as p_gemini
from mcptools.providers import openai as p_openai

openai: Any = Imported("openai")
anthropic: Any = Imported("anthropic")
genai: Any = Imported("google.genai")
gtypes: Any = Imported("google.genai.types")

PLACE_TEXT = json.dumps({"city": "Paris"})
GOOD = "Paris: sunny for 1 days"
RETRIED = "Rome: sunny for 2 days"
BAD = "Invalid arguments: property 'days' must be integer"
NOTE = 'note: \'place\' was "{\\"city\\": \\"Paris\\"}", read as {"city": "Paris"}'


def _chat(tool_calls: list[dict[str, Any]] | None, text: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if tool_calls:
        message["tool_calls"] = tool_calls
    reason = "tool_calls" if tool_calls else "stop"
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-test",
        "choices": [{"index": 0, "finish_reason": reason, "message": message}],
    }


def _fn(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def test_openai_chat_loop() -> None:
    registry = agent_registry()
    turn1 = _chat(
        [
            _fn("c1", "weather", {"location": "Paris", "days": None}),
            _fn("c2", "weather", {"location": "Rome", "days": "two"}),
            _fn("c3", "forecast", {"location": "Rome"}),
            _fn("c4", "geo_lookup", {"place": PLACE_TEXT}),
        ]
    )
    turn2 = _chat([_fn("c5", "weather", {"location": "Rome", "days": 2})])
    with replay_server([turn1, turn2, _chat(None, "done")]) as (url, replay):
        client = openai.OpenAI(base_url=url + "/v1", api_key="test", max_retries=0)
        messages: list[Any] = [{"role": "user", "content": "Weather in Paris and Rome?"}]
        for _ in range(5):
            response = client.chat.completions.create(
                model="gpt-test", messages=messages, tools=p_openai.tools(registry)
            )
            message = response.choices[0].message
            if not message.tool_calls:
                break
            messages.append(message.model_dump(exclude_none=True))
            messages.extend(p_openai.run(registry, response))
        assert message.content == "done"
    second = replay.requests[1][1]["messages"]
    tool_messages = [m for m in second if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == ["c1", "c2", "c3", "c4"]
    assert tool_messages[0]["content"] == GOOD
    assert tool_messages[1]["content"] == BAD
    assert tool_messages[2]["content"].startswith("Unknown tool: forecast")
    assert tool_messages[3]["content"] == NOTE + "\nParis is on the map"
    third = replay.requests[2][1]["messages"]
    assert third[-1] == {"role": "tool", "tool_call_id": "c5", "content": RETRIED}


def _responses(output: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "model": "gpt-test",
        "status": "completed",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }


def _item(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function_call", "id": "fc_" + call_id, "call_id": call_id, "name": name,
            "arguments": json.dumps(arguments), "status": "completed"}  # fmt: skip


def test_openai_responses_loop() -> None:
    registry = agent_registry()
    turn1 = _responses([_item("c1", "weather", {"location": "Paris", "days": None}),
                        _item("c2", "weather", {"location": "Rome", "days": "two"})])  # fmt: skip
    turn2 = _responses([_item("c3", "weather", {"location": "Rome", "days": 2})])
    done = _responses([{"type": "message", "id": "m1", "role": "assistant", "status": "completed",
                        "content": [{"type": "output_text", "text": "done", "annotations": []}]}])  # fmt: skip
    with replay_server([turn1, turn2, done]) as (url, replay):
        client = openai.OpenAI(base_url=url + "/v1", api_key="test", max_retries=0)
        items: list[Any] = [{"role": "user", "content": "Weather?"}]
        for _ in range(5):
            tools = p_openai.tools(registry, api="responses")
            response = client.responses.create(model="gpt-test", input=items, tools=tools)
            results = p_openai.run(registry, response)
            if not results:
                break
            items += [item.model_dump(exclude_none=True) for item in response.output] + results
        assert response.output_text == "done"
    sent = [i for i in replay.requests[1][1]["input"] if i.get("type") == "function_call_output"]
    assert sent == [
        {"type": "function_call_output", "call_id": "c1", "output": GOOD},
        {"type": "function_call_output", "call_id": "c2", "output": BAD},
    ]
    assert replay.requests[2][1]["input"][-1] == {"type": "function_call_output", "call_id": "c3", "output": RETRIED}


def _message(content: list[dict[str, Any]]) -> dict[str, Any]:
    stop = "tool_use" if any(block["type"] == "tool_use" for block in content) else "end_turn"
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test", "content": content,
            "stop_reason": stop, "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}  # fmt: skip


def _use(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def test_anthropic_loop() -> None:
    registry = agent_registry()
    turn1 = _message(
        [
            {"type": "text", "text": "Let me look."},
            _use("t1", "weather", {"location": "Paris"}),
            _use("t2", "weather", {"location": "Rome", "days": "two"}),
            _use("t3", "forecast", {}),
            _use("t4", "geo_lookup", {"place": PLACE_TEXT}),
        ]
    )
    turn2 = _message([_use("t5", "weather", {"location": "Rome", "days": 2})])
    with replay_server([turn1, turn2, _message([{"type": "text", "text": "done"}])]) as (url, replay):
        client = anthropic.Anthropic(base_url=url, api_key="test", max_retries=0)
        messages: list[Any] = [{"role": "user", "content": "Weather?"}]
        for _ in range(5):
            response = client.messages.create(
                model="claude-test", max_tokens=100, messages=messages, tools=p_anthropic.tools(registry)
            )
            if response.stop_reason != "tool_use":
                break
            messages.append({"role": "assistant", "content": response.content})
            messages.append({"role": "user", "content": p_anthropic.run(registry, response)})
        assert response.content[0].text == "done"
    blocks = replay.requests[1][1]["messages"][-1]["content"]
    assert [b["tool_use_id"] for b in blocks] == ["t1", "t2", "t3", "t4"]
    assert blocks[0] == {"type": "tool_result", "tool_use_id": "t1", "content": GOOD}
    assert blocks[1] == {"type": "tool_result", "tool_use_id": "t2", "content": BAD, "is_error": True}
    assert blocks[2]["is_error"] is True and blocks[2]["content"].startswith("Unknown tool: forecast")
    assert blocks[3]["content"] == NOTE + "\nParis is on the map"
    assert replay.requests[2][1]["messages"][-1]["content"] == [
        {"type": "tool_result", "tool_use_id": "t5", "content": RETRIED}
    ]


def _candidate(parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}]}


def _call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"functionCall": {"id": call_id, "name": name, "args": arguments}}


def test_gemini_loop() -> None:
    registry = agent_registry()
    turn1 = _candidate(
        [
            _call("g1", "weather", {"location": "Paris"}),
            _call("g2", "weather", {"location": "Rome", "days": "two"}),
            _call("g3", "forecast", {}),
            _call("g4", "geo.lookup", {"place": PLACE_TEXT}),
        ]
    )
    turn2 = _candidate([_call("g5", "weather", {"location": "Rome", "days": 2})])
    with replay_server([turn1, turn2, _candidate([{"text": "done"}])]) as (url, replay):
        client = genai.Client(api_key="test", http_options=gtypes.HttpOptions(base_url=url + "/"))
        declarations = [gtypes.FunctionDeclaration.model_validate(d) for d in p_gemini.tools(registry)]
        config = gtypes.GenerateContentConfig(tools=[gtypes.Tool(function_declarations=declarations)])
        contents: list[Any] = [gtypes.Content(role="user", parts=[gtypes.Part(text="Weather?")])]
        for _ in range(5):
            response = client.models.generate_content(model="gemini-test", contents=contents, config=config)
            if not response.function_calls:
                break
            contents.append(response.candidates[0].content)
            contents.append({"role": "user", "parts": p_gemini.run(registry, response)})
        assert response.text == "done"
    parts = replay.requests[1][1]["contents"][-1]["parts"]
    answers = [p["functionResponse"] for p in parts]
    assert [a["id"] for a in answers] == ["g1", "g2", "g3", "g4"]
    assert answers[0] == {"id": "g1", "name": "weather", "response": {"result": GOOD}}
    assert answers[1]["response"] == {"error": BAD}
    assert answers[2]["response"]["error"].startswith("Unknown tool: forecast")
    assert answers[3]["response"] == {"result": NOTE + "\nParis is on the map"}
    last = replay.requests[2][1]["contents"][-1]["parts"][0]["functionResponse"]
    assert last == {"id": "g5", "name": "weather", "response": {"result": RETRIED}}


def test_arun_keeps_order_and_runs_async_tools_concurrently() -> None:
    registry = agent_registry()
    finished: list[str] = []

    @registry.tool
    async def slow(label: str, delay: float) -> str:
        await asyncio.sleep(delay)
        finished.append(label)
        return label

    calls = [_use("a", "slow", {"label": "first", "delay": 0.05}), _use("b", "slow", {"label": "second", "delay": 0})]
    results = asyncio.run(p_anthropic.arun(registry, _message(calls)))
    assert [(r["tool_use_id"], r["content"]) for r in results] == [("a", "first"), ("b", "second")]
    # The second call finished first, so it did not wait for the first: the batch ran concurrently.
    assert finished == ["second", "first"]
