"""Helpers the stub generator's test modules share: sample tools, and importing generated text as a module."""

from __future__ import annotations

import importlib.util
import json
import sys
import types
from pathlib import Path
from typing import Any

from typing_extensions import get_type_hints

SCHEMAS = Path(__file__).parent / "stubgen_schemas"
ROOT = Path(__file__).parent.parent
_GENERATED_PREFIX = "generated_stub_"


def realistic_tools() -> list[dict[str, Any]]:
    return [json.loads(path.read_text()) for path in sorted(SCHEMAS.glob("*.json"))]


_counter = iter(range(10**6))


def load(text: str, tmp_path: Path) -> types.ModuleType:
    """Import generated text as a real module (run-time evaluation of aliases and functional TypedDicts)."""
    name = f"{_GENERATED_PREFIX}{next(_counter)}"
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def forget_loaded_modules() -> None:
    """Drop what ``load`` imported, so one test's generated modules never answer for another's."""
    for name in [name for name in sys.modules if name.startswith(_GENERATED_PREFIX)]:
        del sys.modules[name]


def hints(module: types.ModuleType, name: str) -> dict[str, Any]:
    return get_type_hints(getattr(module, name), include_extras=True)


def tool(name: str, properties: dict[str, Any], required: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required is not None:
        schema["required"] = required
    return {"name": name, "inputSchema": schema, **extra}
