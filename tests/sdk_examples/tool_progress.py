from mcp.server.mcpserver import Context

from mcptools import ToolRegistry as MCPServer  # was: from mcp.server.mcpserver import Context, MCPServer

mcp = MCPServer(name="Progress")


@mcp.tool()
async def crunch(steps: int, ctx: Context) -> str:
    """Report progress while working."""
    await ctx.info(f"crunching {steps} steps")
    for step in range(steps):
        await ctx.report_progress(progress=(step + 1) / steps, total=1.0, message=f"step {step + 1}")
    return f"crunched {steps}"
