"""A loopback stand-in for a model API: it replays recorded responses and keeps the requests it was sent.

Each official SDK client is pointed at it with ``base_url``, so the test exercises the SDK's own request
building and response parsing around ``mcptools.providers``.
"""

from __future__ import annotations

import inspect
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Annotated, Any, Literal

import pytest
from hypothesis import strategies as st
from typing_extensions import NotRequired, TypedDict

from mcptools import Param, ToolError, ToolRegistry, compile_schema
from mcptools._json import json_equal
from mcptools._profiles import NOT_SENDABLE


class Imported:
    """An SDK module imported when a test first reads from it, and that test skipped when it is absent.

    The SDKs take seconds to import and every xdist worker collects every test module: imported at a module's
    top, each worker paid for all three SDKs whether or not it ran a test that uses them.
    """

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("_"):
            raise AttributeError(attribute)  # pytest probing what this object is, at collection: not a test's read
        return getattr(pytest.importorskip(self._name), attribute)


class Place(TypedDict):
    city: str


def agent_registry() -> ToolRegistry:
    """The tools every loop test uses: one with an optional parameter, one with a dotted name and an object."""
    registry = ToolRegistry("agent-test")

    @registry.tool
    def weather(location: str, days: Annotated[int, Param(minimum=1)] = 1) -> str:
        """Forecast the weather.

        Args:
            location: A city.
            days: How many days ahead.
        """
        if location == "Atlantis":
            raise ToolError("No forecast for Atlantis; try a real city")
        return f"{location}: sunny for {days} days"

    @registry.tool(name="geo.lookup")
    def lookup(place: Place) -> str:
        """Where a city is."""
        return f"{place['city']} is on the map"

    return registry


class Replay:
    """What the server was sent (decoded JSON bodies, with their paths) and what it still has to answer."""

    def __init__(self, responses: list[dict[str, Any]]) -> None:
        self.responses = list(responses)
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.lock = threading.Lock()


@contextmanager
def replay_server(responses: list[dict[str, Any]]) -> Iterator[tuple[str, Replay]]:
    """A server on a free loopback port answering each POST with the next recorded response."""
    state = Replay(responses)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            with state.lock:
                state.requests.append((self.path, body))
                answer = state.responses.pop(0) if state.responses else {"error": "no more recorded responses"}
            data = json.dumps(answer).encode()
            self.send_response(200 if "error" not in answer else 500)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


# -- random derived tools and values, for the property tests --------------------------------------------------


class Point(TypedDict):
    x: int
    y: NotRequired[float]


@dataclass
class Box:
    label: str
    corner: Point
    tags: list[str] | None = None


EMPTY = inspect.Parameter.empty
# (annotation, default) pairs a derived tool's parameters are drawn from.
POOL: list[tuple[Any, Any]] = [
    (int, EMPTY),
    (str, EMPTY),
    (bool, False),
    (float, 1.5),
    (Annotated[int, Param(minimum=1, maximum=9)], 1),
    (Literal["a", "b"], "a"),
    (int | None, None),
    (str | None, "x"),
    (list[int], EMPTY),
    (list[Point], EMPTY),
    (Point, EMPTY),
    (Point | None, None),
    (Box, EMPTY),
    (Box | None, None),
    (int | str, 0),
]


def _tool(choices: list[tuple[Any, Any]]) -> dict[str, Any]:
    params = [
        inspect.Parameter(f"p{i}", inspect.Parameter.KEYWORD_ONLY, annotation=hint, default=default)
        for i, (hint, default) in enumerate(choices)
    ]

    def fn(**kwargs: Any) -> str:
        return "ok"

    fn.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    fn.__annotations__ = {p.name: p.annotation for p in params}
    registry = ToolRegistry("property")
    return registry.add(fn, name="random_tool").input_schema


tools = st.lists(st.sampled_from(POOL), min_size=1, max_size=5).map(_tool)


def values(node: Any, root: dict[str, Any], depth: int = 0) -> st.SearchStrategy[Any]:
    """Values for the small JSON Schema vocabulary that derived and exported schemas use."""
    if not isinstance(node, dict) or depth > 6:
        return st.none()
    if "$ref" in node:
        return values(root["$defs"][node["$ref"].rsplit("/", 1)[-1]], root, depth + 1)
    if "enum" in node:
        return st.sampled_from(node["enum"])
    if "const" in node:
        return st.just(node["const"])
    if "anyOf" in node:
        return st.one_of([values(branch, root, depth + 1) for branch in node["anyOf"]])
    kinds = node.get("type")
    if isinstance(kinds, list):
        return st.one_of([values({**node, "type": kind}, root, depth) for kind in kinds])
    if kinds == "integer":
        return st.integers(node.get("minimum", -5), node.get("maximum", 20))
    if kinds == "number":
        return st.floats(-10, 10, allow_nan=False) | st.integers(-5, 5)
    if kinds == "string":
        return st.text(max_size=4)
    if kinds == "boolean":
        return st.booleans()
    if kinds == "null":
        return st.none()
    if kinds == "array":
        return st.lists(values(node.get("items", {}), root, depth + 1), max_size=3)
    if kinds == "object":
        properties = node.get("properties", {})
        required = set(node.get("required", []))
        return st.fixed_dictionaries(
            {k: values(v, root, depth + 1) for k, v in properties.items() if k in required},
            optional={k: values(v, root, depth + 1) for k, v in properties.items() if k not in required},
        )
    return st.none()


