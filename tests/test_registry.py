"""ToolRegistry and @tool: registration, the contract mapping, and errors raised at definition time."""

from __future__ import annotations

import asyncio
import copy
import logging
from typing import Any

import pytest

from mcptools import ToolDefinitionError, ToolError, ToolRegistry, call_tool, tool


def call(registry: ToolRegistry, name: str, arguments: Any = None, request_id: int = 1) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    response = registry.handle({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})
    assert response is not None
    return response


def text_of(response: dict[str, Any]) -> str:
    content = response["result"]["content"]
    assert len(content) == 1 and content[0]["type"] == "text"
    text: str = content[0]["text"]
    return text


def test_decorator_bare_and_with_options_keeps_the_function() -> None:
    registry = ToolRegistry("s")

    def plain(a: int) -> int:
        return a + 1

    decorated = registry.tool(plain)
    assert decorated is plain

    @registry.tool(name="renamed", title="A title", annotations={"readOnlyHint": True})
    def other(b: str) -> str:
        return b * 2

    assert other("x") == "xx"
    assert sorted(registry.tools) == ["plain", "renamed"]
    listing = {entry["name"]: entry for entry in registry.list_tools()}
    assert listing["renamed"]["title"] == "A title"
    assert listing["renamed"]["annotations"] == {"readOnlyHint": True}
    assert "title" not in listing["plain"] and "annotations" not in listing["plain"]


def test_tools_mapping_is_the_contract_shape_and_works_with_call_tool() -> None:
    registry = ToolRegistry("s")

    @registry.tool
    def greet(name: str) -> str:
        return f"hello {name}"

    schema, fn = registry.tools["greet"]
    assert fn is greet
    assert schema["type"] == "object"
    response = call_tool(
        registry.tools,
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "greet", "arguments": {"name": "Ada"}}},
    )
    assert text_of(response) == "hello Ada"
    with pytest.raises(TypeError):
        registry.tools["x"] = (schema, fn)  # type: ignore[index]


def test_module_level_tool_marks_and_add_registers() -> None:
    @tool(name="lib_tool", description="From a library.")
    def library_function(x: int) -> int:
        return x

    assert library_function(3) == 3
    first, second = ToolRegistry("a"), ToolRegistry("b")
    first.add(library_function)
    second.add(library_function, name="other_name")
    assert list(first.tools) == ["lib_tool"]
    assert list(second.tools) == ["other_name"]
    assert first.list_tools()[0]["description"] == "From a library."


def test_two_registries_do_not_see_each_other() -> None:
    first, second = ToolRegistry("a"), ToolRegistry("b")

    @first.tool
    def only_here() -> str:
        return "x"

    assert "only_here" in first and "only_here" not in second


def test_duplicate_names_are_rejected_naming_both_functions() -> None:
    registry = ToolRegistry("s")

    @registry.tool
    def weather() -> str:
        return ""

    def weather_again() -> str:
        return ""

    with pytest.raises(ToolDefinitionError) as info:
        registry.add(weather_again, name="weather")
    message = str(info.value)
    assert "weather_again" in message and "already registered" in message and "name=" in message
    assert "test_registry" in message


@pytest.mark.parametrize("name", ["", "has space", "x" * 129, "ünïcode", "trailing\n", "semi;colon", "a/b"])
def test_invalid_tool_names(name: str) -> None:
    registry = ToolRegistry("s")
    with pytest.raises(ToolDefinitionError, match="tool name"):

        @registry.tool(name=name)
        def f() -> str:
            return ""


@pytest.mark.parametrize("name", ["a", "x" * 128, "get_weather", "ns.tool-v2", "A.B_C-9"])
def test_valid_tool_names(name: str) -> None:
    registry = ToolRegistry("s")

    @registry.tool(name=name)
    def f() -> str:
        return ""

    assert name in registry


def test_star_args_are_rejected_with_a_fix() -> None:
    with pytest.raises(ToolDefinitionError) as info:

        @tool
        def f(*items: str) -> str:
            return ""

    assert "'*items'" in str(info.value) and "list" in str(info.value) and "f" in str(info.value)


def test_positional_only_is_rejected_with_a_fix() -> None:
    registry = ToolRegistry("s")
    with pytest.raises(ToolDefinitionError) as info:

        @registry.tool
        def f(a: int, /) -> int:
            return a

    assert "'a'" in str(info.value) and "positional-only" in str(info.value) and "'/'" in str(info.value)


