import contextlib
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.routing import Mount

from mcptools import ToolRegistry as MCPServer  # was: from mcp.server.mcpserver import MCPServer

mcp = MCPServer("Mounted")


@mcp.tool()
def hi() -> str:
    """Say hi."""
    return "hi from the mounted server"


@contextlib.asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    async with mcp.session_manager.run():
        yield


app = Starlette(routes=[Mount("/", app=mcp.streamable_http_app(json_response=True))], lifespan=lifespan)
