"""JWT test material: keys, tokens (valid ones and junk), and a JWKS document served on loopback that counts its
fetches. Needs pyjwt with cryptography (the ``auth`` extra, in ``test``)."""

from __future__ import annotations

import base64
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

ISSUER = "https://issuer.test"


def rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def ec_key(curve: ec.EllipticCurve | None = None) -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(curve if curve is not None else ec.SECP256R1())


def ed_key() -> ed25519.Ed25519PrivateKey:
    return ed25519.Ed25519PrivateKey.generate()


def mint(key: Any, audience: str, *, algorithm: str = "RS256", kid: str | None = "k1", **claims: Any) -> str:
    """A token signed by ``key``; ``claims`` override the defaults (``None`` removes one)."""
    now = int(time.time())
    body = {"iss": ISSUER, "aud": audience, "sub": "carol", "exp": now + 300, "iat": now, **claims}
    headers = {"kid": kid} if kid is not None else None
    token: str = jwt.encode({k: v for k, v in body.items() if v is not None}, key, algorithm=algorithm, headers=headers)
    return token


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def forged(header: dict[str, Any], audience: str, signature: bytes = b"\x00" * 64) -> str:
    """A token with any header at all and a signature nobody made."""
    claims = {"iss": ISSUER, "aud": audience, "sub": "mallory", "exp": int(time.time()) + 300}
    return ".".join((b64(json.dumps(header).encode()), b64(json.dumps(claims).encode()), b64(signature)))


def public_jwk(key: Any, kid: str) -> dict[str, Any]:
    """The JWK of ``key``'s public half, as a JWKS document lists it."""
    document: dict[str, Any] = json.loads(_jwk_json_public(key.public_key()))
    return {**document, "kid": kid, "use": "sig"}


def _jwk_json_public(public: Any) -> str:
    from jwt.algorithms import ECAlgorithm, OKPAlgorithm, RSAAlgorithm

    text: str
    if isinstance(public, rsa.RSAPublicKey):
        text = RSAAlgorithm.to_jwk(public)
    elif isinstance(public, ec.EllipticCurvePublicKey):
        text = ECAlgorithm.to_jwk(public)
    else:
        text = OKPAlgorithm.to_jwk(public)
    return text


class JWKSServer:
    """A JWKS document on loopback (``url``), counting how often it is fetched (``fetches``)."""

    def __init__(self, keys: dict[str, Any]) -> None:
        document = json.dumps({"keys": [public_jwk(key, kid) for kid, key in keys.items()]}).encode()
        self.fetches = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.fetches += 1
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(document)))
                self.end_headers()
                self.wfile.write(document)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/jwks.json"
        # A short poll, so shutdown() does not wait half a second for the loop to notice.
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)

    def __enter__(self) -> JWKSServer:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._server.shutdown()
        self._server.server_close()