def test_unknown_annotation_key_is_rejected() -> None:
    with pytest.raises(ToolDefinitionError, match="readOnlyHint"):
        tool(name="x", annotations={"readonly": True})(lambda: "")  # type: ignore[call-overload]


def test_explicit_schema_that_is_not_an_object_schema_is_rejected() -> None:
    registry = ToolRegistry("s")
    for bad in ({"type": "string"}, {"type": "object", "properties": {"a": {"type": "strnig"}}}):
        with pytest.raises(ToolDefinitionError):

            @registry.tool(input_schema=bad)
            def f(a: str = "") -> str:
                return a


def test_a_tool_error_is_shown_to_the_model_as_is() -> None:
    registry = ToolRegistry("s")

    @registry.tool
    def lookup(city: str) -> str:
        raise ToolError(f"No forecast for {city}; try a nearby larger city")

    response = call(registry, "lookup", {"city": "Atlantis"})
    assert response["result"]["isError"] is True
    assert text_of(response) == "No forecast for Atlantis; try a nearby larger city"


def test_a_raised_message_reaches_the_model_as_the_peers_send_it_and_the_traceback_only_the_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    registry = ToolRegistry("s")

    @registry.tool
    def query(sql: str) -> str:
        raise ValueError("Only SELECT queries are allowed")

    with caplog.at_level(logging.ERROR, logger="mcptools"):
        response = call(registry, "query", {"sql": "DELETE FROM t"})
    assert response["result"]["isError"] is True
    assert text_of(response) == "Tool 'query' failed: ValueError: Only SELECT queries are allowed"
    assert "Traceback" not in str(response)
    assert any(record.exc_info is not None for record in caplog.records)


def test_mask_error_details_leaves_the_message_out_for_deployments_with_secrets_in_exception_text(
    caplog: pytest.LogCaptureFixture,
) -> None:
    registry = ToolRegistry("s", mask_error_details=True)

    @registry.tool
    def boom() -> str:
        raise KeyError("secret-token-123")

    with caplog.at_level(logging.ERROR, logger="mcptools"):
        response = call(registry, "boom")
    assert text_of(response) == "Tool 'boom' failed: KeyError"
    assert "secret" not in str(response)
    assert "secret-token-123" in caplog.text  # the log keeps it for the operator


@pytest.mark.parametrize(
    ("options", "masked"),
    [
        ({}, False),
        ({"expose_errors": True}, False),
        ({"expose_errors": False}, True),
        ({"mask_error_details": True}, True),
    ],
)
def test_expose_errors_the_older_spelling_stays_the_inverse_of_masking(options: dict[str, Any], masked: bool) -> None:
    registry = ToolRegistry("s", **options)

    @registry.tool
    def boom() -> str:
        raise ValueError("bad things")

    expected = "Tool 'boom' failed: ValueError" + ("" if masked else ": bad things")
    assert text_of(call(registry, "boom")) == expected
    assert registry.mask_error_details is masked and registry.expose_errors is not masked
    registry.expose_errors = masked  # set the other way through the old name
    assert text_of(call(registry, "boom")) == "Tool 'boom' failed: ValueError" + (": bad things" if masked else "")


def test_an_exception_whose_text_cannot_be_read_still_gives_its_class() -> None:
    class Unprintable(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no text")

    registry = ToolRegistry("s")

    @registry.tool
    def boom() -> str:
        raise Unprintable

    assert text_of(call(registry, "boom")) == "Tool 'boom' failed: Unprintable"


def test_a_tool_calling_sys_exit_does_not_stop_the_server() -> None:
    registry = ToolRegistry("s")

    @registry.tool
    def leave() -> str:
        raise SystemExit(3)

    assert call(registry, "leave")["result"]["isError"] is True


def test_async_tools_work_through_handle_and_handle_async() -> None:
    registry = ToolRegistry("s")

    @registry.tool
    async def slow_echo(text: str) -> str:
        await asyncio.sleep(0)
        return text.upper()

    @registry.tool
    def sync_echo(text: str) -> str:
        return text

    assert text_of(call(registry, "slow_echo", {"text": "hi"})) == "HI"
    request = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "slow_echo", "arguments": {"text": "yo"}},
    }

    async def main() -> tuple[Any, Any, Any]:
        in_loop_sync = registry.handle(request)  # called from inside a running loop
        sync_request = {**request, "params": {"name": "sync_echo", "arguments": {"text": "s"}}}
        return await registry.handle_async(request), in_loop_sync, await registry.handle_async(sync_request)

    via_async, via_sync_in_loop, sync_via_async = asyncio.run(main())
    assert text_of(via_async) == "YO"
    assert text_of(via_sync_in_loop) == "YO"
    assert text_of(sync_via_async) == "s"


