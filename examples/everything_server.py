"""Every tool the official MCP conformance suite calls, on one registry.

    mcptools serve examples/everything_server.py --http --port 8765
    mcptools serve examples/everything_server.py            # stdio

Each tool's behaviour is what the suite's scenario description asks for (``--verbose`` shows them); together
they exercise the whole SDK surface: content blocks, progress, logging, elicitation, sampling, roots, the
2026-07-28 input-required rounds, stream resumption, request headers, and tasks (the Tasks extension's
scenarios: ``greet`` to ``test_tool_with_task`` at the end).
"""

from __future__ import annotations

import asyncio
import io
import json
import struct
import wave
import zlib
from typing import Any

from mcptools import (
    AudioContent,
    Context,
    EmbeddedResource,
    ImageContent,
    ProtocolError,
    TextContent,
    ToolError,
    ToolRegistry,
)

registry = ToolRegistry("mcptools-everything-server", version="0.1.0")


def _png_pixel(red: int, green: int, blue: int) -> bytes:
    """A 1x1 PNG of one colour, built by hand so the example needs no image library."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(bytes([0, red, green, blue]))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def _wav_silence(milliseconds: int = 10, rate: int = 8000) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as sound:
        sound.setnchannels(1)
        sound.setsampwidth(1)
        sound.setframerate(rate)
        sound.writeframes(b"\x80" * (rate * milliseconds // 1000))
    return buffer.getvalue()


RED_PIXEL = _png_pixel(255, 0, 0)


# -- content -------------------------------------------------------------------------------------------


@registry.tool
def test_simple_text() -> str:
    """Return a simple text response."""
    return "This is a simple text response for testing."


@registry.tool
def test_image_content() -> ImageContent:
    """Return a 1x1 red PNG image."""
    return ImageContent(RED_PIXEL, "image/png")


@registry.tool
def test_audio_content() -> AudioContent:
    """Return a short WAV clip of silence."""
    return AudioContent(_wav_silence(), "audio/wav")


@registry.tool
def test_embedded_resource() -> EmbeddedResource:
    """Return an embedded text resource."""
    return EmbeddedResource(
        "test://embedded-resource", text="This is an embedded resource content.", mime_type="text/plain"
    )


@registry.tool
def test_multiple_content_types() -> list[TextContent | ImageContent | EmbeddedResource]:
    """Return text, an image and an embedded resource together."""
    return [
        TextContent("Multiple content types test:"),
        ImageContent(RED_PIXEL, "image/png"),
        EmbeddedResource(
            "test://mixed-content-resource",
            text=json.dumps({"test": "data", "value": 123}),
            mime_type="application/json",
        ),
    ]


@registry.tool
def test_error_handling() -> str:
    """Always fail, to show how a tool reports an error to the model."""
    raise ToolError("This tool intentionally returns an error for testing")


# -- progress, logging, streams ------------------------------------------------------------------------


@registry.tool
async def test_tool_with_logging(ctx: Context) -> str:
    """Send three info log messages, 50 ms apart."""
    await ctx.info("Tool execution started")
    await asyncio.sleep(0.05)
    await ctx.info("Tool processing data")
    await asyncio.sleep(0.05)
    await ctx.info("Tool execution completed")
    return "Logging test completed"


@registry.tool
async def test_logging_tool(ctx: Context) -> str:
    """Log a message; it reaches the client only if the client asked for logs."""
    await ctx.info("test_logging_tool ran")
    return "Logged (if the client asked for logs)"


@registry.tool
async def test_tool_with_progress(ctx: Context) -> str:
    """Report progress 0, 50 and 100 out of 100, 50 ms apart."""
    for step, progress in enumerate((0, 50, 100)):
        if step:
            await asyncio.sleep(0.05)
        await ctx.report_progress(progress, 100)
    return "Progress test completed"


@registry.tool
async def test_reconnection(ctx: Context) -> str:
    """Close the event stream mid-call; the result arrives once the client reconnects."""
    await ctx.close_stream()
    await asyncio.sleep(0.1)
    return "Reconnection test completed"


# -- questions for the client --------------------------------------------------------------------------


@registry.tool
async def test_sampling(prompt: str, ctx: Context) -> str:
    """Ask the client's model to answer `prompt`.

    Args:
        prompt: The prompt to send to the LLM.
    """
    result = await ctx.sample(prompt, max_tokens=100)
    content = result.get("content")
    text = content.get("text") if isinstance(content, dict) else json.dumps(content)
    return f"LLM response: {text}"


@registry.tool
async def test_elicitation(message: str, ctx: Context) -> str:
    """Ask the user for a username and an email address.

    Args:
        message: The message to show the user.
    """
    answer = await ctx.elicit(
        message,
        {
            "type": "object",
            "properties": {
                "username": {"type": "string", "description": "User's response"},
                "email": {"type": "string", "description": "User's email address"},
            },
            "required": ["username", "email"],
        },
    )
    return f"User response: action={answer['action']}, content={json.dumps(answer.get('content', {}))}"


@registry.tool
async def test_elicitation_sep1034_defaults(ctx: Context) -> str:
    """Elicit a form whose every field has a default value."""
    answer = await ctx.elicit(
        "Please review and update the form fields with defaults",
        {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "User name", "default": "John Doe"},
                "age": {"type": "integer", "description": "User age", "default": 30},
                "score": {"type": "number", "description": "User score", "default": 95.5},
                "status": {
                    "type": "string",
                    "description": "User status",
                    "enum": ["active", "inactive", "pending"],
                    "default": "active",
                },
                "verified": {"type": "boolean", "description": "Verification status", "default": True},
            },
        },
    )
    return f"Elicitation completed: action={answer['action']}, content={json.dumps(answer.get('content', {}))}"


@registry.tool
async def test_elicitation_sep1330_enums(ctx: Context) -> str:
    """Elicit a form with all five enum shapes (single/multi select, titled/untitled, legacy enumNames)."""
    answer = await ctx.elicit(
        "Please select options from the enum fields",
        {
            "type": "object",
            "properties": {
                "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
                "titledSingle": {
                    "type": "string",
                    "oneOf": [
                        {"const": "value1", "title": "First Option"},
                        {"const": "value2", "title": "Second Option"},
                        {"const": "value3", "title": "Third Option"},
                    ],
                },
                "legacyEnum": {
                    "type": "string",
                    "enum": ["opt1", "opt2", "opt3"],
                    "enumNames": ["Option One", "Option Two", "Option Three"],
                },
                "untitledMulti": {
                    "type": "array",
                    "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
                },
                "titledMulti": {
                    "type": "array",
                    "items": {
                        "anyOf": [
                            {"const": "value1", "title": "First Choice"},
                            {"const": "value2", "title": "Second Choice"},
                            {"const": "value3", "title": "Third Choice"},
                        ]
                    },
                },
            },
        },
    )
    return f"Elicitation completed: action={answer['action']}, content={json.dumps(answer.get('content', {}))}"


@registry.tool
async def test_missing_capability(ctx: Context) -> str:
    """Needs sampling: a client that did not declare it gets error -32021."""
    result = await ctx.sample("Say hello", max_tokens=10)
    return f"Sampled: {json.dumps(result.get('content'))}"


@registry.tool
async def test_streaming_elicitation(ctx: Context) -> str:
    """Ask for a confirmation; over 2026-07-28 that is an input-required result, never a request on the
    stream."""
    answer = await ctx.elicit(
        "Please confirm", {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    )
    return f"Confirmed: {answer['action']}"


# -- 2026-07-28 input-required rounds ------------------------------------------------------------------

_NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
_OK_FORM = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


def _sampled_text(result: dict[str, Any]) -> str:
    content = result.get("content")
    if isinstance(content, dict) and isinstance(content.get("text"), str):
        return str(content["text"])
    return json.dumps(content)


@registry.tool
async def test_input_required_result_elicitation(ctx: Context) -> str:
    """Ask the user's name, then greet them."""
    answer = await ctx.elicit("What is your name?", _NAME_FORM, key="user_name")
    return f"Hello, {answer.get('content', {}).get('name', 'stranger')}!"


