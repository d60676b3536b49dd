"""Lenient where the peers are (issue 18, item 3): ``x: T = None`` publishes and accepts ``T | None``; a parameter
with no annotation accepts any JSON value, with one ``ToolDefinitionWarning`` naming the fix; and a tool with
several definition problems reports all of them in one ``ToolDefinitionError``."""

from __future__ import annotations

import dataclasses
import datetime
import warnings
from typing import Annotated, Any, Literal

import pytest
from derive_support import call, text_of

from mcptools import Context, MCPToolsError, Param, ToolDefinitionError, ToolDefinitionWarning, ToolRegistry
from mcptools._schema import derive_tool


@dataclasses.dataclass
class Box:
    width: int


def _registry_with(fn: Any) -> ToolRegistry:
    registry = ToolRegistry("lenient")
    registry.tool(fn)
    return registry


def test_none_default_publishes_and_accepts_the_type_or_null() -> None:
    seen: list[Any] = []

    def tool(limit: int = None, label: Annotated[str, Param("shown", min_length=2)] = None) -> str:  # type: ignore[assignment]  # noqa: RUF013
        seen.append((limit, label))
        return "ok"

    registry = _registry_with(tool)
    schema = registry.tools["tool"][0]
    assert schema["properties"] == {
        "limit": {"type": ["integer", "null"], "default": None},
        "label": {"type": ["string", "null"], "description": "shown", "minLength": 2, "default": None},
    }
    for arguments in ({}, {"limit": None, "label": None}, {"limit": 3, "label": "ab"}):
        assert call(registry, "tool", arguments)["isError"] is False
    assert seen == [(None, None), (None, None), (3, "ab")]
    # Still strict about what is not null: the type and the constraints hold.
    refused = call(registry, "tool", {"limit": "3", "label": "a"})
    assert refused["isError"] is True
    assert text_of(refused) == (
        "Invalid arguments: property 'limit' must be integer or null; property 'label' must be at least 2 characters"
    )


def test_none_default_on_converted_types_gives_the_value_or_none() -> None:
    seen: list[Any] = []

    def tool(
        when: datetime.date = None,  # type: ignore[assignment]  # noqa: RUF013
        box: Box = None,  # type: ignore[assignment]
        mode: Literal["a", "b"] = None,  # type: ignore[assignment]  # noqa: RUF013
        either: int | str = None,  # type: ignore[assignment]  # noqa: RUF013
    ) -> str:
        seen.append((when, box, mode, either))
        return "ok"

    registry = _registry_with(tool)
    properties = registry.tools["tool"][0]["properties"]
    assert properties["when"] == {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}], "default": None}
    assert properties["mode"] == {"anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "null"}], "default": None}
    assert properties["box"]["anyOf"][-1] == {"type": "null"}
    assert (
        call(registry, "tool", {"when": "2025-01-02", "box": {"width": 2}, "mode": "b", "either": "x"})["isError"]
        is False
    )
    assert call(registry, "tool", {"when": None, "box": None, "mode": None, "either": None})["isError"] is False
    assert seen == [(datetime.date(2025, 1, 2), Box(2), "b", "x"), (None, None, None, None)]


def test_none_default_through_pydantic_field() -> None:
    pydantic = pytest.importorskip("pydantic")

    def tool(name: str = pydantic.Field(None, description="who")) -> str:
        return repr(name)

    registry = _registry_with(tool)
    assert registry.tools["tool"][0]["properties"]["name"] == {
        "type": ["string", "null"],
        "description": "who",
        "default": None,
    }
    assert text_of(call(registry, "tool", {})) == "None"
    assert text_of(call(registry, "tool", {"name": None})) == "None"


def test_unannotated_parameters_accept_any_json_value_with_one_warning() -> None:
    seen: list[Any] = []

    def tool(query: str, params=None, limit=10):  # type: ignore[no-untyped-def]
        seen.append((query, params, limit))
        return "ok"

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        registry = _registry_with(tool)
    assert [warning.category for warning in caught] == [ToolDefinitionWarning]
    warning = caught[0]
    # It points at the function's own line, and names the function, both parameters and the fix.
    assert (warning.filename, warning.lineno) == (__file__, tool.__code__.co_firstlineno)
    message = str(warning.message)
    assert message.startswith(f"tool 'tool' (function {__name__}.{tool.__qualname__}): parameters 'params', 'limit' ")
    assert "accept any JSON value unchecked (schema {})" in message and "params: str" in message
    assert "typing.Any" in message
    properties = registry.tools["tool"][0]["properties"]
    assert properties["params"] == {"default": None} and properties["limit"] == {"default": 10}
    for value in ({"a": [1, None]}, [1, "x"], "text", 2.5, True, None):
        assert call(registry, "tool", {"query": "q", "params": value})["isError"] is False
    assert call(registry, "tool", {"query": "q"})["isError"] is False
    assert [entry[1] for entry in seen] == [{"a": [1, None]}, [1, "x"], "text", 2.5, True, None, None]
    assert seen[-1] == ("q", None, 10)  # the defaults applied
    # The annotated parameter stays checked.
    assert call(registry, "tool", {"query": 3})["isError"] is True


def test_the_warning_is_ours_and_can_be_made_an_error() -> None:
    assert issubclass(ToolDefinitionWarning, MCPToolsError) and issubclass(ToolDefinitionWarning, UserWarning)

    def tool(anything) -> str:  # type: ignore[no-untyped-def]
        return "ok"

    with warnings.catch_warnings():
        warnings.simplefilter("error", ToolDefinitionWarning)
        with pytest.raises(ToolDefinitionWarning, match="parameter 'anything' has no annotation"):
            ToolRegistry("strict").tool(tool)
    # Annotated with Any on purpose: no warning at all.
    with warnings.catch_warnings():
        warnings.simplefilter("error", ToolDefinitionWarning)

        def typed(anything: Any) -> str:
            return "ok"

        ToolRegistry("strict").tool(typed)


def test_several_problems_are_reported_together() -> None:
    def tool(  # type: ignore[no-untyped-def]
        ctx: Context,
        when: complex,
        count: int = "many",  # type: ignore[assignment]
        days: Annotated[int, Param(minimum=1)] = 0,
        other: Context = None,  # type: ignore[assignment]
        fine: str = "x",
        loose=None,
    ) -> Annotated[int, Param(min_length=1)]:
        return 0

    with pytest.raises(ToolDefinitionError) as info:
        derive_tool(tool)
    lines = str(info.value).splitlines()
    label = f"tool 'tool' (function {__name__}.{tool.__qualname__})"
    assert lines[0] == f"{label} has 5 definition problems; fix each of them:"
    problems = lines[1:]
    assert len(problems) == 5 and all(line.startswith(f"  - {label}: ") for line in problems)
    for name, fix in (
        ("other", "keep only one"),
        ("when", "or pass input_schema=..."),
        ("count", "widen the annotation"),
        ("days", "change the default or the Param(...) constraints"),
    ):
        assert sum(f"parameter {name!r}" in line and fix in line for line in problems) == 1, name
    assert any("the return annotation" in line and "remove min_length" in line for line in problems)
    assert not any("'fine'" in line or "'loose'" in line for line in problems)


def test_one_problem_keeps_its_own_message() -> None:
    def tool(when: complex) -> str:
        return ""

    with pytest.raises(ToolDefinitionError) as info:
        derive_tool(tool)
    assert "\n" not in str(info.value) and str(info.value).startswith("tool 'tool' (function ")
