"""Every code block on every documentation page, and in the README (the site's front door), runs (or, for
commands to type, is checked), and a block that shows output has its output checked: the pages cannot drift from
the code. How each language is run is said in tests/docs_support.py; a page is one test, its blocks run in order
in one namespace, as a reader follows it."""

from __future__ import annotations

import sys
import unittest
from pathlib import Path

import pytest
from docs_support import README, ROOT, Background, in_ci, pages, parse, python_path

PAGES = [*pages(), README]


def test_there_are_pages_and_blocks_to_run() -> None:
    assert len(PAGES) >= 10
    assert sum(len(list(parse(page))) for page in PAGES) >= 50


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(ROOT)) for page in PAGES])
def test_every_block_of_the_page_runs(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A page's files (server.py, weather.py) are written to, and imported from, a fresh directory.
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PATH", python_path(), prepend=":")
    before = set(sys.modules)
    document = parse(page)
    background = Background()
    document.namespace.update({"__name__": "docs_example", "CI": in_ci(), "_background": background})
    skipped = []
    try:
        for example in document:
            try:
                example.evaluate()
            except unittest.SkipTest as skip:
                skipped.append(f"line {example.line}: {skip}")
    finally:
        background.close()
        for name in set(sys.modules) - before:
            if str(getattr(sys.modules[name], "__file__", "") or "").startswith(str(tmp_path)):
                del sys.modules[name]
    if skipped and in_ci():
        pytest.fail(f"{page.name}: blocks skipped in CI: {skipped}")
