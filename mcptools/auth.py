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
* A tool reads the caller from ``Context.principal``, a middleware from ``call.principal``: the verified
  principal travels with each request, from the HTTP edge through the engine to the tool.

Verifiers: ``StaticTokenVerifier`` (one shared secret, compared in constant time: ``mcptools serve --http
--bearer-token-env NAME``) and ``JWTVerifier`` (extra ``auth``: pyjwt, imported only when one is made).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol, final, runtime_checkable

from ._errors import MissingDependency, UsageError

__all__ = ["AuthSettings", "JWTVerifier", "Principal", "StaticTokenVerifier", "TokenVerifier"]

WELL_KNOWN: Final = "/.well-known/oauth-protected-resource"

logger = logging.getLogger("mcptools.auth")

# The JWS algorithms (RFC 7518, RFC 8037) each type of public key verifies. A token is checked only with those
# its key's type can: pyjwt given an ES256 header and an RSA key raised TypeError (a 500) instead of saying no,
# and a public key taken as an HS256 secret is the classic forgery, so no HS* algorithm is ever accepted.
_RSA_ALGORITHMS: Final = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512")
_CURVE_ALGORITHMS: Final = {"secp256r1": "ES256", "secp384r1": "ES384", "secp521r1": "ES512", "secp256k1": "ES256K"}
PUBLIC_KEY_ALGORITHMS: Final = (*_RSA_ALGORITHMS, *_CURVE_ALGORITHMS.values(), "EdDSA")


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


