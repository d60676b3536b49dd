"""The stub generator's names: tool names become unique methods, property and class names never clash."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from stubgen_support import hints, load, tool
from typing_extensions import NotRequired, Unpack, get_type_hints

from mcptools._stubgen import generate_stubs
from mcptools._stubgen._text import method_name, pascal_case


def test_tool_names_become_unique_method_names(tmp_module_dir: Path) -> None:
    names = ["get_weather", "get-weather", "get.weather", "class", "3d", "_hidden", "call_tool", "-", "café"]
    tools = [{"name": name, "inputSchema": {"type": "object"}} for name in names]
    module = load(generate_stubs(tools, source="test"), tmp_module_dir)
    methods = {name for name in vars(module.TypedClient) if not name.startswith("_")}
    assert methods == {
        "get_weather",
        "get_weather_2",
        "get_weather_3",
        "class_",
        "tool_3d",
        "tool__hidden",
        "call_tool",
        "call_tool_2",
        "tool__",
        "caf_",
    }
    calls: list[tuple[str, dict[str, Any]]] = []

    class Recorder:
        def call_tool(self, name: str, arguments: dict[str, Any]) -> str:
            calls.append((name, arguments))
            return "ok"

    client = module.TypedClient(Recorder())
    client.get_weather()
    client.get_weather_2()
    client.class_()
    client.call_tool_2()
    client.caf_()
    assert [name for name, _ in calls] == ["get_weather", "get-weather", "class", "call_tool", "café"]


def test_clashing_tool_names_number_methods_and_types_alike(tmp_module_dir: Path) -> None:
    output = {"type": "object", "properties": {"n": {"type": "integer"}}}
    tools = [
        {
            "name": name,
            "inputSchema": {"type": "object", "properties": {"v": {"type": "string"}}},
            "outputSchema": output,
        }
        for name in ("a.b", "a_b", "a-b")
    ]
    module = load(generate_stubs(tools, source="test"), tmp_module_dir)
    # The tool already named like a method keeps the plain names; the others are numbered in one order.
    for method, base, name in (("a_b", "AB", "a_b"), ("a_b_2", "AB2", "a-b"), ("a_b_3", "AB3", "a.b")):
        signature = get_type_hints(getattr(module.TypedClient, method), include_extras=True)
        assert signature["return"] is getattr(module, base + "Result")
        assert signature["arguments"] == Unpack[getattr(module, base + "Arguments")]
        assert f'Calls the tool "{name}".' in (getattr(module.TypedClient, method).__doc__ or "")


def test_property_names_that_are_not_identifiers_use_the_functional_syntax(tmp_module_dir: Path) -> None:
    text = generate_stubs(
        [
            tool(
                "odd",
                {"from": {"type": "string"}, "a-b": {"type": "integer"}, "__x": {"type": "boolean"}},
                ["from"],
            )
        ],
        source="test",
    )
    assert 'OddArguments = TypedDict(\n    "OddArguments",' in text
    assert "build the arguments as a OddArguments and pass them as ``**arguments``" in " ".join(text.split())
    module = load(text, tmp_module_dir)
    assert hints(module, "OddArguments") == {"from": str, "a-b": NotRequired[int], "__x": NotRequired[bool]}


def test_class_names_do_not_collide_with_the_module_own_names(tmp_module_dir: Path) -> None:
    schema = {
        "type": "object",
        "$defs": {
            "Any": {"type": "string"},
            "Tools": {"type": "object", "properties": {"a": {"type": "integer"}}},
        },
        "properties": {"x": {"$ref": "#/$defs/Any"}, "y": {"$ref": "#/$defs/Tools"}},
    }
    module = load(generate_stubs([{"name": "t", "inputSchema": schema}], source="test"), tmp_module_dir)
    assert module.Any2 is str
    assert hints(module, "TArguments")["y"] == NotRequired[module.Tools2]
    assert module.Tools.__name__ == "Tools"


def test_helpers_name_things_predictably() -> None:
    assert pascal_case("get_weather", "Tool") == "GetWeather"
    assert (
        pascal_case("getWeatherHTTPData", "Tool") == "GetWeatherHttpData"
        or pascal_case("getWeatherHTTPData", "Tool") == "GetWeatherHTTPData"
    )
    assert pascal_case("3d-render", "Tool") == "Tool3DRender"
    assert pascal_case("---", "Tool") == "Tool"
    assert method_name("import") == "import_"
    assert method_name("a b") == "a_b"
