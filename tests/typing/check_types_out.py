"""Typing tests for typed results and typed elicitation, checked by `mypy --strict` (not run by pytest).

Wrong uses carry `type: ignore[code]`; mypy --strict reports unused ignores, so a wrong use that stopped being
an error would fail this file.
"""

from __future__ import annotations

import dataclasses
import datetime
import uuid
from typing import Literal, TypedDict

import pydantic
from typing_extensions import assert_type

from mcptools import Context, Elicited, ElicitResult, ToolRegistry

registry = ToolRegistry("typing-types-out")


class Booking(pydantic.BaseModel):
    check_alternative: bool = pydantic.Field(description="Another date?")
    alternative_date: str = "2024-12-26"


class Contact(TypedDict):
    name: str


@dataclasses.dataclass
class Rating:
    stars: int


class Weather(pydantic.BaseModel):
    temperature: float
    observed: datetime.datetime
    station: uuid.UUID


@registry.tool
async def book(ctx: Context) -> str:
    booking = await ctx.elicit("Date?", Booking)
    assert_type(booking, Elicited[Booking])
    assert_type(booking.action, Literal["accept", "decline", "cancel"])
    assert_type(booking.content, Booking | None)
    assert_type(booking.data, Booking | None)
    if booking.content is not None:
        assert_type(booking.content.alternative_date, str)
    assert_type(await ctx.elicit(message="Date?", schema=Booking), Elicited[Booking])
    assert_type(await ctx.elicit(message="Raw?", schema={"type": "object"}), ElicitResult)
    await ctx.elicit(message="Date?", requested_schema=Booking)  # type: ignore[call-overload]
    contact = await ctx.elicit("Who?", Contact)
    assert_type(contact.content, Contact | None)
    rating = await ctx.elicit("Stars?", Rating, key="stars")
    assert_type(rating.content, Rating | None)
    raw = await ctx.elicit("Raw?", {"type": "object", "properties": {}})
    assert_type(raw, ElicitResult)
    await ctx.elicit("Wrong?", 3)  # type: ignore[call-overload]
    return "ok"


@registry.tool
def weather(city: str) -> Weather:
    return Weather(temperature=1.0, observed=datetime.datetime.now(datetime.timezone.utc), station=uuid.uuid4())


# The decorator keeps the signatures of tools that return models.
assert_type(weather("Paris"), Weather)
weather(3)  # type: ignore[arg-type]


async def _use() -> None:
    assert_type(await book(Context()), str)
