"""The validation benchmark measures equal work: every row answers its case right; nothing is timed here."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

BENCHMARKS = Path(__file__).resolve().parent / "benchmarks"


def load(name: str) -> ModuleType:
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    return importlib.import_module(name)


@pytest.mark.parametrize("case", range(3))
def test_hand_written_checkers_say_what_mcptools_says(case: int) -> None:
    from mcptools._validation import compile_schema

    name, schema, valid, invalid, by_hand = load("schemas").CASES[case]
    checker = compile_schema(schema)
    assert by_hand(valid) == checker.errors(valid) == []
    assert by_hand(invalid) == checker.errors(invalid)
    assert len(checker.errors(invalid)) == 3, name


@pytest.mark.parametrize("case", range(3))
def test_every_peer_row_accepts_the_valid_call_and_rejects_the_invalid_one(case: int) -> None:
    bench = load("bench_validation")
    name, schema, valid, invalid, _ = load("schemas").CASES[case]
    for label, (check_valid, check_invalid) in bench.peers(schema, name).items():
        verdict: Any = check_valid(valid)
        assert verdict in (True, [], None, valid) or verdict == valid, (label, verdict)
        rejected: Any = check_invalid(invalid)
        assert rejected is False or (isinstance(rejected, list) and rejected), (label, rejected)
