"""The server the hostile-client tests attack, run as a subprocess so its memory is its own to measure.

    python tests/hostile_server.py --port P [--stack standard|fast] [--jwks URL --audience URL] [serving options]

Tools: ``echo``; ``ask``, which asks the client a question (elicitation) and says how that ended; ``hang``, which
never ends unless cancelled. With ``--jwks`` every request needs a bearer JWT (RS256/ES256) from the issuer
``https://issuer.test`` whose keys that JWKS document holds. ``--max-sessions``, ``--max-sessions-per-client``,
``--timeout-question``, ``--timeout-reconnect`` and ``--timeout-shutdown`` are passed on to ``registry.run``.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any, Literal, cast

from mcptools import ClientRequestError, Context, ToolRegistry

ISSUER = "https://issuer.test"
PASSED_ON = {
    "max_sessions": int,
    "max_sessions_per_client": int,
    "timeout_question": float,
    "timeout_reconnect": float,
    "timeout_shutdown": float,
}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--stack", choices=("standard", "fast"), default="standard")
    parser.add_argument("--jwks", default=None)
    parser.add_argument("--audience", default=None)
    for name, kind in PASSED_ON.items():
        parser.add_argument("--" + name.replace("_", "-"), type=kind, default=None)
    options = parser.parse_args()
    registry = ToolRegistry("hostile")

    @registry.tool
    def echo(text: str) -> str:
        """Say it back."""
        return text

    @registry.tool
    async def ask(ctx: Context) -> str:
        """Ask the client for a name."""
        try:
            answer = await ctx.elicit("Name?", {"type": "object", "properties": {"name": {"type": "string"}}})
        except ClientRequestError as error:
            return f"gave up: {error.message}"
        return f"hello {answer.get('content', {}).get('name')}"

    @registry.tool
    async def hang(ctx: Context) -> str:
        """Never end (unless cancelled)."""
        await asyncio.Event().wait()
        return "never"

    auth = None
    if options.jwks is not None:
        from mcptools.auth import AuthSettings, JWTVerifier

        verifier = JWTVerifier(issuer=ISSUER, audience=options.audience, jwks_url=options.jwks)
        auth = AuthSettings(verifier, resource=options.audience)
    stack = cast("Literal['standard', 'fast']", options.stack)
    extra: dict[str, Any] = {name: getattr(options, name) for name in PASSED_ON if getattr(options, name) is not None}
    return registry.run("http", port=options.port, stack=stack, auth=auth, **extra)


if __name__ == "__main__":
    raise SystemExit(main())
