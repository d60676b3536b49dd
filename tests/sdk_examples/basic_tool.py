from mcptools import ToolRegistry as MCPServer  # was: from mcp.server.mcpserver import MCPServer

mcp = MCPServer(name="Arithmetic")


@mcp.tool()
def multiply(x: int, y: int) -> int:
    """Multiply two integers."""
    return x * y


@mcp.tool()
def shout(text: str) -> str:
    """Upper-case some text."""
    return text.upper()
