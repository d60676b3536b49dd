"""Typing tests for the types users pass in (standard types, pydantic models, ``Field`` metadata), checked by
`mypy --strict` (and by tests/test_typing_types.py). A decorated tool keeps its exact signature, names and
defaults included, so its callers stay checked. Wrong uses carry `type: ignore[code]`: mypy --strict reports an
unused ignore, so a wrong use that stopped being an error fails this file.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import ipaddress
import pathlib
import uuid
from collections.abc import Callable
from typing import Annotated, TypedDict

from annotated_types import Ge
from pydantic import AnyUrl, BaseModel, Field, HttpUrl
from typing_extensions import assert_type

from mcptools import Context, Param, ToolRegistry, tool

registry = ToolRegistry("typing")


class Order(BaseModel):
    order_id: uuid.UUID
    quantity: int = Field(default=1, ge=1, description="How many")


@registry.tool
def schedule(
    when: dt.datetime,
    day: dt.date,
    at: dt.time,
    length: dt.timedelta,
    ident: uuid.UUID,
    price: decimal.Decimal,
    where: pathlib.Path,
    blob: bytes,
    host: ipaddress.IPv4Address | ipaddress.IPv6Address,
) -> str:
    return f"{when.isoformat()} {day} {at} {length} {ident.hex} {price} {where.name} {len(blob)} {host}"


@tool
def place(
    order: Order,
    names: list[str] = Field(description="Names"),
    code: Annotated[str, Field(max_length=3)] = "abc",
    count: Annotated[int, Ge(1)] = 1,
) -> list[uuid.UUID]:
    return [order.order_id] * count


now = dt.datetime.now(dt.timezone.utc)
assert_type(
    schedule(
        now,
        now.date(),
        now.timetz(),
        dt.timedelta(hours=1),
        uuid.uuid4(),
        decimal.Decimal("1.5"),
        pathlib.Path("x"),
        b"",
        ipaddress.IPv4Address("192.0.2.1"),
    ),
    str,
)
assert_type(place(Order(order_id=uuid.uuid4()), ["a"]), list[uuid.UUID])
place("not an order")  # type: ignore[arg-type]
schedule(
    "2026-12-02",  # type: ignore[arg-type]
    now.date(),
    now.timetz(),
    dt.timedelta(),
    uuid.uuid4(),
    decimal.Decimal(1),
    pathlib.Path(),
    b"",
    ipaddress.IPv4Address(1),
)


class Stop(TypedDict):
    at: ipaddress.IPv4Address


@dataclasses.dataclass
class Slot:
    start: dt.datetime
    length: dt.timedelta = dt.timedelta(hours=1)


@registry.tool(timeout=5, tags={"orders"})
async def route(
    orders: dict[str, Order],
    first: tuple[int, Order],
    stops: list[Stop],
    slot: Slot,
    ctx: Context,
    price: Annotated[decimal.Decimal, Field(ge=0, description="Exact")] = decimal.Decimal(0),
    wait: Annotated[dt.timedelta, Param(maximum=3600)] = dt.timedelta(0),
    days: set[dt.date] = Field(default_factory=set),
) -> dict[str, uuid.UUID]:
    return {name: order.order_id for name, order in orders.items()}


async def _use() -> None:
    # Options on the decorator keep the signature too: positional, keyword, defaults left out.
    order = Order(order_id=uuid.uuid4())
    routed = await route({}, (1, order), [], Slot(now), Context(), wait=dt.timedelta(minutes=5))
    assert_type(routed, dict[str, uuid.UUID])
    await route({"a": "order"}, (1, order), [], Slot(now), Context())  # type: ignore[dict-item]
    await route({}, (1, order), [{"at": "192.0.2.1"}], Slot(now), Context())  # type: ignore[typeddict-item]
    await route({}, (1, order), [], Slot(now), Context(), price=1.5)  # type: ignore[arg-type]


# The function is still usable where its own signature is wanted (compatible, not only callable with anything).
as_callable: Callable[[Order], list[uuid.UUID]] = place
assert_type(place(order=Order(order_id=uuid.uuid4()), names=[], code="xyz", count=2), list[uuid.UUID])
assert_type(
    schedule(
        when=now,
        day=now.date(),
        at=now.timetz(),
        length=dt.timedelta(),
        ident=uuid.uuid4(),
        price=decimal.Decimal(1),
        where=pathlib.Path(),
        blob=b"",
        host=ipaddress.IPv6Address("::1"),
    ),
    str,
)
place(Order(order_id=uuid.uuid4()), count="2")  # type: ignore[arg-type]
place(Order(order_id=uuid.uuid4()), colour="red")  # type: ignore[call-arg]
Order(order_id="123e4567-e89b-12d3-a456-426614174000")  # type: ignore[arg-type]


class FetchRequest(BaseModel):  # the reference fetch server's form
    url: Annotated[AnyUrl, Field(description="URL to fetch")]


@registry.tool
def fetch(url: HttpUrl, request: FetchRequest | None = None) -> HttpUrl:
    return url


assert_type(fetch(HttpUrl("https://example.com")), HttpUrl)
fetch("https://example.com")  # type: ignore[arg-type]
