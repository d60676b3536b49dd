"""The tool context: what a tool may ask of the client during one call.

A parameter annotated ``Context`` is injected by the SDK and never appears in the input schema. The protocol
layer fills in progress, logging, elicitation, sampling and cancellation (issue 3); until then the class exists
so that schema derivation can recognise and skip such a parameter.
"""

from __future__ import annotations

from typing import final

__all__ = ["Context"]


@final
class Context:
    """Injected into a tool that asks for it by annotating a parameter with ``Context``."""

    __slots__ = ("request_id",)

    def __init__(self, request_id: str | int | None = None) -> None:
        self.request_id = request_id
