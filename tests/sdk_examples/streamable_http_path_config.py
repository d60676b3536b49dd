from starlette.applications import Starlette
from starlette.routing import Mount

from mcptools import ToolRegistry as MCPServer  # was: from mcp.server.mcpserver import MCPServer

mcp = MCPServer("At a path")


@mcp.tool()
def reverse(text: str) -> str:
    """Reverse some text."""
    return text[::-1]


app = Starlette(routes=[Mount("/reverse", app=mcp.streamable_http_app(json_response=True, streamable_http_path="/"))])
