"""Authorization at the HTTP edge of the Streamable HTTP app (see ``mcptools.auth`` for the model): the 401 and
403 answers with their ``WWW-Authenticate`` challenges and the RFC 9728 metadata document. The verified principal
goes to the engine with the request (``Context.principal``, per-tool scopes); a call the engine refuses for want
of a tool's scopes (``InsufficientScope``, in the engine's own terms) is answered 403 here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, final

from .._jsonrpc import INVALID_REQUEST
from ..auth import WELL_KNOWN, AuthSettings, Principal, challenge
from .asgi_io import ASGISend, Headers, Reject, Scope, local_path, send_json

if TYPE_CHECKING:
    from .._call import ToolSource

__all__ = ["HTTPAuth"]


@final
@dataclass(slots=True, eq=False)
class HTTPAuth:
    """``AuthSettings`` applied to the requests of an app whose endpoint is ``path``."""

    settings: AuthSettings
    registry: ToolSource
    path: str

    @staticmethod
    def is_metadata_path(path: str) -> bool:
        return path == WELL_KNOWN or path.startswith(WELL_KNOWN + "/")

    def resource(self, scope: Scope, headers: Headers, endpoint: str, *, mounted: bool = True) -> str:
        """This endpoint's URL as clients name it (the token audience): configured, else built from the
        request (``endpoint``: the endpoint's path below the mount point, "" for the mount point itself; from
        the host's root when not ``mounted``)."""
        if self.settings.resource is not None:
            return self.settings.resource
        scheme = "https" if scope.get("scheme") == "https" else "http"
        host = headers.get("host") or "localhost"
        if not all(0x21 <= ord(c) <= 0x7E and c not in '"\\' for c in host):
            host = "localhost"  # only with the Host check off: nothing may break out of the quoted challenge
        root = (scope.get("root_path") or "").rstrip("/") if mounted else ""
        return f"{scheme}://{host}{root}{endpoint}"

    def _endpoint_resource(self, scope: Scope, headers: Headers) -> str:
        path = local_path(scope)
        return self.resource(scope, headers, "" if path in ("", "/") else path)

    async def metadata(self, scope: Scope, headers: Headers, method: str, send: ASGISend) -> None:
        """Serve the Protected Resource Metadata (at the well-known path or its path-suffixed form)."""
        if method not in ("GET", "HEAD"):
            raise Reject(405, INVALID_REQUEST, f"Method Not Allowed: {method}")
        registry = self.registry
        tool_scopes = [
            name for entry in registry.list_tools() for name in getattr(registry.get(entry["name"]), "scopes", ())
        ]
        # The path after the well-known prefix is the resource's own path (RFC 9728 section 3.1): it names the
        # endpoint from the host's root, whatever this app's mount point; without one, this app's endpoint.
        root = scope.get("root_path") or ""
        suffix = (root + local_path(scope))[len(WELL_KNOWN) :].rstrip("/")
        # Served at the host's root, this app knows its one resource: metadata for any other path would describe
        # a resource that is not here. (Mounted, the outer app's routes decide which suffixes reach us.)
        if not root and suffix not in ("", self.path.rstrip("/")):
            raise Reject(404, INVALID_REQUEST, f"Not Found: this server's resource is {self.path}")
        document = self.settings.metadata(
            self.resource(scope, headers, suffix or self.path, mounted=False), tool_scopes
        )
        await send_json(send, 200, document, [(b"access-control-allow-origin", b"*")])

    async def authorize(self, scope: Scope, headers: Headers) -> Principal:
        """The verified principal of this request: 401 without a valid bearer token, 403 without the scopes every
        request needs."""
        settings = self.settings
        principal = await settings.authenticate(headers.get("authorization"))
        required = settings.required_scopes
        if principal is None:
            error = None if headers.get("authorization") is None else "invalid_token"
            value = challenge(self._endpoint_resource(scope, headers), error=error, scopes=required)
            raise Reject(
                401,
                INVALID_REQUEST,
                "Unauthorized: a valid bearer token is required",
                headers=[(b"www-authenticate", value)],
            )
        if not principal.has_scopes(required):
            raise self.insufficient(scope, headers, required, None)
        return principal

    def insufficient(self, scope: Scope, headers: Headers, needed: Iterable[str], request_id: Any) -> Reject:
        wanted = list(dict.fromkeys([*self.settings.required_scopes, *needed]))
        value = challenge(self._endpoint_resource(scope, headers), error="insufficient_scope", scopes=wanted)
        return Reject(
            403,
            INVALID_REQUEST,
            f"Forbidden: insufficient scope (needs {' '.join(wanted)})",
            request_id,
            headers=[(b"www-authenticate", value)],
        )
