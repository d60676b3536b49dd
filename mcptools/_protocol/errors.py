"""Signals that end a request early with something other than a tool result."""

from __future__ import annotations

from typing import Any

__all__ = ["InputRequired", "ProtocolError"]


class ProtocolError(Exception):
    """Answer the request with this JSON-RPC error instead of a result."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


class InputRequired(BaseException):
    """A 2026-07-28 tool needs answers from the client: end this round with an ``input_required`` result.

    Raised by ``Context`` and caught by the call path, never seen by the client as an error; the tool runs
    again from the top once the client retries with ``inputResponses``. A ``BaseException``, like
    ``CancelledError``, so that a tool's ``except Exception`` around its own work cannot swallow it.
    """

    def __init__(self, requests: dict[str, dict[str, Any]]) -> None:
        super().__init__(f"input required: {', '.join(requests)}")
        self.requests = requests
