"""Tamper-proof tokens the server hands to clients and must get back unchanged.

A 2026-07-28 ``requestState`` carries the answers a tool has gathered over earlier input-required rounds, and
a ``tools/list`` cursor carries a position. Both travel through the client, so both are sealed with an HMAC:
anything altered, truncated or replayed against another tool fails to open, and the request is refused.

The key comes from ``MCPTOOLS_STATE_SECRET`` when set, so that several worker processes behind one load
balancer accept each other's tokens; otherwise each process draws a random one (tokens then die with the
process).
"""

from __future__ import annotations

import binascii
import json
import os
import time
from typing import Any, Final, final

__all__ = ["SECRET_ENV", "StateSealer", "arguments_digest"]

SECRET_ENV: Final = "MCPTOOLS_STATE_SECRET"
_DEFAULT_LIFETIME: Final = 3600.0


# base64, hashlib and hmac are imported where used: this module loads with ``import mcptools``, and they (with
# OpenSSL's bindings) are a tenth of its import time, paid only by servers that seal state.


def _b64encode(raw: bytes) -> str:
    import base64

    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _b64decode(text: str) -> bytes:
    import base64

    padded = text + "=" * (-len(text) % 4)
    return base64.urlsafe_b64decode(padded.encode("ascii"))


def arguments_digest(arguments: object) -> str:
    """A short fingerprint of a call's arguments, so state from one call cannot be replayed on another."""
    import hashlib

    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:32]


@final
class StateSealer:
    """Seals JSON objects into opaque strings and opens them again, refusing any that were altered."""

    __slots__ = ("_key", "lifetime")

    def __init__(self, secret: bytes | str | None = None, *, lifetime: float = _DEFAULT_LIFETIME) -> None:
        if secret is None:
            secret = os.environ.get(SECRET_ENV) or os.urandom(32)
        self._key = secret.encode("utf-8") if isinstance(secret, str) else bytes(secret)
        self.lifetime = lifetime

    def _mac(self, body: bytes) -> bytes:
        import hashlib
        import hmac

        return hmac.new(self._key, body, hashlib.sha256).digest()

    def seal(self, payload: dict[str, Any], *, purpose: str) -> str:
        """An opaque token for ``payload``; ``purpose`` keeps a cursor from passing as a request state."""
        document = {"p": purpose, "x": int(time.time() + self.lifetime), "d": payload}
        body = json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        return _b64encode(body) + "." + _b64encode(self._mac(body))

    def open(self, token: object, *, purpose: str) -> dict[str, Any] | None:
        """The payload sealed in ``token``, or ``None`` when it was altered, expired or made for another
        purpose."""
        if type(token) is not str or token.count(".") != 1 or len(token) > 1_000_000:
            return None
        body_text, mac_text = token.split(".")
        try:
            body = _b64decode(body_text)
            mac = _b64decode(mac_text)
        except (binascii.Error, ValueError):
            return None
        # Only the canonical spelling opens: base64 tolerates stray bits in the last character.
        if _b64encode(body) != body_text or _b64encode(mac) != mac_text:
            return None
        import hmac

        if not hmac.compare_digest(mac, self._mac(body)):
            return None
        try:
            document = json.loads(body)
        except ValueError:
            return None
        if type(document) is not dict or document.get("p") != purpose:
            return None
        expires = document.get("x")
        if type(expires) is not int or expires < time.time():
            return None
        payload = document.get("d")
        return payload if type(payload) is dict else None
