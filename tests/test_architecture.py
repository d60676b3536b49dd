"""The shape of the call path: one road through plain stages, two drivers, no hand-stepped coroutines.

``mcptools._pipeline`` owns the stages of a ``tools/call`` (route, authorize, prepare, invoke, finish) and the two
drivers that run them (``drive`` and ``drive_sync``). These tests fail when a third road appears: a stage called
from anywhere but its driver, a coroutine stepped by hand, or a walk of one call that climbs back up the layers
(the pipeline calling into the engine that called it).
"""

from __future__ import annotations

import ast
import asyncio
import sys
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

import mcptools
from mcptools import Context, Middleware, ToolCall, ToolRegistry
from mcptools.middleware import CallNext, CallResult

ROOT = Path(mcptools.__file__).resolve().parent
PIPELINE = ROOT / "_pipeline.py"

# Who may call each stage: the engine routes (route, authorize) while it routes the request; the drivers run the
# rest. Anything else calling a stage is a second road.
CALLERS = {
    "route": {("_protocol/engine.py", "route")},
    "authorize": {("_protocol/engine.py", "route")},
    "prepare": {("_pipeline.py", "drive_sync"), ("_pipeline.py", "_run")},
    "invoke": {("_pipeline.py", "_run")},
    "finish": {("_pipeline.py", "drive_sync"), ("_pipeline.py", "_run")},
    "settle": {("_pipeline.py", "drive_sync"), ("_pipeline.py", "_run")},
    "drive": {("_pipeline.py", "drive_sync"), ("_protocol/engine.py", "_answer")},
    "drive_sync": {("_protocol/engine.py", "handle_sync")},
}
# The names the pipeline module gives its stages, and the aliases modules import them under.
ALIASES = {"route_tool": "route"}


def _calls(path: Path) -> list[tuple[str, str, int]]:
    """(called name, calling function, line) for every call of a bare name in ``path``."""
    found: list[tuple[str, str, int]] = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                found.append((node.func.id, function.name, node.lineno))
    return found


def _imports_pipeline_stages(path: Path) -> dict[str, str]:
    """The pipeline's stage names ``path`` imports, by the local name they get there."""
    names: dict[str, str] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("_pipeline"):
            for alias in node.names:
                if alias.name in CALLERS:
                    names[alias.asname or alias.name] = alias.name
    return names


