from mcp.server.auth.provider import AccessToken, TokenVerifier
from mcp.server.auth.settings import AuthSettings
from pydantic import AnyHttpUrl

from mcptools import ToolRegistry as MCPServer  # was: from mcp.server.mcpserver import MCPServer


class OneTokenVerifier(TokenVerifier):
    """Knows one token, standing in for a real introspection call."""

    async def verify_token(self, token: str) -> AccessToken | None:
        if token != "let-me-in":
            return None
        return AccessToken(token=token, client_id="demo-client", scopes=["user"])


# The SDK's keywords, mapped onto mcptools.auth; mypy --strict checks them as they are (tests/typing too).
mcp = MCPServer(
    "Protected",
    token_verifier=OneTokenVerifier(),
    auth=AuthSettings(
        issuer_url=AnyHttpUrl("https://auth.example.com"),
        resource_server_url=AnyHttpUrl("http://127.0.0.1:3001"),
        required_scopes=["user"],
        validate_token_resource=False,
    ),
)


@mcp.tool()
async def secret(name: str = "world") -> dict[str, str]:
    """Only for callers with a token."""
    return {"greeting": f"hello {name}"}


if __name__ == "__main__":
    mcp.run(transport="streamable-http", json_response=True)
