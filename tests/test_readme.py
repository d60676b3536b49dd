"""The README's Python examples run as written, so the tour cannot drift from the code."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

README = Path(__file__).resolve().parent.parent / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def test_readme_has_python_examples_and_they_run() -> None:
    blocks = python_blocks()
    assert blocks
    namespace: dict[str, Any] = {}
    for block in blocks:
        # A block sees the names of the blocks before it (the testing example tests the Context example's
        # registry), as a reader following the README would; a test a block defines is run too.
        namespace["__name__"] = "readme_example"
        exec(compile(block, str(README), "exec"), namespace)
        for name, value in list(namespace.items()):
            if name.startswith("test_") and callable(value):
                value()
                del namespace[name]


def test_the_tour_tool_validates_and_speaks_to_the_model() -> None:
    namespace: dict[str, Any] = {"__name__": "readme_tour"}
    exec(compile(python_blocks()[0], str(README), "exec"), namespace)
    registry = namespace["registry"]

    def call(arguments: dict[str, Any]) -> str:
        response = registry.handle(
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "weather", "arguments": arguments}}
        )
        text: str = response["result"]["content"][0]["text"]
        return text

    assert call({"location": "Paris", "days": 3}) == "Paris: sunny"
    assert call({"location": "Paris", "days": 0}) == "Invalid arguments: property 'days' must be >= 1"
    assert call({"location": "Atlantis"}) == "No forecast for Atlantis; try a real city"
