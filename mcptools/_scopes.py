"""Who sees which tool: the one scope rule, read by ``tools/list``, by ``tools/call`` (the pipeline's authorize
stage) and by the providers' exports and runs, so none of them can disagree with another.

A tool declared with ``scopes=`` exists only for a caller holding all of them. Where no caller is known (stdio,
HTTP without authorization, a provider's ``run(..., principal=None)``) scopes do not apply: the process serving
the tools acts for no particular caller.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._call import ToolSource
    from .auth import Principal

__all__ = ["sees", "visible"]


def sees(principal: Principal | None, needed: Collection[str]) -> bool:
    """Whether ``principal`` may list and call a tool needing the scopes ``needed``."""
    return principal is None or principal.has_scopes(needed)


def visible(
    source: ToolSource, listing: list[dict[str, Any]], principal: Principal | None
) -> tuple[list[dict[str, Any]], bool]:
    """The entries of ``listing`` (``tools/list``'s) that ``principal`` sees, and whether any served tool has
    scopes (then what is listed depends on who asks, and no shared cache may keep it)."""
    tools = [source.get(entry["name"]) for entry in listing]
    scoped = any(tool is not None and tool.scopes for tool in tools)
    if not scoped or principal is None:
        return listing, scoped
    seen = [
        entry for entry, tool in zip(listing, tools, strict=True) if tool is not None and sees(principal, tool.scopes)
    ]
    return seen, scoped
