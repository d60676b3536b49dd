from mcptools import ToolRegistry as MCPServer  # was: from mcp.server.mcpserver import MCPServer

mcp = MCPServer("Stateless")


@mcp.tool()
def ping(note: str = "") -> str:
    """Answer pong."""
    return f"pong {note}".strip()


if __name__ == "__main__":
    mcp.run(transport="streamable-http", stateless_http=True, json_response=True)
