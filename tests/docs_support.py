"""How the documentation's code blocks are run (tests/test_docs_examples.py), by language, with sybil's MyST lexers.

- ``python``: run in one namespace per page, in order, as a reader following the page would. A block that starts
  with ``>>>`` is a doctest: its output is checked. A ``{code-block} python`` with ``:caption: name.py`` is also
  written to that file first (the page's working directory is a fresh temporary one), so a later command can
  serve or call it.
- ``console``: ``$ mcptools ...`` lines are run (in process, the real command) and what they print is compared
  with the lines the page shows below them.
- ``sh``: commands to type, checked without running them: every ``mcptools`` command line parses with the real
  argument parser, every extra named in ``pip install`` exists, and no other program is named than the few a
  reader is told to run (a typo or a renamed flag fails).
- ``json``: parses; a client configuration starting ``mcptools`` has its arguments parsed as above.
- ``text``: a drawing or a shape, not code; nothing to run.

Hidden setup a page needs (a server on a free port) is an ``<!-- invisible-code-block: python -->`` comment,
and ``% skip: next if(not CI, reason="...")`` keeps a slow block (a subprocess, a real socket) to CI.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import json
import shlex
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from sybil import Document, Example, Region
from sybil.evaluators.doctest import DocTestEvaluator
from sybil.evaluators.python import PythonEvaluator
from sybil.parsers.abstract.doctest import DocTestStringParser
from sybil.parsers.markdown.lexers import DirectiveInHTMLCommentLexer, FencedCodeBlockLexer
from sybil.parsers.myst import SkipParser
from sybil.parsers.myst.lexers import DirectiveLexer

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"

# Programs a shell block may name besides mcptools and pip: what a reader runs to set up, never our code.
SHELL_PROGRAMS = frozenset(
    {
        "python3",
        "python",
        ".venv/bin/python",
        ".venv/bin/pytest",
        "uvicorn",
        "npx",
        "claude",
        "openssl",
        "export",
        "source",
    }
)
NOT_CODE = frozenset({"text"})


def pages() -> list[Path]:
    return sorted(path for path in DOCS.rglob("*.md") if "_build" not in path.parts)


def extras() -> set[str]:
    import re

    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    section = text.split("[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    return set(re.findall(r"^([a-z][a-z0-9-]*) = \[", section, flags=re.M))


def run_cli(argv: list[str]) -> tuple[int, str]:
    """The real ``mcptools`` command, in this process: its exit status and what it printed on stdout."""
    from mcptools._cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exit_:  # argparse refusing the line
            code = exit_.code if isinstance(exit_.code, int) else 2
    return code, out.getvalue()


def check_mcptools_argv(argv: list[str]) -> str | None:
    """``None`` when ``mcptools ARGV`` parses; else why not."""
    from mcptools._cli import _parser

    if "--" in argv:
        argv = argv[: argv.index("--")]
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            _parser().parse_args(argv)
        except SystemExit:
            return f"`mcptools {shlex.join(argv)}` does not parse: {err.getvalue().strip()}"
    return None


def _commands(source: str) -> Iterator[list[str]]:
    """Each simple command of a shell block, as words, environment assignments dropped."""
    text = source.replace("\\\n", " ")
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        for part in line.replace("&&", ";").replace("|", ";").split(";"):
            words = shlex.split(part)
            while words and "=" in words[0] and not words[0].startswith("-"):
                words = words[1:]
            if words:
                yield words


def _check_pip(words: list[str], known: set[str]) -> str | None:
    for word in words:
        if "[" in word and word.endswith("]") and (word.startswith((".", "mcptools"))):
            wanted = set(word[word.index("[") + 1 : -1].split(","))
            if not wanted <= known:
                return f"`{' '.join(words)}` names extras {sorted(wanted - known)} that pyproject.toml lacks"
    return None


def check_shell(example: Example) -> str | None:
    known = extras()
    for words in _commands(example.parsed):
        program = words[0]
        if program in ("mcptools", ".venv/bin/mcptools"):
            problem = check_mcptools_argv(words[1:])
        elif program.endswith("pip") or words[:3] in (["python3", "-m", "pip"], ["python", "-m", "pip"]):
            problem = _check_pip(words, known)
        elif program == "bash":  # a script of the repository's own (docs/build)
            problem = None if (ROOT / words[1]).is_file() else f"`bash {words[1]}`: no such script in the repository"
        elif program in SHELL_PROGRAMS:
            problem = None
        else:
            problem = f"a shell block runs {program!r}: not a command the docs may tell readers to run"
        if problem:
            return problem
    return None


def check_json(example: Example) -> str | None:
    try:
        value = json.loads(example.parsed)
    except json.JSONDecodeError as exc:
        return f"not JSON: {exc}"
    for server in _client_servers(value):
        if str(server.get("command", "")).endswith("mcptools"):
            problem = check_mcptools_argv([str(arg) for arg in server.get("args", [])])
            if problem:
                return problem
    return None


def _client_servers(value: Any) -> Iterable[dict[str, Any]]:
    if isinstance(value, dict):
        for key in ("mcpServers", "servers"):
            entries = value.get(key)
            if isinstance(entries, dict):
                yield from (entry for entry in entries.values() if isinstance(entry, dict))


def run_console(example: Example) -> str | None:
    """``$ mcptools ...`` lines run; the lines after each are what it must print."""
    runs: list[tuple[list[str], list[str]]] = []
    for line in example.parsed.splitlines():
        if line.startswith("$ "):
            runs.append((shlex.split(line[2:]), []))
        elif runs:
            runs[-1][1].append(line.rstrip())
        elif line.strip():
            return f"console block: output before any `$ ` command: {line!r}"
    for words, expected in runs:
        if words[0] != "mcptools":
            return f"console blocks run mcptools commands only, not {words[0]!r}"
        _code, printed = run_cli(words[1:])
        shown = "\n".join(expected).strip("\n")
        got = "\n".join(line.rstrip() for line in printed.splitlines()).strip("\n")
        if got != shown:
            return f"`{shlex.join(words)}` printed:\n{got}\n\nthe page shows:\n{shown}"
    return None


class Blocks:
    """One sybil parser for every fenced block of a page, dispatched by language (see the module docstring)."""

    def __init__(self) -> None:
        self.fenced = FencedCodeBlockLexer(language=r".+")
        self.directives = DirectiveLexer(directive=r"code-block", arguments=r".+")
        self.hidden = DirectiveInHTMLCommentLexer(directive=r"invisible-code-block", arguments=r".+")
        self.python = PythonEvaluator()
        self.doctest = DocTestStringParser(DocTestEvaluator(doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE))

    def __call__(self, document: Document) -> Iterable[Region]:
        regions = [*self.fenced(document), *self.directives(document), *self.hidden(document)]
        for region in sorted(regions, key=lambda region: region.start):
            language = str(region.lexemes.get("language") or region.lexemes.get("arguments") or "").strip()
            if language.startswith("{"):
                continue  # a MyST directive (toctree, eval-rst, ...); code-block ones come from self.directives
            yield from self._regions(document, region, language)

    def _regions(self, document: Document, region: Region, language: str) -> Iterable[Region]:
        source = region.lexemes["source"]
        region.parsed = source
        if language == "python" and source.startswith(">>>"):
            for doctest in self.doctest(source, document.path):
                doctest.adjust(region, region.lexemes["source"])
                yield doctest
            return
        options = region.lexemes.get("options") or {}
        caption = options.get("caption") if isinstance(options, dict) else None
        if language == "python":
            region.evaluator = self._python_to_file(str(caption)) if caption else self.python
        elif language == "console":
            region.evaluator = run_console
        elif language in ("sh", "bash", "shell"):
            region.evaluator = check_shell
        elif language == "json":
            region.evaluator = check_json
        elif language in NOT_CODE:
            region.evaluator = _nothing
        else:
            region.evaluator = _unknown(language)
        yield region

    def _python_to_file(self, name: str) -> Any:
        def evaluate(example: Example) -> None:
            Path(name).write_text(example.parsed, encoding="utf-8")
            self.python(example)

        return evaluate


def _nothing(example: Example) -> None:
    return None


def _unknown(language: str) -> Any:
    def evaluate(example: Example) -> str:
        return f"a {language!r} block: the docs runner knows python, console, sh, json and text; pick one"

    return evaluate


def parse(page: Path) -> Document:
    return Document.parse(str(page), Blocks(), SkipParser())


def in_ci() -> bool:
    import os

    return bool(os.environ.get("CI"))


def python_path() -> str:
    """The venv's bin directory, so a page's ``mcptools`` subprocess is this checkout's."""
    return str(Path(sys.executable).parent)


class Background:
    """ASGI apps a page serves on loopback while its blocks run (``_background.serve(app)`` in a hidden block):
    uvicorn in a thread on a free port, stopped when the page's test ends."""

    def __init__(self) -> None:
        self.servers: list[Any] = []

    def serve(self, app: Any) -> str:
        import socket
        import threading
        import time

        import uvicorn

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 15
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        self.servers.append((server, thread))
        return f"http://127.0.0.1:{port}"

    def close(self) -> None:
        for server, thread in self.servers:
            server.should_exit = True
            thread.join(timeout=10)
