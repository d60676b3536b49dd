"""The registry the protocol engine's tests serve (one tool per behaviour under test), and a bounded ``run``."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from mcptools import ToolError, ToolRegistry
from mcptools._content import AudioContent, EmbeddedResource, ImageContent, ResourceLink, TextContent
from mcptools._context import Context

NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def make_registry() -> ToolRegistry:
    registry = ToolRegistry("engine-test", version="9.9")

    @registry.tool
    def echo(text: str) -> str:
        """Echo text."""
        return text

    @registry.tool
    async def chatty(ctx: Context) -> str:
        await ctx.debug("debug line")
        await ctx.info("info line")
        await ctx.error({"detail": "error line"}, logger="engine")
        return "done"

    @registry.tool
    async def progress(ctx: Context) -> str:
        for step in (1, 2, 3):
            await ctx.report_progress(step, 3, message=f"step {step}")
        return "ok"

    @registry.tool
    async def greet(ctx: Context) -> str:
        answer = await ctx.elicit("Name?", NAME_FORM, key="who")
        return f"Hello, {answer.get('content', {}).get('name')}!"

    @registry.tool
    async def careless(ctx: Context) -> str:
        try:
            answer = await ctx.elicit("Name?", NAME_FORM, key="who")
        except Exception:
            return "swallowed"
        return str(answer["action"])

    @registry.tool
    async def two_rounds(ctx: Context) -> str:
        first = await ctx.elicit("First?", NAME_FORM, key="a")
        second = await ctx.elicit("Second?", NAME_FORM, key="b")
        return f"{first['content']['name']}+{second['content']['name']}"

    @registry.tool
    async def needs_sampling(ctx: Context) -> str:
        result = await ctx.sample("hi", max_tokens=5)
        return str(result["content"]["text"])

    @registry.tool
    async def batch(ctx: Context) -> str:
        answers = await ctx.ask({"n": ctx.elicitation("Name?", NAME_FORM), "r": ctx.roots()})
        return f"{answers['n']['content']['name']} {len(answers['r']['roots'])}"

    @registry.tool
    def thread_name() -> str:
        return threading.current_thread().name

    @registry.tool
    def pixel() -> ImageContent:
        return ImageContent(b"\x89PNG", "image/png")

    @registry.tool
    def many() -> list[TextContent | AudioContent | EmbeddedResource | ResourceLink]:
        return [
            TextContent("t"),
            AudioContent(b"RIFF", "audio/wav"),
            EmbeddedResource("mem://blob", blob=b"\x00\x01", mime_type="application/octet-stream"),
            ResourceLink("file:///x", "x", mime_type="text/plain", size=3),
        ]

    @registry.tool
    def numbers(n: int) -> list[int]:
        return list(range(n))

    @registry.tool
    def refuse() -> str:
        raise ToolError("no, because of reasons")

    return registry


def run(coroutine: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, 10))
