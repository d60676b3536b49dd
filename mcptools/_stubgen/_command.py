"""``mcptools stubgen``: where the tools come from (a registry, a saved tools/list, a running server).

The HTTP client is the smallest one that can list a server's tools: urllib only, the 2026-07-28 way first (no
handshake, the revision in ``_meta`` and a header), then the initialize handshake for servers that predate it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.error
import urllib.request
from collections.abc import Mapping
from typing import Any, final

import mcptools
from mcptools._errors import StubgenError
from mcptools._stubgen._render import generate_stubs

__all__ = [
    "add_stubgen_arguments",
    "fetch_tools",
    "load_tools",
    "run_stubgen",
    "stubgen_main",
    "tools_from_json",
]

CURRENT_REVISION = "2026-07-28"
LEGACY_REVISION = "2025-11-25"
_MAX_PAGES = 1000


def tools_from_json(document: object, where: str) -> list[Mapping[str, Any]]:
    """The tools in a saved tools/list answer: a JSON-RPC response, its result object, or a bare array."""
    if isinstance(document, Mapping) and "jsonrpc" in document:
        if "error" in document:
            raise StubgenError(f"{where} is a JSON-RPC error response, not a tools/list result")
        document = document.get("result")
    tools = document.get("tools") if isinstance(document, Mapping) else document
    if not isinstance(tools, list) or not all(isinstance(tool, Mapping) for tool in tools):
        raise StubgenError(
            f'{where} holds no tools: expected a tools/list result ({{"tools": [...]}}), '
            "a JSON-RPC response carrying one, or a JSON array of tools"
        )
    return list(tools)


@final
class _HttpClient:
    """POSTs JSON-RPC messages to one Streamable HTTP endpoint and reads JSON or SSE answers."""

    __slots__ = ("_extra_headers", "_next_id", "_timeout", "_url")

    def __init__(self, url: str, headers: Mapping[str, str], timeout: float) -> None:
        self._url = url
        self._extra_headers = dict(headers)
        self._timeout = timeout
        self._next_id = 0

    def request(self, method: str, params: dict[str, Any], headers: Mapping[str, str]) -> tuple[Any, Any]:
        """The JSON-RPC response to one request and the HTTP response headers."""
        self._next_id += 1
        message = {"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params}
        body, content_type, response_headers = self._post(message, headers)
        if "text/event-stream" in content_type:
            return _response_in_events(body, self._next_id), response_headers
        try:
            return json.loads(body), response_headers
        except ValueError:
            raise StubgenError(f"{self._url} answered {method} with a body that is not JSON") from None

    def notify(self, method: str, headers: Mapping[str, str]) -> None:
        self._post({"jsonrpc": "2.0", "method": method}, headers)

    def _post(self, message: object, headers: Mapping[str, str]) -> tuple[str, str, Any]:
        all_headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            **headers,
            **self._extra_headers,
        }
        data = json.dumps(message).encode()
        request = urllib.request.Request(self._url, data=data, method="POST", headers=all_headers)
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                return (
                    response.read().decode("utf-8", "replace"),
                    response.headers.get("Content-Type", ""),
                    response.headers,
                )
        except urllib.error.HTTPError as exc:
            # Errors such as an unsupported revision come back as HTTP 4xx with a JSON-RPC error body.
            return exc.read().decode("utf-8", "replace"), exc.headers.get("Content-Type", ""), exc.headers
        except (urllib.error.URLError, OSError) as exc:
            raise StubgenError(f"cannot reach {self._url}: {exc}") from None


def _response_in_events(body: str, request_id: int) -> object:
    """The JSON-RPC response with ``request_id`` among the ``data:`` events of an SSE body."""
    for event in body.replace("\r\n", "\n").split("\n\n"):
        data = "\n".join(line[5:].removeprefix(" ") for line in event.split("\n") if line.startswith("data:"))
        if not data:
            continue
        try:
            message = json.loads(data)
        except ValueError:
            continue
        if isinstance(message, Mapping) and message.get("id") == request_id:
            return message
    return None


def _list_pages(client: _HttpClient, meta: dict[str, Any] | None, headers: Mapping[str, str]) -> list[Any]:
    """Every page of tools/list; raises StubgenError with the server's error when there is one."""
    tools: list[Any] = []
    cursor: object = None
    for _ in range(_MAX_PAGES):
        params: dict[str, Any] = {} if cursor is None else {"cursor": cursor}
        if meta is not None:
            params["_meta"] = meta
        response, _headers = client.request("tools/list", params, {**headers, "Mcp-Method": "tools/list"})
        result = response.get("result") if isinstance(response, Mapping) else None
        if not isinstance(result, Mapping) or not isinstance(result.get("tools"), list):
            error = response.get("error") if isinstance(response, Mapping) else None
            raise StubgenError(f"tools/list failed: {json.dumps(error) if error else 'no tools in the answer'}")
        tools.extend(result["tools"])
        cursor = result.get("nextCursor")
        if cursor is None:
            return tools
    raise StubgenError(f"tools/list still had a nextCursor after {_MAX_PAGES} pages")


