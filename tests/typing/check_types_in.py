"""Typing tests for the types users pass in (standard types, pydantic models, ``Field`` metadata), checked by
`mypy --strict` (not run by pytest). A decorated tool keeps its exact signature, so its callers stay checked.
"""

from __future__ import annotations

import datetime as dt
import decimal
import ipaddress
import pathlib
import uuid
from typing import Annotated

from annotated_types import Ge
from pydantic import BaseModel, Field
from typing_extensions import assert_type

from mcptools import ToolRegistry, tool

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
