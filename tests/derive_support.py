"""Small annotated types shared by the conversion and round-trip tests."""

import dataclasses
import enum
from typing import NamedTuple


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


@dataclasses.dataclass(frozen=True)
class Point:
    x: int
    y: int = 0


class Pair(NamedTuple):
    left: int
    right: Color
