"""Content a tool may return beyond text: images, audio, embedded resources and links to resources.

A tool returns one of these, a list of them, or a plain value. The result builder turns any of those into the
``content`` of a ``CallToolResult``; a plain value with a declared output type also becomes
``structuredContent``. Binary data is given as ``bytes`` and base64-encoded here, so a tool never builds wire
JSON by hand. ``Image``, ``Audio`` and ``File`` are the peers' spellings (``Image(path=...)``,
``Image(data=..., format="png")``): they read the file and work out the MIME type. ``Icon`` is the 2025-11-25
icon a registry or a tool is published with (``icons=``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, Final, Literal, Protocol, final

from ._errors import ToolDefinitionError, UsageError

__all__ = [
    "Audio",
    "AudioContent",
    "EmbeddedResource",
    "File",
    "Icon",
    "Image",
    "ImageContent",
    "ResourceLink",
    "TextContent",
    "icons_json",
    "is_content",
]


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


# -- the peers' helpers: a block from a file or bytes, its MIME type worked out -------------------------------------

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
class File:
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


_CONTENT_TYPES = (TextContent, ImageContent, AudioContent, EmbeddedResource, ResourceLink, Image, Audio, File)


def is_content(value: object) -> bool:
    return isinstance(value, _CONTENT_TYPES)


# -- icons (2025-11-25): for ToolRegistry(icons=...) and @registry.tool(icons=...) ------------------------------------

_SIZE: Final = re.compile(r"[1-9][0-9]*x[1-9][0-9]*")
_DATA_URI: Final = re.compile(r"data:[\w.+-]+/[\w.+-]+(;[\w.+-]+=[\w.+-]+)*;base64,[A-Za-z0-9+/]+={0,2}", re.ASCII)


@final
class Icon:
    """An icon a client may show for the server or a tool (MCP 2025-11-25).

    ``src`` is an ``https://`` (or ``http://``) URL or a ``data:`` URI with base64 data; ``mime_type`` overrides
    a missing or generic type; ``sizes`` are ``"WxH"`` strings or ``"any"`` (for SVG); ``theme`` says the
    background the icon is drawn for. Checked when made: a mistake is a ``ToolDefinitionError`` naming the fix.
    """

    __slots__ = ("mime_type", "sizes", "src", "theme")

    def __init__(
        self,
        src: str,
        *,
        mime_type: str | None = None,
        sizes: Sequence[str] | None = None,
        theme: Literal["light", "dark"] | None = None,
    ) -> None:
        problem = _icon_problem(src, mime_type, sizes, theme)
        if problem is not None:
            raise ToolDefinitionError(f"Icon({_shown(src)}): {problem}")
        self.src = src
        self.mime_type = mime_type
        self.sizes: tuple[str, ...] | None = tuple(sizes) if sizes is not None else None
        self.theme = theme

    def to_json(self) -> dict[str, Any]:
        """The wire form: ``{"src": ..., "mimeType": ..., "sizes": [...], "theme": ...}`` (those given)."""
        entry: dict[str, Any] = {"src": self.src}
        if self.mime_type is not None:
            entry["mimeType"] = self.mime_type
        if self.sizes is not None:
            entry["sizes"] = list(self.sizes)
        if self.theme is not None:
            entry["theme"] = self.theme
        return entry

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Icon) and self.to_json() == other.to_json()

    def __hash__(self) -> int:
        return hash((self.src, self.mime_type, self.sizes, self.theme))

    def __repr__(self) -> str:
        extras = "".join(
            f", {name}={value!r}"
            for name, value in (("mime_type", self.mime_type), ("sizes", self.sizes), ("theme", self.theme))
            if value is not None
        )
        return f"Icon({_shown(self.src)}{extras})"


def _shown(src: object) -> str:
    text = repr(src)
    return text if len(text) <= 60 else text[:57] + "..."


def _icon_problem(src: object, mime_type: object, sizes: object, theme: object) -> str | None:
    if not isinstance(src, str) or not src:
        return "src must be a non-empty str (an https:// URL or a data: URI)"
    scheme = src.split(":", 1)[0].lower() if ":" in src else ""
    if scheme == "data":
        if not _DATA_URI.fullmatch(src):
            return "a data: src must be 'data:<type>/<subtype>;base64,<data>' (base64 only, as MCP asks)"
    elif scheme not in ("https", "http") or not src.split(":", 1)[1].startswith("//"):
        return "src must be an https:// (or http://) URL or a data: URI; clients fetch nothing else"
    if mime_type is not None and (not isinstance(mime_type, str) or mime_type.count("/") != 1):
        return f"mime_type must be a MIME type such as 'image/png', not {mime_type!r}"
    if sizes is not None:
        if isinstance(sizes, str) or not isinstance(sizes, Sequence):
            return f"sizes must be a list of strings such as ['48x48', 'any'], not {sizes!r}"
        for size in sizes:
            if not isinstance(size, str) or not (size == "any" or _SIZE.fullmatch(size)):
                return f"each size must be 'WxH' (e.g. '48x48') or 'any', not {size!r}"
    if theme is not None and theme not in ("light", "dark"):
        return f"theme must be 'light' or 'dark', not {theme!r}"
    return None


class _WireModel(Protocol):
    """The official SDK's or fastmcp's ``Icon`` (a pydantic model), read by its wire names."""

    def model_dump(self, *, mode: str = ..., by_alias: bool = ..., exclude_none: bool = ...) -> dict[str, Any]: ...


def icons_json(
    icons: Iterable[Icon | Mapping[str, Any] | _WireModel] | None, *, where: str
) -> list[dict[str, Any]] | None:
    """The ``icons`` list to publish, from ``Icon`` objects, wire-form mappings (``{"src": ..., "mimeType": ...}``)
    or the peers' ``Icon`` models; None for none. A bad icon is a ``ToolDefinitionError`` starting with ``where``
    (``"ToolRegistry('app')"``, ``"tool 'x' (function m.f)"``)."""
    if icons is None:
        return None
    if isinstance(icons, (str, bytes, Mapping)) or not isinstance(icons, Iterable):
        raise ToolDefinitionError(f"{where}: icons= must be a list of Icon(...), not {type(icons).__name__}")
    published: list[dict[str, Any]] = []
    for item in icons:
        if isinstance(item, Icon):
            published.append(item.to_json())
            continue
        read = item if isinstance(item, Mapping) else getattr(item, "model_dump", None)
        if callable(read):
            read = read(mode="json", by_alias=True, exclude_none=True)
        if not isinstance(read, Mapping):
            raise ToolDefinitionError(f"{where}: icons= holds {type(item).__name__}; give Icon(src=...) objects")
        unknown = set(read) - {"src", "mimeType", "sizes", "theme"}
        if unknown:
            raise ToolDefinitionError(
                f"{where}: an icon has unknown keys {sorted(unknown)}; an icon has src, mimeType, sizes and theme"
            )
        problem = _icon_problem(read.get("src"), read.get("mimeType"), read.get("sizes"), read.get("theme"))
        if problem is not None:
            raise ToolDefinitionError(f"{where}: icon {_shown(read.get('src'))}: {problem}")
        published.append({key: list(value) if key == "sizes" else value for key, value in read.items()})
    return published
