"""The JWT verifier against hostile tokens: any token is valid or refused (401), never an exception (a 500);
algorithms follow the key's type; made-up key ids do not make every request a JWKS fetch."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("jwt")
pytest.importorskip("cryptography")

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from http_support import call, request, run, stateless_headers
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_support import scaled
from jwt_support import ISSUER, JWKSServer, b64, ec_key, ed_key, forged, mint, rsa_key

from mcptools import StreamableHTTPApp, ToolRegistry
from mcptools.auth import AuthSettings, JWTVerifier, Principal

AUDIENCE = "http://127.0.0.1:8000/mcp"


@pytest.fixture(scope="module")
def keys() -> dict[str, Any]:
    return {"rsa": rsa_key(), "p256": ec_key(), "p384": ec_key(ec.SECP384R1()), "ed": ed_key()}


@pytest.fixture(scope="module")
def jwks(keys: dict[str, Any]) -> Iterator[JWKSServer]:
    with JWKSServer(keys) as server:
        yield server


def verify(verifier: JWTVerifier, token: str) -> Principal | None:
    return asyncio.run(verifier.verify(token))


def fixed(key: Any, **options: Any) -> JWTVerifier:
    return JWTVerifier(issuer=ISSUER, audience=AUDIENCE, key=key.public_key(), **options)


# Every header a token may name that a given key must not verify with: other key types, other curves, a
# shared secret (the public key as HMAC secret), none at all, and names pyjwt does not know.
HOSTILE_ALGORITHMS = ["RS256", "PS512", "ES256", "ES384", "ES512", "ES256K", "EdDSA", "HS256", "HS512", "none", "X"]


@pytest.mark.parametrize("algorithm", HOSTILE_ALGORITHMS)
@pytest.mark.parametrize("name", ["rsa", "p256", "p384", "ed"])
def test_a_forged_token_is_refused_whatever_its_header_names(keys: dict[str, Any], name: str, algorithm: str) -> None:
    # An ES256 header against an RSA key made pyjwt raise TypeError: a 500 and a traceback per request.
    token = forged({"alg": algorithm, "typ": "JWT", "kid": name}, AUDIENCE)
    assert verify(fixed(keys[name]), token) is None


def test_a_token_signed_with_another_key_type_is_refused(keys: dict[str, Any], jwks: JWKSServer) -> None:
    by_jwks = JWTVerifier(issuer=ISSUER, audience=AUDIENCE, jwks_url=jwks.url)
    # Validly signed, but by the P-256 key while naming the RSA key's id: the RSA key cannot verify ES256.
    token = mint(keys["p256"], AUDIENCE, algorithm="ES256", kid="rsa")
    assert verify(by_jwks, token) is None
    assert verify(fixed(keys["rsa"]), token) is None
    # An ES256 signature from a P-384 key, named as the P-384 key: ES256 is P-256's algorithm.
    assert verify(by_jwks, forged({"alg": "ES256", "kid": "p384"}, AUDIENCE)) is None


@pytest.mark.parametrize(
    ("name", "algorithms"),
    [
        ("rsa", ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"]),
        ("p256", ["ES256"]),
        ("p384", ["ES384"]),
        ("ed", ["EdDSA"]),
    ],
)
def test_algorithms_follow_the_key(keys: dict[str, Any], jwks: JWKSServer, name: str, algorithms: list[str]) -> None:
    by_jwks = JWTVerifier(issuer=ISSUER, audience=AUDIENCE, jwks_url=jwks.url)
    for algorithm in algorithms:
        token = mint(keys[name], AUDIENCE, algorithm=algorithm, kid=name)
        for verifier in (fixed(keys[name]), by_jwks):
            principal = verify(verifier, token)
            assert principal is not None and principal.subject == "carol", (name, algorithm)
    # `algorithms` narrows what the key's type allows.
    if name == "rsa":
        narrowed = fixed(keys["rsa"], algorithms=["RS256"])
        assert verify(narrowed, mint(keys["rsa"], AUDIENCE, algorithm="RS256")) is not None
        assert verify(narrowed, mint(keys["rsa"], AUDIENCE, algorithm="PS256")) is None


def test_keys_given_as_text_or_jwk(keys: dict[str, Any]) -> None:
    key = keys["p256"]
    public_pem = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    private_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    from jwt_support import public_jwk

    token = mint(key, AUDIENCE, algorithm="ES256")
    for given_key in (public_pem, public_pem.decode(), private_pem, key, public_jwk(key, "k1")):
        verifier = JWTVerifier(issuer=ISSUER, audience=AUDIENCE, key=given_key)
        assert verify(verifier, token) is not None, type(given_key)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"algorithms": ["HS256"]}, "shared-secret HS"),
        ({"algorithms": ["none"]}, "not a public-key JWS algorithm"),
        ({"algorithms": []}, "none given"),
        ({"algorithms": ["ES256"]}, "none of algorithms"),  # an RSA key verifies no ES256
        ({"key": "not a key"}, "neither a PEM public key"),
        ({"key": b"secret-for-hmac"}, "neither a PEM public key"),
        ({"key": object()}, "it takes an RSA, EC"),
    ],
)
def test_configurations_that_could_never_verify_safely_are_refused_at_construction(
    keys: dict[str, Any], options: dict[str, Any], message: str
) -> None:
    arguments: dict[str, Any] = {"issuer": ISSUER, "audience": AUDIENCE, "key": keys["rsa"].public_key(), **options}
    with pytest.raises(ValueError, match=message):
        JWTVerifier(**arguments)


def test_over_http_a_hostile_header_is_401_not_500(keys: dict[str, Any], jwks: JWKSServer) -> None:
    registry = ToolRegistry("jwt-http")

    @registry.tool
    def echo(text: str) -> str:
        return text

    verifier = JWTVerifier(issuer=ISSUER, audience=AUDIENCE, jwks_url=jwks.url)
    app = StreamableHTTPApp(registry, auth=AuthSettings(verifier, resource=AUDIENCE))
    for token in (forged({"alg": "ES256", "kid": "rsa"}, AUDIENCE), forged({"alg": "EdDSA", "kid": "p256"}, AUDIENCE)):
        headers = {**stateless_headers("tools/list"), "authorization": f"Bearer {token}"}
        reply = run(call(app, body=request("tools/list"), headers=headers))
        assert reply.status == 401
        assert reply.headers["www-authenticate"].startswith('Bearer error="invalid_token"')
    good = {**stateless_headers("tools/list"), "authorization": f"Bearer {mint(keys['rsa'], AUDIENCE, kid='rsa')}"}
    assert run(call(app, body=request("tools/list"), headers=good)).status == 200


def test_made_up_key_ids_do_not_each_fetch_the_jwks(keys: dict[str, Any]) -> None:
    # pyjwt before 2.14 refetched the document for every unknown `kid`: 50 junk tokens, 50 outbound requests.
    with JWKSServer({"rsa": keys["rsa"]}) as server:
        verifier = JWTVerifier(issuer=ISSUER, audience=AUDIENCE, jwks_url=server.url)
        assert verify(verifier, mint(keys["rsa"], AUDIENCE, kid="rsa")) is not None
        fetched = server.fetches
        for _ in range(50):
            token = mint(keys["rsa"], AUDIENCE, kid=secrets.token_hex(8))
            assert verify(verifier, token) is None
        assert server.fetches - fetched <= 1
        assert verify(verifier, mint(keys["rsa"], AUDIENCE, kid="rsa")) is not None


# -- any token, any header -------------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
headers = st.fixed_dictionaries(
    {"alg": st.sampled_from(HOSTILE_ALGORITHMS) | st.text(max_size=6)},
    optional={
        "kid": st.sampled_from(["rsa", "p256", "p384", "ed"]) | json_values,
        "typ": json_values,
        "crit": json_values,
    },
)
segments = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=", max_size=40)
structured = st.builds(
    lambda header, claims, signature: ".".join(
        (b64(json.dumps(header).encode()), b64(json.dumps(claims).encode()), b64(signature))
    ),
    headers | json_values,
    st.dictionaries(st.sampled_from(["iss", "aud", "sub", "exp", "nbf", "iat", "scope"]), json_values) | json_values,
    st.binary(max_size=80),
)
deep = st.integers(min_value=1, max_value=5000).map(lambda depth: b64(b"[" * depth + b"]" * depth) + ".e30.AA")
tokens = structured | deep | st.lists(segments, min_size=1, max_size=5).map(".".join) | st.text(max_size=60)
authorization = st.one_of(
    tokens.map(lambda token: f"Bearer {token}"),
    st.tuples(st.sampled_from(["Bearer", "bearer", "BEARER", "Basic", "", " Bearer"]), st.text(max_size=3), tokens).map(
        lambda parts: f"{parts[0]}{parts[1]}{parts[2]}"
    ),
    st.text(max_size=40),
)


@settings(max_examples=scaled(300), suppress_health_check=[HealthCheck.too_slow])
@given(value=authorization)
def test_any_authorization_header_is_refused_or_passes_never_raises(
    keys: dict[str, Any], jwks: JWKSServer, value: str
) -> None:
    for verifier in (
        fixed(keys["rsa"]),
        fixed(keys["p256"]),
        JWTVerifier(issuer=ISSUER, audience=AUDIENCE, jwks_url=jwks.url),
    ):
        outcome = asyncio.run(AuthSettings(verifier).authenticate(value))
        assert outcome is None or isinstance(outcome, Principal)
