"""A parcel-tracking server written the way public MCP servers are: pydantic models with ``Field`` metadata,
dates, UUIDs and Decimals in structured results, a plain annotated class, a dataclass, a typed form, a pydantic
"request" model as a parameter, and a Context tool in the official SDK's spelling (``elicit(message=...,
schema=...)``, ``result.data``).

    mcptools serve examples/parcels.py            # stdio
    mcptools call examples/parcels.py track '{"parcel": "7d0e1c2a-8b7f-4c3e-9a51-2f6d8e4b0c11"}'

Every result is JSON: ``structuredContent`` checked against an ``outputSchema`` derived from the return
annotation, and the same JSON as text. The data is made up; nothing here talks to a real carrier.
"""

from __future__ import annotations

import dataclasses
import datetime
import uuid
from decimal import Decimal
from enum import Enum
from typing import Annotated

from pydantic import BaseModel, Field

from mcptools import Context, Param, ToolError, ToolRegistry

registry = ToolRegistry("parcels", version="0.1.0")

_UTC = datetime.timezone.utc
_KNOWN = uuid.UUID("7d0e1c2a-8b7f-4c3e-9a51-2f6d8e4b0c11")


class Status(Enum):
    LABEL_CREATED = "label_created"
    IN_TRANSIT = "in_transit"
    DELIVERED = "delivered"


@dataclasses.dataclass
class Scan:
    """One scan of the parcel at a depot."""

    at: datetime.datetime
    depot: str


class Parcel(BaseModel):
    """Where a parcel is and what it weighs."""

    parcel_id: uuid.UUID = Field(description="The tracking number")
    status: Status
    weight_kg: Decimal = Field(description="Weight in kilograms, exact")
    expected: datetime.date = Field(description="Expected delivery day")
    scans: list[Scan] = Field(default_factory=list)
    tags: set[str] = Field(default_factory=set)


class Courier:
    """A plain class with annotated attributes: what the official SDK calls structured output too."""

    name: str
    rating: float
    since: datetime.date

    def __init__(self, name: str, rating: float, since: datetime.date) -> None:
        self.name = name
        self.rating = rating
        self.since = since


class Slot(str, Enum):
    MORNING = "morning"
    AFTERNOON = "afternoon"


class Item(BaseModel):
    label: Annotated[str, Field(max_length=12, description="What the label on the box says")]
    weight_kg: Decimal = Field(gt=0, le=30)


class PickupRequest(BaseModel):
    """A pickup to book: a model as a parameter, with nested models, an Enum, a UUID and a date."""

    parcel_id: uuid.UUID = Field(description="The tracking number")
    day: datetime.date = Field(description="The day of the pickup")
    slot: Slot = Slot.MORNING
    items: list[Item] = Field(min_length=1, max_length=5)
    notes: list[str] = Field(default_factory=list)


class Pickup(BaseModel):
    pickup_id: uuid.UUID
    parcel_id: uuid.UUID
    window_start: datetime.datetime
    total_kg: Decimal
    contact: str


class Redelivery(BaseModel):
    """The form shown when nobody was home."""

    retry: bool = Field(description="Try again another day?")
    day: str = Field(default="tomorrow", description="Which day (e.g. 'monday')")
    attempts: int = Field(default=1, ge=1, le=3, description="How many more attempts")


@registry.tool
def track(parcel: str) -> Parcel:
    """Track a parcel.

    Args:
        parcel: The tracking number, a UUID.
    """
    if parcel != str(_KNOWN):
        raise ToolError(f"No parcel {parcel}; tracking numbers look like {_KNOWN}")
    return Parcel(
        parcel_id=_KNOWN,
        status=Status.IN_TRANSIT,
        weight_kg=Decimal("1.250"),
        expected=datetime.date(2026, 12, 4),
        scans=[
            Scan(datetime.datetime(2026, 12, 2, 8, 15, tzinfo=_UTC), "Lyon"),
            Scan(datetime.datetime(2026, 12, 2, 17, 40, tzinfo=_UTC), "Paris"),
        ],
        tags={"fragile", "signed"},
    )


@registry.tool
def courier(name: str) -> Courier:
    """The courier's profile.

    Args:
        name: The courier's name.
    """
    return Courier(name, 4.8, datetime.date(2019, 5, 1))


@registry.tool
def delivery_windows(days: Annotated[int, Param(minimum=1, maximum=7)] = 3) -> list[datetime.datetime]:
    """The next delivery windows, one a day at 09:00 UTC.

    Args:
        days: How many days ahead.
    """
    start = datetime.datetime(2026, 12, 3, 9, 0, tzinfo=_UTC)
    return [start + datetime.timedelta(days=offset) for offset in range(days)]


@registry.tool
def depot_hours(depot: str):  # type: ignore[no-untyped-def]
    """Opening hours of a depot (no return annotation: the dict is still sent as JSON).

    Args:
        depot: The depot's city.
    """
    return {"depot": depot, "opens": datetime.time(8, 0, tzinfo=_UTC), "closes": datetime.time(18, 30, tzinfo=_UTC)}


@registry.tool
async def reschedule(parcel: str, ctx: Context) -> str:
    """Ask the recipient when to deliver again.

    Args:
        parcel: The tracking number.
    """
    answer = await ctx.elicit("Nobody was home. Deliver again?", Redelivery)
    if answer.content is None:
        return f"Left at the depot ({answer.action})"
    if not answer.content.retry:
        return "Left at the depot"
    return f"Parcel {parcel}: {answer.content.attempts} more attempt(s), next on {answer.content.day}"


@registry.tool
def book_pickup(
    request: PickupRequest,
    contact: str = Field(description="Who hands the parcel over"),
    reference: Annotated[str, Field(pattern=r"^[A-Z]{2}-[0-9]{4}$", description="Your reference")] = "XX-0000",
) -> Pickup:
    """Book a pickup (the shape of the public servers' "request model" tools)."""
    hour = 9 if request.slot is Slot.MORNING else 14
    return Pickup(
        pickup_id=uuid.uuid5(request.parcel_id, f"{request.day}/{reference}"),
        parcel_id=request.parcel_id,
        window_start=datetime.datetime.combine(request.day, datetime.time(hour, tzinfo=_UTC)),
        total_kg=sum((item.weight_kg for item in request.items), Decimal(0)),
        contact=contact,
    )


@registry.tool
async def confirm_pickup(parcel: uuid.UUID, ctx: Context, day: datetime.date | None = None) -> str:
    """Confirm a pickup with the recipient (the official SDK's spelling: keywords, ``schema=`` and ``.data``).

    Args:
        parcel: The tracking number.
        day: The planned day, if known.
    """
    await ctx.report_progress(progress=0, total=2, message="asking")
    await ctx.info(f"confirming {parcel}")
    result = await ctx.elicit(message="Is someone home for the pickup?", schema=Redelivery)
    await ctx.report_progress(progress=2, total=2, message="answered")
    if result.action == "accept" and result.data:
        when = day.isoformat() if day is not None else result.data.day
        return f"Pickup of {parcel} confirmed for {when}" if result.data.retry else "Pickup cancelled"
    return f"No answer ({result.action})"
