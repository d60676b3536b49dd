"""Schema profiles: one tool's input schema reshaped for a model API that accepts only part of JSON Schema.

A profile is a transform with a way back. The exported schema is what the provider sees; a value the model
produces under it is mapped back (``from_provider``) onto a value for the original schema, which is the one the
call is validated against. Keywords a provider refuses are moved into the description, so the model still reads
them and the original schema still enforces them; what cannot be expressed at all (an open map under a strict
profile, a recursive ``$ref`` where refs must be inlined, a value with no type) is a ``ToolDefinitionError``
naming the tool and the keyword, raised at export, never at call time (the providers then send that tool
relaxed, or leave it out).

- ``openai``: OpenAI strict function calling (``strict``): every object closed, every property in
  ``required``; an optional property whose schema refuses null becomes nullable, and null sent for it maps back to
  absent (so the function's default applies). ``$defs`` are kept (recursion is allowed); other refs are inlined.
- ``anthropic-strict``: Anthropic's strict tool use (``strict``): every object closed, optional properties kept
  optional, refs inlined, only the keywords its structured outputs document.
- ``gemini``: the OpenAPI-flavoured subset of Gemini's ``FunctionDeclaration.parameters`` (``gemini``).
- ``anthropic``: the schema as is (what every API takes as plain JSON Schema).

The mapping is exact: a value valid for the original has a provider form that maps back to exactly it, or none
(``NOT_SENDABLE``: OpenAI strict cannot leave out an optional property that takes null); tests prove it on
random schemas and on a corpus of real servers' tools.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, final

from .._errors import ToolDefinitionError
from .gemini import Gemini, as_json_schema
from .mapping import NOT_SENDABLE, NameRule, Shape, back, out
from .paths import renames, with_provider_paths
from .strict import ANTHROPIC, OPENAI, Strict, strict_budget
from .walk import DEFS, Walk

__all__ = ["NOT_SENDABLE", "PROFILES", "Exported", "NameRule", "ProfileName", "export_schema", "strict_budget"]

ProfileName = Literal["openai", "gemini", "anthropic"]
"""The profiles a registry can publish (``ToolRegistry(..., profile=...)``)."""
PROFILES: Final = ("openai", "anthropic-strict", "gemini", "anthropic")
"""Every profile ``export_schema`` knows."""


@final
@dataclass(slots=True, eq=False)
class Exported:
    """One tool's schema under one profile, and the maps between the two value spaces (``shape``; ``None`` where
    they are the same)."""

    profile: str
    original: dict[str, Any]
    schema: dict[str, Any]
    shape: Shape = None
    # Whether a property has another name for the provider (Gemini's rule), so error paths are said in its names.
    renames: bool = field(init=False)

    def __post_init__(self) -> None:
        self.renames = renames(self.shape)

    def json_schema(self) -> dict[str, Any]:
        """The exported schema written as JSON Schema, for MCP clients that forward it to the provider's model.

        Only the Gemini profile differs: its OpenAPI spelling (``"STRING"``, ``nullable``) becomes JSON Schema's.
        """
        return as_json_schema(self.schema) if self.profile == "gemini" else self.schema

    def from_provider(self, value: Any) -> Any:
        """The value for the original schema: names mapped back, nulls that stand for absent properties dropped."""
        return value if self.shape is None else back(self.shape, value)

    def to_provider(self, value: Any) -> Any:
        """The provider's form of a value of the original schema, or ``NOT_SENDABLE`` when it has none."""
        return value if self.shape is None else out(self.shape, value)

    def provider_paths(self, sent: Any, errors: list[str]) -> list[str]:
        """The validator's ``errors`` for the value ``sent`` maps back to, their paths in the names of ``sent``
        (the names the model knows)."""
        return with_provider_paths(self.shape, sent, errors) if self.renames else errors


def export_schema(schema: Mapping[str, Any], profile: str, *, tool: str) -> Exported:
    """Reshape one tool's input schema for ``profile``; a ``ToolDefinitionError`` names what cannot be."""
    original = dict(schema)
    if profile == "anthropic":
        return Exported(profile, original, original)
    walk: Walk
    if profile == "openai":
        walk = Strict(profile, tool, original, OPENAI)
    elif profile == "anthropic-strict":
        walk = Strict(profile, tool, original, ANTHROPIC)
    elif profile == "gemini":
        walk = Gemini(profile, tool, original)
    else:
        raise ToolDefinitionError(f"unknown schema profile {profile!r}; the profiles are {', '.join(PROFILES)}")
    top = {key: value for key, value in original.items() if key not in DEFS}
    if top.get("type") != "object" or "anyOf" in top or "oneOf" in top:
        raise walk.fail("type", "", "a tool's parameters must be one object schema", "wrap them in an object")
    exported, shape = walk.node(top, "", 1)
    if walk.defs:
        exported["$defs"] = walk.defs
    return Exported(profile, original, exported, shape)
