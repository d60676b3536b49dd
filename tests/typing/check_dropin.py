"""Typing tests for the drop-in helpers (issue 18), checked by `mypy --strict` (not run by pytest): the content
helpers, ``Icon``, the warning category and the refused prompt/resource decorators.

The wrong uses below carry `type: ignore[code]`: mypy --strict warns about unused ignores, so if a wrong use
stopped being an error, mypy would fail on this file.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from typing_extensions import assert_type

from mcptools import (
    Audio,
    AudioContent,
    EmbeddedResource,
    File,
    Icon,
    Image,
    ImageContent,
    MCPToolsError,
    ToolDefinitionWarning,
    ToolRegistry,
)
from mcptools._icons import icons_json

assert_type(Image(path=Path("chart.png")).to_image_content(), ImageContent)
assert_type(Image(data=b"\x89PNG", format="png").mime_type, str)
assert_type(Audio(path="note.mp3").to_audio_content(), AudioContent)
assert_type(File(data=b"a,b", format="csv", name="rows.csv").to_resource_content(), EmbeddedResource)
Image(data="not bytes")  # type: ignore[arg-type]
Image(path=3)  # type: ignore[arg-type]

icon = Icon("https://example.com/icon.png", mime_type="image/png", sizes=["48x48", "any"], theme="dark")
assert_type(icon.to_json(), dict[str, Any])
assert_type(icon.sizes, tuple[str, ...] | None)
Icon("https://example.com/icon.png", theme="blue")  # type: ignore[arg-type]
Icon(src="https://example.com/icon.png", mimeType="image/png")  # type: ignore[call-arg]
assert_type(icons_json([icon, {"src": "https://example.com/a.svg"}], where="here"), list[dict[str, Any]] | None)

# The warning category is a Warning for the warnings machinery and an MCPToolsError for except clauses.
warnings.simplefilter("error", ToolDefinitionWarning)
caught: MCPToolsError = ToolDefinitionWarning("x")
category: type[UserWarning] = ToolDefinitionWarning

registry = ToolRegistry("typed")
# Refused at decoration: mypy knows nothing runs after them.
refusals: list[Callable[..., NoReturn]] = [
    registry.prompt,
    registry.resource,
    registry.add_prompt,
    registry.add_resource,
    registry.add_template,
]

# The official SDK's token_verifier= (anything with an async verify_token(token)) is typed; other values are not.
ToolRegistry("guarded", token_verifier=object())  # type: ignore[arg-type]
ToolRegistry("guarded", auth="secret")  # type: ignore[arg-type]
