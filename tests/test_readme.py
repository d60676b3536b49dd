"""The README is the front page: the two commands a fresh machine needs come first, the test command is exactly
the one CI runs, it stays short, and every link it makes leads somewhere. Its code blocks run with the docs'
(tests/test_docs_examples.py), so the tour cannot drift from the code."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
TEST_COMMAND = "python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]' && .venv/bin/pytest"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def test_the_two_commands_of_a_fresh_machine_come_first() -> None:
    text = README.read_text(encoding="utf-8")
    first_block = text.index("```")
    assert text.index("## On a fresh machine") < first_block
    try_it, run_tests = blocks("sh")[:2]
    assert try_it.startswith("python3 -m venv .venv && .venv/bin/pip install -q -e . && .venv/bin/mcptools call ")
    assert run_tests.strip() == TEST_COMMAND


def test_ci_runs_the_readme_test_command() -> None:
    assert TEST_COMMAND in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_the_readme_is_a_front_page() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, f"the README has {len(lines)} lines; the detail belongs on the site's pages"
    assert "bash docs/build" in blocks("sh")[2]
    assert "```python" in README.read_text(encoding="utf-8")


def test_every_link_of_the_readme_leads_to_a_file() -> None:
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README.read_text(encoding="utf-8"))
    local = [link for link in links if not link.startswith(("http://", "https://"))]
    assert len(local) >= 15
    missing = [link for link in local if not (ROOT / link).exists()]
    assert not missing, f"README links to files that do not exist: {missing}"
