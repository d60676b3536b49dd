"""The JSON Schema test suite (draft 2020-12) through ``compile_schema(...).is_valid`` and ``.errors``.

In scope: every file of the suite's main directory except ``refRemote.json`` (documents served over the network),
with the one test that calls 1.0 an integer as the single expected deviation (the contract says "integer" is int
only). Remote documents the tests name (the suite's ``localhost:1234`` fixtures, reproduced under ``remotes/``) are
passed through ``resources=``, never fetched; the 2020-12 metaschema that ``ref.json`` and ``defs.json`` use is
built into mcptools, so no fixture supplies it. With the remotes ``refRemote.json`` passes too, and is run as
well. The run prints a per-file table.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest

from mcptools._validation import compile_schema

SUITE = Path(__file__).parent / "conformance" / "json-schema-test-suite"
# Out of the scope (network documents); run anyway, offline, through resources=.
BEYOND_SCOPE_FILES = {"refRemote.json"}
EXPECTED_DEVIATIONS = {
    ("type.json", "integer type matches integers", "a float with zero fractional part is an integer")
}
FILES = sorted(path.name for path in (SUITE / "draft2020-12").glob("*.json"))


def _resources() -> dict[str, Any]:
    found: dict[str, Any] = {}
    for path in (SUITE / "remotes").rglob("*.json"):
        found["http://localhost:1234/" + path.relative_to(SUITE / "remotes").as_posix()] = json.loads(path.read_text())
    return found


@functools.cache
def run_file(name: str) -> tuple[int, int, tuple[tuple[str, str, str], ...]]:
    """(tests, passed, failures) for one suite file; a failure also counts when ``errors`` disagrees."""
    resources = _resources()
    tests = passed = 0
    failures: list[tuple[str, str, str]] = []
    for group in json.loads((SUITE / "draft2020-12" / name).read_text()):
        validator = compile_schema(group["schema"], resources=resources)
        for case in group["tests"]:
            tests += 1
            valid = validator.is_valid(case["data"])
            errors = validator.errors(case["data"])
            consistent = (errors == []) == valid and all(isinstance(e, str) and e for e in errors)
            if valid == case["valid"] and consistent:
                passed += 1
            else:
                failures.append((name, group["description"], case["description"]))
    return tests, passed, tuple(failures)


def test_suite_copy_is_complete() -> None:
    assert len(FILES) >= 46
    assert (SUITE / "LICENSE").is_file()
    assert (SUITE / "README.md").is_file()


@pytest.mark.parametrize("name", FILES)
def test_suite_file(name: str) -> None:
    _, _, failures = run_file(name)
    assert set(failures) <= EXPECTED_DEVIATIONS, failures


def test_suite_table(capsys: pytest.CaptureFixture[str]) -> None:
    lines = [f"{'file':<32} {'passed':>7} {'tests':>6}"]
    in_scope_tests = in_scope_passed = beyond_tests = beyond_passed = 0
    deviations: set[tuple[str, str, str]] = set()
    for name in FILES:
        tests, passed, failures = run_file(name)
        deviations |= set(failures)
        if name in BEYOND_SCOPE_FILES:
            beyond_tests += tests
            beyond_passed += passed
            lines.append(f"{name:<32} {passed:>7} {tests:>6}  (beyond scope: remote documents, given offline)")
        else:
            in_scope_tests += tests
            in_scope_passed += passed
            lines.append(f"{name:<32} {passed:>7} {tests:>6}")
    in_scope = in_scope_tests - len(EXPECTED_DEVIATIONS)
    lines.append(
        f"{'in scope':<32} {in_scope_passed:>7} {in_scope:>6}  (+{len(EXPECTED_DEVIATIONS)} expected deviation)"
    )
    everything = in_scope_passed + beyond_passed
    lines.append(f"{'with refRemote.json':<32} {everything:>7} {in_scope + beyond_tests:>6}")
    with capsys.disabled():
        print("\nJSON Schema test suite, draft 2020-12\n" + "\n".join(lines))
    assert deviations == EXPECTED_DEVIATIONS
    assert in_scope_passed == in_scope == 1267
    assert beyond_passed == beyond_tests


# The suite's optional format files this copy carries, asserted as a server opting in would assert them.
FORMAT_FILES = sorted(path.name for path in (SUITE / "draft2020-12" / "optional" / "format").glob("*.json"))


def test_optional_format_files_are_present() -> None:
    assert "duration.json" in FORMAT_FILES


@pytest.mark.parametrize("name", FORMAT_FILES)
def test_optional_format_file_under_format_assertion(name: str) -> None:
    failures: list[tuple[str, str]] = []
    for group in json.loads((SUITE / "draft2020-12" / "optional" / "format" / name).read_text(encoding="utf-8")):
        validator = compile_schema(group["schema"], format_assertion=True)
        for case in group["tests"]:
            valid = validator.is_valid(case["data"])
            if valid != case["valid"] or (validator.errors(case["data"]) == []) != valid:
                failures.append((group["description"], case["description"]))
    assert failures == []


@pytest.mark.parametrize("name", ["ref.json", "defs.json"])
def test_metaschema_files_pass_with_no_resources_at_all(name: str) -> None:
    # Their $refs to https://json-schema.org/draft/2020-12/schema resolve to the built-in copy: no resources=.
    failures = []
    for group in json.loads((SUITE / "draft2020-12" / name).read_text()):
        validator = compile_schema(group["schema"])
        for case in group["tests"]:
            if (
                validator.is_valid(case["data"]) != case["valid"]
                or (validator.errors(case["data"]) == []) != case["valid"]
            ):
                failures.append((group["description"], case["description"]))
    assert failures == []
