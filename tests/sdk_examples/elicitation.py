from mcp.server.mcpserver import Context
from mcp.shared.exceptions import UrlElicitationRequiredError
from mcp.types import ElicitRequestURLParams
from pydantic import BaseModel, Field

from mcptools import ToolRegistry as MCPServer  # was: from mcp.server.mcpserver import Context, MCPServer

mcp = MCPServer(name="Elicitation")


class Seat(BaseModel):
    window: bool = Field(description="A window seat?")


@mcp.tool()
async def book_seat(flight: str, ctx: Context) -> str:
    """Ask the user a question in a form."""
    answer = await ctx.elicit(message=f"Seat on {flight}?", schema=Seat)
    if answer.action == "accept" and answer.data:
        return f"{flight}: window={answer.data.window}"
    return f"{flight}: no seat chosen"


@mcp.tool()
async def sign_in(service: str) -> str:
    """Send the user to a URL first, the SDK's way: raise."""
    raise UrlElicitationRequiredError(
        [
            ElicitRequestURLParams(
                mode="url",
                message=f"Sign in to {service}",
                url=f"https://{service}.example.com/auth",
                elicitation_id="sign-in-1",
            )
        ]
    )