def test_a_tool_is_never_called_with_invalid_arguments() -> None:
    registry = ToolRegistry("s")
    calls: list[int] = []

    @registry.tool
    def count(n: int) -> int:
        calls.append(n)
        return n

    for bad in ({"n": "1"}, {"n": 1.5}, {"n": True}, {}, {"n": 1, "m": 2}, [1], "n", 3):
        response = call(registry, "count", bad)
        assert response["result"]["isError"] is True
    assert calls == []
    assert text_of(call(registry, "count", {"n": 4})) == "4"
    assert calls == [4]


def test_arguments_that_are_not_an_object_get_an_is_error_result() -> None:
    registry = ToolRegistry("s")

    @registry.tool
    def f() -> str:
        return ""

    response = call(registry, "f", [1, 2])
    assert text_of(response) == "Invalid arguments: arguments must be an object"


def test_registry_tool_stacked_on_a_mark_uses_the_marks_options() -> None:
    registry = ToolRegistry("s")

    @registry.tool
    @tool(name="foo", description="marked desc")
    def bar() -> str:
        """Doc."""
        return ""

    assert list(registry.tools) == ["foo"]
    assert registry.list_tools()[0]["description"] == "marked desc"


def test_a_failing_async_tool_logs_only_its_own_traceback(caplog: pytest.LogCaptureFixture) -> None:
    registry = ToolRegistry("s")

    @registry.tool
    async def broken() -> str:
        raise RuntimeError("inner")

    with caplog.at_level(logging.ERROR, logger="mcptools"):
        assert call(registry, "broken")["result"]["isError"] is True
    assert "inner" in caplog.text
    assert "no running event loop" not in caplog.text


def test_iterating_a_registry_gives_its_tools() -> None:
    registry = ToolRegistry("s")

    @registry.tool
    def a() -> str:
        return ""

    assert [entry.name for entry in registry] == ["a"]
    assert len(registry) == 1


def test_did_you_mean_hints_are_opt_in() -> None:
    def weather(location: str) -> str:
        return location

    strict, helpful = ToolRegistry("strict"), ToolRegistry("helpful", suggest_names=True)
    strict.add(weather)
    helpful.add(weather)
    bad = {"locaton": "Paris"}
    missing = "Invalid arguments: missing required property 'location'; "
    assert text_of(call(strict, "weather", bad)) == missing + "unexpected property 'locaton'"
    assert text_of(call(helpful, "weather", bad)) == (
        missing + "unexpected property 'locaton' (did you mean 'location'?)"
    )


def test_an_explicit_schema_is_copied_so_the_caller_cannot_change_what_is_published_or_checked() -> None:
    registry = ToolRegistry("copied")
    published = {
        "type": "object",
        "properties": {"x": {"type": "integer"}},
        "required": ["x"],
        "additionalProperties": False,
    }
    schema: dict[str, Any] = copy.deepcopy(published)

    def echo(x: int) -> str:
        return str(x)

    registry.add(echo, input_schema=schema)
    schema["properties"]["x"]["type"] = "string"  # the caller's own dict, edited after registration
    schema["required"].append("y")
    [listed] = registry.list_tools()
    assert listed["inputSchema"] == published
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"x": "a"}}}
    answered = registry.handle(call)
    assert answered is not None and answered["result"]["isError"] is True  # still checked as published


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [("bad prefix ", "prefix must be a string of A-Z"), ("p" * 128, "longer than MCP's 128 characters")],
)
def test_an_include_prefix_can_only_make_names_mcp_allows(prefix: str, expected: str) -> None:
    parent, child = ToolRegistry("parent"), ToolRegistry("child")

    @child.tool
    def lookup() -> str:
        return ""

    with pytest.raises(ToolDefinitionError, match=expected):
        parent.include(child, prefix=prefix)
    assert len(parent) == 0  # refused whole: nothing of the child is served
