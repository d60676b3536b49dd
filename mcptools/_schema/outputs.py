"""Return annotations -> the ``outputSchema``: what a tool may return but never take.

A return annotation is read by the same ``HintReader`` as the parameters, so a TypedDict, a pydantic model or a
``datetime`` has one schema whether it goes in or comes out. Results are wider in one way: a plain class with
annotated attributes (the official SDK's ``UserProfile``) cannot be built from arguments (its ``__init__`` is
the author's), but its values can be read, so as a return type it is an object of those attributes. The reader
asks ``output_types`` only about classes its own rules do not map; ``jsonify.py`` writes the values.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .docstrings import parse_docstring
from .hints import HintReader
from .jsonify import annotated_attributes
from .model import Field, Node, ObjectNode

__all__ = ["output_reader", "output_types"]


def output_reader(localns: Mapping[str, Any] | None) -> HintReader:
    return HintReader(localns, fallback=output_types, output=True)


def output_types(reader: HintReader, cls: type) -> Node | None:
    """The node for a returned value of class ``cls`` that the parameter rules do not map; None if none."""
    if not annotated_attributes(cls):
        return None
    doc = cls.__dict__.get("__doc__")
    description = parse_docstring(doc).description if isinstance(doc, str) else None
    node, new = reader.shared(cls, lambda: ObjectNode(cls, "class", description))
    if not new:
        return node
    hints = reader.resolve(cls)
    node.fields = tuple(
        Field(name, reader.read_inside(hints[name], f"attribute {name!r} of {cls.__qualname__}"), required=True)
        for name in annotated_attributes(cls)
        if name in hints
    )
    return node
