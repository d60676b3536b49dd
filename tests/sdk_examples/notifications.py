from mcp.server.mcpserver import Context

from mcptools import ToolRegistry as MCPServer  # was: from mcp.server.mcpserver import Context, MCPServer

mcp = MCPServer(name="Notifications")


@mcp.tool()
async def tidy(item: str, ctx: Context) -> str:
    """Log at every level, then say the resource list changed."""
    await ctx.debug(f"looking at {item}")
    await ctx.info("tidying")
    await ctx.warning("careful")
    await ctx.error("nothing broke")
    await ctx.session.send_resource_list_changed()
    return f"tidied {item}"
