"""Derivation benchmark: definition cost, per-call conversion cost and schema size (run it, it is not a test).

    .venv/bin/pip install -e '.[bench]'
    .venv/bin/python tests/benchmarks/bench_derive.py            # full run, prints a markdown table
    .venv/bin/python tests/benchmarks/bench_derive.py --quick    # fewer repeats, for a look

Two tools: ``weather`` (str/int/Literal, no conversion needed) and ``order`` (an Enum, a list of dataclasses, a
set). For each: how long deriving the tool takes (mcptools ``derive_tool`` against the official SDK's
``func_metadata``, which builds a pydantic model), how long one call's "check and convert the arguments" takes
(mcptools ``Validator.is_valid`` + ``DerivedTool.convert`` against pydantic ``model_validate``), and how many bytes
the published input schema has (compact JSON).
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import json
import statistics
import sys
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mcptools import Param
from mcptools._schema import derive_tool
from mcptools._validation import compile_schema


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


@dataclasses.dataclass
class Line:
    sku: str
    qty: int = 1


def weather(
    location: str,
    days: Annotated[int, Param("How many days", minimum=1, maximum=16)] = 1,
    units: Literal["c", "f"] = "c",
) -> str:
    """Get the forecast.

    Args:
        location: The city.
    """
    return location


def order(customer: str, color: Color, lines: list[Line], tags: set[str] | None = None) -> None:
    """Place an order."""


CASES: list[tuple[str, Callable[..., Any], dict[str, Any]]] = [
    ("weather", weather, {"location": "Paris", "days": 3}),
    ("order", order, {"customer": "c", "color": "red", "lines": [{"sku": "a"}, {"sku": "b", "qty": 2}], "tags": ["x"]}),
]


def median_us(function: Callable[[], Any], *, repeat: int) -> float:
    timer = timeit.Timer(function)
    number, _ = timer.autorange()
    return statistics.median(timer.repeat(repeat=repeat, number=number)) / number * 1e6


def measure(name: str, fn: Callable[..., Any], arguments: dict[str, Any], repeat: int, theirs: Any) -> None:
    derived = derive_tool(fn)
    validator = compile_schema(derived.input_schema)
    convert = derived.convert

    def check_and_convert() -> Any:
        if validator.is_valid(arguments):
            return convert(arguments) if convert is not None else arguments
        return validator.errors(arguments)

    def convert_only() -> Any:
        return convert(arguments) if convert is not None else arguments

    rows = [
        ("derive at definition", f"{median_us(lambda: derive_tool(fn), repeat=repeat):.1f} us"),
        ("check + convert one call", f"{median_us(check_and_convert, repeat=repeat):.2f} us"),
        ("of which convert", f"{median_us(convert_only, repeat=repeat):.2f} us"),
        ("input schema bytes", str(len(json.dumps(derived.input_schema, separators=(",", ":"))))),
    ]
    other = ["n/a"] * len(rows)
    if theirs is not None:
        model: Any = theirs(fn).arg_model
        other = [
            f"{median_us(lambda: theirs(fn), repeat=repeat):.1f} us",
            f"{median_us(lambda: model.model_validate(arguments), repeat=repeat):.2f} us",
            "(one step)",
            str(len(json.dumps(model.model_json_schema(), separators=(",", ":")))),
        ]
    for (step, ours), their in zip(rows, other, strict=True):
        print(f"| {name} | {step} | {ours} | {their} |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    repeat = 3 if parser.parse_args().quick else 7
    theirs: Any = None
    try:
        from mcp.server.mcpserver.utilities.func_metadata import func_metadata

        theirs = func_metadata
    except ImportError:  # the official SDK is optional (the bench extra)
        pass
    print("| tool | step | mcptools | official SDK (pydantic) |")
    print("|---|---|---|---|")
    for name, fn, arguments in CASES:
        measure(name, fn, arguments, repeat, theirs)


if __name__ == "__main__":
    main()
