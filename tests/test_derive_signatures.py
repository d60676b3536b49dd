# ruff: noqa: UP045  (Optional[...] is a spelling under test)
"""derive_tool on the shapes a callable can have: ``**kwargs`` (plain or ``Unpack[TypedDict]``), an injected
Context, partials and callable objects, methods and async functions.

Like test_derive.py, this module deliberately does NOT use ``from __future__ import annotations``.
"""

import enum
from typing import Any, Optional, TypedDict

from mcptools._schema import derive_tool


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


def test_kwargs_opens_the_schema() -> None:
    def loose(a: int, **rest: Any) -> None:
        pass

    def typed(a: int, **rest: str) -> None:
        pass

    assert derive_tool(loose).input_schema == {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "required": ["a"],
    }
    assert derive_tool(typed).input_schema["additionalProperties"] == {"type": "string"}


def test_unpacked_typeddict_kwargs_become_properties() -> None:
    from typing_extensions import Unpack

    class Options(TypedDict, total=False):
        color: Color
        size: int

    def tool(name: str, **options: Unpack[Options]) -> None:
        pass

    derived = derive_tool(tool)
    assert derived.input_schema == {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "color": {"type": "string", "enum": ["red", "green"]},
            "size": {"type": "integer"},
        },
        "required": ["name"],
        "additionalProperties": False,
    }
    assert derived.convert is not None
    assert derived.convert({"name": "n", "color": "red"}) == {"name": "n", "color": Color.RED}


def test_context_parameter_is_injected_not_published() -> None:
    from mcptools._context import Context

    def tool(query: str, ctx: Context) -> None:
        pass

    derived = derive_tool(tool)
    assert derived.context_param == "ctx"
    assert derived.input_schema["properties"] == {"query": {"type": "string"}}
    assert derived.input_schema["required"] == ["query"]

    def optional(ctx: Optional[Context] = None, *, query: str) -> None:
        pass

    derived = derive_tool(optional)
    assert derived.context_param == "ctx"
    assert derived.input_schema["properties"] == {"query": {"type": "string"}}


def test_partial_and_callable_objects() -> None:
    import functools

    def base(a: int, b: Color) -> None:
        """Base tool."""

    class Callable_:
        def __call__(self, q: str, n: int = 2) -> None:
            pass

    derived = derive_tool(functools.partial(base, 1))
    assert derived.input_schema["properties"] == {"b": {"type": "string", "enum": ["red", "green"]}}
    assert derived.convert is not None
    assert derive_tool(Callable_()).input_schema == {
        "type": "object",
        "properties": {"q": {"type": "string"}, "n": {"type": "integer", "default": 2}},
        "required": ["q"],
        "additionalProperties": False,
    }


def test_methods_and_async_functions() -> None:
    class Service:
        def lookup(self, key: str) -> None:
            """Look a key up."""

    async def fetch(url: str) -> int:
        return 1

    assert derive_tool(Service().lookup).input_schema["properties"] == {"key": {"type": "string"}}
    assert derive_tool(Service().lookup).description == "Look a key up."
    derived = derive_tool(fetch)
    assert derived.input_schema["required"] == ["url"]
    assert derived.output_schema == {
        "type": "object",
        "properties": {"result": {"type": "integer"}},
        "required": ["result"],
    }
