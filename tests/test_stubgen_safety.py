"""Generated modules are safe and formatted: schema text never becomes code, and ruff changes nothing.

The hostile texts go everywhere a schema can put text (titles, descriptions, enum and const values,
defaults, patterns); the module's AST must then equal a benign module's once string values are blanked.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from typing_extensions import NotRequired, get_type_hints

from mcptools._stubgen import generate_stubs
from mcptools._stubgen._text import escaped_lines, py_string

SCHEMAS = Path(__file__).parent / "stubgen_schemas"
_counter = iter(range(10**6))


def realistic_tools() -> list[dict[str, Any]]:
    return [json.loads(path.read_text()) for path in sorted(SCHEMAS.glob("*.json"))]


def load(text: str, tmp_path: Path) -> types.ModuleType:
    name = f"generated_safety_stub_{next(_counter)}"
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def hints(module: types.ModuleType, name: str) -> dict[str, Any]:
    return get_type_hints(getattr(module, name), include_extras=True)


def tool(name: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"name": name, "inputSchema": {"type": "object", "properties": properties, "required": required}}


@pytest.fixture
def tmp_module_dir(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path
    for name in [name for name in sys.modules if name.startswith("generated_safety_stub_")]:
        del sys.modules[name]


# --- safety: schema text never becomes code ---------------------------------------------------------------

HOSTILE = [
    '"""; import os; os.system("echo pwned") #',
    "'''; import os",
    'ends with a quote"',
    '"starts with a quote',
    '  " spaced quote at both ends "  ',
    'ends with two quotes""',
    "ends with a backslash\\",
    "\\N{BULLET} \\x41 \\u0041 not escapes",
    "line one\nimport os\n# comment\r\nline\rfour",
    "nul \x00 and bell \x07 and form feed \x0c and vertical tab \x0b",
    "unicode line separators \u2028 \u2029 \x85 and bidi \u202e override",
    "café, 日本語, emoji \U0001f600, lone surrogate \ud800",
    "\t tab-indented\n\t\tmore",
    '"',
    "\\",
]


def _hostile_tools(texts: list[str]) -> list[dict[str, Any]]:
    tools = []
    for index, text in enumerate(texts):
        tools.append(
            {
                "name": f"tool_{index}",
                "title": text,
                "description": text,
                "inputSchema": {
                    "type": "object",
                    "description": text,
                    "properties": {
                        "plain": {"type": "string", "description": text, "pattern": text, "default": text},
                        "odd-key": {"type": "string", "description": text, "enum": [text, "safe"]},
                        "nested": {"type": "object", "title": text, "properties": {"x": {"const": text}}},
                    },
                    "$defs": {"D": {"description": text, "enum": [text]}},
                },
                "outputSchema": {
                    "type": "object",
                    "description": text,
                    "properties": {"r": {"description": text}},
                },
                "annotations": {"title": text},
            }
        )
    return tools


def _skeleton(text: str) -> str:
    """The module's AST with every string constant blanked: what the code does, not what it says."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            node.value = ""
    return ast.dump(tree)


def test_hostile_schema_text_stays_text(tmp_module_dir: Path) -> None:
    hostile = generate_stubs(_hostile_tools(HOSTILE), source='hostile """ source\n import os')
    benign = generate_stubs(_hostile_tools(["benign"] * len(HOSTILE)), source="benign")
    assert hostile.isascii()
    # Same code, only the strings differ: no schema text became a statement, a name or a comment's escape.
    assert _skeleton(hostile) == _skeleton(benign)
    module = load(hostile, tmp_module_dir)
    assert "os" not in vars(module)
    # The values are exact where they are values (Literal members, tool names) ...
    for index, text in enumerate(HOSTILE):
        literal = hints(module, f"Tool{index}Arguments")["odd-key"]
        assert literal == NotRequired[Literal[text, "safe"]] or (text == "safe")
    # ... and the docstrings hold the text itself (wrapped, never executed).
    assert "import os; os.system" in (module.TypedClient.tool_0.__doc__ or "")


