"""pydantic's URL types (``AnyUrl``, ``HttpUrl``, ``FileUrl``, the DSNs...) as parameters, fields and results.

Written the way the reference fetch server writes its input (``url: Annotated[AnyUrl, Field(description=...)]``
in a model). The schema says the form (``format: uri``), the schemes (a pattern) and the length; our validator
refuses first, in its words; pydantic then builds the value, and what it still refuses reads as ours too.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from typing import Annotated, Any, ClassVar, TypedDict

import pytest
from derive_support import call, single, text_of
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_support import scaled
from pydantic import (
    AnyHttpUrl,
    AnyUrl,
    AnyWebsocketUrl,
    BaseModel,
    Field,
    FileUrl,
    FtpUrl,
    HttpUrl,
    PostgresDsn,
    RedisDsn,
    UrlConstraints,
    WebsocketUrl,
)

from mcptools import ToolDefinitionError, ToolRegistry
from mcptools._validation.cache import checker_for

HTTP = "^(?:[hH][tT][tT][pP]|[hH][tT][tT][pP][sS]):"


def schema_of(registry: ToolRegistry, name: str = "t") -> dict[str, Any]:
    tool = registry.get(name)
    assert tool is not None
    return tool.input_schema


@pytest.mark.parametrize(
    ("annotation", "schema"),
    [
        (AnyUrl, {"type": "string", "format": "uri"}),
        (AnyHttpUrl, {"type": "string", "format": "uri", "pattern": HTTP}),
        (HttpUrl, {"type": "string", "format": "uri", "pattern": HTTP, "maxLength": 2083}),
        (FileUrl, {"type": "string", "format": "uri", "pattern": "^(?:[fF][iI][lL][eE]):"}),
        (FtpUrl, {"type": "string", "format": "uri", "pattern": "^(?:[fF][tT][pP]):"}),
        (
            WebsocketUrl,
            {"type": "string", "format": "uri", "pattern": "^(?:[wW][sS]|[wW][sS][sS]):", "maxLength": 2083},
        ),
        (AnyWebsocketUrl, {"type": "string", "format": "uri", "pattern": "^(?:[wW][sS]|[wW][sS][sS]):"}),
        (
            RedisDsn,
            {"type": "string", "format": "uri", "pattern": "^(?:[rR][eE][dD][iI][sS]|[rR][eE][dD][iI][sS][sS]):"},
        ),
    ],
    ids=lambda value: getattr(value, "__name__", ""),
)
def test_schema_states_form_schemes_and_length(annotation: Any, schema: dict[str, Any]) -> None:
    registry, _ = single(annotation)
    assert schema_of(registry)["properties"]["value"] == schema


def test_a_scheme_with_regex_operators_is_escaped_not_run() -> None:
    registry, seen = single(PostgresDsn)
    pattern = schema_of(registry)["properties"]["value"]["pattern"]
    assert r"[pP][oO][sS][tT][gG][rR][eE][sS][qQ][lL]\+[aA][sS][yY][nN][cC][pP][gG]" in pattern
    assert call(registry, "t", {"value": "postgresql+asyncpg://u@h1,h2/db"}).get("isError") is not True
    assert str(seen[0]) == "postgresql+asyncpg://u@h1,h2/db"
    # The "+" is the scheme's own character, not "one or more l"s.
    assert call(registry, "t", {"value": "postgresqlllasyncpg://u@h/db"})["isError"] is True


def test_a_good_call_gets_the_pydantic_url_itself() -> None:
    registry, seen = single(HttpUrl)
    assert call(registry, "t", {"value": "HTTPS://Example.com/a?b=1"}).get("isError") is not True
    assert type(seen[0]) is HttpUrl
    assert seen[0].scheme == "https" and seen[0].host == "example.com" and seen[0].query == "b=1"


@pytest.mark.parametrize(
    ("sent", "message"),
    [
        ("ftp://example.com/x", f"Invalid arguments: property 'value' must match pattern '{HTTP}'"),
        ("not a url", f"Invalid arguments: property 'value' must match pattern '{HTTP}'"),
        ("https://example.com/" + "a" * 2100, "Invalid arguments: property 'value' must be at most 2083 characters"),
        # Ours passes it (an absolute URI with an http scheme); pydantic refuses it, worded as ours.
        ("http://", "Invalid arguments: property 'value' cannot be a Python HttpUrl: 'http://' (empty host)"),
        (
            "http://example.com:99999",
            "Invalid arguments: property 'value' cannot be a Python HttpUrl: 'http://example.com:99999' "
            "(invalid port number)",
        ),
        (12, "Invalid arguments: property 'value' must be string"),
    ],
)
def test_a_bad_url_gets_our_message_with_its_path(sent: Any, message: str) -> None:
    registry, seen = single(HttpUrl)
    result = call(registry, "t", {"value": sent})
    assert result["isError"] is True
    assert text_of(result) == message
    assert seen == []


def test_not_a_uri_for_anyurl_says_the_form() -> None:
    registry, seen = single(AnyUrl)
    result = call(registry, "t", {"value": "example.com/page"})
    assert text_of(result) == "Invalid arguments: property 'value' must be a URI, e.g. 'https://example.com/page'"
    assert seen == []
    assert call(registry, "t", {"value": "mailto:someone@example.com"}).get("isError") is not True
    assert type(seen[0]) is AnyUrl


class FetchRequest(BaseModel):
    """The reference fetch server's input."""

    url: Annotated[AnyUrl, Field(description="URL to fetch")]
    max_length: Annotated[int, Field(default=5000, gt=0, lt=1000000)]


