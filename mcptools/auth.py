"""Authorization for Streamable HTTP: the server as an OAuth 2.1 resource server (MCP authorization, 2025-11-25
and 2026-07-28)::

    from mcptools import StreamableHTTPApp
    from mcptools.auth import AuthSettings, JWTVerifier
    app = StreamableHTTPApp(registry, auth=AuthSettings(
        JWTVerifier(issuer="https://auth.example.com", audience="https://mcp.example.com/mcp",
                    jwks_url="https://auth.example.com/.well-known/jwks.json"),
        resource="https://mcp.example.com/mcp",
        authorization_servers=["https://auth.example.com"],
    ))

* Every request to the endpoint needs ``Authorization: Bearer <token>`` (never a query parameter). Without a
  valid one the answer is 401 with ``WWW-Authenticate: Bearer resource_metadata="<url>"``, which points the
  client at the Protected Resource Metadata (RFC 9728) the app serves at
  ``/.well-known/oauth-protected-resource`` and at the form suffixed with the endpoint's path.
* A token lacking a scope the server or a tool requires gets 403 ``error="insufficient_scope"`` naming it.
* ``@registry.tool(scopes=[...])`` makes a tool visible (in ``tools/list``) and callable only to principals
  holding every one of those scopes. Without authorization configured (stdio, or HTTP without ``auth=``),
  scopes are not checked: there is no principal to check them against.
* A tool reads the caller from ``Context.principal``.

Verifiers: ``StaticTokenVerifier`` (one shared secret, compared in constant time: ``mcptools serve --http
--bearer-token-env NAME``) and ``JWTVerifier`` (extra ``auth``: pyjwt, imported only when one is made).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Final, Protocol, final, runtime_checkable

__all__ = [
    "AuthSettings",
    "JWTVerifier",
    "Principal",
    "StaticTokenVerifier",
    "TokenVerifier",
    "current_principal",
    "missing_scopes",
]

WELL_KNOWN: Final = "/.well-known/oauth-protected-resource"


@final
@dataclass(frozen=True, slots=True)
class Principal:
    """Who a verified token speaks for."""

    subject: str
    scopes: frozenset[str] = frozenset()
    client_id: str | None = None
    # Seconds since the epoch; ``None`` for a token that does not expire.
    expires_at: float | None = None
    claims: Mapping[str, Any] = field(default_factory=dict)

    def has_scopes(self, needed: Iterable[str]) -> bool:
        return self.scopes.issuperset(needed)


@runtime_checkable
class TokenVerifier(Protocol):
    """Checks a bearer token: the principal it speaks for, or ``None`` when it is not valid for this server
    (unknown, expired, wrong audience or issuer, bad signature). It must not raise for a bad token."""

    async def verify(self, token: str) -> Principal | None: ...


# The caller of the request being served. The HTTP app sets it per request; asyncio tasks and to_thread copy
# it, so the engine, Context and sync tools in their threads all see it without a parameter threaded through.
_PRINCIPAL: ContextVar[Principal | None] = ContextVar("mcptools_principal", default=None)
# Whether this request is served with authorization on: only then do tool scopes hide and refuse.
_ENFORCED: ContextVar[bool] = ContextVar("mcptools_auth_enforced", default=False)


def current_principal() -> Principal | None:
    """The principal of the request being served, or ``None`` (no authorization configured)."""
    return _PRINCIPAL.get()


def bind_principal(principal: Principal | None) -> None:
    """For transports: the principal of the request this task serves (authorization is on from here)."""
    _PRINCIPAL.set(principal)
    _ENFORCED.set(True)


def auth_enforced() -> bool:
    """Whether the request being served passed through authorization (so tool scopes apply)."""
    return _ENFORCED.get()


class Scoped(Protocol):
    """What scope checks need of a tool; a protocol, so this module imports no tool module (``_context`` imports
    this one, and tools are derived with ``_context`` in view: importing ``_tool`` here would close a cycle)."""

    @property
    def scopes(self) -> tuple[str, ...]: ...


def missing_scopes(tool: Scoped) -> tuple[str, ...]:
    """The scopes ``tool`` requires that the current caller lacks; empty when it may see and call it."""
    needed: tuple[str, ...] = getattr(tool, "scopes", ())
    if not needed or not _ENFORCED.get():
        return ()
    principal = _PRINCIPAL.get()
    held = principal.scopes if principal is not None else frozenset()
    return tuple(scope for scope in needed if scope not in held)


def visible(tool: Scoped | None) -> bool:
    return tool is not None and not missing_scopes(tool)


@final
class StaticTokenVerifier:
    """Accepts exactly one secret token, for private deployments. The comparison takes the same time whatever
    the token, so response timing does not reveal how much of a guess was right."""

    __slots__ = ("_principal", "_token")

    def __init__(self, token: str, *, subject: str = "static-token", scopes: Iterable[str] = ()) -> None:
        if not token:
            raise ValueError("StaticTokenVerifier needs a non-empty token")
        self._token = token.encode("utf-8")
        self._principal = Principal(subject=subject, scopes=frozenset(scopes))

    async def verify(self, token: str) -> Principal | None:
        import hmac  # here, not at the top: with OpenSSL's bindings it is a tenth of mcptools' import time

        if hmac.compare_digest(token.encode("utf-8"), self._token):
            return self._principal
        return None


@final
class JWTVerifier:
    """JWT access tokens (RFC 9068 style) checked with pyjwt (``pip install 'mcptools[auth]'``): signature
    (from a JWKS document at ``jwks_url``, cached by key id, or a fixed ``key``), ``iss`` = ``issuer``, ``aud``
    containing ``audience`` (this resource's URL, RFC 8707, so a token minted for another server is refused),
    ``exp`` in the future (and ``nbf``/``iat`` sane, with ``leeway`` seconds of clock skew).

    Scopes come from the ``scope`` claim (space-separated) or ``scp`` (a list); the client id from
    ``client_id``, ``azp`` or ``cid``.
    """

    __slots__ = ("_jwk_client", "_jwt", "_key", "algorithms", "audience", "issuer", "leeway")

    def __init__(
        self,
        *,
        issuer: str,
        audience: str,
        jwks_url: str | None = None,
        key: Any = None,
        algorithms: Sequence[str] = ("RS256", "ES256"),
        leeway: float = 30.0,
    ) -> None:
        if (jwks_url is None) == (key is None):
            raise ValueError("JWTVerifier: pass exactly one of jwks_url= (the issuer's JWKS) or key= (a public key)")
        try:
            import jwt
        except ImportError:
            raise ImportError("JWTVerifier needs pyjwt: pip install 'mcptools[auth]'") from None
        self._jwt = jwt
        self.issuer = issuer
        self.audience = audience
        self.algorithms = list(algorithms)
        self.leeway = leeway
        self._key = key
        self._jwk_client = jwt.PyJWKClient(jwks_url, cache_keys=True) if jwks_url is not None else None

    async def verify(self, token: str) -> Principal | None:
        jwt = self._jwt
        try:
            if self._jwk_client is not None:
                import asyncio

                # Fetching the JWKS is blocking I/O (once per key id, then cached): keep it off the event loop.
                key = (await asyncio.to_thread(self._jwk_client.get_signing_key_from_jwt, token)).key
            else:
                key = self._key
            claims = jwt.decode(
                token,
                key,
                algorithms=self.algorithms,
                audience=self.audience,
                issuer=self.issuer,
                leeway=self.leeway,
                options={"require": ["exp", "iss", "aud"]},
            )
        except jwt.PyJWTError:
            return None
        return principal_from_claims(claims)


def principal_from_claims(claims: Mapping[str, Any]) -> Principal | None:
    """The principal an access token's claims describe; ``None`` when they name no subject or client."""
    scope = claims.get("scope")
    scopes: list[str] = []
    if type(scope) is str:
        scopes = scope.split()
    elif type(claims.get("scp")) is list:
        scopes = [s for s in claims["scp"] if type(s) is str]
    client_id = next((claims[k] for k in ("client_id", "azp", "cid") if type(claims.get(k)) is str), None)
    subject = claims.get("sub") if type(claims.get("sub")) is str else client_id
    if subject is None:
        return None
    expires = claims.get("exp")
    return Principal(
        subject=subject,
        scopes=frozenset(scopes),
        client_id=client_id,
        expires_at=float(expires) if isinstance(expires, (int, float)) else None,
        claims=dict(claims),
    )


@final
class AuthSettings:
    """Authorization for a ``StreamableHTTPApp``.

    ``resource``: this endpoint's public URL as clients reach it (the audience tokens must name); derived from
    each request's Host, scheme and path when not given, which is right only when no proxy rewrites them.
    ``authorization_servers``: issuer URLs a client may get tokens from (published in the metadata).
    ``required_scopes``: scopes every request needs. ``scopes_supported``: published in the metadata (default:
    the required scopes plus every tool's).
    """

    __slots__ = (
        "authorization_servers",
        "required_scopes",
        "resource",
        "resource_name",
        "scopes_supported",
        "verifier",
    )

    def __init__(
        self,
        verifier: TokenVerifier,
        *,
        resource: str | None = None,
        authorization_servers: Sequence[str] = (),
        required_scopes: Sequence[str] = (),
        scopes_supported: Sequence[str] | None = None,
        resource_name: str | None = None,
    ) -> None:
        if not isinstance(verifier, TokenVerifier):
            raise TypeError("AuthSettings needs a verifier with an async verify(token) -> Principal | None")
        self.verifier = verifier
        self.resource = resource.rstrip("/") if resource else None
        self.authorization_servers = list(authorization_servers)
        self.required_scopes = tuple(required_scopes)
        self.scopes_supported = list(scopes_supported) if scopes_supported is not None else None
        self.resource_name = resource_name

    async def authenticate(self, authorization: str | None) -> Principal | None:
        """The principal of an ``Authorization`` header value, or ``None`` (missing, malformed, invalid or
        expired token)."""
        if authorization is None:
            return None
        scheme, _, token = authorization.strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            return None
        principal = await self.verifier.verify(token)
        if principal is None:
            return None
        if principal.expires_at is not None and principal.expires_at <= time.time():
            return None
        return principal

    def metadata(self, resource: str, tool_scopes: Iterable[str]) -> dict[str, Any]:
        """The RFC 9728 document for ``resource``."""
        document: dict[str, Any] = {"resource": resource}
        if self.authorization_servers:
            document["authorization_servers"] = self.authorization_servers
        scopes = self.scopes_supported
        if scopes is None:
            scopes = list(dict.fromkeys([*self.required_scopes, *tool_scopes]))
        if scopes:
            document["scopes_supported"] = scopes
        document["bearer_methods_supported"] = ["header"]
        if self.resource_name is not None:
            document["resource_name"] = self.resource_name
        return document


def metadata_url(resource: str) -> str:
    """Where RFC 9728 puts the metadata of ``resource``: the well-known path inserted before its path."""
    scheme, _, rest = resource.partition("://")
    authority, slash, path = rest.partition("/")
    suffix = f"/{path}" if slash and path else ""
    return f"{scheme}://{authority}{WELL_KNOWN}{suffix}"


def challenge(resource: str, *, error: str | None = None, scopes: Sequence[str] = ()) -> bytes:
    """A ``WWW-Authenticate`` value for a 401 or 403 (RFC 6750 section 3, RFC 9728 section 5.1)."""
    parts = [f'resource_metadata="{metadata_url(resource)}"']
    if error is not None:
        parts.insert(0, f'error="{error}"')
    if scopes:
        parts.append(f'scope="{" ".join(scopes)}"')
    return ("Bearer " + ", ".join(parts)).encode("latin-1")
