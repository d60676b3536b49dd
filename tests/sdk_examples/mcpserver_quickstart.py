from mcptools import ToolRegistry as MCPServer  # was: from mcp.server.mcpserver import MCPServer

mcp = MCPServer("Quickstart")


@mcp.tool()
def subtract(a: int, b: int) -> int:
    """Subtract b from a."""
    return a - b


# mcptools serves tools only: this decorator raises ToolDefinitionError, so the module does not import.
@mcp.resource("note://{title}")  # type: ignore[untyped-decorator]
def note(title: str) -> str:
    """A note by its title."""
    return f"Note: {title}"
