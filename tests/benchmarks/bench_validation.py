"""Validation benchmark: ns per call, mcptools against its peers, in one run (run it, it is not a test).

    .venv/bin/pip install -e '.[bench]'
    .venv/bin/python tests/benchmarks/bench_validation.py            # full run, writes RESULTS.md beside it
    .venv/bin/python tests/benchmarks/bench_validation.py --quick    # fewer repeats, for a look

Every implementation checks the same schema; "valid" is a call whose arguments pass, "invalid" one with three
errors. Each peer is called the way a server would use it: the fastest yes/no for a valid call where the library
has one, and its list of all errors (or, for fastjsonschema, its first error) for an invalid call. mcptools is
measured through ``Validator.errors``, what the registry calls, which returns ``[]`` on the valid path.

Sections are functions in ``SECTIONS``: each returns its table as markdown lines, so another part of the SDK (the
end-to-end ``registry.handle`` comparison) adds a section without touching the others.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from charts import machine, write_charts
from schemas import CASES

Checker = Callable[[Any], Any]


def medians_ns(entries: dict[Any, tuple[Checker, Any]], *, repeat: int, budget: float) -> dict[Any, float]:
    """Median ns per call of every entry, measured in interleaved rounds so load on the machine hits all alike.

    Each round times every entry once, for a batch sized to take about ``budget`` seconds.
    """
    timers = {key: timeit.Timer("f(a)", globals={"f": f, "a": a}) for key, (f, a) in entries.items()}
    numbers = {}
    for key, timer in timers.items():
        number, taken = timer.autorange()
        numbers[key] = max(1, int(number * budget / max(taken, 1e-9)))
    samples: dict[Any, list[float]] = {key: [] for key in entries}
    for _ in range(repeat):
        for key, timer in timers.items():
            samples[key].append(timer.timeit(numbers[key]) / numbers[key] * 1e9)
    return {key: statistics.median(values) for key, values in samples.items()}


def peers(schema: dict[str, Any], name: str) -> dict[str, tuple[Checker, Checker]]:
    """name -> (valid-call checker, invalid-call checker) for every library installed."""
    from functools import partial

    from mcptools._validation import compile_schema, validate

    found: dict[str, tuple[Checker, Checker]] = {}
    ours = compile_schema(schema)
    ours.is_valid({})  # a small schema's code is generated on its first call: measure the compiled functions
    found["mcptools errors()"] = (ours.errors, ours.errors)
    found["mcptools is_valid()"] = (ours.is_valid, ours.is_valid)
    # The contract's entry point: a cache hit (identity + snapshot compare), then errors().
    cached = partial(validate, schema=schema)
    found["mcptools validate(args, schema)"] = (cached, cached)
    try:
        import jsonschema_rs

        rs = jsonschema_rs.Draft202012Validator(schema)
        found["jsonschema-rs"] = (rs.is_valid, lambda x: [e.message for e in rs.iter_errors(x)])
    except ImportError:
        pass
    try:
        pydantic_check = _pydantic(name)
        found["pydantic (strict)"] = (pydantic_check, pydantic_check)
    except ImportError:
        pass
    try:
        import fastjsonschema

        fast = fastjsonschema.compile(schema)

        def fast_first_error(x: Any) -> list[str]:
            try:
                fast(x)
            except fastjsonschema.JsonSchemaException as error:
                return [str(error)]
            return []

        found["fastjsonschema (first error)"] = (fast, fast_first_error)
    except ImportError:
        pass
    try:
        import jsonschema

        slow = jsonschema.Draft202012Validator(schema)
        found["jsonschema"] = (slow.is_valid, lambda x: [e.message for e in slow.iter_errors(x)])
    except ImportError:
        pass
    return found


def _pydantic(name: str) -> Checker:
    from typing import Literal, Optional

    from pydantic import ConfigDict, TypeAdapter, ValidationError, with_config
    from typing_extensions import NotRequired, TypedDict

    strict = ConfigDict(extra="forbid", strict=True)
    if name == "weather":

        @with_config(strict)
        class Weather(TypedDict):
            location: str
            days: NotRequired[int]
            units: NotRequired[Literal["c", "f"]]

        adapter: Any = TypeAdapter(Weather)
    elif name == "20 properties":
        kinds: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool}
        order = ["string", "integer", "number", "boolean"]
        fields: dict[str, Any] = {}
        for i in range(20):
            kind = kinds[order[i % 4]] if i % 5 else Literal["a", "b", "c"]
            fields[f"field{i:02d}"] = kind if i % 4 == 0 else NotRequired[kind]
        wide = TypedDict("Wide", fields)  # type: ignore[misc]
        wide.__pydantic_config__ = strict  # type: ignore[attr-defined]
        adapter = TypeAdapter(wide)
    else:

        @with_config(strict)
        class Address(TypedDict):
            street: str
            city: str
            country: Literal["FR", "DE", "US"]

        @with_config(strict)
        class Customer(TypedDict):
            name: str
            address: Address

        @with_config(strict)
        class Item(TypedDict):
            sku: str
            quantity: int

        @with_config(strict)
        class Order(TypedDict):
            customer: Customer
            items: list[Item]
            note: NotRequired[Optional[str]]  # noqa: UP045 - pydantic evaluates it at runtime on 3.10 too
            express: NotRequired[bool]

        adapter = TypeAdapter(Order)

    def check(x: Any) -> list[str]:
        try:
            adapter.validate_python(x)
        except ValidationError as error:
            return [str(item["msg"]) for item in error.errors()]
        return []

    return check


def validation_section(*, repeat: int, budget: float) -> list[str]:
    lines = [
        "## Argument validation (ns per call, median; ratio = peer / hand-written if-chain)",
        "",
        "| schema | implementation | valid | ratio | invalid (3 errors) | ratio |",
        "|---|---|---:|---:|---:|---:|",
    ]
    # One interleaved measurement over every schema, implementation and case: a burst of load from elsewhere
    # on the machine then lands on all rows alike instead of on one section.
    entries: dict[Any, tuple[Checker, Any]] = {}
    labels: dict[str, list[str]] = {}
    for name, schema, valid, invalid, by_hand in CASES:
        implementations = {"hand-written if-chain": (by_hand, by_hand), **peers(schema, name)}
        labels[name] = list(implementations)
        for label, (check_valid, check_invalid) in implementations.items():
            entries[(name, label, "valid")] = (check_valid, valid)
            entries[(name, label, "invalid")] = (check_invalid, invalid)
    ns = medians_ns(entries, repeat=repeat, budget=budget)
    for name, names in labels.items():
        base_valid = ns[(name, "hand-written if-chain", "valid")]
        base_invalid = ns[(name, "hand-written if-chain", "invalid")]
        for label in names:
            ns_valid, ns_invalid = ns[(name, label, "valid")], ns[(name, label, "invalid")]
            lines.append(
                f"| {name} | {label} | {ns_valid:,.0f} | {ns_valid / base_valid:.2f} "
                f"| {ns_invalid:,.0f} | {ns_invalid / base_invalid:.2f} |"
            )
    return lines


def import_section(*, repeat: int, budget: float) -> list[str]:
    import subprocess

    code = "import time; t = time.perf_counter(); import mcptools; print((time.perf_counter() - t) * 1000)"
    samples = [
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
        for _ in range(max(3, repeat))
    ]
    return ["## Import", "", f"`import mcptools`: {statistics.median(samples):.1f} ms (median of {len(samples)})"]


SECTIONS: list[Callable[..., list[str]]] = [validation_section, import_section]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer, shorter repeats")
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("RESULTS.md"))
    options = parser.parse_args()
    repeat, budget = (3, 0.01) if options.quick else (31, 0.02)
    lines = [
        "# Benchmark results",
        "",
        f"Python {platform.python_version()} on {platform.machine()}, {platform.system()}; "
        "`tests/benchmarks/bench_validation.py`. Lower is better.",
        "",
        f"- Machine: {machine()}",
        "",
    ]
    start_load = os.getloadavg()[0]
    for section in SECTIONS:
        lines.extend(section(repeat=repeat, budget=budget))
        lines.append("")
    lines.append(f"Load average (the machine is shared): {start_load:.2f} at start, {os.getloadavg()[0]:.2f} at end.")
    lines.append("")
    text = "\n".join(lines)
    print(text)
    options.out.write_text(text)
    write_charts(options.out, kind="RESULTS.md")


if __name__ == "__main__":
    main()
