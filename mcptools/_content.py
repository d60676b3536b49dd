"""Content a tool may return beyond text: images, audio, embedded resources and links to resources.

A tool returns one of these, a list of them, or a plain value. The result builder turns any of those into the
``content`` of a ``CallToolResult``; a plain value with a declared output type also becomes
``structuredContent``. Binary data is given as ``bytes`` and base64-encoded here, so a tool never builds wire
JSON by hand. The peers' helpers made from a file (``Image``, ``Audio``, ``File``) live in ``_media`` and
``Icon`` in ``_icons``: both load when first used, not with ``import mcptools``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, final

from ._errors import UsageError

__all__ = ["AudioContent", "Block", "EmbeddedResource", "ImageContent", "ResourceLink", "TextContent", "is_content"]


def _base64(data: bytes | str) -> str:
    # A str is taken as already encoded: that is how data arrives from files or other APIs more often than
    # not.
    if isinstance(data, str):
        return data
    import base64  # lazily: only binary content needs it

    return base64.b64encode(bytes(data)).decode("ascii")


def _with_extras(entry: dict[str, Any], annotations: Mapping[str, Any] | None, meta: Mapping[str, Any] | None) -> None:
    if annotations is not None:
        entry["annotations"] = dict(annotations)
    if meta is not None:
        entry["_meta"] = dict(meta)


# Not a dataclass: mcptools reads any dataclass as a JSON object type (a parameter, a structured result,
# jsonify's values), and a content block is a result block, never structured data.
@final
class TextContent:
    """A text block: what a plain ``str`` return becomes anyway, for use in a list with other blocks."""

    __slots__ = ("annotations", "meta", "text")

    def __init__(
        self,
        text: str,
        *,
        annotations: Mapping[str, Any] | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        self.text = text
        self.annotations = annotations
        self.meta = meta

    def to_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"type": "text", "text": self.text}
        _with_extras(entry, self.annotations, self.meta)
        return entry


# Not a dataclass: mcptools reads any dataclass as a JSON object type (a parameter, a structured result,
# jsonify's values), and a content block is a result block, never structured data.
class _BinaryContent:
    """The fields and wire form shared by image and audio blocks; a subclass names only its wire ``type``."""

    __slots__ = ("annotations", "data", "meta", "mime_type")

    _wire_type: ClassVar[str]

    def __init__(
        self,
        data: bytes | str,
        mime_type: str,
        *,
        annotations: Mapping[str, Any] | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        self.data = data
        self.mime_type = mime_type
        self.annotations = annotations
        self.meta = meta

    def to_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"type": self._wire_type, "data": _base64(self.data), "mimeType": self.mime_type}
        _with_extras(entry, self.annotations, self.meta)
        return entry


@final
class ImageContent(_BinaryContent):
    """An image: raw ``bytes`` (or base64 text) and its MIME type, e.g. ``ImageContent(png, "image/png")``."""

    __slots__ = ()

    _wire_type = "image"


@final
class AudioContent(_BinaryContent):
    """A sound: raw ``bytes`` (or base64 text) and its MIME type, e.g. ``AudioContent(wav, "audio/wav")``."""

    __slots__ = ()

    _wire_type = "audio"


@final
class EmbeddedResource:
    """A resource's contents inline: give ``text`` for text, ``blob`` (bytes) for anything else, not both."""

    __slots__ = ("annotations", "blob", "meta", "mime_type", "text", "uri")

    def __init__(
        self,
        uri: str,
        *,
        text: str | None = None,
        blob: bytes | str | None = None,
        mime_type: str | None = None,
        annotations: Mapping[str, Any] | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        if (text is None) == (blob is None):
            raise UsageError(f"EmbeddedResource {uri!r}: give exactly one of text= (for text) or blob= (for bytes)")
        self.uri = uri
        self.text = text
        self.blob = blob
        self.mime_type = mime_type
        self.annotations = annotations
        self.meta = meta

    def to_json(self) -> dict[str, Any]:
        resource: dict[str, Any] = {"uri": self.uri}
        if self.mime_type is not None:
            resource["mimeType"] = self.mime_type
        if self.text is not None:
            resource["text"] = self.text
        elif self.blob is not None:
            resource["blob"] = _base64(self.blob)
        entry: dict[str, Any] = {"type": "resource", "resource": resource}
        _with_extras(entry, self.annotations, self.meta)
        return entry


# Not a dataclass: mcptools reads any dataclass as a JSON object type (a parameter, a structured result,
# jsonify's values), and a content block is a result block, never structured data.
@final
class ResourceLink:
    """A pointer to a resource the client may fetch later, rather than its contents."""

    __slots__ = ("annotations", "description", "meta", "mime_type", "name", "size", "title", "uri")

    def __init__(
        self,
        uri: str,
        name: str,
        *,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        size: int | None = None,
        annotations: Mapping[str, Any] | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        self.uri = uri
        self.name = name
        self.title = title
        self.description = description
        self.mime_type = mime_type
        self.size = size
        self.annotations = annotations
        self.meta = meta

    def to_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"type": "resource_link", "uri": self.uri, "name": self.name}
        for key, value in (
            ("title", self.title),
            ("description", self.description),
            ("mimeType", self.mime_type),
            ("size", self.size),
        ):
            if value is not None:
                entry[key] = value
        _with_extras(entry, self.annotations, self.meta)
        return entry


class Block:
    """The base of content made elsewhere (``_media.File``): an instance is returned as its ``to_json()``."""

    __slots__ = ()

    def to_json(self) -> dict[str, Any]:
        raise NotImplementedError  # pragma: no cover  # every subclass writes its own


_CONTENT_TYPES = (TextContent, _BinaryContent, EmbeddedResource, ResourceLink, Block)


def is_content(value: object) -> bool:
    return isinstance(value, _CONTENT_TYPES)
