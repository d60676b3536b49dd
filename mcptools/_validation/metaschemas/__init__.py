"""The published JSON Schema metaschemas, so ``{"$ref": "https://json-schema.org/draft/2020-12/schema"}`` works
offline and without ``resources=``, as it does in python-jsonschema and jsonschema-rs.

The documents beside this module are the JSON Schema organisation's own (draft 2020-12 with its eight vocabulary
metaschemas, and draft-07), unchanged; NOTICE.md gives their origin and licence. They are read from the package
only when a schema refers to one of their URIs, so ``import mcptools`` never pays for them, and they are parsed
once per process. The draft-07 metaschema is rewritten to its 2020-12 meaning, like any draft-07 schema.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any, Final

__all__ = ["builtin_metaschema"]

_DRAFT_07: Final = "http://json-schema.org/draft-07/schema"
_DRAFT_2020_12: Final = "https://json-schema.org/draft/2020-12/"
_VOCABULARIES: Final = frozenset(
    {"core", "applicator", "unevaluated", "validation", "meta-data", "format-annotation", "format-assertion", "content"}
)


def builtin_metaschema(uri: str) -> Any | None:
    """The metaschema document published at ``uri`` (fragment-free), or None when it is not one we ship."""
    uri = uri.rstrip("#")
    if uri.replace("https:", "http:", 1) == _DRAFT_07:
        return _draft_07()
    if not uri.startswith(_DRAFT_2020_12):
        return None
    name = uri[len(_DRAFT_2020_12) :]
    if name == "schema":
        return _load("draft2020-12/schema.json")
    if name.startswith("meta/") and name[len("meta/") :] in _VOCABULARIES:
        return _load(f"draft2020-12/{name}.json")
    return None


@functools.cache
def _load(path: str) -> Any:
    # Shared between compiles: compiling never mutates a schema document.
    return json.loads(resources.files(__name__).joinpath(path).read_text(encoding="utf-8"))


@functools.cache
def _draft_07() -> Any:
    from ..draft7 import from_draft7

    return from_draft7(_load("draft-07/schema.json"))