def test_each_stage_and_driver_is_called_only_from_its_one_place() -> None:
    problems = []
    for path in sorted(ROOT.rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        stages = {name: name for name in CALLERS} if path == PIPELINE else _imports_pipeline_stages(path)
        for called, caller, line in _calls(path):
            stage = stages.get(called)
            if stage is None:
                continue
            if (where, caller) not in CALLERS[stage] and not (path == PIPELINE and caller == stage):
                problems.append(f"{where}:{line}: {caller} calls the stage {stage}")
    assert not problems, "a second road through the pipeline:\n" + "\n".join(problems)


def test_no_coroutine_is_stepped_by_hand() -> None:
    # Driving a coroutine with send(None) and reading its frames is a second, hand-made event loop; the sync
    # driver runs coroutines on a real one (mcptools._running.run_on_loop).
    problems = []
    for path in sorted(ROOT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in ("cr_frame", "gi_frame", "cr_await", "gi_yieldfrom"):
                problems.append(f"{path.relative_to(ROOT)}:{node.lineno}: reads {node.attr}")
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("send", "throw")
                and len(node.args) == 1
                and isinstance(node.args[0], ast.Constant)
                and node.args[0].value is None
            ):
                problems.append(
                    f"{path.relative_to(ROOT)}:{node.lineno}: steps a coroutine with .{node.func.attr}(None)"
                )
    assert not problems, problems


def test_the_detectors_find_what_they_look_for(tmp_path: Path) -> None:
    stepped = tmp_path / "stepped.py"
    stepped.write_text("def drive(c):\n    c.send(None)\n    return c.cr_frame\n", encoding="utf-8")
    assert [name for name, _, _ in _calls(stepped)] == []  # attribute calls are not bare-name calls
    tree = ast.parse(stepped.read_text(encoding="utf-8"))
    assert any(isinstance(node, ast.Attribute) and node.attr == "cr_frame" for node in ast.walk(tree))
    second = tmp_path / "second.py"
    second.write_text("from ._pipeline import prepare\ndef my_driver(call):\n    prepare(call)\n", encoding="utf-8")
    assert _imports_pipeline_stages(second) == {"prepare": "prepare"}
    assert ("prepare", "my_driver", 3) in _calls(second)


# -- the walk of one call ----------------------------------------------------------------------------------


def _walk(run: Any) -> list[tuple[int, str, str]]:
    """(depth, module, function) of every mcptools function entered while ``run()`` runs."""
    entered: list[tuple[int, str, str]] = []
    base = len(_stack())

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "call":
            module = frame.f_globals.get("__name__", "")
            if module.startswith("mcptools") and not module.startswith("mcptools._validation"):
                entered.append((len(_stack(frame)) - base, module, frame.f_code.co_name))
        return None

    sys.setprofile(None)
    sys.settrace(tracer)
    try:
        run()
    finally:
        sys.settrace(None)
    return entered


def _stack(frame: FrameType | None = None) -> list[FrameType]:
    frames = []
    current: FrameType | None = frame if frame is not None else sys._getframe(1)
    while current is not None:
        frames.append(current)
        current = current.f_back
    return frames


def _registry() -> ToolRegistry:
    registry = ToolRegistry("walked")

    @registry.tool
    def weather(location: str) -> str:
        return f"{location}: sunny"

    @registry.tool
    async def asks(ctx: Context) -> str:
        return "asked"

    return registry


def _layers(walk: list[tuple[int, str, str]]) -> list[str]:
    """The modules of the walk in order, runs of the same module merged."""
    layers: list[str] = []
    for _, module, _ in walk:
        if not layers or layers[-1] != module:
            layers.append(module)
    return layers


@pytest.mark.parametrize("name", ["weather", "asks"])
def test_a_call_walks_down_through_the_stages_and_never_climbs_back_to_the_engine(name: str) -> None:
    registry = _registry()
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": {}}}
    if name == "weather":
        message["params"]["arguments"] = {"location": "Paris"}  # type: ignore[index]
    registry.handle(message)  # compiled and warmed: the walk below is a call like any later one
    walk = _walk(lambda: registry.handle(message))
    layers = _layers(walk)
    engine = "mcptools._protocol.engine"
    pipeline = "mcptools._pipeline"
    assert engine in layers and pipeline in layers, layers
    # The driver is entered from the engine; everything it calls is deeper. A function of the engine entered
    # deeper than the driver was called by the pipeline: the road climbed back up.
    driver_depth = next(
        depth for depth, module, function in walk if module == pipeline and function.startswith("drive")
    )
    climbed = [step for step in walk if step[1] == engine and step[0] > driver_depth]
    assert not climbed, f"the pipeline called back into the engine: {climbed} (road: {layers})"
    stages = [function for _, module, function in walk if module == pipeline]
    order = [stage for stage in ("route", "prepare", "finish") if stage in stages]
    assert order == ["route", "prepare", "finish"], stages
    assert [stages.index(stage) for stage in order] == sorted(stages.index(stage) for stage in order)


class Passing(Middleware):
    async def on_call(self, call: ToolCall, call_next: CallNext) -> CallResult:
        return await call_next(call)


def test_the_async_road_and_the_middleware_road_are_the_same_stages() -> None:
    registry = _registry()
    registry.use(Passing())
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "weather", "arguments": {}}}
    message["params"]["arguments"] = {"location": "Oslo"}  # type: ignore[index]
    walk = _walk(lambda: asyncio.run(registry.handle_async(message)))
    stages = [function for _, module, function in walk if module == "mcptools._pipeline"]
    for stage in ("route", "drive", "_through_chain", "_run", "prepare", "invoke", "finish"):
        assert stage in stages, (stage, stages)
    assert "drive_sync" not in stages
