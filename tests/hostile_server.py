"""The server the hostile-client tests attack, run as a subprocess so its memory is its own to measure.

    python tests/hostile_server.py --port P [--stack standard|fast] [--jwks URL --audience URL]

One tool, ``echo``; with ``--jwks`` every request needs a bearer JWT (RS256/ES256) from the issuer
``https://issuer.test`` whose keys that JWKS document holds.
"""

from __future__ import annotations

import argparse
from typing import Literal, cast

from mcptools import ToolRegistry

ISSUER = "https://issuer.test"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--stack", choices=("standard", "fast"), default="standard")
    parser.add_argument("--jwks", default=None)
    parser.add_argument("--audience", default=None)
    options = parser.parse_args()
    registry = ToolRegistry("hostile")

    @registry.tool
    def echo(text: str) -> str:
        """Say it back."""
        return text

    auth = None
    if options.jwks is not None:
        from mcptools.auth import AuthSettings, JWTVerifier

        verifier = JWTVerifier(issuer=ISSUER, audience=options.audience, jwks_url=options.jwks)
        auth = AuthSettings(verifier, resource=options.audience)
    stack = cast("Literal['standard', 'fast']", options.stack)
    return registry.run("http", port=options.port, stack=stack, auth=auth)


if __name__ == "__main__":
    raise SystemExit(main())
