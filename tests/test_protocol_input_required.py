"""Input-required rounds: the questions a tool asks, the sealed ``requestState`` that carries the answers, and
what a rerun does not repeat.
"""

from __future__ import annotations

from typing import Any

import pytest
from memory_support import MemoryClient
from protocol_support import NAME_FORM, make_registry, run

from mcptools import ToolRegistry
from mcptools._context import Context
from mcptools._protocol.engine import Engine
from mcptools._protocol.state import StateSealer


@pytest.fixture
def registry() -> ToolRegistry:
    return make_registry()


def test_input_required_round_trip(registry: ToolRegistry) -> None:
    client = MemoryClient(registry, capabilities={"elicitation": {}})
    first = run(client.stateless("tools/call", {"name": "greet"}))["result"]
    assert first["resultType"] == "input_required"
    assert first["inputRequests"] == {
        "who": {"method": "elicitation/create", "params": {"message": "Name?", "requestedSchema": NAME_FORM}}
    }
    assert type(first["requestState"]) is str
    done = run(
        client.stateless(
            "tools/call",
            {
                "name": "greet",
                "inputResponses": {"who": {"action": "accept", "content": {"name": "Ada"}}},
                "requestState": first["requestState"],
            },
        )
    )["result"]
    assert done["resultType"] == "complete"
    assert done["content"][0]["text"] == "Hello, Ada!"


def test_answers_from_earlier_rounds_travel_in_the_state(registry: ToolRegistry) -> None:
    client = MemoryClient(registry, capabilities={"elicitation": {}})
    one = run(client.stateless("tools/call", {"name": "two_rounds"}))["result"]
    assert list(one["inputRequests"]) == ["a"]
    two = run(
        client.stateless(
            "tools/call",
            {
                "name": "two_rounds",
                "inputResponses": {"a": {"action": "accept", "content": {"name": "x"}}},
                "requestState": one["requestState"],
            },
        )
    )["result"]
    assert list(two["inputRequests"]) == ["b"]
    assert two["requestState"] != one["requestState"]
    three = run(
        client.stateless(
            "tools/call",
            {
                "name": "two_rounds",
                "inputResponses": {"b": {"action": "accept", "content": {"name": "y"}}},
                "requestState": two["requestState"],
            },
        )
    )["result"]
    assert three["content"][0]["text"] == "x+y"


def test_state_that_was_altered_or_belongs_elsewhere_is_refused(registry: ToolRegistry) -> None:
    client = MemoryClient(registry, capabilities={"elicitation": {}})
    state = run(client.stateless("tools/call", {"name": "two_rounds"}))["result"]["requestState"]
    answer = {"a": {"action": "accept", "content": {"name": "x"}}}
    for params in (
        {"name": "two_rounds", "inputResponses": answer, "requestState": state + "-TAMPERED"},
        {"name": "two_rounds", "inputResponses": answer, "requestState": state[::-1]},
        {"name": "greet", "inputResponses": answer, "requestState": state},
        {"name": "two_rounds", "arguments": {"x": 1}, "inputResponses": answer, "requestState": state},
    ):
        response = run(client.stateless("tools/call", params))
        assert response["error"]["code"] == -32602, params
    other_server = MemoryClient(registry, engine=Engine(registry, sealer=StateSealer(b"another key")))
    response = run(
        other_server.stateless(
            "tools/call", {"name": "two_rounds", "requestState": state}, capabilities={"elicitation": {}}
        )
    )
    assert response["error"]["code"] == -32602


@pytest.mark.parametrize("responses", [None, 5, "x", [], {"who": 12345}, {"who": None}])
def test_input_responses_must_be_objects(registry: ToolRegistry, responses: Any) -> None:
    client = MemoryClient(registry, capabilities={"elicitation": {}})
    response = run(client.stateless("tools/call", {"name": "greet", "inputResponses": responses}))
    assert response["error"]["code"] == -32602


def test_unknown_answer_keys_are_ignored_and_missing_ones_asked_again(registry: ToolRegistry) -> None:
    client = MemoryClient(registry, capabilities={"elicitation": {}})
    again = run(client.stateless("tools/call", {"name": "greet", "inputResponses": {"other": {"action": "cancel"}}}))
    assert again["result"]["resultType"] == "input_required"
    extra = run(
        client.stateless(
            "tools/call",
            {
                "name": "greet",
                "inputResponses": {
                    "who": {"action": "accept", "content": {"name": "Bo"}},
                    "junk": {"action": "accept"},
                },
            },
        )
    )
    assert extra["result"]["content"][0]["text"] == "Hello, Bo!"


def test_several_questions_in_one_round(registry: ToolRegistry) -> None:
    client = MemoryClient(registry, capabilities={"elicitation": {}, "roots": {}})
    first = run(client.stateless("tools/call", {"name": "batch"}))["result"]
    assert {k: v["method"] for k, v in first["inputRequests"].items()} == {
        "n": "elicitation/create",
        "r": "roots/list",
    }


def test_a_broad_except_in_a_tool_does_not_swallow_the_round(registry: ToolRegistry) -> None:
    client = MemoryClient(registry, capabilities={"elicitation": {}})
    result = run(client.stateless("tools/call", {"name": "careless"}))["result"]
    assert result["resultType"] == "input_required"


def test_a_rerun_after_input_required_does_not_repeat_progress_or_logs() -> None:
    registry = ToolRegistry("rerun")

    @registry.tool
    async def survey(ctx: Context) -> str:
        await ctx.report_progress(0, 2)
        await ctx.info("starting")
        first = await ctx.elicit("Name?", NAME_FORM)
        await ctx.report_progress(1, 2)
        await ctx.info("asked once")
        second = await ctx.elicit("Again?", NAME_FORM)
        await ctx.report_progress(2, 2)
        await ctx.info("done")
        return str(first["content"]["name"]) + str(second["content"]["name"])

    client = MemoryClient(registry, capabilities={"elicitation": {}})

    def round_trip(params: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, Any]]]:
        client.notifications.clear()
        body = {"name": "survey", **params}
        response = run(client.stateless("tools/call", body, log_level="info", meta={"progressToken": "t"}))
        assert response is not None
        sent = [
            ("progress", n["params"]["progress"])
            if n["method"] == "notifications/progress"
            else ("log", n["params"]["data"])
            for n in client.notifications
        ]
        return response["result"], sent

    answer = {"action": "accept", "content": {"name": "A"}}
    one, sent_one = round_trip({})
    assert sent_one == [("progress", 0), ("log", "starting")]
    two, sent_two = round_trip({"inputResponses": {"elicit_1": answer}, "requestState": one["requestState"]})
    assert sent_two == [("progress", 1), ("log", "asked once")]
    three, sent_three = round_trip({"inputResponses": {"elicit_2": answer}, "requestState": two["requestState"]})
    assert sent_three == [("progress", 2), ("log", "done")]
    assert three["content"][0]["text"] == "AA"
    # A fresh call (no requestState) is a new chain: everything is sent again.
    _, sent_again = round_trip({})
    assert sent_again == [("progress", 0), ("log", "starting")]
