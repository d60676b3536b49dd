"""Patterns: which engine runs each one, the NFA agreeing with ``re``, and hostile patterns staying linear.

Speed is measured in tests/benchmarks, never here: the catastrophic cases below assert that the linear-time NFA
was chosen for them and then run them on inputs that would hang a backtracking engine, so a wrong routing shows
up as a hung suite rather than as a flaky timing.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_support import scaled

from mcptools import SchemaError
from mcptools._validation import compile_schema
from mcptools._validation.backtrack import runs_in_linear_time
from mcptools._validation.nfa import NFAMatcher, build_matcher
from mcptools._validation.regex import compile_pattern, translate_pattern
from mcptools._validation.regex_syntax import Alt, Group, Node, Repeat, Seq, parse

# The measured hangs from the review: (pattern, text, does it match).
CATASTROPHIC = [
    ("(a|aa)+$", "a" * 40 + "!", False),
    ("^(a|ab|b)*c$", "ab" * 25, False),
    ("^(a|a?)+$", "a" * 40 + "!", False),
    ("^(a?){30}a{30}$", "a" * 40 + "!", False),
    ("\\s*#?$", " " * 20000 + "x", True),
    ("\\s*#$", " " * 20000 + "x", False),
    ("(a+)+$", "a" * 40 + "!", False),
    ("^(\\w+\\s?)*$", "word " * 30 + "!", False),
    ("^(a|a)*$", "a" * 40 + "!", False),
    ("(x+x+)+y", "x" * 5000, False),
    ("^(a+)+b", "a" * 5000, False),
    ("a\\w*b", "a" * 20000, False),
    ("^[^@]+@[^@]+\\.[^@]+$", "a@" + "." * 5000 + "@", False),
    ("^\\d*\\d*\\d*\\d*x$", "1" * 3000, False),
]


@pytest.mark.parametrize(("pattern", "text", "expected"), CATASTROPHIC)
def test_catastrophic_patterns_run_on_the_nfa(pattern: str, text: str, expected: bool) -> None:
    matcher = compile_pattern(pattern, "#")
    assert isinstance(matcher, NFAMatcher)
    assert (matcher.search(text) is not None) is expected
    assert compile_schema({"pattern": pattern}).is_valid(text) is expected


def test_catastrophic_patterns_through_pattern_properties_and_errors() -> None:
    checker = compile_schema({"type": "object", "patternProperties": {"(a|aa)+$": {"type": "integer"}}})
    assert checker.is_valid({"a" * 40 + "!": "x"})
    assert checker.errors({"aaaa": "x"}) != []
    strict = compile_schema({"type": "string", "pattern": "^(a|ab|b)*c$"})
    assert strict.errors("ab" * 25) != []
    assert strict.errors("ab" * 25 + "c") == []


# Simple patterns keep Python's C engine; the rest go to the NFA.
ON_RE = [
    "^[a-zA-Z0-9_-]+$",
    "^\\d{4}-\\d{2}-\\d{2}$",
    "^[a-z]+@[a-z]+\\.com$",
    "^\\d+\\.\\d+$",
    "^[^@]+@[^@]+$",
    "^(red|green|blue)$",
    "^(?=.*\\d)(?=.*[a-z]).{8,}$",
    "^.*\\d$",
    "^(\\d+)-\\1$",
    "^\\p{Letter}+$",
    "abc",
    "\\bfoo\\b",
    "^[0-9]{3}$",
    "^$",
    "",
]
ON_NFA = [
    "\\s*#?$",
    "a\\w*b",
    "x\\s*y",
    "^[a-z]*[0-9]*$",
    "^\\d+(\\.\\d+)?$",
    "^(ab)+$",
    "^a*a*$",
    "^[^@]+@[^@]+\\.[^@]+$",
    "^(a|ab)*$",
    "(?:a|b)+",
]


@pytest.mark.parametrize("pattern", ON_RE)
def test_simple_patterns_stay_on_re(pattern: str) -> None:
    assert isinstance(compile_pattern(pattern, "#"), re.Pattern)


@pytest.mark.parametrize("pattern", ON_NFA)
def test_ambiguous_or_unanchored_patterns_go_to_the_nfa(pattern: str) -> None:
    assert isinstance(compile_pattern(pattern, "#"), NFAMatcher)


@pytest.mark.parametrize(
    ("pattern", "fragments"),
    [
        ("^(a{100}){200}$", ["'^(a{100}){200}$'", "'#'", "more than 10000 matcher states"]),
        ("(a)\\1+", ["backreference", "exponential"]),
        ("^(a)+\\1$", ["backreference"]),
        ("x+(?=a+b)", ["lookaround"]),
        ("^(?=a+b)+x", ["lookaround"]),
        ("(?!ab)", ["lookaround"]),
    ],
)
def test_patterns_neither_engine_can_run_safely_are_refused(pattern: str, fragments: list[str]) -> None:
    with pytest.raises(SchemaError) as caught:
        compile_pattern(pattern, "#")
    for fragment in fragments:
        assert fragment in str(caught.value)


def test_big_but_bounded_counted_repeats_compile() -> None:
    matcher = compile_pattern("(ab){1000}c", "#")
    assert isinstance(matcher, NFAMatcher)
    assert matcher.search("x" + "ab" * 1000 + "c")
    assert not matcher.search("ab" * 999 + "c")


@pytest.mark.parametrize(
    ("pattern", "matches", "misses"),
    [
        ("^\\w+\\b-", ["ab-"], ["-", "ab"]),
        ("a\\B(b|c)+", ["abcb"], ["a b"]),
        ("(?<=x)(ab)+", ["xab"], ["yab", "ab"]),
        ("(ab)+(?!c)$", ["abab"], ["ababc"]),
        ("(?=[a-z])(\\w)+$", ["a1"], ["1a!"]),
        ("^(\\p{Lu}|x)+$", ["ÀB", "xA"], ["aB", ""]),
        ("(a|[]b)+c", ["ac"], ["bc"]),
        ("[^]+x|q", ["\nx", "q"], ["x"]),
        (".+$", ["a"], ["\n", ""]),
        ("^(\\d\\s)+$", ["1 2\u3000"], ["1 2\u0085"]),
        ("(Ab){2}?$", ["AbAb"], ["abab"]),
    ],
)
def test_nfa_semantics_follow_ecma(pattern: str, matches: list[str], misses: list[str]) -> None:
    source = translate_pattern(pattern, "#")
    matcher = build_matcher(source, parse(source))
    for text in matches:
        assert matcher.search(text), text
        assert re.search(source, text), text
    for text in misses:
        assert matcher.search(text) is None, text
        assert re.search(source, text) is None, text


def test_the_state_cache_is_bounded_and_answers_stay_right() -> None:
    matcher = compile_pattern("(a|b)*a(a|b){12}$", "#")
    assert isinstance(matcher, NFAMatcher)
    letters = "ab"
    texts = ["".join(letters[(i * 7919 + j * 104729) % 2] for j in range(40)) for i in range(300)]
    source = translate_pattern("(a|b)*a(a|b){12}$", "#")
    for text in texts:
        assert (matcher.search(text) is not None) == (re.search(source, text) is not None)


def test_the_cache_stays_bounded_on_many_distinct_characters() -> None:
    matcher = compile_pattern("(a|b)*c$", "#")
    assert isinstance(matcher, NFAMatcher)
    text = "".join(chr(code) for code in range(0x10000, 0x10000 + 60_000))
    assert matcher.search(text) is None
    assert 0 < matcher._steps <= 50_000
    assert matcher.search(text + "ac")
    assert matcher.search(text + "a") is None


# -- differential: the NFA and re agree on random patterns over a small grammar ---------------------------

_ATOMS = st.sampled_from(["a", "b", ".", "[ab]", "[^a]", "\\w", "\\W", "\\s", "\\d", "!", "[a-b!]", "\\b", "\\B"])
_QUANTIFIERS = st.sampled_from(["", "", "*", "+", "?", "{2}", "{1,3}", "{0,2}", "{2,}", "*?", "+?", "??", "{1,2}?"])


def _quantified(pattern: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    # Python refuses to repeat an anchor, so \b and \B stay bare.
    return st.tuples(pattern, _QUANTIFIERS).map(
        lambda pair: pair[0] if pair[0] in ("\\b", "\\B") else pair[0] + pair[1]
    )


def _extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    sequence = st.lists(inner, min_size=1, max_size=3).map("".join)
    group = st.tuples(st.sampled_from(["(", "(?:"]), st.lists(sequence, min_size=1, max_size=3)).map(
        lambda pair: pair[0] + "|".join(pair[1]) + ")"
    )
    return _quantified(group) | sequence


_PATTERNS = st.tuples(
    st.sampled_from(["", "^"]),
    st.recursive(_quantified(_ATOMS), _extend, max_leaves=6),
    st.sampled_from(["", "$"]),
).map("".join)
_TEXTS = st.text(alphabet="ab! ", max_size=10)


@settings(max_examples=scaled(400), deadline=None)
@given(_PATTERNS, st.lists(_TEXTS, min_size=1, max_size=6))
def test_nfa_agrees_with_re(pattern: str, texts: list[str]) -> None:
    source = translate_pattern(pattern, "#")
    expected = re.compile(source)
    matcher = build_matcher(source, parse(source))
    routed = compile_pattern(pattern, "#")
    for text in texts:
        want = expected.search(text) is not None
        assert (matcher.search(text) is not None) == want, (pattern, source, text)
        assert (routed.search(text) is not None) == want, (pattern, text)


def _children(node: Node) -> tuple[Node, ...]:
    if isinstance(node, Seq):
        return node.items
    if isinstance(node, Alt):
        return node.branches
    return (node.body,) if isinstance(node, (Group, Repeat)) else ()


def _repeats_something_ambiguous(node: Node) -> bool:
    """Whether a repeat applies to a body holding another repeat or an alternation (the (a+)+ family)."""
    if isinstance(node, Repeat) and (node.high is None or node.high > 1) and _holds_choice(node.body):
        return True
    return any(_repeats_something_ambiguous(child) for child in _children(node))


def _holds_choice(node: Node) -> bool:
    return isinstance(node, (Repeat, Alt)) or any(_holds_choice(child) for child in _children(node))


@settings(max_examples=scaled(300), deadline=None)
@given(_PATTERNS)
def test_nested_repeats_never_reach_re(pattern: str) -> None:
    source = translate_pattern(pattern, "#")
    if _repeats_something_ambiguous(parse(source)):
        assert isinstance(compile_pattern(pattern, "#"), NFAMatcher)
        assert not runs_in_linear_time(parse(source))


@pytest.mark.parametrize(
    ("pattern", "accepted", "refused"),
    [
        ("^[a&&b]$", "&", "c"),
        ("^[a||b]$", "|", "c"),
        ("^[~~]$", "~", "a"),
        ("^[+--]$", ",", "a"),
        ("^[--z]$", "m", "!"),
        ("^[[a]$", "[", "b"),
    ],
)
def test_set_syntax_characters_in_a_class_are_literal_and_raise_no_warning(
    pattern: str, accepted: str, refused: str
) -> None:
    # re warns (FutureWarning) where a later Python may read these as set operations; under -W error, or a
    # test run turning warnings into errors, that warning was an exception out of compile_schema.
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        validator = compile_schema({"pattern": pattern})
    assert validator.is_valid(accepted) and not validator.is_valid(refused)
