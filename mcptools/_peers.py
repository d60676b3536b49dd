"""The peers' own objects in a tool written for them, recognised without importing the peer.

Code moved over from the official SDK (``mcp.server.fastmcp`` in 1.x, ``mcp.server.mcpserver`` in 2.x) or fastmcp
by its import line alone still returns the peer's ``Image`` and ``Audio`` helpers, its content models and
``CallToolResult``, and raises its ``UrlElicitationRequiredError``. They are told by the module and name of their
class, so mcptools imports neither peer (nor pydantic) for code that uses none of them; what they carry is read
through their own public methods (``to_image_content``, ``model_dump``).
"""

from __future__ import annotations

from typing import Any, Final, get_args, get_origin

import typing_extensions

__all__ = ["is_peer_result_hint", "is_peer_url_elicitation", "peer_output_hint", "peer_result"]

# Where the peers define what a tool returns: the SDK's types (``mcp_types`` in 2.x, ``mcp.types`` in 1.x),
# its helpers, and fastmcp's.
PEER_MODULES: Final = ("mcp.", "mcp_types.", "fastmcp.")

_CONTENT_MODELS: Final = frozenset({"TextContent", "ImageContent", "AudioContent", "EmbeddedResource", "ResourceLink"})

# The helpers' conversions to a content model, by the name of the method each peer gives them.
_TO_CONTENT: Final = ("to_image_content", "to_audio_content", "to_resource_content")

_URL_ELICITATION: Final = frozenset(
    {
        ("mcp.shared.exceptions", "UrlElicitationRequiredError"),  # the official SDK, 1.x and 2.x
        ("fastmcp.exceptions", "UrlElicitationRequiredError"),
    }
)


def _is_peer_class(cls: type) -> bool:
    return cls.__module__.startswith(PEER_MODULES)


def _dumped(model: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


def _block(value: object) -> dict[str, Any] | None:
    """A peer's content model or helper as a content block; ``None`` when ``value`` is neither."""
    cls = type(value)
    if not _is_peer_class(cls):
        return None
    if cls.__name__ in _CONTENT_MODELS and hasattr(value, "model_dump"):
        return _dumped(value)
    for method in _TO_CONTENT:
        convert = getattr(value, method, None)
        if convert is not None:
            return _dumped(convert())
    return None


def peer_result(value: object) -> dict[str, Any] | None:
    """The ``CallToolResult`` for a value of the peers' result types, or ``None`` when it is none of them: their
    ``CallToolResult`` as it is (by its wire names), their ``Image``/``Audio``/``File`` helpers and content models
    (or a list of them) as content blocks."""
    cls = type(value)
    if isinstance(value, (list, tuple)):
        if not value or _block(value[0]) is None:  # the first item decides: a list of data is looked at once
            return None
        blocks = [_block(item) for item in value]
        if all(block is not None for block in blocks):
            return {"resultType": "complete", "content": blocks, "isError": False}
        return None
    if not _is_peer_class(cls):
        return None
    if cls.__name__ == "CallToolResult" and hasattr(value, "model_dump"):
        result = _dumped(value)
        result.setdefault("resultType", "complete")
        result.setdefault("isError", False)
        return result
    block = _block(value)
    if block is None:
        return None
    return {"resultType": "complete", "content": [block], "isError": False}


def is_peer_result_hint(hint: object) -> bool:
    """Whether a return annotation names one of the peers' result types (no output schema of its own), or a list
    of them. ``Annotated[CallToolResult, Model]`` is not one: its schema is the model's (see ``peer_output_hint``)."""
    if get_origin(hint) in (list, tuple):
        args = [arg for arg in get_args(hint) if arg is not Ellipsis]
        return bool(args) and all(is_peer_result_hint(arg) for arg in args)
    if not isinstance(hint, type) or not _is_peer_class(hint):
        return False
    return hint.__name__ in _CONTENT_MODELS or hint.__name__ in ("CallToolResult", "Image", "Audio", "File")


def peer_output_hint(hint: object) -> object | None:
    """The SDK's ``Annotated[CallToolResult, Model]``: the tool returns a whole result whose ``structuredContent``
    follows ``Model``; the model is the output schema's hint. ``None`` for any other annotation."""
    if get_origin(hint) is not typing_extensions.Annotated:
        return None
    inner, *metadata = get_args(hint)
    if not (isinstance(inner, type) and _is_peer_class(inner) and inner.__name__ == "CallToolResult"):
        return None
    return metadata[0] if metadata else None


def is_peer_url_elicitation(exc: BaseException) -> bool:
    """The peers' ``UrlElicitationRequiredError``, raised by a tool exactly as mcptools' ``URLElicitationRequired``
    is (it carries the same elicitations, as the SDK's ``ElicitRequestURLParams`` models)."""
    return any((cls.__module__, cls.__qualname__) in _URL_ELICITATION for cls in type(exc).__mro__)
