import contextlib
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.routing import Mount

from mcptools import ToolRegistry as MCPServer  # was: from mcp.server.mcpserver import MCPServer

billing = MCPServer("Billing")
search = MCPServer("Search")


@billing.tool()
def balance() -> str:
    """The account balance."""
    return "balance: 12.50"


@search.tool()
def find(query: str) -> str:
    """Search for something."""
    return f"found: {query}"


@contextlib.asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    async with contextlib.AsyncExitStack() as stack:
        await stack.enter_async_context(billing.session_manager.run())
        await stack.enter_async_context(search.session_manager.run())
        yield


app = Starlette(
    routes=[
        Mount("/billing", app=billing.streamable_http_app(json_response=True, streamable_http_path="/")),
        Mount("/search", app=search.streamable_http_app(json_response=True, streamable_http_path="/")),
    ],
    lifespan=lifespan,
)