# Raw JSON Schemas beside the derived ones: names Gemini renames, optional objects with fields left out, unions
# of objects whose fields differ, nullable values, const and enum nodes without a type, nested arrays.
_NAMES = st.sampled_from(["a", "b", "x-id", "$v", "2fa"])
_LEAVES = st.sampled_from(
    [
        {"type": "string"},
        {"type": "integer", "minimum": 0},
        {"type": "boolean"},
        {"type": "number"},
        {"type": ["string", "null"]},
        {"const": "k"},
        {"enum": ["p", "q"]},
        {"enum": [1, 2]},
        {"type": "string", "minLength": 1, "description": "text"},
        {"type": "array", "items": {"type": "integer"}, "maxItems": 2},
    ]
)


def _object(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        lambda properties, required: {
            "type": "object",
            "properties": properties,
            "required": [name for name in properties if name in required],
        },
        st.dictionaries(_NAMES, children, min_size=1, max_size=3),
        st.sets(_NAMES),
    )


_NODES = st.recursive(
    _LEAVES,
    lambda children: st.one_of(
        _object(children),
        children.map(lambda node: {"type": "array", "items": node}),
        st.lists(children, min_size=2, max_size=3).map(lambda nodes: {"anyOf": nodes}),
        children.map(lambda node: {"anyOf": [node, {"type": "null"}]}),
    ),
    max_leaves=6,
)
raw_tools = _object(_NODES)

# Keywords a profile may tell the model in words instead of in the schema (the original enforces them).
WORDED = frozenset(
    {
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
        "pattern", "format", "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties",
    }
)  # fmt: skip


def relaxed(node: Any, profile: str) -> Any:
    """``node`` without the constraints ``profile`` may move into descriptions: what its schema promises."""
    if isinstance(node, list):
        return [relaxed(item, profile) for item in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key in WORDED:
            continue
        if profile == "gemini" and key in ("enum", "const"):
            values = value if key == "enum" else [value]
            if not all(isinstance(v, str) or v is None for v in values):
                continue  # Gemini's enum holds strings only
        out[key] = (
            relaxed(value, profile) if key != "properties" else {k: relaxed(v, profile) for k, v in value.items()}
        )
    return out


def closed(node: Any) -> Any:
    """``node`` with every object that does not say otherwise closed to its declared properties (none inside
    ``allOf``, whose branches are merged): what a strict or Gemini model's value is, since it sends declared
    properties only."""
    if isinstance(node, list):
        return [closed(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key == "allOf":
            out[key] = value
        elif key in ("properties", "$defs", "definitions") and isinstance(value, dict):
            out[key] = {name: closed(sub) for name, sub in value.items()}
        else:
            out[key] = closed(value) if key in ("items", "anyOf", "oneOf", "prefixItems") else value
    if isinstance(node.get("properties"), dict) and "additionalProperties" not in node:
        out["additionalProperties"] = False
    return out


def without_nulls(value: Any) -> Any:
    """``value`` with every null property dropped, at every depth."""
    if isinstance(value, list):
        return [without_nulls(item) for item in value]
    if isinstance(value, dict):
        return {key: without_nulls(item) for key, item in value.items() if item is not None}
    return value


class MappedBack:
    """Checks what a value a model sends under an export (one the exported schema accepts) becomes for the tool,
    and says which kind it is. Never a wrong value: the mapped value has only the original's property names and
    keeps every constraint the profile did not tell in words. Then either it breaks a constraint told in words
    (``"worded"``), or its provider form is the value sent (``"exact"``), or another form of the same value
    (``"same value"``: OpenAI strict's nulls standing for absent properties, sent under another branch)."""

    def __init__(self, exported: Any, schema: dict[str, Any], profile: str) -> None:
        self.exported = exported
        self.promised = compile_schema(closed(relaxed(schema, profile)))
        self.full = compile_schema(closed(schema))

    def __call__(self, sent: Any) -> str:
        back = self.exported.from_provider(sent)
        assert self.promised.errors(back) == [], (sent, back)
        if not self.full.is_valid(back):
            return "worded"
        again = self.exported.to_provider(back)
        assert again is not NOT_SENDABLE and json_equal(self.exported.from_provider(again), back), (sent, back, again)
        if json_equal(again, sent):
            return "exact"
        assert json_equal(without_nulls(again), without_nulls(sent)), (sent, back, again)
        return "same value"


__all__ = [
    "POOL", "WORDED", "MappedBack", "Place", "Replay", "agent_registry", "closed", "raw_tools", "relaxed",
    "replay_server", "tools", "values", "without_nulls",
]  # fmt: skip
