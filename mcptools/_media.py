"""The peers' content helpers: a block made from a file or bytes, its MIME type worked out.

``Image(path="chart.png")``, ``Image(data=png, format="png")``, ``Audio(...)`` and ``File(...)`` as fastmcp and
the official SDK spell them. Loaded when first named (``mcptools.Image``), not with ``import mcptools``: most tool
modules never return a file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, ClassVar, Final, final

from ._content import AudioContent, Block, EmbeddedResource, ImageContent, _BinaryContent
from ._errors import UsageError

__all__ = ["Audio", "File", "Image"]

_IMAGE_TYPES: Final = {
    "png": "image/png",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
    "svg": "image/svg+xml",
    "bmp": "image/bmp",
    "tif": "image/tiff",
    "tiff": "image/tiff",
    "ico": "image/x-icon",
    "avif": "image/avif",
}
_AUDIO_TYPES: Final = {
    "wav": "audio/wav",
    "mp3": "audio/mpeg",
    "ogg": "audio/ogg",
    "oga": "audio/ogg",
    "flac": "audio/flac",
    "m4a": "audio/mp4",
    "aac": "audio/aac",
    "webm": "audio/webm",
    "opus": "audio/opus",
}
# Text that an embedded File carries as text rather than base64, when it decodes as UTF-8.
_TEXT_TYPES: Final = frozenset({"application/json", "application/xml", "application/javascript", "application/yaml"})


def _source(kind: str, path: str | os.PathLike[str] | None, data: bytes | None) -> tuple[bytes, str]:
    """The bytes and the lower-case suffix (format) of exactly one of ``path`` or ``data``."""
    if (path is None) == (data is None):
        raise UsageError(f"{kind}: give exactly one of path= (a file to read) or data= (its bytes)")
    if path is not None:
        with open(path, "rb") as handle:  # read now, so a missing file fails inside the tool that named it
            return handle.read(), os.path.splitext(os.fspath(path))[1].lstrip(".").lower()
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise UsageError(f"{kind}: data= must be bytes, not {type(data).__name__}")
    return bytes(data), ""


def _media_type(kind: str, table: Mapping[str, str], fmt: str | None, suffix: str, fallback: str) -> str:
    if fmt is not None:
        name = fmt.lower().lstrip(".")
        return name if "/" in name else table.get(name, f"{kind}/{name}")
    return table.get(suffix, fallback) if suffix else fallback


class _Media(_BinaryContent):
    """An image or audio block made from ``path=`` or ``data=`` (with ``format=`` naming the type of bytes)."""

    __slots__ = ()

    _table: ClassVar[Mapping[str, str]]
    _fallback: ClassVar[str]

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        data: bytes | None = None,
        format: str | None = None,  # the peers' keyword
        *,
        annotations: Mapping[str, Any] | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        raw, suffix = _source(type(self).__name__, path, data)
        # Unknown from a path: generic bytes; bytes with no format: the peers' default (PNG, WAV).
        fallback = "application/octet-stream" if path is not None else self._fallback
        mime = _media_type(self._wire_type, self._table, format, suffix, fallback)
        super().__init__(raw, mime, annotations=annotations, meta=meta)


@final
class Image(_Media):
    """An image block from a file or bytes: ``Image(path="chart.png")``, ``Image(data=png, format="png")``.

    The MIME type comes from ``format`` or the file's suffix (``image/png`` for bytes with neither).
    """

    __slots__ = ()

    _wire_type = "image"
    _table = _IMAGE_TYPES
    _fallback = "image/png"

    def to_image_content(self) -> ImageContent:
        """The block as ``ImageContent`` (the peers' method, for code that calls it before returning)."""
        return ImageContent(self.data, self.mime_type, annotations=self.annotations, meta=self.meta)


@final
class Audio(_Media):
    """A sound block from a file or bytes: ``Audio(path="note.mp3")``, ``Audio(data=wav, format="wav")``.

    The MIME type comes from ``format`` or the file's suffix (``audio/wav`` for bytes with neither).
    """

    __slots__ = ()

    _wire_type = "audio"
    _table = _AUDIO_TYPES
    _fallback = "audio/wav"

    def to_audio_content(self) -> AudioContent:
        """The block as ``AudioContent`` (the peers' method)."""
        return AudioContent(self.data, self.mime_type, annotations=self.annotations, meta=self.meta)


@final
class File(Block):
    """A file embedded in the result (a ``resource`` block): ``File(path="report.pdf")``,
    ``File(data=csv_bytes, format="csv", name="rows")``. Text types that decode as UTF-8 go as text, others as
    base64; the resource's URI is ``file:///`` and the name (``name``, else the file's name)."""

    __slots__ = ("_block",)

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        data: bytes | None = None,
        format: str | None = None,  # the peers' keyword
        name: str | None = None,
        *,
        annotations: Mapping[str, Any] | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        raw, suffix = _source("File", path, data)
        kind = (format or suffix or "").lower().lstrip(".")
        if name is None:
            name = os.path.basename(os.fspath(path)) if path is not None else ("file." + kind if kind else "file")
        import mimetypes  # lazily: only a tool returning a File pays for it

        mime = kind if "/" in kind else (mimetypes.types_map.get("." + kind) if kind else None)
        mime = mime or "application/octet-stream"
        text: str | None = None
        if mime.startswith("text/") or mime in _TEXT_TYPES:
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                text = None
        self._block = EmbeddedResource(
            f"file:///{name}",
            text=text,
            blob=raw if text is None else None,
            mime_type=mime,
            annotations=annotations,
            meta=meta,
        )

    @property
    def uri(self) -> str:
        return self._block.uri

    @property
    def mime_type(self) -> str | None:
        return self._block.mime_type

    def to_resource_content(self) -> EmbeddedResource:
        """The block as ``EmbeddedResource`` (the peers' method)."""
        return self._block

    def to_json(self) -> dict[str, Any]:
        return self._block.to_json()