def fetch_tools(url: str, headers: Mapping[str, str] | None = None, timeout: float = 30.0) -> list[Any]:
    """A running server's tools over Streamable HTTP: 2026-07-28 first, then the initialize handshake."""
    client = _HttpClient(url, headers or {}, timeout)
    client_info = {"name": "mcptools-stubgen", "version": mcptools.__version__}
    meta = {
        "io.modelcontextprotocol/protocolVersion": CURRENT_REVISION,
        "io.modelcontextprotocol/clientInfo": client_info,
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    try:
        return _list_pages(client, meta, {"MCP-Protocol-Version": CURRENT_REVISION})
    except StubgenError as modern_error:
        first_failure = modern_error
    initialize = {"protocolVersion": LEGACY_REVISION, "capabilities": {}, "clientInfo": client_info}
    response, response_headers = client.request("initialize", initialize, {})
    result = response.get("result") if isinstance(response, Mapping) else None
    if not isinstance(result, Mapping):
        raise StubgenError(f"{url} refused tools/list ({first_failure}) and initialize ({json.dumps(response)})")
    session_headers = {"MCP-Protocol-Version": str(result.get("protocolVersion", LEGACY_REVISION))}
    session_id = response_headers.get("Mcp-Session-Id") if response_headers is not None else None
    if session_id:
        session_headers["Mcp-Session-Id"] = session_id
    client.notify("notifications/initialized", session_headers)
    return _list_pages(client, None, session_headers)


def load_tools(target: str | None, url: str | None, headers: Mapping[str, str]) -> list[Any]:
    """The tools of ``--url``, of a ``.json`` file, or of a registry (``file.py`` or ``module:attribute``)."""
    if url is not None:
        return fetch_tools(url, headers)
    assert target is not None
    if target.endswith(".json"):
        try:
            with open(target, encoding="utf-8") as file:
                document = json.load(file)
        except OSError as exc:
            raise StubgenError(f"cannot read {target}: {exc.strerror}") from None
        except ValueError as exc:
            raise StubgenError(f"{target} is not JSON: {exc}") from None
        return tools_from_json(document, target)
    from mcptools._target import load_registry

    return load_registry(target).list_tools()


def add_stubgen_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``mcptools stubgen``, for a parser of its own or a subcommand of ``mcptools``."""
    parser.add_argument(
        "target",
        metavar="TARGET",
        nargs="?",
        help="a registry (file.py, package.module, either with :attribute) or a saved tools/list .json file",
    )
    parser.add_argument("--url", help="a running MCP server (Streamable HTTP endpoint) to ask for its tools")
    parser.add_argument("--header", action="append", default=[], metavar="NAME:VALUE", help="with --url")
    parser.add_argument("-o", "--output", metavar="FILE", help="where to write the module (default: stdout)")
    parser.add_argument("--check", action="store_true", help="exit 1 if FILE differs from the generated text")
    parser.add_argument(
        "--line-length",
        type=int,
        default=88,
        metavar="N",
        help="lay the module out as ruff format / black would at this line length (default: 88)",
    )


def _usage_error(message: str) -> int:
    sys.stderr.write(f"mcptools stubgen: {message}\n")
    return 2


def _source_name(target: str) -> str:
    """TARGET as the module header records it: ``./examples/weather.py`` and ``examples/weather.py`` give the
    same bytes (and ``/`` on every system, so a committed stub is the same wherever it is regenerated)."""
    if os.path.isabs(target):
        return target
    return os.path.normpath(target).replace(os.sep, "/")


def run_stubgen(args: argparse.Namespace) -> int:
    """Run the command on parsed arguments: 0 written (or fresh), 1 stale with --check, 2 an error.

    A registry that cannot be loaded raises the loader's own errors (``TargetError``, ``ToolDefinitionError``)
    for ``mcptools``' main to report as it does for every command.
    """
    if (args.target is None) == (args.url is None):
        return _usage_error("give either TARGET or --url URL")
    if args.check and args.output is None:
        return _usage_error("--check needs -o FILE")
    headers: dict[str, str] = {}
    for header in args.header:
        name, colon, value = header.partition(":")
        if not colon or not name.strip():
            return _usage_error(f"--header {header!r}: write it as NAME:VALUE")
        headers[name.strip()] = value.strip()
    try:
        tools = load_tools(args.target, args.url, headers)
        text = generate_stubs(tools, source=args.url or _source_name(args.target), line_length=args.line_length)
    except (StubgenError, ValueError) as exc:
        return _usage_error(str(exc))
    if args.output is None:
        sys.stdout.write(text)
        return 0
    if args.check:
        try:
            with open(args.output, encoding="utf-8", newline="") as file:
                current: str | None = file.read()
        except OSError:
            current = None
        if current != text:
            sys.stderr.write(f"mcptools stubgen: {args.output} is out of date; regenerate it\n")
            return 1
        return 0
    with open(args.output, "w", encoding="utf-8", newline="\n") as file:
        file.write(text)
    return 0


def stubgen_main(argv: list[str]) -> int:
    """``mcptools stubgen TARGET [-o FILE] [--check]`` or ``mcptools stubgen --url URL ...``, standalone."""
    parser = argparse.ArgumentParser(
        prog="mcptools stubgen",
        description="Write a typed Python module (TypedDicts and typed clients) for a set of MCP tools.",
    )
    add_stubgen_arguments(parser)
    args = parser.parse_args(argv)
    from mcptools._errors import TargetError, ToolDefinitionError

    try:
        return run_stubgen(args)
    except (TargetError, ToolDefinitionError) as exc:
        return _usage_error(f"{type(exc).__name__}: {exc}")
