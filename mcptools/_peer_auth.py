"""The official SDK's resource-server authorization, ``token_verifier=`` with ``auth=AuthSettings(...)``, mapped
onto ``mcptools.auth``: the SDK's verifier checks each token as it did, and what it returns (an ``AccessToken``)
becomes the ``Principal`` mcptools' checks read; the issuer, resource URL and required scopes carry over.

An SDK server that is its own authorization server (``auth_server_provider=``) has no counterpart here; it is
refused with the mcptools way, as is a verifier given without its settings or the other way round.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Protocol, final, runtime_checkable

from ._errors import UsageError
from .auth import AuthSettings, Principal

__all__ = ["PeerAuthSettings", "PeerTokenVerifier", "auth_from_peer"]

_FIX: Final = "pass auth=mcptools.auth.AuthSettings(verifier) (see mcptools.auth)"


# The SDK's types as mypy sees what a ported server passes, by the members read here: its code type-checks with
# the import line changed alone, and the SDK is never imported.
class PeerTokenVerifier(Protocol):
    """The official SDK's ``TokenVerifier`` (``token_verifier=``): ``async verify_token(token)``."""

    async def verify_token(self, token: str) -> Any: ...


@runtime_checkable  # serving options are checked against their types (isinstance) at run time
class PeerAuthSettings(Protocol):
    """The official SDK's ``mcp.server.auth.settings.AuthSettings`` (``auth=`` beside ``token_verifier=``)."""

    @property
    def issuer_url(self) -> Any: ...
    @property
    def resource_server_url(self) -> Any: ...
    @property
    def required_scopes(self) -> Any: ...


@final
@dataclass(slots=True, eq=False)
class PeerVerifier:
    """An SDK ``TokenVerifier`` (``async verify_token(token) -> AccessToken | None``) as mcptools' verifier."""

    _peer: Any

    async def verify(self, token: str) -> Principal | None:
        access = await self._peer.verify_token(token)
        if access is None:
            return None
        expires = getattr(access, "expires_at", None)
        claims = getattr(access, "claims", None)
        return Principal(
            subject=getattr(access, "subject", None) or access.client_id,
            scopes=frozenset(access.scopes or ()),
            client_id=access.client_id,
            expires_at=float(expires) if isinstance(expires, (int, float)) else None,
            claims=dict(claims) if isinstance(claims, Mapping) else {},
        )


def _url(value: object) -> str | None:
    return None if value is None else str(value)


def is_peer_auth(value: object) -> bool:
    """Whether ``auth=`` is the SDK's ``AuthSettings`` model (not mcptools')."""
    return value is not None and type(value).__module__.startswith("mcp.")


def auth_from_peer(settings: dict[str, Any], where: str) -> dict[str, Any]:
    """``settings`` with the SDK's ``token_verifier=`` and ``auth=`` replaced by mcptools' ``auth=``."""
    verifier = settings.pop("token_verifier", None)
    peer = settings.get("auth")
    if verifier is None or not is_peer_auth(peer):
        given = (
            "token_verifier= without the SDK's auth=AuthSettings(...)"
            if verifier is not None
            else (f"auth={type(peer).__name__}(...) without token_verifier=")
        )
        raise UsageError(f"{where}: {given}; {_FIX}")
    if not callable(getattr(verifier, "verify_token", None)):
        raise UsageError(f"{where}: token_verifier= needs an async verify_token(token) method; {_FIX}")
    issuer = _url(getattr(peer, "issuer_url", None))
    settings["auth"] = AuthSettings(
        PeerVerifier(verifier),
        resource=_url(getattr(peer, "resource_server_url", None)),
        authorization_servers=[issuer] if issuer else [],
        required_scopes=tuple(getattr(peer, "required_scopes", None) or ()),
    )
    return settings
