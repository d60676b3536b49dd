"""The shape of the call path: one road through plain stages, two drivers, no hand-stepped coroutines.

``mcptools._pipeline`` owns the stages of a ``tools/call`` (route, authorize, prepare, invoke, finish) and the two
drivers that run them (``drive`` and ``drive_sync``). These tests fail when a third road appears: the pipeline
imported by a module other than the engine (the bare ``call_tool`` contract shares only its result builders), a
stage called from anywhere but its driver (by name or through a module alias), a coroutine stepped by hand, a
call reaching the pipeline over any entry (``handle``, ``handle_async``, the memory connection, stdio,
stateless HTTP; with middleware and without) other than through routing and a driver, or a walk of one call that
climbs back up the layers (the pipeline calling into the engine that called it). An import by name
(``importlib``) counts as an import, and ``getattr(c, "send")`` as stepping.
"""

from __future__ import annotations

import ast
import asyncio
import functools
import io
import json
import sys
from pathlib import Path
from types import FrameType
from typing import Any

import http_support
import pytest

import mcptools
from mcptools import Context, Middleware, StreamableHTTPApp, ToolCall, ToolRegistry
from mcptools._transports.stdio import serve_stdio_async
from mcptools.middleware import CallNext, CallResult
from mcptools.testing import Client

ROOT = Path(mcptools.__file__).resolve().parent


@functools.cache
def _parsed(path: Path) -> ast.Module:
    """Each module parsed once for the whole file: several tests walk every module of the package."""
    return ast.parse(path.read_text(encoding="utf-8"))


PIPELINE = ROOT / "_pipeline.py"

# Who may call each stage: the engine routes (route, authorize) while it routes the request; the drivers run the
# rest. A task worker runs a task's call on the same road: it looks the tool up by its served name (route) and
# hands the rebuilt call to the async driver (drive); it does not authorize again, as the request that made the
# task was authorized, and the task is bound to its caller. Anything else calling a stage is a second road.
CALLERS = {
    "route": {("_protocol/engine.py", "route"), ("_tasks/worker.py", "_drive")},
    "authorize": {("_protocol/engine.py", "route")},
    "prepare": {("_pipeline.py", "drive_sync"), ("_pipeline.py", "_run")},
    "invoke": {("_pipeline.py", "_run")},
    "finish": {("_pipeline.py", "drive_sync"), ("_pipeline.py", "_run")},
    "settle": {("_pipeline.py", "drive_sync"), ("_pipeline.py", "_run")},
    "drive": {("_pipeline.py", "drive_sync"), ("_protocol/engine.py", "_answer"), ("_tasks/worker.py", "_drive")},
    "drive_sync": {("_protocol/engine.py", "handle_sync")},
}
# The modules that may import from the pipeline at all, and what: the engine its entry points, the bare contract
# (call_tool, a documented road of its own: no conversion, the raw schema) the result builders it shares so its
# answers are worded as the pipeline's, and the task worker the route stage and the async driver.
IMPORTERS = {
    "_protocol/engine.py": {"authorize", "drive", "drive_sync", "route"},
    "_contract.py": {"NAME_NOT_STRING", "failure_result", "invalid_arguments_result", "text_result"},
    # A task's run: the tool by its served name, the rebuilt call through the async driver (see CALLERS).
    "_tasks/worker.py": {"drive", "route"},
}


def _calls(path: Path) -> list[tuple[str, str, int]]:
    """(called name, calling function, line) for every call of a bare name, or of ``module.name``, in ``path``."""
    found: list[tuple[str, str, int]] = []
    tree = _parsed(path)
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if not isinstance(node, ast.Call):
                continue
            if isinstance(node.func, ast.Name):
                found.append((node.func.id, function.name, node.lineno))
            elif isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
                found.append((f"{node.func.value.id}.{node.func.attr}", function.name, node.lineno))
    return found


