"""A server written the way public MCP servers are (pydantic models with Field metadata, dates, UUIDs, Decimals,
structured results, a typed form), served over stdio the way users run it (``python -m mcptools serve``) to the
official MCP client: list, good calls, bad calls, and an elicitation answered well and badly.

The official client checks ``structuredContent`` against the tool's ``outputSchema`` itself, so a result that
did not match its schema would fail here on the client's side, not only on ours.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

mcp = pytest.importorskip("mcp")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "parcels.py"
PARCEL = "7d0e1c2a-8b7f-4c3e-9a51-2f6d8e4b0c11"


def _text(result: Any) -> str:
    [block] = result.content
    text: str = block.text
    return text


def _answers(*contents: dict[str, Any]) -> Any:
    queue = list(contents)
    asked: list[Any] = []

    async def answer(context: Any, params: Any) -> Any:
        from mcp_types import ElicitResult

        asked.append(params.requested_schema)
        return ElicitResult(action="accept", content=queue.pop(0))

    answer.asked = asked  # type: ignore[attr-defined]
    return answer


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_a_typed_server_over_stdio_to_the_official_client(mode: str) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "mcptools", "serve", str(EXAMPLE)])
    answer = _answers({"retry": True, "day": "monday", "attempts": 2}, {"retry": True, "attempts": 9})

    async def run() -> None:
        async with Client(params, mode=mode, elicitation_callback=answer) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            parcel = tools["track"].output_schema
            assert parcel is not None
            assert parcel["properties"]["parcel_id"] == {
                "type": "string",
                "format": "uuid",
                "description": "The tracking number",
            }
            assert parcel["properties"]["scans"]["items"]["properties"]["at"]["format"] == "date-time"
            assert "outputSchema" not in tools["depot_hours"].model_dump(by_alias=True, exclude_none=True)

            tracked = await client.call_tool("track", {"parcel": PARCEL})
            assert tracked.is_error is False
            assert tracked.structured_content is not None
            assert tracked.structured_content["scans"][1] == {"at": "2026-12-02T17:40:00+00:00", "depot": "Paris"}
            assert tracked.structured_content["weight_kg"] == "1.250"
            assert json.loads(_text(tracked)) == tracked.structured_content

            windows = await client.call_tool("delivery_windows", {"days": 2})
            assert windows.structured_content == {"result": ["2026-12-03T09:00:00+00:00", "2026-12-04T09:00:00+00:00"]}
            assert json.loads(_text(windows)) == ["2026-12-03T09:00:00+00:00", "2026-12-04T09:00:00+00:00"]

            courier = await client.call_tool("courier", {"name": "Lea"})
            assert courier.structured_content == {"name": "Lea", "rating": 4.8, "since": "2019-05-01"}

            hours = await client.call_tool("depot_hours", {"depot": "Lyon"})
            assert _text(hours) == '{"depot": "Lyon", "opens": "08:00:00+00:00", "closes": "18:30:00+00:00"}'

            unknown = await client.call_tool("track", {"parcel": "nope"})
            assert unknown.is_error is True and _text(unknown).startswith("No parcel nope;")
            too_far = await client.call_tool("delivery_windows", {"days": 9})
            assert _text(too_far) == "Invalid arguments: property 'days' must be <= 7"
            wrong = await client.call_tool("track", {"parcel": 7})
            assert _text(wrong) == "Invalid arguments: property 'parcel' must be string"

            rescheduled = await client.call_tool("reschedule", {"parcel": PARCEL})
            assert _text(rescheduled) == f"Parcel {PARCEL}: 2 more attempt(s), next on monday"
            form = answer.asked[0]
            assert form["properties"]["attempts"] == {
                "type": "integer",
                "minimum": 1,
                "maximum": 3,
                "description": "How many more attempts",
                "default": 1,
            }
            refused = await client.call_tool("reschedule", {"parcel": PARCEL})
            assert refused.is_error is True
            assert _text(refused) == (
                "The answer to 'Nobody was home. Deliver again?' does not fit the form: property 'attempts' must be "
                "<= 3"
            )

    asyncio.run(asyncio.wait_for(run(), 60))


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_request_models_dates_uuids_and_the_sdks_context_spelling_over_stdio(mode: str) -> None:
    # The shapes the ported public servers use: a pydantic "request" model parameter (nested models, an Enum, a
    # UUID, a date, Annotated and default Field metadata), a Field default on a plain parameter, and a Context
    # tool written in the official SDK's spelling (report_progress/info keywords, elicit(message=, schema=),
    # result.data). Every bad call names each wrong field by its path, in one line.
    params = StdioServerParameters(command=sys.executable, args=["-m", "mcptools", "serve", str(EXAMPLE)])
    answer = _answers({"retry": True, "day": "friday"})
    reported: list[tuple[float, float | None, str | None]] = []
    logs: list[Any] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        reported.append((progress, total, message))

    async def on_log(params: Any) -> None:
        logs.append(params.data)

    good = {
        "parcel_id": PARCEL,
        "day": "2026-12-07",
        "slot": "afternoon",
        "items": [{"label": "books", "weight_kg": "2.5"}, {"label": "lamp", "weight_kg": 1.25}],
    }

    async def run() -> None:
        async with Client(
            params, mode=mode, elicitation_callback=answer, logging_callback=on_log, log_level="info"
        ) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            schema = tools["book_pickup"].input_schema
            assert schema["required"] == ["request", "contact"]
            assert schema["properties"]["contact"] == {"type": "string", "description": "Who hands the parcel over"}
            request = schema["properties"]["request"]
            assert request["properties"]["parcel_id"] == {
                "type": "string",
                "format": "uuid",
                "description": "The tracking number",
            }
            assert request["properties"]["items"]["items"]["properties"]["label"] == {
                "type": "string",
                "maxLength": 12,
                "description": "What the label on the box says",
            }
            assert request["additionalProperties"] is False

            booked = await client.call_tool("book_pickup", {"request": good, "contact": "Lea"})
            assert booked.is_error is False and booked.structured_content is not None
            assert booked.structured_content["window_start"] == "2026-12-07T14:00:00+00:00"
            assert booked.structured_content["total_kg"] == "3.75"
            assert json.loads(_text(booked)) == booked.structured_content

            box = {"label": "a box far too long", "weight_kg": 0}
            bad = {"parcel_id": "not-a-uuid", "day": "2026-02-30", "items": [box]}
            wrong = await client.call_tool("book_pickup", {"request": bad, "contact": "Lea"})
            assert wrong.is_error is True
            assert _text(wrong) == (
                "Invalid arguments: property 'request.parcel_id' must be a UUID, e.g. "
                "'123e4567-e89b-12d3-a456-426614174000'; property 'request.day' must be a date (ISO 8601), e.g. "
                "'2026-12-02'; property 'request.items[0].label' must be at most 12 characters; "
                "property 'request.items[0].weight_kg' must be > 0"
            )
            odd = {**good, "slot": "evening", "items": [], "colour": "red"}
            wrong = await client.call_tool("book_pickup", {"request": odd, "reference": "abc"})
            assert _text(wrong) == (
                "Invalid arguments: missing required property 'contact'; "
                "property 'request.slot' must be one of ['morning', 'afternoon']; "
                "property 'request.items' must have at least 1 item; unexpected property 'request.colour'; "
                "property 'reference' must match pattern '^[A-Z]{2}-[0-9]{4}$'"
            )
            flat = await client.call_tool("book_pickup", {**good, "contact": "Lea"})
            assert _text(flat).startswith("Invalid arguments: missing required property 'request'; unexpected property")

            confirmed = await client.call_tool("confirm_pickup", {"parcel": PARCEL}, progress_callback=on_progress)
            assert _text(confirmed) == f"Pickup of {PARCEL} confirmed for friday"
            assert answer.asked[0]["required"] == ["retry"]
            assert (0, 2, "asking") in reported and (2, 2, "answered") in reported
            assert f"confirming {PARCEL}" in logs
            refused = await client.call_tool("confirm_pickup", {"parcel": "nope", "day": "2026-13-01"})
            assert _text(refused) == (
                "Invalid arguments: property 'parcel' must be a UUID, e.g. '123e4567-e89b-12d3-a456-426614174000'; "
                "property 'day' must be a date (ISO 8601), e.g. '2026-12-02'"
            )

    asyncio.run(asyncio.wait_for(run(), 60))