class Link(TypedDict):
    href: HttpUrl


@dataclasses.dataclass
class Page:
    links: list[Link]
    home: FileUrl | None = None


def test_inside_models_typeddicts_and_dataclasses_with_paths() -> None:
    registry = ToolRegistry("urls")
    seen: list[Any] = []

    @registry.tool
    def fetch(request: FetchRequest, page: Page | None = None) -> str:
        seen.append((request, page))
        return "ok"

    properties = schema_of(registry, "fetch")["properties"]
    assert properties["request"]["properties"]["url"] == {
        "type": "string",
        "format": "uri",
        "description": "URL to fetch",
    }
    good = {"request": {"url": "https://example.com"}, "page": {"links": [{"href": "http://a.test/x"}]}}
    assert call(registry, "fetch", good).get("isError") is not True
    request, page = seen[0]
    assert type(request.url) is AnyUrl and str(request.url) == "https://example.com/"
    assert type(page.links[0]["href"]) is HttpUrl and page.home is None

    bad_scheme = {"request": {"url": "https://example.com"}, "page": {"links": [{"href": "ws://a.test"}]}}
    assert text_of(call(registry, "fetch", bad_scheme)) == (
        f"Invalid arguments: property 'page.links[0].href' must match pattern '{HTTP}'"
    )
    empty_host = {"request": {"url": "http://"}}
    assert text_of(call(registry, "fetch", empty_host)) == (
        "Invalid arguments: property 'request.url' cannot be a Python AnyUrl: 'http://' (empty host)"
    )
    assert len(seen) == 1


class Found(BaseModel):
    url: HttpUrl
    mirrors: list[AnyUrl]


def test_results_are_the_url_text_and_match_the_output_schema() -> None:
    registry = ToolRegistry("urls")

    @registry.tool
    def resolve(url: HttpUrl) -> Found:
        return Found(url=url, mirrors=[AnyUrl("ftp://Mirror.example/x"), url])

    @registry.tool
    def home() -> HttpUrl:
        return HttpUrl("HTTPS://Example.com")

    for name, arguments, expected in [
        (
            "resolve",
            {"url": "HTTP://Example.com/a"},
            {"url": "http://example.com/a", "mirrors": ["ftp://mirror.example/x", "http://example.com/a"]},
        ),
        ("home", {}, {"result": "https://example.com/"}),
    ]:
        result = call(registry, name, arguments)
        assert result.get("isError") is not True, result
        assert result["structuredContent"] == expected
        tool = registry.get(name)
        assert tool is not None and tool.output_schema is not None
        checker = checker_for(tool.output_schema, format_assertion=True)
        assert checker.is_valid(result["structuredContent"])