@registry.tool
async def test_input_required_result_sampling(ctx: Context) -> str:
    """Ask the client's model a question and return its answer."""
    result = await ctx.sample("What is the capital of France?", max_tokens=100, key="capital_question")
    return f"The model said: {_sampled_text(result)}"


@registry.tool
async def test_input_required_result_list_roots(ctx: Context) -> str:
    """List the client's roots."""
    roots = await ctx.list_roots(key="client_roots")
    return "Roots: " + ", ".join(str(root.get("uri")) for root in roots)


@registry.tool
async def test_input_required_result_request_state(ctx: Context) -> str:
    """Ask for a confirmation; the answer comes back with the sealed requestState."""
    answer = await ctx.elicit("Please confirm", _OK_FORM, key="confirm")
    return f"state-ok: confirmed={answer.get('content', {}).get('ok')}"


@registry.tool
async def test_input_required_result_tampered_state(ctx: Context) -> str:
    """Ask for a confirmation; a requestState altered by the client is refused."""
    answer = await ctx.elicit("Please confirm", _OK_FORM, key="confirm")
    return f"state-ok: confirmed={answer.get('content', {}).get('ok')}"


@registry.tool
async def test_input_required_result_multiple_inputs(ctx: Context) -> str:
    """Ask three questions at once: a form, a completion and the roots."""
    answers = await ctx.ask(
        {
            "user_name": ctx.elicitation("What is your name?", _NAME_FORM),
            "greeting": ctx.sampling("Generate a greeting", max_tokens=50),
            "client_roots": ctx.roots(),
        }
    )
    name = answers["user_name"].get("content", {}).get("name")
    return f"{_sampled_text(answers['greeting'])} {name} ({len(answers['client_roots'].get('roots', []))} roots)"