def _imports_pipeline_stages(path: Path) -> dict[str, str]:
    """The pipeline's stage names ``path`` can call, by the local name they get there: those it imports, and
    ``alias.stage`` for the pipeline module imported whole (``from .. import _pipeline as stages``)."""
    names: dict[str, str] = {}
    for node in ast.walk(_parsed(path)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("_pipeline"):
            for alias in node.names:
                if alias.name in CALLERS:
                    names[alias.asname or alias.name] = alias.name
        elif isinstance(node, (ast.ImportFrom, ast.Import)):
            for alias in node.names:
                if alias.name.endswith("_pipeline"):
                    local = alias.asname or alias.name
                    names.update({f"{local}.{stage}": stage for stage in CALLERS})
    return names


def _pipeline_importers(path: Path) -> list[tuple[int, list[str]]]:
    """(line, names) of every import of the pipeline module, or of names from it, in ``path``."""
    found: list[tuple[int, list[str]]] = []
    for node in ast.walk(_parsed(path)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("_pipeline"):
            found.append((node.lineno, [alias.name for alias in node.names]))
        elif isinstance(node, (ast.ImportFrom, ast.Import)):
            whole = [alias.name for alias in node.names if alias.name.endswith("_pipeline")]
            if whole:
                found.append((node.lineno, whole))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.endswith("._pipeline"):
            # importlib.import_module("mcptools._pipeline"), __import__, sys.modules[...]: an import all the same.
            found.append((node.lineno, ["_pipeline"]))
    return found


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


def test_only_the_engine_and_the_bare_contract_import_the_pipeline() -> None:
    # Importing the stages is the first step of a second driver; the call-site test above then has less to catch.
    problems = []
    for path in sorted(ROOT.rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        for line, names in _pipeline_importers(path):
            allowed = IMPORTERS.get(where, set())
            wrong = [name for name in names if name not in allowed]
            if wrong:
                problems.append(f"{where}:{line}: imports {', '.join(wrong)} from the pipeline")
    assert not problems, "only the engine drives the pipeline:\n" + "\n".join(problems)


def _hand_steps(path: Path) -> list[str]:
    """Where ``path`` steps a coroutine itself: reads its frames, reaches for ``__await__``, or calls
    ``.send()``/``.throw()`` without awaiting (an awaited ``.send()`` is an async method, a transport's)."""
    problems = []
    awaited: set[int] = set()  # ast.walk is breadth-first: an Await is seen before the call it awaits
    for node in ast.walk(_parsed(path)):
        if isinstance(node, ast.Attribute) and node.attr in ("cr_frame", "gi_frame", "cr_await", "gi_yieldfrom"):
            problems.append(f"{path.name}:{node.lineno}: reads {node.attr}")
        elif isinstance(node, ast.Attribute) and node.attr == "__await__":
            problems.append(f"{path.name}:{node.lineno}: reaches for __await__")
        if isinstance(node, ast.Await):
            awaited.add(id(node.value))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("send", "throw")
            and id(node) not in awaited
        ):
            problems.append(f"{path.name}:{node.lineno}: steps something with .{node.func.attr}()")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "getattr"
            and any(isinstance(arg, ast.Constant) and arg.value in ("send", "throw") for arg in node.args[1:2])
        ):
            problems.append(f"{path.name}:{node.lineno}: reaches for .{node.args[1].value}() by name")  # type: ignore[attr-defined]
    return problems


def test_no_coroutine_is_stepped_by_hand() -> None:
    # Stepping a coroutine by hand is a second, hand-made event loop; the sync driver runs coroutines on a real
    # one (mcptools._running.run_on_loop).
    problems = [problem for path in sorted(ROOT.rglob("*.py")) for problem in _hand_steps(path)]
    assert not problems, problems


def test_the_detectors_find_what_they_look_for(tmp_path: Path) -> None:
    stepped = tmp_path / "stepped.py"
    stepped.write_text(
        "def drive(c):\n    c.send(None)\n    c.throw(ValueError())\n    next(c.__await__())\n    return c.cr_frame\n"
        "async def fine(transport):\n    await transport.send({})\n"
        "def sneaky(c):\n    getattr(c, 'send')(None)\n",
        encoding="utf-8",
    )
    assert sorted(_hand_steps(stepped)) == [
        "stepped.py:2: steps something with .send()",
        "stepped.py:3: steps something with .throw()",
        "stepped.py:4: reaches for __await__",
        "stepped.py:5: reads cr_frame",
        "stepped.py:9: reaches for .send() by name",
    ]
    second = tmp_path / "second.py"
    second.write_text("from ._pipeline import prepare\ndef my_driver(call):\n    prepare(call)\n", encoding="utf-8")
    assert _imports_pipeline_stages(second) == {"prepare": "prepare"}
    assert ("prepare", "my_driver", 3) in _calls(second)
    aliased = tmp_path / "aliased.py"
    aliased.write_text("from .. import _pipeline as stages\ndef my_driver(call):\n    stages.invoke(call)\n")
    assert _imports_pipeline_stages(aliased)["stages.invoke"] == "invoke"
    assert ("stages.invoke", "my_driver", 3) in _calls(aliased)
    assert _pipeline_importers(aliased) == [(1, ["_pipeline"])]
    dynamic = tmp_path / "dynamic.py"
    dynamic.write_text("import importlib\nstages = importlib.import_module('mcptools._pipeline')\n")
    assert _pipeline_importers(dynamic) == [(2, ["_pipeline"])]


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


def _pipeline_entries(run: Any) -> list[str]:
    """``"function from module"`` for each pipeline function entered from outside the pipeline while ``run()``
    runs (each frame counted once: a coroutine resumed by its task is no new entry)."""
    entries: list[str] = []
    seen: list[FrameType] = []  # kept alive, so an id is never reused by a later frame

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "call" and frame.f_globals.get("__name__") == "mcptools._pipeline" and frame not in seen:
            seen.append(frame)
            caller = frame.f_back.f_globals.get("__name__") if frame.f_back is not None else None
            if caller != "mcptools._pipeline":
                entries.append(f"{frame.f_code.co_name} from {caller}")
        return None

    sys.setprofile(None)
    sys.settrace(tracer)
    try:
        run()
    finally:
        sys.settrace(None)
    return entries


def _over_memory(registry: ToolRegistry, name: str, arguments: dict[str, Any]) -> None:
    async def go() -> None:
        async with Client(registry) as client:
            await client.call_tool(name, arguments)

    asyncio.run(go())


def _over_http(registry: ToolRegistry, name: str, arguments: dict[str, Any]) -> None:
    app = StreamableHTTPApp(registry)
    body = http_support.request("tools/call", {"name": name, "arguments": arguments})
    reply = asyncio.run(http_support.call(app, body=body, headers=http_support.stateless_headers("tools/call", name)))
    assert reply.status == 200, reply


def _over_handle_async(registry: ToolRegistry, name: str, arguments: dict[str, Any]) -> None:
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
    asyncio.run(registry.handle_async(message))


def _over_handle(registry: ToolRegistry, name: str, arguments: dict[str, Any]) -> None:
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
    registry.handle(message)


def _over_stdio(registry: ToolRegistry, name: str, arguments: dict[str, Any]) -> None:
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
    stdout = io.BytesIO()
    stdin = io.BytesIO(json.dumps(message).encode() + b"\n")
    asyncio.run(asyncio.wait_for(serve_stdio_async(registry, stdin, stdout), 10))
    assert b'"result"' in stdout.getvalue(), stdout.getvalue()


@pytest.mark.parametrize("middleware", [False, True], ids=["bare", "middleware"])
@pytest.mark.parametrize("entry", [_over_handle, _over_handle_async, _over_memory, _over_stdio, _over_http])
@pytest.mark.parametrize(("name", "arguments"), [("weather", {"location": "Lima"}), ("asks", {})])
def test_every_entry_reaches_the_pipeline_only_through_routing_and_a_driver(
    entry: Any, name: str, arguments: dict[str, Any], middleware: bool
) -> None:
    # Walked bare too: a second driver that defers to the engine whenever middleware is present would pass a
    # walk made only with middleware, on the road most calls take.
    registry = _registry()
    if middleware:
        registry.use(Passing())
    entries = _pipeline_entries(lambda: entry(registry, name, arguments))
    # The engine routes and hands the call to a driver; the middleware chain calls back the step the driver gave
    # it. drive_sync hands a call needing a loop to drive on the thread's kept loop (a task: asyncio enters it).
    allowed = {
        "route from mcptools._protocol.engine",
        "authorize from mcptools._protocol.engine",
        "drive from mcptools._protocol.engine",
        "drive_sync from mcptools._protocol.engine",
        "drive from asyncio.events",
        "terminal from mcptools._middleware",
    }
    assert set(entries) <= allowed, entries
    assert {"drive from mcptools._protocol.engine", "drive_sync from mcptools._protocol.engine"} & set(entries)


def test_a_task_s_run_takes_the_same_road_from_the_worker_and_never_enters_the_engine() -> None:
    registry = ToolRegistry("walked-task")

    @registry.tool(task="optional")
    async def weather(location: str) -> str:
        return f"{location}: sunny"

    async def body() -> None:
        async with Client(registry, protocol="2026-07-28") as client:
            task = await client.call_tool_as_task("weather", {"location": "Lima"})
            assert (await client.wait_for_task(task.task_id)).status == "completed"

    worker = "mcptools._tasks.worker"
    under_worker: list[tuple[str, str]] = []  # (module, function) entered while a worker's run is on the stack

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "call" and frame.f_globals.get("__name__", "").startswith("mcptools"):
            stack = _stack(frame)
            if any(f.f_globals.get("__name__") == worker and f.f_code.co_name == "_drive" for f in stack[1:]):
                under_worker.append((frame.f_globals["__name__"], frame.f_code.co_name))
        return None

    sys.setprofile(None)
    sys.settrace(tracer)
    try:
        asyncio.run(body())
    finally:
        sys.settrace(None)
    stages = [function for module, function in under_worker if module == "mcptools._pipeline"]
    for stage in ("route", "drive", "_run", "prepare", "invoke", "finish"):
        assert stage in stages, (stage, stages)
    assert "_through_chain" not in stages and "drive_sync" not in stages
    assert not [step for step in under_worker if step[0] == "mcptools._protocol.engine"], under_worker
