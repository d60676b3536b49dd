"""A server for the lifespan tests, run as a subprocess: its lifespan appends ``enter <pid>`` and ``exit <pid>``
to the file named by ``--marker`` (its own argument, after ``--`` under ``mcptools serve``), and ``--fail``
makes it fail at startup after it has opened something (its ``finally`` still runs).

    python tests/lifespan_app.py --marker FILE [--fail] [--http PORT]   # registry.run()
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from mcptools import Context, ToolRegistry


def _settings() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--marker", required=True)
    parser.add_argument("--fail", action="store_true")
    parser.add_argument("--http", type=int, default=None)
    parser.add_argument("--workers", type=int, default=1)
    known, _ = parser.parse_known_args(sys.argv[1:])
    return known


def _mark(path: str, event: str) -> None:
    with open(path, "a", encoding="utf-8") as marker:
        marker.write(f"{event} {os.getpid()}\n")


@asynccontextmanager
async def lifespan(registry: ToolRegistry) -> AsyncIterator[dict[str, int]]:
    settings = _settings()
    _mark(settings.marker, "enter")
    try:
        if settings.fail:
            raise RuntimeError("the database is not there")
        yield {"pid": os.getpid()}
    finally:
        _mark(settings.marker, "exit")


registry = ToolRegistry("lifespan-app", lifespan=lifespan)


@registry.tool
async def worker_pid(ctx: Context[dict[str, int]]) -> int:
    """The pid the lifespan of the serving process recorded."""
    await asyncio.sleep(0)
    return ctx.state["pid"]


if __name__ == "__main__":
    options = _settings()
    if options.http is not None:
        sys.exit(registry.run("http", port=options.http, workers=options.workers))
    sys.exit(registry.run())
