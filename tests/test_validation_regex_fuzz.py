"""Every string handed to ``pattern`` gives a validator or a ``SchemaError``, in a number of steps bounded by its
length: the translator and the pattern parser never loop back, never raise anything else.

The bound is a step counter (line events in our own pattern modules), not a clock, so a loaded machine cannot make
it flaky and a translator that restarts at the beginning of the pattern fails instead of hanging the suite.
"""

from __future__ import annotations

import re
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_support import scaled

from mcptools import SchemaError
from mcptools._validation import backtrack, compile_schema, nfa, regex_syntax
from mcptools._validation import regex as regex_module
from mcptools._validation.nfa import TooLarge, build_matcher
from mcptools._validation.regex_syntax import Unsupported, parse

# The modules whose loops must be bounded by the pattern's length.
_COUNTED = {regex_module.__file__, regex_syntax.__file__}
_STEPS_PER_CHARACTER = 200


class _Runaway(Exception):
    """Raised inside the traced code once it has taken more steps than the pattern's length allows."""


@contextmanager
def _step_budget(budget: int) -> Iterator[None]:
    steps = 0

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal steps
        if event == "line":
            steps += 1
            if steps > budget:
                raise _Runaway(f"more than {budget} steps")
        return local

    def global_(frame: FrameType, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename in _COUNTED else None

    previous = sys.gettrace()
    sys.settrace(global_)
    try:
        yield
    finally:
        sys.settrace(previous)


def _compiles_or_refuses(pattern: str) -> None:
    with _step_budget(_STEPS_PER_CHARACTER * (len(pattern) + 10)):
        try:
            validator = compile_schema({"type": "string", "pattern": pattern})
        except SchemaError as exc:
            assert "pattern" in str(exc)
            return
    # A compiled pattern answers (the NFA and re both take any text).
    validator.is_valid("a{1}<k>")


@pytest.mark.parametrize(
    ("pattern", "fragment"),
    [
        ("\\u{41", "unterminated \\u{ escape"),
        ("\\k<a", "unterminated \\k< escape"),
        ("x\\p{Letter", "unterminated \\p{ escape"),
        ("\\u{zz}", "not a code point"),
        ("\\u{}", "not a code point"),
        ("\\u{4_1}", "not a code point"),
        ("\\u{110000}", "not a code point"),
    ],
)
def test_broken_escapes_are_schema_errors(pattern: str, fragment: str) -> None:
    with _step_budget(_STEPS_PER_CHARACTER * (len(pattern) + 10)), pytest.raises(SchemaError) as caught:
        compile_schema({"pattern": pattern})
    assert fragment in str(caught.value)
    assert repr(pattern) in str(caught.value)


def test_a_closed_code_point_escape_still_matches() -> None:
    assert compile_schema({"pattern": "^\\u{1F600}\\u{41}$"}).is_valid("\U0001f600A")
    assert not compile_schema({"pattern": "^\\u{41}$"}).is_valid("B")


def test_the_step_budget_catches_a_runaway() -> None:
    # The guard itself must be able to fail: a loop in a counted module trips it.
    def spin() -> None:
        while True:
            pass

    _COUNTED.add(__file__)
    try:
        with pytest.raises(_Runaway), _step_budget(50):
            spin()  # a new frame: settrace only traces frames entered after it
    finally:
        _COUNTED.discard(__file__)


_REGEXISH = st.text(alphabet=list("\\uk{}<>()[]?*+|^$.,=!-:pPcxd0123456789aAzZ"), max_size=24)


@settings(max_examples=scaled(600), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_REGEXISH)
def test_regex_alphabet_text_compiles_or_is_refused(pattern: str) -> None:
    _compiles_or_refuses(pattern)


@settings(max_examples=scaled(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=40))
def test_arbitrary_text_compiles_or_is_refused(pattern: str) -> None:
    _compiles_or_refuses(pattern)


# -- our parser reads Python re source as re does: the NFA built from it agrees with re on any text ----------
# (No raw \B: re before 3.14 finds no \B in '', unlike ECMA; the translator never writes a raw \B.)

_PYTHON_SYNTAX = st.lists(
    st.sampled_from(
        [
            *"ab-]^\\[(){},|?*+:=!<>P",
            "\\d",
            "\\W",
            "\\s",
            "\\b",
            "\\Z",
            "\\x41",
            "\\u0062",
            "\\101",
            "\\0",
            "\\1",
            "\\t",
            "(?:",
            "(?=",
            "(?<!",
            "(?P<n>",
            "(?P=n)",
            "(?-i:",
            "{2}",
            "{,2}",
            "{1,}",
        ]
    ),
    max_size=12,
).map("".join)


@settings(
    max_examples=scaled(1500), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
@given(_PYTHON_SYNTAX, st.lists(st.text(alphabet="abAB-]\t\x08 ", max_size=8), min_size=1, max_size=5))
def test_the_nfa_from_our_parser_agrees_with_re(source: str, texts: list[str]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "possible nested set" and friends
        try:
            expected = re.compile(source)
        except (re.error, RecursionError, OverflowError):
            return
    try:
        matcher = build_matcher(source, parse(source))
    except (Unsupported, TooLarge):
        return
    for text in texts:
        assert (matcher.search(text) is not None) == (expected.search(text) is not None), (source, text)


@pytest.mark.parametrize(
    ("source", "matches", "misses"),
    [
        ("^\\101\\x42\\u0043\\U00000044\\Z", ["ABCD"], ["ABC"]),
        ("^a{,2}\\Z", ["", "aa"], ["aaa"]),
        ("^a{}\\Z", ["a{}"], ["a"]),
        ("^a{,}\\Z", ["", "aaaa"], ["b"]),
        ("^[]a]+\\Z", ["]a]"], ["b"]),
        ("^[^]a]\\Z", ["b"], ["]", "a"]),
        ("^[a-]\\Z", ["-", "a"], ["b"]),
        ("^[\\d-]\\Z", ["-", "\u0663"], ["a"]),
        ("^(?P<n>a|b)(?-i:c)\\Z", ["ac", "bc"], ["aC"]),
        ("^[\\b]\\Z", ["\x08"], ["b"]),
        ("^\\0\\Z", ["\x00"], ["0"]),
        ("(?!)|x", ["x"], ["", "y"]),
    ],
)
def test_our_parser_reads_python_syntax_as_re_does(source: str, matches: list[str], misses: list[str]) -> None:
    matcher = build_matcher(source, parse(source))
    for text in matches:
        assert matcher.search(text), text
        assert re.search(source, text), text
    for text in misses:
        assert matcher.search(text) is None, text
        assert re.search(source, text) is None, text


@pytest.mark.parametrize(
    ("pattern", "fragment"),
    [("(?i)a", "an inline flag"), ("a(?#note)", "a '(?' extension"), ("(a)(?(1)b|c)", "a '(?' extension")],
)
def test_python_only_constructs_are_refused(pattern: str, fragment: str) -> None:
    with pytest.raises(SchemaError, match=re.escape(fragment)):
        compile_schema({"pattern": pattern})


def test_the_pattern_modules_never_read_res_private_parser() -> None:
    # re._parser (sre_parse) changes between versions: 3.13 parses (?!) into an opcode 3.12 lacks.
    for module in (regex_module, regex_syntax, nfa, backtrack):
        assert module.__file__ is not None
        text = Path(module.__file__).read_text(encoding="utf-8")
        for private in ("_parser", "sre_parse", "sre_constants", "_constants"):
            assert private not in text, (module.__name__, private)
