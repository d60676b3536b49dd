from mcp.server.mcpserver import Image

from mcptools import ToolRegistry as MCPServer  # was: from mcp.server.mcpserver import Image, MCPServer

mcp = MCPServer("Images")

# The smallest PNG header, standing in for the thumbnail the SDK's example renders with Pillow.
PNG = b"\x89PNG\r\n\x1a\n"


@mcp.tool()
def thumbnail() -> Image:
    """Return the SDK's Image helper."""
    return Image(data=PNG, format="png")
