"""JSON on the wire: nesting is bounded when decoding, NaN/Infinity never go out, and nothing here raises."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcptools._protocol.wire import MAX_NESTING, ParseFailure, decode_message, encode_message, nesting_depth


def nested_arrays(depth: int) -> Any:
    value: Any = []
    for _ in range(depth - 1):
        value = [value]
    return value


@pytest.mark.parametrize(
    "text",
    [
        b"[" * 1000 + b"]" * 1000,
        b"[" * 100_000 + b"]" * 100_000,
        b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
        b"[" * 100_000,  # not even valid: still a parse failure, not a RecursionError
    ],
)
def test_deep_nesting_is_a_parse_failure_not_a_recursion_error(text: bytes) -> None:
    with pytest.raises(ParseFailure, match="nests deeper than 512 levels"):
        decode_message(text)


def test_the_limit_is_exact_and_counts_arrays_and_objects_alike() -> None:
    at_limit = json.dumps(nested_arrays(MAX_NESTING))
    assert nesting_depth(decode_message(at_limit)) == MAX_NESTING
    with pytest.raises(ParseFailure):
        decode_message(json.dumps(nested_arrays(MAX_NESTING + 1)))
    objects = '{"a":' * MAX_NESTING + "1" + "}" * MAX_NESTING
    assert nesting_depth(decode_message(objects.encode())) == MAX_NESTING
    with pytest.raises(ParseFailure):
        decode_message('{"a":' * (MAX_NESTING + 1) + "1" + "}" * (MAX_NESTING + 1))


def test_brackets_inside_strings_do_not_count() -> None:
    message = {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"text": "[{" * 5000}}
    assert decode_message(json.dumps(message).encode()) == message


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_non_json_number_constants_are_refused(constant: str) -> None:
    with pytest.raises(ParseFailure, match="not valid JSON"):
        decode_message(f'{{"x": {constant}}}'.encode())


def test_nesting_depth() -> None:
    assert nesting_depth(1) == 0
    assert nesting_depth([]) == 1
    assert nesting_depth({"a": [1, {"b": []}], "c": {}}) == 4
    assert nesting_depth([[], [[{}], 2], {"x": [[[]]]}]) == 5
    deep = nested_arrays(600)
    assert nesting_depth(deep) == 600
    assert nesting_depth(deep, limit=512) == 513  # the walk stops at the first level past the limit


def test_encoding_refuses_nan_and_answers_the_same_id_with_an_error() -> None:
    text = encode_message({"jsonrpc": "2.0", "id": 7, "result": {"x": float("nan")}})
    assert text is not None
    message = json.loads(text)  # strict enough: json.loads would take NaN, so check the text too
    assert b"NaN" not in text
    assert message["id"] == 7 and message["error"]["code"] == -32603


def test_a_notification_that_cannot_be_encoded_is_dropped() -> None:
    notification = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": float("inf")}}
    assert encode_message(notification) is None


def test_a_result_nested_too_deep_to_encode_becomes_an_error() -> None:
    text = encode_message({"jsonrpc": "2.0", "id": "d", "result": {"x": nested_arrays(100_000)}})
    assert text is not None and json.loads(text)["error"]["code"] == -32603


def test_a_batch_keeps_its_good_members() -> None:
    good = {"jsonrpc": "2.0", "id": 1, "result": {}}
    bad = {"jsonrpc": "2.0", "id": 2, "result": {"x": float("-inf")}}
    text = encode_message([good, bad])
    assert text is not None
    assert [m.get("result") for m in json.loads(text)] == [{}, None]
    assert json.loads(text)[1]["error"]["code"] == -32603


@pytest.mark.parametrize(
    "text",
    [
        rb'{"jsonrpc":"2.0","id":"\ud800","method":"ping"}',  # a high surrogate alone, in the id
        rb'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":"x\uDFFFy"}}',  # a low one, upper-case hex
        rb'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"\udc00":1}}',  # in a key
        rb'{"a":"\ude00\ud83d"}',  # a pair in the wrong order is two lone surrogates
        '{"a":"\ud800"}',  # text given as str may hold a surrogate itself, no escape needed
        # Large messages: one with few escapes is searched, one dense with them is checked in full.
        json.dumps({"a": "x" * 5000, "b": ["\n"] * 3}).encode()[:-1] + rb',"c":"\udbff"}',
        json.dumps({"a": "\N{CJK UNIFIED IDEOGRAPH-5929}" * 5000}).encode()[:-1] + rb',"c":["\udbff"]}',
    ],
    ids=["id", "argument", "key", "reversed-pair", "str", "large-sparse", "large-dense"],
)
def test_a_lone_surrogate_is_a_parse_failure(text: bytes | str) -> None:
    # Python decodes the escape to a str UTF-8 cannot encode: the reply echoing it failed only when written.
    with pytest.raises(ParseFailure, match="unpaired surrogate"):
        decode_message(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (rb'{"a":"\ud83d\ude00"}', {"a": "\N{GRINNING FACE}"}),  # a pair: one character, as json.dumps escapes it
        (rb'{"a":"\\ud800"}', {"a": "\\ud800"}),  # an escaped backslash: six characters of text
        (rb'{"a":"\u00e9\n"}', {"a": "\N{LATIN SMALL LETTER E WITH ACUTE}\n"}),
        ('{"a":"\N{LATIN SMALL LETTER E WITH ACUTE}"}', {"a": "\N{LATIN SMALL LETTER E WITH ACUTE}"}),
        (
            json.dumps({"a": "\N{CJK UNIFIED IDEOGRAPH-5929}" * 5000}).encode(),
            {"a": "\N{CJK UNIFIED IDEOGRAPH-5929}" * 5000},
        ),
        (json.dumps({"a": "line\n" * 2000}).encode(), {"a": "line\n" * 2000}),
    ],
    ids=["pair", "escaped-backslash", "escapes", "str", "large-dense", "large-sparse"],
)
def test_text_that_is_unicode_decodes_as_before(text: bytes | str, expected: Any) -> None:
    assert decode_message(text) == expected


def test_text_utf8_cannot_carry_becomes_an_error_for_the_same_id() -> None:
    data = encode_message({"jsonrpc": "2.0", "id": "r", "result": {"text": "a\ud800b"}})
    assert data is not None and json.loads(data)["id"] == "r" and json.loads(data)["error"]["code"] == -32603
    assert encode_message({"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "\udfff"}}) is None
    assert json.loads(encode_message({"jsonrpc": "2.0", "id": 1, "result": {"text": "é"}}) or b"") == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"text": "é"},
    }
