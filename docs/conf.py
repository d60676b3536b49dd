"""Sphinx configuration of the mcptools documentation (``docs/build`` runs it with warnings as errors)."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

project = "mcptools"
author = "mcptools contributors"
copyright = "2026, mcptools contributors"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "mcptools_docs",
]

source_suffix = {".md": "markdown"}
exclude_patterns = ["_build"]
root_doc = "index"

# Markdown: ``[text](page.md#a-heading)`` links resolve to headings down to ###, and a link that points nowhere
# is a warning (an error under -W).
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence", "deflist"]

# Every cross reference must resolve (-n); names from outside the package are plain text without intersphinx,
# which needs the network at build time.
nitpicky = True
nitpick_ignore_regex = [
    # The standard library and the built-in types (no intersphinx: it would fetch inventories at build time).
    (
        r"py:.*",
        r"(typing|typing_extensions|collections\.abc|contextlib|types|enum|datetime|pathlib|decimal|logging|os)\..*",
    ),
    (r"py:.*", r"(str|int|float|bool|bytes|dict|list|tuple|set|frozenset|object|type|None|BaseException|Exception)"),
    # Internal modules and type variables a public signature mentions: not part of the reference on purpose.
    (r"py:.*", r"mcptools(\.\w+)*\._\w+.*"),
    (r"py:.*", r"(mcptools\.\w+\.)?(P|R|T|StateT)"),
    # Names a signature spells as written under TYPE_CHECKING (so autodoc sees the bare name): each is internal,
    # or public under the name the reference gives it (AuthSettings is mcptools.auth.AuthSettings).
    (
        r"py:class",
        r"(Served|Engine|Exported|ProfileName|Lifespan|AuthSettings|ServeSettings|ServeDefaults|TransportName|"
        r"Session|Send|mcptools\.auth\.Scoped|SessionManager|PeerSession|TaskService|TaskSupport|PeerTokenVerifier)",
    ),
    # A Literal of a few strings in a signature (openai.tools' api=): Sphinx splits it at the commas.
    (r"py:class", r"Literal\[.*|.*'\]"),
    # Starlette's types, which mount() takes and returns (Starlette is the user's, not a dependency).
    (r"py:class", r"(ASGIApp|Mount)"),
]

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options: dict[str, object] = {}

html_theme = "furo"
html_title = "mcptools"
html_static_path: list[str] = []
pygments_style = "default"
