import contextlib
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.routing import Mount

from mcptools import ToolRegistry as MCPServer  # was: from mcp.server.mcpserver import MCPServer

words = MCPServer(name="Words")
numbers = MCPServer(name="Numbers")


@words.tool()
def upper(word: str) -> str:
    """Upper-case a word."""
    return word.upper()


@numbers.tool()
def double(n: int) -> int:
    """Double a number."""
    return n * 2


@contextlib.asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    async with contextlib.AsyncExitStack() as stack:
        await stack.enter_async_context(words.session_manager.run())
        await stack.enter_async_context(numbers.session_manager.run())
        yield


app = Starlette(
    routes=[
        Mount("/words", words.streamable_http_app(stateless_http=True, json_response=True)),
        Mount("/numbers", numbers.streamable_http_app(stateless_http=True, json_response=True)),
    ],
    lifespan=lifespan,
)
