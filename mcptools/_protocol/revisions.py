"""The protocol revisions this SDK speaks, and the names and codes each one defines.

2026-07-28 has no handshake: every request names its revision and the client's capabilities in ``_meta``. The
older revisions negotiate once, in ``initialize``, and keep that answer for the session.
"""

from __future__ import annotations

from typing import Final

from .._jsonrpc import HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION

__all__ = [
    "HEADER_MISMATCH",
    "LATEST",
    "LEGACY",
    "LOG_LEVELS",
    "META_CLIENT_CAPABILITIES",
    "META_CLIENT_INFO",
    "META_LOG_LEVEL",
    "META_PROTOCOL_VERSION",
    "META_SERVER_INFO",
    "MISSING_CLIENT_CAPABILITY",
    "SUPPORTED",
    "STATELESS_VERSIONS",
    "TASKS_EXTENSION",
    "TASKS_REVISION",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "level_allows",
    "negotiate",
    "supported_versions",
]

LATEST: Final = "2026-07-28"
# Newest first: ``initialize`` answers a version it does not know with the first of these.
LEGACY: Final = ("2025-11-25", "2025-06-18", "2025-03-26")
SUPPORTED: Final = (LATEST, *LEGACY)
# The revisions a request may name in ``_meta`` (the older ones only exist inside an initialized session).
STATELESS_VERSIONS: Final = (LATEST,)

META_PROTOCOL_VERSION: Final = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_CAPABILITIES: Final = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO: Final = "io.modelcontextprotocol/clientInfo"
META_LOG_LEVEL: Final = "io.modelcontextprotocol/logLevel"
META_SERVER_INFO: Final = "io.modelcontextprotocol/serverInfo"
# Tasks: the extension a 2026-07-28 client declares per request, and the one 2025 revision with tasks in its core.
TASKS_EXTENSION: Final = "io.modelcontextprotocol/tasks"
TASKS_REVISION: Final = "2025-11-25"


LOG_LEVELS: Final = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
_SEVERITY: Final = {name: rank for rank, name in enumerate(LOG_LEVELS)}


def negotiate(requested: object) -> str:
    """The revision an ``initialize`` settles on: the client's own when we speak it, else our newest old
    one."""
    if type(requested) is str and requested in LEGACY:
        return requested
    return LEGACY[0]


def level_allows(threshold: str | None, level: str) -> bool:
    """Whether a message at ``level`` passes a client's ``threshold`` (``None``: the client asked for no
    logs)."""
    if threshold is None:
        return False
    return _SEVERITY.get(level, 0) >= _SEVERITY.get(threshold, 0)


def supported_versions(modern_only: bool = False) -> list[str]:
    """The versions to name in ``server/discover`` and in -32022 errors, newest first.

    A dual-era server names its legacy revisions too, as the 2026-07-28 versioning page's own example does
    (``"supported": ["2026-07-28", "2025-11-25"]``): a client that cannot speak 2026-07-28 learns that it can
    still ``initialize`` at one of them. The legacy ones are only reachable through ``initialize``, never by
    naming them in ``_meta``. A transport that opens no sessions (``modern_only``) names 2026-07-28 alone.
    """
    return list(STATELESS_VERSIONS) if modern_only else list(SUPPORTED)
