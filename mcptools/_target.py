"""Loading a TARGET: the registry a command names as ``file.py``, ``package.module``, either with ``:attribute``.

Shared by every command that serves or inspects a registry (``list``, ``call``, ``serve``, ``stubgen``, and each
``serve --workers`` process); the transports never load anything themselves.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from types import ModuleType

from ._errors import TargetError
from ._registry import ToolRegistry

__all__ = ["load_registry", "target_argv"]


def _import_file(path: str) -> ModuleType:
    path = os.path.abspath(path)
    stem = os.path.splitext(os.path.basename(path))[0]
    name = stem if stem.isidentifier() and stem not in sys.modules else f"_mcptools_target_{abs(hash(path))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise TargetError(f"cannot import {path!r} as Python")
    module = importlib.util.module_from_spec(spec)
    # Registered before it runs: dataclasses and get_type_hints look the module up by name.
    sys.modules[name] = module
    # Let the file import its neighbours, as `python file.py` would.
    sys.path.insert(0, os.path.dirname(path))
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _split_target(target: str) -> tuple[str, str | None]:
    base, sep, attribute = target.rpartition(":")
    if sep and attribute.isidentifier() and base and not os.path.exists(target):
        return base, attribute
    return target, None


def target_argv(target: str, forwarded: list[str]) -> list[str]:
    """The ``sys.argv`` a target sees when mcptools loads it: its own path (or module) and the arguments after
    ``--`` (``mcptools serve app.py -- --tz UTC``), as if it had been run directly, never mcptools' own."""
    return [_split_target(target)[0], *forwarded]


def load_registry(target: str) -> ToolRegistry:
    """The registry TARGET names: ``path.py``, ``package.module``, either with ``:attribute``."""
    where, attribute = _split_target(target)
    if where.endswith(".py") or os.path.sep in where or os.path.isfile(where):
        if not os.path.isfile(where):
            raise TargetError(f"no such file: {where}")
        module = _import_file(where)
    else:
        # As `python -m` and uvicorn do: a module named on the command line may live in the current directory.
        if os.getcwd() not in sys.path and "" not in sys.path:
            sys.path.insert(0, os.getcwd())
        try:
            module = importlib.import_module(where)
        except ModuleNotFoundError as exc:
            raise TargetError(f"cannot import module {where!r}: {exc}") from None
    if attribute is not None:
        if not hasattr(module, attribute):
            raise TargetError(f"{where} has no attribute {attribute!r}; name the variable that holds the registry")
        found = getattr(module, attribute)
        if not isinstance(found, ToolRegistry):
            raise TargetError(f"{where}:{attribute} is {type(found).__name__}, not a ToolRegistry")
        return found
    registries: dict[int, tuple[str, ToolRegistry]] = {}
    for name, value in vars(module).items():
        if isinstance(value, ToolRegistry):
            registries.setdefault(id(value), (name, value))
    if not registries:
        raise TargetError(f"{where} holds no ToolRegistry; create one, or name it as {where}:attribute")
    if len(registries) > 1:
        # A registry included in another (``registry.include(other)``) is a part, not the server: skip those.
        included = {id(child) for _, registry in registries.values() for child in registry.included()}
        roots = {key: entry for key, entry in registries.items() if key not in included}
        if len(roots) == 1:
            return next(iter(roots.values()))[1]
        names = ", ".join(sorted(f"{where}:{name}" for name, _ in registries.values()))
        raise TargetError(f"{where} holds several registries; name one: {names}")
    return next(iter(registries.values()))[1]