@registry.tool
async def test_input_required_result_multi_round(ctx: Context) -> str:
    """Two rounds of questions: the name first, then a favourite colour."""
    first = await ctx.elicit("Step 1: What is your name?", _NAME_FORM, key="step1")
    color_form = {"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]}
    second = await ctx.elicit("Step 2: What is your favorite color?", color_form, key="step2")
    return f"{first.get('content', {}).get('name')} likes {second.get('content', {}).get('color')}"


@registry.tool
async def test_input_required_result_capabilities(ctx: Context) -> str:
    """Ask only what the client can answer: a completion if it samples, a form if it elicits."""
    questions = {}
    if ctx.supports("sampling"):
        questions["capital_question"] = ctx.sampling("What is the capital of France?", max_tokens=100)
    if ctx.supports("elicitation"):
        questions["user_name"] = ctx.elicitation("What is your name?", _NAME_FORM)
    if not questions:
        return "The client declared neither sampling nor elicitation"
    answers = await ctx.ask(questions)
    return "Answered: " + ", ".join(sorted(answers))


# -- schemas and headers -------------------------------------------------------------------------------

JSON_SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}


@registry.tool(
    name="json_schema_2020_12_tool",
    description="Tool with JSON Schema 2020-12 features",
    input_schema=JSON_SCHEMA_2020_12,
)
def json_schema_2020_12_tool(
    name: str | None = None,
    address: dict[str, Any] | None = None,
    contactMethod: str | None = None,
    phone: str | None = None,
    email: str | None = None,
) -> str:
    return f"Contact for {name}: {phone if contactMethod == 'phone' else email}"


@registry.tool(
    input_schema={
        "type": "object",
        "properties": {"region": {"type": "string", "x-mcp-header": "Region", "description": "Where to look"}},
        "required": ["region"],
        "additionalProperties": False,
    }
)
def test_header_param(region: str) -> str:
    """Echo a region that the client also sends in the Mcp-Param-Region header."""
    return f"Region: {region}"


# -- a live tool list ------------------------------------------------------------------------------------


def test_dynamic_tool() -> str:
    """A tool that comes and goes (test_trigger_tool_change)."""
    return "here for now"


@registry.tool
def test_trigger_tool_change() -> str:
    """Add test_dynamic_tool and remove it again: open 2025 sessions and 2026-07-28 subscriptions/listen streams
    are told that the tool list changed, and the list ends as it was (so with several workers, whose registries
    are each their own, every worker still lists the same tools; only this worker's clients hear of the change)."""
    registry.add(test_dynamic_tool)
    registry.remove("test_dynamic_tool")
    return "added and removed test_dynamic_tool"


# -- tasks (the Tasks extension: io.modelcontextprotocol/tasks) -----------------------------------------

_CONFIRM_FORM = {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}


@registry.tool
def greet(name: str) -> str:
    """Greet someone: a plain tool, never a task."""
    return f"Hello, {name}!"


@registry.tool(task="optional")
async def slow_compute(seconds: float, label: str = "result") -> str:
    """Wait `seconds`, then answer: a task to poll, or to cancel while it waits.

    Args:
        seconds: How long to work.
        label: Named in the answer.
    """
    await asyncio.sleep(seconds)
    return f"{label}: done after {seconds:g} seconds"


@registry.tool(task="required")
async def failing_job() -> str:
    """Fail after a second with a tool error: the task completes, its result an error."""
    await asyncio.sleep(1)
    raise ToolError("failing_job failed, as it always does")


@registry.tool(task="optional")
async def protocol_error_job() -> str:
    """End with a JSON-RPC error: the task fails, with that error."""
    raise ProtocolError(-32603, "protocol_error_job ended with a protocol error, as it always does")


@registry.tool(task="optional")
async def confirm_delete(filename: str, ctx: Context) -> str:
    """Ask the user to confirm before deleting (nothing is deleted: a fixture).

    Args:
        filename: The file to delete.
    """
    answer = await ctx.elicit(f"Delete {filename}?", _CONFIRM_FORM, key="confirm")
    confirmed = answer["action"] == "accept" and answer.get("content", {}).get("confirm") is True
    return f"{filename}: {'deleted' if confirmed else 'kept'}"


@registry.tool(task="optional")
async def multi_input(ctx: Context) -> str:
    """Ask two questions at once; each may be answered on its own."""
    answers = await ctx.ask(
        {
            "first_name": ctx.elicitation("Your first name?", _NAME_FORM),
            "last_name": ctx.elicitation("Your last name?", _NAME_FORM),
        }
    )
    names = [answers[key].get("content", {}).get("name", "?") for key in ("first_name", "last_name")]
    return "Hello, " + " ".join(names) + "!"


@registry.tool(task="required")
async def test_tool_with_task(ctx: Context) -> str:
    """Ask the user's name on the call itself, then go on as a task that greets them."""
    answer = await ctx.elicit("What is your name?", _NAME_FORM, key="user_name")
    await ctx.continue_as_task()
    return f"Hello, {answer.get('content', {}).get('name', 'stranger')}, from a task!"
