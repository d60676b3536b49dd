"""Typing tests for Context and the content classes, checked by `mypy --strict` (not run by pytest).

Wrong uses carry `type: ignore[code]`; mypy --strict reports unused ignores, so a wrong use that stopped being
an error would fail this file.
"""

from __future__ import annotations

from typing import Any, Literal

from typing_extensions import assert_type

from mcptools import (
    AudioContent,
    Context,
    ElicitResult,
    EmbeddedResource,
    ImageContent,
    InputRequest,
    ResourceLink,
    TextContent,
    ToolRegistry,
)

registry = ToolRegistry("typing-context")


@registry.tool
async def uses_everything(question: str, ctx: Context) -> list[TextContent | ImageContent]:
    await ctx.report_progress(1, 2, message="half way")
    await ctx.info("started")
    await ctx.log("warning", {"detail": 1}, logger="typing")
    await ctx.log("loud", "x")  # type: ignore[arg-type]
    answer = await ctx.elicit(question, {"type": "object", "properties": {}}, key="q")
    assert_type(answer, ElicitResult)
    assert_type(answer["action"], Literal["accept", "decline", "cancel"])
    sampled = await ctx.sample(question, max_tokens=10)
    assert_type(sampled, dict[str, Any])
    await ctx.sample(question)  # type: ignore[call-arg]
    roots = await ctx.list_roots()
    assert_type(roots, list[dict[str, Any]])
    request = ctx.elicitation("Name?", {"type": "object", "properties": {}})
    assert_type(request, InputRequest)
    answers = await ctx.ask({"n": request, "r": ctx.roots(), "s": ctx.sampling("hi", max_tokens=5)})
    assert_type(answers, dict[str, dict[str, Any]])
    assert_type(ctx.cancelled, bool)
    assert_type(ctx.supports("sampling"), bool)
    ctx.supports("tasks")  # type: ignore[arg-type]
    return [TextContent("t"), ImageContent(b"\x89PNG", "image/png")]


assert_type(AudioContent(b"RIFF", "audio/wav").to_json(), dict[str, Any])
assert_type(EmbeddedResource("mem://x", text="x").to_json(), dict[str, Any])
assert_type(ResourceLink("file:///x", "x", size=1).to_json(), dict[str, Any])
ResourceLink("file:///x", "x", size="big")  # type: ignore[arg-type]
ImageContent(123, "image/png")  # type: ignore[arg-type]
