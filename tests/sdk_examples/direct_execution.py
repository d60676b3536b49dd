from mcptools import ToolRegistry as MCPServer  # was: from mcp.server.mcpserver import MCPServer

mcp = MCPServer("Greeter")


@mcp.tool()
def wave(who: str = "everyone") -> str:
    """Wave at someone."""
    return f"*waves at {who}*"


def main() -> None:
    mcp.run()


if __name__ == "__main__":
    main()