def test_hostile_tool_and_property_names_stay_text(tmp_module_dir: Path) -> None:
    names = ['x"); import os; ("', "a\nb", "__import__('os')", "é"]
    tools = [tool(name, {name: {"type": "string"}}, [name]) for name in names]
    text = generate_stubs(tools, source="test")
    module = load(text, tmp_module_dir)
    assert "os" not in vars(module)
    calls: list[str] = []

    class Recorder:
        def call_tool(self, name: str, arguments: dict[str, Any]) -> None:
            calls.append(name)

    client = module.TypedClient(Recorder())
    for method in sorted(name for name in vars(module.TypedClient) if name.startswith(("x_", "a_", "tool_", "_"))):
        if method.startswith("__") or method in {"_session"}:
            continue
        getattr(client, method)()
    assert sorted(calls) == sorted(names)


def test_docstring_escaping_round_trips_exactly() -> None:
    for text in HOSTILE:
        lines = escaped_lines(text, 1000)
        source = '"""' + "\n".join(lines) + '\n"""' if lines else '""""""'
        value = ast.literal_eval(source)
        assert isinstance(value, str)
        expected = "\n".join(line.rstrip() for line in text.strip().replace("\r\n", "\n").split("\n")).strip()
        # Lone surrogates cannot be in a __doc__: they are kept as visible escapes.
        expected = re.sub("[\ud800-\udfff]", lambda match: f"\\u{ord(match.group()):04x}", expected)
        assert " ".join(value.split()) == " ".join(expected.expandtabs().split())
        assert ast.literal_eval(py_string(text)) == text


# --- format -----------------------------------------------------------------------------------------------


RUFF = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
RUFF_RULES = ["--select", "E,F,W,I,B,UP,RUF,SIM,PL", "--ignore", "E501,PLR0913,RUF022", "--target-version", "py310"]


def _stress_tool() -> dict[str, Any]:
    long_enum = {"type": "string", "enum": [f"value_number_{index}" for index in range(12)]}
    reference = {"$ref": "#/$defs/AVeryLongDefinitionNameForTestingTheLineSplitting"}
    long_union = {
        "anyOf": [
            {"type": "array", "items": reference},
            {"type": "object", "additionalProperties": reference},
            {"type": "null"},
        ]
    }
    return {
        "name": "a_tool_with_a_rather_long_name_to_push_signatures_over_the_line_length_limit",
        "description": "A long description. " * 20,
        "inputSchema": {
            "type": "object",
            "$defs": {"AVeryLongDefinitionNameForTestingTheLineSplitting": {"type": "object", "properties": {"v": {}}}},
            "properties": {"choice": long_enum, "either": long_union, "odd-name": long_union},
            "required": ["either"],
        },
        "outputSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
    }


@pytest.mark.skipif(not Path(RUFF).exists(), reason="ruff is not installed")
@pytest.mark.parametrize("width", [79, 88, 120])
def test_generated_modules_are_already_formatted_and_lint_clean(tmp_path: Path, width: int) -> None:
    tools = [*realistic_tools(), *_hostile_tools(HOSTILE), _stress_tool()]
    path = tmp_path / "formatted_stub.py"
    path.write_text(generate_stubs(tools, source="format test", line_length=width))
    options = ["--isolated", "--line-length", str(width)]
    formatted = subprocess.run(
        [RUFF, "format", "--check", "--diff", *options, "--target-version", "py310", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert formatted.returncode == 0, formatted.stdout + formatted.stderr
    checked = subprocess.run(
        [RUFF, "check", *options, *RUFF_RULES, str(path)], capture_output=True, text=True, check=False
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_line_length_below_the_fixed_parts_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 79"):
        generate_stubs([], source="x", line_length=60)
