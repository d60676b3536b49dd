"""What a registry's tasks need of the registry, as protocols: nothing in ``mcptools._tasks`` imports the registry
(it imports them, lazily), so the tasks code reads it through ``TaskHost``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from .._call import ToolSource

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .._protocol.engine import Engine
    from .._tool import Tool, ToolSettings

__all__ = ["TaskHost", "ToolChanges"]


class ToolChanges(Protocol):
    """Told of a registry's own changes to its tools while it replicates them (``replicate.Replica``); any thread."""

    def added(self, name: str, fn: Callable[..., Any], options: Mapping[str, Any]) -> None: ...
    def removed(self, name: str) -> None: ...
    def toggled(self, op: str, names: Iterable[str], tags: Iterable[str]) -> None: ...


class TaskHost(ToolSource, Protocol):
    """What the tasks of a registry need of it (``ToolRegistry`` is one): what the call path needs (a
    ``ToolSource``), its engine (the sealer a run's rounds use), and, to replicate its tool list, its changes and
    its own tools and disabled names and tags. A protocol, so nothing here imports the registry."""

    @property
    def engine(self) -> Engine: ...

    _replica: ToolChanges | None
    _tools: dict[str, Tool]
    _disabled_names: set[str]
    _disabled_tags: set[str]

    def __contains__(self, name: object) -> bool: ...
    def add(self, fn: Callable[..., Any], /, **options: Unpack[ToolSettings]) -> Tool: ...
    def remove(self, name: str) -> Tool: ...
    def enable(self, *names: str, tags: Iterable[str] = ()) -> None: ...
    def disable(self, *names: str, tags: Iterable[str] = ()) -> None: ...
