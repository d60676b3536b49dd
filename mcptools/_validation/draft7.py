"""Draft-07 schemas, rewritten into the 2020-12 schema that means the same.

Draft-07 is what many MCP clients and the TypeScript SDK's zod converter still emit. Its differences from
2020-12 that change what validates are few and mechanical, so rather than a second dialect in the compiler the
schema is rewritten once, before compiling:

- ``definitions`` -> ``$defs``; array-form ``items`` -> ``prefixItems``, with ``additionalItems`` -> ``items``;
- ``dependencies`` -> ``dependentRequired`` (arrays) / ``dependentSchemas`` (schemas);
- ``$ref`` ignores its siblings (only ``$ref`` and the ``definitions`` / ``$defs`` it may point into are kept);
- ``$id: "#name"`` is a plain-name anchor -> ``$anchor``;
- JSON pointers inside ``$ref`` are rewritten to follow the renamed keywords.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DRAFT_07", "from_draft7"]

DRAFT_07 = "http://json-schema.org/draft-07/schema"
_SINGLE = (
    "additionalProperties", "contains", "propertyNames", "not", "if", "then", "else",
)  # fmt: skip
_ARRAYS = ("allOf", "anyOf", "oneOf")
_MAPS = ("properties", "patternProperties")


def from_draft7(schema: Any) -> Any:
    """The 2020-12 equivalent of the draft-07 ``schema`` (the input is left untouched)."""
    return _rewrite(schema, schema)


def _rewrite(node: Any, root: Any) -> Any:
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    if "$ref" in node:
        reference = node["$ref"]
        out["$ref"] = _rewrite_reference(reference, root) if isinstance(reference, str) else reference
        # Siblings are ignored as checks, but a $ref elsewhere may point into the definitions kept beside it.
        for keyword in ("$defs", "definitions"):
            if isinstance(node.get(keyword), dict):
                defs = out.setdefault("$defs", {})
                defs.update({name: _rewrite(value, root) for name, value in node[keyword].items()})
        return out
    for key, value in node.items():
        if key == "$schema":
            continue
        if key == "$id" and isinstance(value, str) and value.startswith("#"):
            out["$anchor"] = value[1:]
        elif key == "definitions" and isinstance(value, dict):
            out["$defs"] = {name: _rewrite(item, root) for name, item in value.items()}
        elif key == "items" and isinstance(value, list):
            out["prefixItems"] = [_rewrite(item, root) for item in value]
            if "additionalItems" in node:
                out["items"] = _rewrite(node["additionalItems"], root)
        elif key == "items":
            out["items"] = _rewrite(value, root)
        elif key == "additionalItems":
            continue
        elif key == "dependencies" and isinstance(value, dict):
            for trigger, dependency in value.items():
                if isinstance(dependency, list):
                    out.setdefault("dependentRequired", {})[trigger] = dependency
                else:
                    out.setdefault("dependentSchemas", {})[trigger] = _rewrite(dependency, root)
        elif key in _SINGLE:
            out[key] = _rewrite(value, root)
        elif key in _ARRAYS and isinstance(value, list):
            out[key] = [_rewrite(item, root) for item in value]
        elif key in _MAPS and isinstance(value, dict):
            out[key] = {name: _rewrite(item, root) for name, item in value.items()}
        else:
            out[key] = value
    return out


def _rewrite_reference(reference: str, root: Any) -> str:
    """Follow a same-document JSON pointer through the original schema, renaming the keywords it crosses."""
    base, _, fragment = reference.partition("#")
    if base or not fragment.startswith("/"):
        return reference
    node: Any = root
    tokens = fragment[1:].split("/")
    renamed: list[str] = []
    for raw in tokens:
        name = raw.replace("~1", "/").replace("~0", "~")
        token = raw
        parent = node
        if isinstance(parent, dict):
            node = parent.get(name)
            if name == "definitions":
                token = "$defs"
            elif name == "items" and isinstance(node, list):
                token = "prefixItems"
            elif name == "additionalItems":
                token = "items"
            elif name == "dependencies":
                token = "__dependencies__"
        elif isinstance(parent, list) and name.isdigit() and int(name) < len(parent):
            node = parent[int(name)]
        else:
            node = None
        if renamed and renamed[-1] == "__dependencies__":
            renamed[-1] = "dependentRequired" if isinstance(node, list) else "dependentSchemas"
        renamed.append(token)
    return "#/" + "/".join(renamed)
