"""``mcptools worker``: a process that only runs tasks, on any machine that reaches the task store.

    mcptools worker app.py --task-store redis://cache:6379/0 --task-workers 8
    mcptools serve app.py --http --task-store redis://cache:6379/0 --task-workers 0   # replicas: no runs of their own

It loads TARGET as ``mcptools serve`` does, enters the registry's lifespan (so tools see ``ctx.state``) and runs
``--task-workers`` tasks at once until SIGTERM or SIGINT, when it gives back the tasks it holds (another worker
takes them at once) and closes the lifespan. The store must be shared (SQLite or Redis): tasks in memory are only
ever seen by the process holding them. A worker killed outright (``kill -9``) loses its tasks to the reaper once
their leases run out: they are run again, or fail with the reason after ``--task-attempts`` such losses.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
from typing import TYPE_CHECKING

from ._errors import TargetError, ToolDefinitionError, UsageError
from ._options import TASK_OPTIONS, add_arguments, from_arguments, resolve
from ._run import configure_tasks, default_logging
from ._serve import refused
from ._target import load_registry, target_argv

if TYPE_CHECKING:
    from ._registry import ToolRegistry

__all__ = ["add_worker_arguments", "run_worker"]


def add_worker_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``mcptools worker``: TARGET, the task options and the log level."""
    parser.add_argument("target", metavar="TARGET", help="file.py, package.module, or either with :attribute")
    add_arguments(parser, only=(*TASK_OPTIONS, "log_level"))


def run_worker(args: argparse.Namespace) -> int:
    """Run tasks per parsed ``args`` until stopped; returns the exit status."""
    sys.argv = target_argv(args.target, getattr(args, "target_argv", []))
    try:
        registry = load_registry(args.target)
        # The registry's own settings (ToolRegistry(..., task_store=...)) are the defaults the flags override.
        options = resolve("stdio", from_arguments(args), registry.settings.given(), flags=True)
    except (UsageError, TargetError, ToolDefinitionError) as exc:
        return refused(exc)
    default_logging()
    if options["log_level"] is not None:
        logging.getLogger("mcptools").setLevel(options["log_level"])
    store = options["task_store"]
    if store is None or store.startswith("memory:"):
        sys.stderr.write(
            "mcptools: a worker needs the store its servers use, shared: --task-store sqlite:///path/tasks.db "
            "or redis://host:6379/0 (tasks in memory are seen by one process only)\n"
        )
        return 2
    if options["task_workers"] < 1:
        sys.stderr.write("mcptools: --task-workers must be 1 or more for a worker\n")
        return 2
    if not registry.offers_tasks:
        sys.stderr.write(f"mcptools: {args.target} has no tool with task=...; there is nothing to run\n")
        return 2
    configure_tasks(registry, options)
    sys.stderr.write(f"mcptools: worker for {registry.name!r} running tasks from {store}\n")
    return asyncio.run(_work(registry))


async def _work(registry: ToolRegistry) -> int:
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not on this platform: Ctrl-C still works
            loop.add_signal_handler(signum, stopping.set)
    try:
        async with registry.running():
            await stopping.wait()
    except Exception:
        logging.getLogger("mcptools").exception("the worker for %r failed", registry.name)
        return 1
    return 0
