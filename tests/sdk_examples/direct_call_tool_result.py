from typing import Annotated

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel

from mcptools import ToolRegistry as MCPServer  # was: from mcp.server.mcpserver import MCPServer

mcp = MCPServer("Whole results")


class Outcome(BaseModel):
    ok: bool
    count: int


@mcp.tool()
def with_meta() -> CallToolResult:
    """A whole result, with _meta for the client only."""
    return CallToolResult(content=[TextContent(type="text", text="shown to the model")], _meta={"trace": "t-1"})


@mcp.tool()
def checked() -> Annotated[CallToolResult, Outcome]:
    """A whole result whose structured part follows Outcome."""
    return CallToolResult(content=[TextContent(type="text", text="done")], structured_content={"ok": True, "count": 3})


@mcp.tool()
def miscounted() -> Annotated[CallToolResult, Outcome]:
    """A whole result whose structured part breaks Outcome: the client must not get it as a success."""
    return CallToolResult(content=[TextContent(type="text", text="done")], structured_content={"ok": True})


@mcp.tool()
def unstructured() -> Annotated[CallToolResult, Outcome]:
    """A whole result with no structured part at all, though its schema asks for one."""
    return CallToolResult(content=[TextContent(type="text", text="done")])


@mcp.tool()
def nothing() -> CallToolResult:
    """An empty result."""
    return CallToolResult(content=[])
