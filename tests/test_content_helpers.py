"""The peers' helpers (issue 18, item 6): ``Image``, ``Audio`` and ``File`` blocks from a path or bytes, ``Icon``
and its JSON form, and ``@registry.prompt`` / ``@registry.resource`` refused at decoration with the way out."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from derive_support import call

from mcptools import (
    Audio,
    AudioContent,
    EmbeddedResource,
    File,
    Icon,
    Image,
    ImageContent,
    ToolDefinitionError,
    ToolRegistry,
)
from mcptools._icons import icons_json

PNG = b"\x89PNG\r\n\x1a\n-fake-"


def _content(registry: ToolRegistry, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    return call(registry, name, arguments or {})


@pytest.mark.parametrize(
    ("suffix", "mime"),
    [
        ("png", "image/png"),
        ("JPG", "image/jpeg"),
        ("svg", "image/svg+xml"),
        ("webp", "image/webp"),
        ("xyz", "application/octet-stream"),
    ],
)
def test_image_from_a_path_reads_it_and_names_its_type(tmp_path: Path, suffix: str, mime: str) -> None:
    path = tmp_path / f"chart.{suffix}"
    path.write_bytes(PNG)
    for given in (path, str(path)):
        image = Image(path=given)
        assert image.to_json() == {"type": "image", "data": base64.b64encode(PNG).decode(), "mimeType": mime}


def test_image_from_bytes_with_or_without_a_format() -> None:
    assert Image(data=PNG).to_json()["mimeType"] == "image/png"  # the peers' default for bare bytes
    assert Image(data=PNG, format="jpg").to_json()["mimeType"] == "image/jpeg"
    assert Image(data=PNG, format="gif").to_json()["mimeType"] == "image/gif"
    assert Image(data=PNG, format="image/heic").to_json()["mimeType"] == "image/heic"
    assert Image(None, PNG, "png").to_json() == Image(data=PNG, format="png").to_json()  # positional, as the peers
    block = Image(data=PNG, format="png", annotations={"audience": ["user"]}).to_image_content()
    assert isinstance(block, ImageContent)
    assert block.to_json() == {
        "type": "image",
        "data": base64.b64encode(PNG).decode(),
        "mimeType": "image/png",
        "annotations": {"audience": ["user"]},
    }


def test_exactly_one_source_is_required() -> None:
    with pytest.raises(ValueError, match=r"exactly one of path= .* or data="):
        Image()
    with pytest.raises(ValueError, match="exactly one of"):
        Audio(path="a.wav", data=b"x")
    with pytest.raises(TypeError, match="data= must be bytes, not str"):
        File(data="text")  # type: ignore[arg-type]


def test_audio_types() -> None:
    assert Audio(data=b"RIFF").to_json()["mimeType"] == "audio/wav"
    assert Audio(data=b"ID3", format="mp3").to_json()["mimeType"] == "audio/mpeg"
    assert isinstance(Audio(data=b"x", format="ogg").to_audio_content(), AudioContent)


def test_file_embeds_text_as_text_and_the_rest_as_base64(tmp_path: Path) -> None:
    report = tmp_path / "report.csv"
    report.write_text("name,age\nada,36\n")
    assert File(path=report).to_json() == {
        "type": "resource",
        "resource": {"uri": "file:///report.csv", "mimeType": "text/csv", "text": "name,age\nada,36\n"},
    }
    binary = File(data=b"\x00\xff", format="pdf", name="scan.pdf")
    assert binary.to_json()["resource"] == {"uri": "file:///scan.pdf", "mimeType": "application/pdf", "blob": "AP8="}
    assert File(data=b"\xff\xfe", format="txt").to_json()["resource"]["blob"] == "//4="  # not UTF-8: base64
    assert isinstance(binary.to_resource_content(), EmbeddedResource)


def test_tools_return_the_helpers_as_content_blocks(tmp_path: Path) -> None:
    (tmp_path / "plot.png").write_bytes(PNG)
    registry = ToolRegistry("media")

    @registry.tool
    def plot(name: str) -> Image:
        return Image(path=tmp_path / name)

    @registry.tool
    def bundle() -> list[Image | Audio | File]:
        return [
            Image(data=PNG),
            Audio(data=b"RIFF", format="wav"),
            File(data=b'{"a": 1}', format="json", name="a.json"),
        ]

    assert registry.get("plot") is not None and registry.get("plot").output_schema is None  # type: ignore[union-attr]
    shown = _content(registry, "plot", {"name": "plot.png"})
    assert shown == {
        "resultType": "complete",
        "content": [{"type": "image", "data": base64.b64encode(PNG).decode(), "mimeType": "image/png"}],
        "isError": False,
    }
    # A missing file fails inside the tool that named it: an error result, never a success.
    assert _content(registry, "plot", {"name": "missing.png"})["isError"] is True
    blocks = _content(registry, "bundle")["content"]
    assert [block["type"] for block in blocks] == ["image", "audio", "resource"]
    assert blocks[2]["resource"] == {"uri": "file:///a.json", "mimeType": "application/json", "text": '{"a": 1}'}


def test_icon_json_and_checks() -> None:
    icon = Icon("https://example.com/logo.svg", mime_type="image/svg+xml", sizes=["any", "48x48"], theme="light")
    assert icon.to_json() == {
        "src": "https://example.com/logo.svg",
        "mimeType": "image/svg+xml",
        "sizes": ["any", "48x48"],
        "theme": "light",
    }
    assert Icon("data:image/png;base64,iVBORw0KGgo=").to_json() == {"src": "data:image/png;base64,iVBORw0KGgo="}
    assert icon == Icon(
        "https://example.com/logo.svg", mime_type="image/svg+xml", sizes=("any", "48x48"), theme="light"
    )
    for kwargs, fix in (
        ({"src": "file:///etc/passwd"}, "an https:// (or http://) URL or a data: URI"),
        ({"src": "javascript:alert(1)"}, "an https:// (or http://) URL or a data: URI"),
        ({"src": "data:image/png,raw"}, "base64 only"),
        ({"src": ""}, "non-empty str"),
        ({"src": "https://x.example/a.png", "mime_type": "png"}, "a MIME type such as 'image/png'"),
        ({"src": "https://x.example/a.png", "sizes": "48x48"}, "a list of strings"),
        ({"src": "https://x.example/a.png", "sizes": ["48"]}, "'WxH'"),
        ({"src": "https://x.example/a.png", "theme": "blue"}, "'light' or 'dark'"),
    ):
        with pytest.raises(ToolDefinitionError) as info:
            Icon(**kwargs)
        assert str(info.value).startswith("Icon(") and fix in str(info.value), kwargs


def test_icons_json_takes_icons_wire_mappings_and_the_sdks_model() -> None:
    given: list[Any] = [
        Icon("https://a.example/i.png", sizes=["16x16"]),
        {"src": "https://a.example/j.png", "theme": "dark"},
    ]
    mcp_types = pytest.importorskip("mcp.types")
    given.append(mcp_types.Icon(src="https://a.example/k.png", mimeType="image/png", sizes=["32x32"]))
    assert icons_json(given, where="ToolRegistry('app')") == [
        {"src": "https://a.example/i.png", "sizes": ["16x16"]},
        {"src": "https://a.example/j.png", "theme": "dark"},
        {"src": "https://a.example/k.png", "mimeType": "image/png", "sizes": ["32x32"]},
    ]
    assert icons_json(None, where="x") is None
    json.dumps(icons_json(given, where="x"))  # the wire form is JSON as it stands
    cases: list[tuple[Any, str]] = [
        ("https://a.example/i.png", "a list of Icon(...)"),
        ([{"src": "https://a.example/i.png", "size": ["1x1"]}], "unknown keys ['size']"),
        ([{"src": "ftp://a.example/i.png"}], "https:// (or http://) URL"),
        ([3], "give Icon(src=...) objects"),
    ]
    for bad, fix in cases:
        with pytest.raises(ToolDefinitionError) as info:
            icons_json(bad, where="tool 'x' (function m.f)")
        assert str(info.value).startswith("tool 'x' (function m.f): ") and fix in str(info.value), bad


def test_prompts_and_resources_are_refused_at_decoration_with_the_way_out() -> None:
    mcp = ToolRegistry("srv")
    with pytest.raises(ToolDefinitionError) as info:

        @mcp.prompt()  # type: ignore[untyped-decorator]
        def review(code: str) -> str:
            return code

    message = str(info.value)
    assert message.startswith("ToolRegistry('srv'): @registry.prompt: mcptools serves tools only")
    assert "make it a tool (@registry.tool, returning str)" in message and "another MCP server" in message
    with pytest.raises(ToolDefinitionError, match=r"function .*\.bare: @registry.prompt: "):

        @mcp.prompt
        def bare() -> str:
            return ""

    with pytest.raises(
        ToolDefinitionError, match=r"resource 'files://\{path\}': @registry.resource: .*tool that reads it"
    ):

        @mcp.resource("files://{path}")  # type: ignore[untyped-decorator]
        def read(path: str) -> str:
            return path

    for refuse, spelling in (
        (mcp.add_prompt, "registry.add_prompt"),
        (mcp.add_resource, "registry.add_resource"),
        (mcp.add_template, "registry.add_template"),
    ):
        with pytest.raises(ToolDefinitionError, match=f"{spelling}: mcptools serves tools only"):
            refuse(object())
    assert len(mcp) == 0
