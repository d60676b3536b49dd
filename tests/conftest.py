"""Fixtures that more than one test module uses (pytest finds them here; an imported fixture would shadow
the test's own parameter)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis_support import load_profile
from stubgen_support import forget_loaded_modules

# Before any test module is imported: their ``@settings`` read the profile when they are defined.
load_profile()


@pytest.fixture
def tmp_module_dir(tmp_path: Path) -> Iterator[Path]:
    """A folder for generated stub modules; the modules ``stubgen_support.load`` imported are forgotten after
    the test."""
    yield tmp_path
    forget_loaded_modules()


@pytest.fixture(scope="session")
def mypy_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One mypy cache for every mypy run of a session (of an xdist worker: workers never share one), so only
    the first run pays for analysing the standard library and typing_extensions."""
    return tmp_path_factory.mktemp("mypy-cache")


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of a real Redis server (see redis_support): CI's, or one started for this test process."""
    import importlib.util

    from redis_support import IN_CI, MISSING, REDIS_URL_ENV, start_redis

    def unavailable(reason: str) -> None:
        if IN_CI:
            pytest.fail(reason)
        pytest.skip(reason)

    if importlib.util.find_spec("redis") is None:
        unavailable("needs the redis client: pip install -e '.[test]'")
    configured = os.environ.get(REDIS_URL_ENV)
    if configured:
        yield configured
        return
    started = start_redis(tmp_path_factory.mktemp("redis"))
    if started is None:
        unavailable(MISSING)
        return
    server, url = started
    try:
        yield url
    finally:
        server.kill()  # it saves nothing (see start_redis): no need to let it shut down
        server.wait(timeout=10)
