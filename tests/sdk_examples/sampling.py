from mcp.server.mcpserver import Context
from mcp.types import SamplingMessage, TextContent

from mcptools import ToolRegistry as MCPServer  # was: from mcp.server.mcpserver import Context, MCPServer

mcp = MCPServer(name="Sampling")


@mcp.tool()
async def haiku(subject: str, ctx: Context) -> str:
    """Ask the client's model for a haiku."""
    answer = await ctx.session.create_message(
        messages=[SamplingMessage(role="user", content=TextContent(type="text", text=f"A haiku on {subject}"))],
        max_tokens=60,
    )
    if answer.content.type == "text":
        text: str = answer.content.text
        return text
    return str(answer.content)