def test_a_url_inside_an_untyped_result_is_its_text() -> None:
    registry = ToolRegistry("urls")

    @registry.tool
    def links() -> dict[str, Any]:
        return {"home": HttpUrl("https://example.com"), "db": PostgresDsn("postgres://u@h1,h2/db")}

    result = call(registry, "links", {})
    assert result["structuredContent"] == {"home": "https://example.com/", "db": "postgres://u@h1,h2/db"}


def test_annotated_constraints_narrow_the_url() -> None:
    registry, seen = single(Annotated[HttpUrl, Field(max_length=30, description="Where")])
    assert schema_of(registry)["properties"]["value"] == {
        "type": "string",
        "format": "uri",
        "pattern": HTTP,
        "maxLength": 30,
        "description": "Where",
    }
    assert call(registry, "t", {"value": "https://example.com/" + "a" * 20})["isError"] is True
    assert seen == []


class MailUrl(AnyUrl):
    _constraints: ClassVar[UrlConstraints] = UrlConstraints(allowed_schemes=["mailto"])


class OddUrl(AnyUrl):
    _constraints: ClassVar[UrlConstraints] = UrlConstraints(allowed_schemes=["a)|(.*"])


def test_a_users_own_url_class_maps_by_its_constraints() -> None:
    registry, seen = single(MailUrl)
    assert schema_of(registry)["properties"]["value"]["pattern"] == "^(?:[mM][aA][iI][lL][tT][oO]):"
    assert call(registry, "t", {"value": "MailTo:someone@example.com"}).get("isError") is not True
    assert type(seen[0]) is MailUrl
    assert call(registry, "t", {"value": "https://example.com"})["isError"] is True


def test_a_scheme_no_url_can_have_is_refused_at_decoration_not_turned_into_a_pattern() -> None:
    def t(value: OddUrl) -> str:
        return "ok"

    with pytest.raises(ToolDefinitionError) as caught:
        ToolRegistry("urls").tool(t)
    message = str(caught.value)
    assert "'value'" in message and "OddUrl" in message and "'a)|(.*'" in message and "use AnyUrl" in message


_URLS = st.one_of(
    st.text(max_size=30),
    st.from_regex(r"(?i:https?|ftp|ws|file|x)://[a-z0-9.:\[\]@%-]{0,15}(/[a-z0-9%/?#=&.-]{0,10})?", fullmatch=True),
    st.from_regex(r"[A-Za-z][A-Za-z0-9+.-]{0,6}:[!-~]{0,20}", fullmatch=True),
)


@pytest.mark.parametrize("annotation", [AnyUrl, HttpUrl, FileUrl, WebsocketUrl], ids=lambda cls: cls.__name__)
@settings(max_examples=scaled(150), deadline=None)  # a property, not a timing
@given(sent=_URLS)
def test_what_the_validator_passes_is_built_or_refused_in_our_words(annotation: Any, sent: str) -> None:
    registry, seen = single(annotation)
    tool = registry.get("t")
    assert tool is not None
    passes = tool.validator.is_valid({"value": sent})
    result = call(registry, "t", {"value": sent})
    if not passes:
        assert result["isError"] is True and seen == []
        return
    if result.get("isError") is True:
        # pydantic refused what ours passed: one line in our voice, naming the value, never pydantic's dump.
        text = text_of(result)
        assert text.startswith(f"Invalid arguments: property 'value' cannot be a Python {annotation.__name__}: ")
        assert "pydantic" not in text and "\n" not in text
        assert seen == []
        return
    assert type(seen[0]) is annotation
    # The value's text (what a result sends) is one the same schema accepts.
    assert tool.validator.is_valid({"value": str(seen[0])}), str(seen[0])


def test_url_types_do_not_make_import_mcptools_load_pydantic() -> None:
    code = "import sys, mcptools, mcptools._schema.urls, mcptools._schema.jsonify; print('pydantic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
