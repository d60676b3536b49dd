from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from mcp.server.mcpserver import Context

from mcptools import ToolRegistry as MCPServer  # was: from mcp.server.mcpserver import Context, MCPServer


class Store:
    def get(self) -> str:
        return "stored value"


@dataclass
class AppContext:
    store: Store


@asynccontextmanager
async def app_lifespan(server: MCPServer) -> AsyncIterator[AppContext]:
    yield AppContext(store=Store())


mcp = MCPServer("Lifespan", lifespan=app_lifespan)


@mcp.tool()
def read_store(ctx: Context[AppContext]) -> str:
    """Read through the lifespan's state."""
    return ctx.request_context.lifespan_context.store.get()
