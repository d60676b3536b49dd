"""Sealed tokens (requestState, cursors): they open only unchanged, for their purpose, before they expire."""

from __future__ import annotations

import pytest

from mcptools._protocol.revisions import level_allows, negotiate
from mcptools._protocol.state import SECRET_ENV, StateSealer, arguments_digest


def test_round_trip_and_purpose() -> None:
    sealer = StateSealer(b"k")
    token = sealer.seal({"answers": {"a": [1, "é"]}}, purpose="requestState")
    assert sealer.open(token, purpose="requestState") == {"answers": {"a": [1, "é"]}}
    assert sealer.open(token, purpose="tools/list") is None


def test_every_single_character_change_is_refused() -> None:
    sealer = StateSealer(b"k")
    token = sealer.seal({"o": 1}, purpose="p")
    alphabet = "ABCabc012-_."
    for index, original in enumerate(token):
        replacement = next(c for c in alphabet if c != original)
        altered = token[:index] + replacement + token[index + 1 :]
        assert sealer.open(altered, purpose="p") is None, index
    assert sealer.open(token + "x", purpose="p") is None
    assert sealer.open(token[:-1], purpose="p") is None


@pytest.mark.parametrize("junk", [None, 5, "", ".", "a.b.c", "no-dot", "%%%.%%%", "x" * 2_000_000])
def test_junk_never_opens(junk: object) -> None:
    assert StateSealer(b"k").open(junk, purpose="p") is None


def test_keys_and_lifetimes(monkeypatch: pytest.MonkeyPatch) -> None:
    token = StateSealer(b"one").seal({}, purpose="p")
    assert StateSealer(b"two").open(token, purpose="p") is None
    expired = StateSealer(b"one", lifetime=-1).seal({}, purpose="p")
    assert StateSealer(b"one").open(expired, purpose="p") is None
    monkeypatch.setenv(SECRET_ENV, "shared by every worker")
    assert StateSealer().open(StateSealer().seal({"w": 1}, purpose="p"), purpose="p") == {"w": 1}
    monkeypatch.delenv(SECRET_ENV)
    assert StateSealer().open(StateSealer().seal({}, purpose="p"), purpose="p") is None


def test_arguments_digest_ignores_key_order_only() -> None:
    assert arguments_digest({"a": 1, "b": 2}) == arguments_digest({"b": 2, "a": 1})
    assert arguments_digest({"a": 1}) != arguments_digest({"a": "1"})


def test_negotiation_and_log_levels() -> None:
    assert negotiate("2025-06-18") == "2025-06-18"
    assert negotiate("2026-07-28") == "2025-11-25"
    assert negotiate(None) == "2025-11-25"
    assert level_allows("warning", "error") and not level_allows("warning", "info")
    assert not level_allows(None, "emergency")
