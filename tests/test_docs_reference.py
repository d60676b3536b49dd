"""Every public name has an entry in the API reference (docs/reference/*.md): read from the pages' autodoc
directives, without building the docs. A name added to an ``__all__`` without an entry fails here."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from types import ModuleType

import mcptools

REFERENCE = Path(__file__).resolve().parent.parent / "docs" / "reference"
PUBLIC_MODULES = [
    "mcptools",
    "mcptools.auth",
    "mcptools.middleware",
    "mcptools.testing",
    "mcptools.providers",
    "mcptools.providers.openai",
    "mcptools.providers.anthropic",
    "mcptools.providers.gemini",
]
DIRECTIVE = re.compile(r"^\.\. (auto\w+|py:\w+):: ([\w.]+)\n((?:   .*\n|\n)*)", re.M)


def documented() -> set[str]:
    """The dotted names the reference pages document: each autodoc directive's target, and the members an
    ``automodule`` lists in its ``:members:`` option."""
    names: set[str] = set()
    for page in sorted(REFERENCE.glob("*.md")):
        for kind, target, options in DIRECTIVE.findall(page.read_text(encoding="utf-8")):
            names.add(target)
            members = re.search(r"^   :members: (.+)$", options, re.M)
            if kind == "automodule" and members:
                names.update(f"{target}.{member.strip()}" for member in members.group(1).split(","))
    return names


def public_names() -> list[tuple[ModuleType, str]]:
    found = []
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        found += [(module, name) for name in module.__all__]
    return found


def test_every_public_name_is_in_the_reference() -> None:
    entries = documented()
    objects = {id(_resolve(name)) for name in entries if _resolve(name) is not None}
    missing = []
    for module, name in public_names():
        value = getattr(module, name)
        if f"{module.__name__}.{name}" in entries:
            continue
        # A class or function re-exported from another public module (mcptools.middleware.Middleware is
        # mcptools.Middleware) is documented once, under the name the reference gives it.
        if (isinstance(value, type) or callable(value)) and id(value) in objects:
            continue
        missing.append(f"{module.__name__}.{name}")
    assert not missing, f"public names with no entry in docs/reference/: {missing}"


def test_the_reference_names_nothing_that_does_not_exist() -> None:
    for name in documented():
        assert _resolve(name) is not None, f"docs/reference/ documents {name}, which does not exist"


def test_the_pages_are_read() -> None:
    entries = documented()
    assert "mcptools.ToolRegistry" in entries and "mcptools.auth.JWTVerifier" in entries
    assert len(entries) >= len(mcptools.__all__)


def _resolve(dotted: str) -> object | None:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            value = getattr(value, attribute, None)
            if value is None:
                return None
        return value
    return None