@final
class StaticTokenVerifier:
    """Accepts exactly one secret token, for private deployments. The comparison takes the same time whatever
    the token, so response timing does not reveal how much of a guess was right."""

    __slots__ = ("_principal", "_token")

    def __init__(self, token: str, *, subject: str = "static-token", scopes: Iterable[str] = ()) -> None:
        if not token:
            raise UsageError("StaticTokenVerifier needs a non-empty token")
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

    Algorithms follow the key: an RSA key verifies RS256/384/512 and PS256/384/512, an EC key the ES algorithm
    of its curve (P-256: ES256, P-384: ES384, P-521: ES512, secp256k1: ES256K), an Ed25519 or Ed448 key EdDSA;
    ``algorithms`` narrows that (default: all of them). Shared-secret algorithms (HS*) are refused. Any token,
    however malformed, is either valid or ``None``: ``verify`` never raises.

    ``key``: a ``cryptography`` public key (a private key or certificate stands for its public key), PEM or
    OpenSSH text, or a JWK (a dict or ``jwt.PyJWK``). Scopes come from the ``scope`` claim (space-separated) or
    ``scp`` (a list); the client id from ``client_id``, ``azp`` or ``cid``.
    """

    __slots__ = ("_jwk_client", "_jwt", "_key", "_key_algorithms", "algorithms", "audience", "issuer", "leeway")

    def __init__(
        self,
        *,
        issuer: str,
        audience: str,
        jwks_url: str | None = None,
        key: Any = None,
        algorithms: Sequence[str] | None = None,
        leeway: float = 30.0,
    ) -> None:
        if (jwks_url is None) == (key is None):
            raise UsageError("JWTVerifier: pass exactly one of jwks_url= (the issuer's JWKS) or key= (a public key)")
        try:
            import jwt
        except ImportError:
            raise MissingDependency("JWTVerifier needs pyjwt: pip install 'mcptools[auth]'") from None
        chosen = list(algorithms) if algorithms is not None else list(PUBLIC_KEY_ALGORITHMS)
        unknown = [name for name in chosen if name not in PUBLIC_KEY_ALGORITHMS]
        if unknown or not chosen:
            raise UsageError(
                f"JWTVerifier: algorithms={chosen!r}: {unknown or 'none given'} is not a public-key JWS algorithm "
                f"(shared-secret HS* and 'none' are never accepted); choose from {list(PUBLIC_KEY_ALGORITHMS)}"
            )
        self._jwt = jwt
        self.issuer = issuer
        self.audience = audience
        self.algorithms = chosen
        self.leeway = leeway
        self._key = _public_key(jwt, key) if key is not None else None
        self._key_algorithms: list[str] = []
        if self._key is not None:
            self._key_algorithms = [name for name in chosen if name in key_algorithms(self._key)]
            if not self._key_algorithms:
                raise UsageError(
                    f"JWTVerifier: a {type(self._key).__name__} verifies {sorted(key_algorithms(self._key))}, "
                    f"none of algorithms={chosen!r}"
                )
        # pyjwt >= 2.14 (the floor of the auth extra) refetches the JWKS for an unknown key id at most once per
        # cooldown (30 s), so tokens with made-up key ids cannot make every request an outbound fetch.
        self._jwk_client = jwt.PyJWKClient(jwks_url, cache_keys=True) if jwks_url is not None else None

    async def verify(self, token: str) -> Principal | None:
        jwt = self._jwt
        try:
            if self._jwk_client is not None:
                import asyncio

                # Fetching the JWKS is blocking I/O (once per key id, then cached): keep it off the event loop.
                key = (await asyncio.to_thread(self._jwk_client.get_signing_key_from_jwt, token)).key
                algorithms = [name for name in self.algorithms if name in key_algorithms(key)]
            else:
                key, algorithms = self._key, self._key_algorithms
            claims = jwt.decode(
                token,
                key,
                algorithms=algorithms,
                audience=self.audience,
                issuer=self.issuer,
                leeway=self.leeway,
                options={"require": ["exp", "iss", "aud"]},
            )
        except jwt.PyJWTError:
            return None
        except Exception as exc:  # anything else a hostile token makes the library raise is still no valid token
            logger.debug("mcptools: a bearer token made pyjwt raise %s; refused", type(exc).__name__)
            return None
        return principal_from_claims(claims)


def key_algorithms(key: object) -> frozenset[str]:
    """The JWS algorithms a public key of this type verifies; empty for anything else."""
    from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa

    if isinstance(key, rsa.RSAPublicKey):
        return frozenset(_RSA_ALGORITHMS)
    if isinstance(key, ec.EllipticCurvePublicKey):
        name = _CURVE_ALGORITHMS.get(key.curve.name)
        return frozenset((name,)) if name is not None else frozenset()
    if isinstance(key, (ed25519.Ed25519PublicKey, ed448.Ed448PublicKey)):
        return frozenset(("EdDSA",))
    return frozenset()


def _public_key(jwt: Any, key: Any) -> Any:
    """``key=`` of ``JWTVerifier`` as a ``cryptography`` public key."""
    if isinstance(key, dict):
        key = jwt.PyJWK(key)
    if isinstance(key, jwt.PyJWK):
        key = key.key
    if isinstance(key, (str, bytes)):
        from cryptography.exceptions import UnsupportedAlgorithm
        from cryptography.hazmat.primitives import serialization

        text = key.encode("utf-8") if isinstance(key, str) else key
        loaders = (
            serialization.load_pem_public_key,
            lambda data: serialization.load_pem_private_key(data, password=None),
            serialization.load_ssh_public_key,
        )
        for load in loaders:
            try:
                key = load(text)
                break
            except (ValueError, TypeError, UnsupportedAlgorithm):
                continue
        else:
            raise UsageError("JWTVerifier: key= text is neither a PEM public key, a PEM private key nor an OpenSSH key")
    public = getattr(key, "public_key", None)  # a private key or a certificate: what verifies is its public key
    if callable(public):
        key = public()
    if not key_algorithms(key):
        raise UsageError(
            f"JWTVerifier: key= is a {type(key).__name__}; it takes an RSA, EC (P-256, P-384, P-521, secp256k1), "
            "Ed25519 or Ed448 key"
        )
    return key


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
            raise UsageError("AuthSettings needs a verifier with an async verify(token) -> Principal | None")
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
        try:
            principal = await self.verifier.verify(token)
        except Exception as exc:
            # A verifier must not raise for a bad token; one that does still refuses it (401, never a 500).
            logger.warning("mcptools: %s.verify raised %s; the token is refused", type(self.verifier).__name__, exc)
            return None
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
