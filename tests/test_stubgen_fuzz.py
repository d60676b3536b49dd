"""Random schemas and names, random text everywhere: the generated module always parses, imports, names only
what the generator itself writes, and is the same twice."""

from __future__ import annotations

import ast
import builtins
import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_support import scaled

from mcptools._stubgen import generate_stubs

DEF_NAMES = ["Node", "Any", "tools", "1bad", "a-b"]
TEXT = st.text(max_size=12) | st.sampled_from(['"""', "'''", "\\", '"; import os #', "\n\r\x00\u2028", "é\U0001f600"])
SCALAR = st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.floats(allow_nan=False) | TEXT
TYPE_NAMES = st.sampled_from(["string", "integer", "number", "boolean", "null", "object", "array", "bogus"])
ANNOTATIONS = st.fixed_dictionaries(
    {},
    optional={"description": TEXT, "title": TEXT, "pattern": TEXT, "default": SCALAR, "x-vendor": SCALAR},
)


def _with(annotations: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    return {**annotations, **schema}


LEAVES: st.SearchStrategy[Any] = (
    st.booleans()
    | st.builds(_with, ANNOTATIONS, st.builds(lambda name: {"type": name}, TYPE_NAMES))
    | st.builds(_with, ANNOTATIONS, st.builds(lambda names: {"type": names}, st.lists(TYPE_NAMES, max_size=3)))
    | st.builds(lambda values: {"enum": values}, st.lists(SCALAR, min_size=1, max_size=4))
    | st.builds(lambda value: {"const": value}, SCALAR)
    | st.builds(lambda name: {"$ref": f"#/$defs/{name}"}, st.sampled_from(DEF_NAMES))
    | st.just({"$ref": "#"})
    | st.just({"$ref": "https://example.com/remote.json"})
)


def _extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    properties = st.dictionaries(TEXT, children, max_size=4)
    return (
        st.builds(
            lambda props, required, closed: {
                "type": "object",
                "properties": props,
                "required": required,
                "additionalProperties": closed,
            },
            properties,
            st.lists(TEXT, max_size=2),
            st.booleans() | children,
        )
        | st.builds(lambda items: {"type": "array", "items": items}, children)
        | st.builds(
            lambda items, rest: {"type": "array", "prefixItems": items, "items": rest},
            st.lists(children, max_size=3),
            st.booleans() | children,
        )
        | st.builds(lambda members: {"anyOf": members}, st.lists(children, min_size=1, max_size=3))
        | st.builds(lambda members: {"oneOf": members}, st.lists(children, min_size=1, max_size=3))
        | st.builds(lambda members: {"allOf": members}, st.lists(children, min_size=1, max_size=3))
        | st.builds(lambda values: {"type": "object", "additionalProperties": values}, children)
        | st.builds(lambda inner: {"type": ["object", "null"], "properties": {"v": inner}}, children)
    )


SCHEMAS = st.recursive(LEAVES, _extend, max_leaves=10)
TOOLS = st.lists(
    st.fixed_dictionaries(
        {
            "name": st.text(min_size=1, max_size=10) | st.sampled_from(["call_tool", "class", "get-x", "get_x"]),
            "inputSchema": st.builds(
                lambda props, defs, required: {
                    "type": "object",
                    "properties": props,
                    "$defs": defs,
                    "required": required,
                },
                st.dictionaries(TEXT, SCHEMAS, max_size=4),
                st.fixed_dictionaries({}, optional={name: SCHEMAS for name in DEF_NAMES}),
                st.lists(TEXT, max_size=2),
            ),
        },
        optional={"description": TEXT, "title": TEXT, "outputSchema": SCHEMAS, "annotations": st.just({"a": 1})},
    ),
    max_size=3,
    unique_by=lambda tool: str(tool["name"]),
)

# Every name the generated code may use: those of the fixed parts (helpers, clients), the typing names and
# builtins a type may need, and the module's own classes (PascalCase, built by the generator).
_FIXED_NAMES = {node.id for node in ast.walk(ast.parse(generate_stubs([], source="x"))) if isinstance(node, ast.Name)}
_TYPE_NAMES = {"Literal", "Never", "NotRequired", "TypeAlias", "TypedDict", "Unpack", "cast", "Any", "None"}
_METHOD_NAMES = {"_structured_content", "_as_arguments", "result", "arguments", "self"}
_ALLOWED_NAMES = _FIXED_NAMES | _TYPE_NAMES | _METHOD_NAMES | {"str", "int", "float", "bool", "list", "dict", "tuple"}


def _check_module(text: str, directory: Path, index: int) -> None:
    assert text.isascii()
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):  # names read, not fields declared
            assert node.id in _ALLOWED_NAMES or (node.id[:1].isupper() and node.id.isidentifier()), node.id
            assert not hasattr(builtins, node.id) or node.id in _ALLOWED_NAMES, node.id
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            assert isinstance(node, ast.ImportFrom)
            assert node.module in {"collections.abc", "typing", "typing_extensions"}
    name = f"fuzzed_stub_{index}"
    path = directory / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]


_runs = iter(range(10**9))


@settings(
    max_examples=scaled(60), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(TOOLS)
def test_any_tools_give_a_safe_importable_deterministic_module(tools: list[dict[str, Any]]) -> None:
    text = generate_stubs(tools, source="fuzz")
    assert generate_stubs(list(reversed(tools)), source="fuzz") == text
    with tempfile.TemporaryDirectory() as directory:
        _check_module(text, Path(directory), next(_runs))


def test_fuzzed_modules_pass_mypy_strict(tmp_path: Path, mypy_cache_dir: Path) -> None:
    # Schemas no real server would send (big integers, self-referencing definitions, impossible outputs)
    # still give modules that mypy --strict accepts: one run over a batch of them.
    paths: list[Path] = []

    @settings(
        max_examples=scaled(40),
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(TOOLS)
    def write(tools: list[dict[str, Any]]) -> None:
        path = tmp_path / f"fuzzed_{len(paths)}.py"
        path.write_text(generate_stubs(tools, source="fuzz"))
        paths.append(path)

    write()
    (tmp_path / "mypy.ini").write_text("[mypy]\n")
    command = [sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--strict", "--python-version", "3.10"]
    command += ["--cache-dir", str(mypy_cache_dir), "--no-error-summary", *(path.name for path in paths)]
    completed = subprocess.run(command, capture_output=True, text=True, check=False, cwd=tmp_path, timeout=600)
    assert len(paths) >= scaled(40) // 2
    assert completed.returncode == 0, completed.stdout[-5000:] + completed.stderr
