import contextlib
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.routing import Host

from mcptools import ToolRegistry as MCPServer  # was: from mcp.server.mcpserver import MCPServer

mcp = MCPServer("By host")


@mcp.tool()
def where() -> str:
    """Say which host serves this."""
    return "served for tools.example.org"


@contextlib.asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    async with mcp.session_manager.run():
        yield


app = Starlette(routes=[Host("tools.example.org", app=mcp.streamable_http_app(json_response=True))], lifespan=lifespan)
