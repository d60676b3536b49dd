"""Icons (2025-11-25): the ``icons=`` a registry or a tool is published with.

Loaded when first used (a registry or tool given ``icons=``, or ``mcptools.Icon`` named), not with
``import mcptools``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, Literal, Protocol, final

from ._errors import ToolDefinitionError

__all__ = ["Icon", "icons_json"]

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
