"""Fixtures that more than one test module uses (pytest finds them here; an imported fixture would shadow
the test's own parameter)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from stubgen_support import forget_loaded_modules


@pytest.fixture
def tmp_module_dir(tmp_path: Path) -> Iterator[Path]:
    """A folder for generated stub modules; the modules ``stubgen_support.load`` imported are forgotten after
    the test."""
    yield tmp_path
    forget_loaded_modules()
