"""A Sphinx extension for the mcptools docs: the ``mcptools-generated`` directive puts a part drawn from the code
(``generated.py``) on a page at build time, so the page cannot go stale.

    ```{mcptools-generated} error-tree
    ```
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import generated
from docutils import nodes
from sphinx.util.docutils import SphinxDirective

# What each name draws, and whether it is Markdown to parse (a table) or text to show as is (a drawing).
PARTS: dict[str, tuple[Callable[[], str], bool]] = {
    "error-tree": (generated.error_tree, False),
    "formats": (generated.format_table, True),
    "std-types": (generated.std_types_table, True),
    "serve-options": (generated.serve_options_table, True),
}


class Generated(SphinxDirective):
    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        name = self.arguments[0]
        if name not in PARTS:
            raise self.error(f"mcptools-generated: unknown part {name!r}; one of {sorted(PARTS)}")
        draw, markdown = PARTS[name]
        text = draw()
        if markdown:
            return self.parse_text_to_nodes(text)
        block = nodes.literal_block(text, text)
        block["language"] = "text"
        return [block]


def setup(app: Any) -> dict[str, Any]:
    app.add_directive("mcptools-generated", Generated)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
