"""One tool list for every replica: runtime changes to a registry's tools, made on any replica or worker, reach
all the others through the shared task store, and each tells its own clients (``notifications/tools/list_changed``
to its 2025 sessions and listen streams, as for a change of its own).

What travels, and what cannot:

    disable, enable   by name and by tag: every replica serves the same tools, so a name means the same tool
    remove            by name
    add               only a function every replica can build: a module-level function whose
                      ``module:qualname`` resolves to it (the served target's own functions, or a package's),
                      with the options given to ``add`` (JSON: name, description, input_schema, tags, task, ...).
                      A lambda, a closure or a function made at run time exists in one process only: that add is
                      made on this replica alone, and a warning says so once per tool

Each change is published on ``TOOLS_CHANNEL`` and folded into the shared document ``"tools"`` (runtime adds,
removed names, disabled names and tags), which a replica starting later applies first. Changes applied from
another replica are not published again. Concurrent changes on two replicas both reach every running replica,
and both reach the document: it is read, changed and written back only if no other replica wrote it meanwhile
(``put_shared(..., expected=revision)``), else read and changed again.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
import secrets
import sys
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final, cast, final

from .._errors import MCPToolsError, UsageError
from .store import TOOLS_CHANNEL, TaskStoreError

if TYPE_CHECKING:
    from .._call import TaskAccess
    from .._tool import ToolSettings
    from .host import TaskHost

__all__ = ["Replica", "Replication", "importable_reference"]

logger = logging.getLogger("mcptools")

_DOCUMENT: Final = "tools"
# Writes of the shared document one change may try, each overtaken by another replica's: past it, a warning.
_ATTEMPTS: Final = 20


def importable_reference(fn: Callable[..., Any]) -> str | None:
    """``module:qualname`` when that names ``fn`` itself in an imported module (so another process running the
    same code can import it by that name); ``None`` for a lambda, a closure or a function made at run time."""
    module_name = getattr(fn, "__module__", None)
    qualname = getattr(fn, "__qualname__", None)
    if type(module_name) is not str or type(qualname) is not str or "<" in qualname:
        return None
    found: Any = sys.modules.get(module_name)
    for part in qualname.split("."):
        found = getattr(found, part, None)
    return f"{module_name}:{qualname}" if found is fn else None


def _resolve(reference: str) -> Callable[..., Any]:
    module_name, _, qualname = reference.partition(":")
    found: Any = sys.modules.get(module_name) or importlib.import_module(module_name)
    for part in qualname.split("."):
        found = getattr(found, part)
    if not callable(found):
        raise UsageError(f"{reference} is not a function")
    return found  # type: ignore[no-any-return]


def _json_options(options: Mapping[str, Any]) -> dict[str, Any] | None:
    """The options given to ``add`` as JSON (collections as lists), or ``None`` when one cannot travel."""
    plain: dict[str, Any] = {}
    for key, value in options.items():
        if isinstance(value, (set, frozenset)):
            plain[key] = sorted(value)
        else:
            plain[key] = list(value) if isinstance(value, tuple) else value
    try:
        return json.loads(json.dumps(plain))  # type: ignore[no-any-return]
    except (TypeError, ValueError):
        return None


@final
class Replica:
    """What a registry tells about its own changes while it replicates (``registry._replica``); any thread."""

    __slots__ = ("_applying", "_loop", "_outbox", "_warned")

    def __init__(self, loop: asyncio.AbstractEventLoop, outbox: asyncio.Queue[dict[str, Any]]) -> None:
        self._loop = loop
        self._outbox = outbox
        self._applying = threading.local()
        self._warned: set[str] = set()

    @property
    def applying(self) -> bool:
        """Whether this thread is applying another replica's change (which is not published again)."""
        return getattr(self._applying, "on", False)

    def apply(self, change: Callable[[], object]) -> None:
        self._applying.on = True
        try:
            change()
        finally:
            self._applying.on = False

    def added(self, name: str, fn: Callable[..., Any], options: Mapping[str, Any]) -> None:
        if self.applying:
            return
        reference = importable_reference(fn)
        plain = _json_options(options)
        if reference is None or plain is None:
            if name not in self._warned:
                self._warned.add(name)
                why = "its options are not JSON" if reference is not None else "no other process can import it"
                logger.warning(
                    "tool %r was added on this replica only (%s); to add it on every replica, add a "
                    "module-level function of a module they all import",
                    name,
                    why,
                )
            return
        self._send({"op": "add", "name": name, "ref": reference, "options": plain})

    def removed(self, name: str) -> None:
        if not self.applying:
            self._send({"op": "remove", "name": name})

    def toggled(self, op: str, names: Iterable[str], tags: Iterable[str]) -> None:
        if not self.applying:
            self._send({"op": op, "names": sorted(names), "tags": sorted(tags)})

    def _send(self, change: dict[str, Any]) -> None:
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            self._outbox.put_nowait(change)
        elif not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._outbox.put_nowait, change)


@final
class Replication:
    """Runs while a registry with a shared store is served: publishes its changes, applies the others'."""

    __slots__ = ("_registry", "_service", "origin", "ready")

    def __init__(self, registry: TaskHost, service: TaskAccess) -> None:
        self._registry = registry
        self._service = service
        self.origin = secrets.token_hex(8)
        # Set once the changes made before this replica started are applied: it serves nothing before that.
        self.ready = asyncio.Event()

    async def run(self) -> None:
        store = self._service.store
        assert store is not None
        outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        replica = Replica(asyncio.get_running_loop(), outbox)
        async with store.subscribe(TOOLS_CHANNEL) as messages:
            try:
                await self._catch_up(replica)
            finally:
                self.ready.set()
            self._registry._replica = replica
            publishing = asyncio.ensure_future(self._publish(outbox))
            try:
                async for message in messages:
                    payload = message.payload
                    if payload.get("origin") != self.origin:
                        self._apply(replica, payload)
            finally:
                self._registry._replica = None
                publishing.cancel()

    async def _publish(self, outbox: asyncio.Queue[dict[str, Any]]) -> None:
        store = self._service.store
        assert store is not None
        while True:
            change = await outbox.get()
            try:
                await self._record(change)
                await store.publish(TOOLS_CHANNEL, {**change, "origin": self.origin})
            except Exception:
                logger.warning("a tool change could not be sent to the other replicas", exc_info=True)

    async def _record(self, change: Mapping[str, Any]) -> None:
        """Fold ``change`` into the shared document for replicas starting later. Read, fold and write, the write
        refused if another replica wrote in between: then again from its document, so neither change is lost."""
        store = self._service.store
        assert store is not None
        for _ in range(_ATTEMPTS):
            found = await store.get_shared(_DOCUMENT)
            document, revision = found if found is not None else ({}, 0)
            if await store.put_shared(_DOCUMENT, _fold(document, change), expected=revision) is not None:
                return
        raise TaskStoreError(f"the shared tool list kept changing under this replica ({_ATTEMPTS} attempts)")

    async def _catch_up(self, replica: Replica) -> None:
        """Apply what other replicas changed before this one started (the shared document)."""
        store = self._service.store
        assert store is not None
        found = await store.get_shared(_DOCUMENT)
        if found is None:
            return
        document = found[0]
        registry = self._registry
        for name, added in (document.get("added") or {}).items():
            if name not in registry:
                self._apply(replica, {"op": "add", "name": name, **added})
        for name in document.get("removed") or ():
            self._apply(replica, {"op": "remove", "name": name})
        disabled_names = set(document.get("disabled_names") or ())
        disabled_tags = set(document.get("disabled_tags") or ())
        enabled = (registry._disabled_names - disabled_names, registry._disabled_tags - disabled_tags)
        self._apply(replica, {"op": "enable", "names": sorted(enabled[0]), "tags": sorted(enabled[1])})
        self._apply(replica, {"op": "disable", "names": sorted(disabled_names), "tags": sorted(disabled_tags)})

    def _apply(self, replica: Replica, change: Mapping[str, Any]) -> None:
        registry = self._registry
        op = change.get("op")
        try:
            if op == "add":
                name = str(change.get("name"))
                if name not in registry:
                    fn = _resolve(str(change.get("ref")))
                    options = cast("ToolSettings", change.get("options") or {})
                    replica.apply(lambda: registry.add(fn, **options))
            elif op == "remove":
                name = str(change.get("name"))
                if name in registry._tools:
                    replica.apply(lambda: registry.remove(name))
            elif op in ("enable", "disable"):
                names = [name for name in change.get("names") or () if name in registry]
                tags = list(change.get("tags") or ())
                if names or tags:
                    toggle = registry.enable if op == "enable" else registry.disable
                    replica.apply(lambda: toggle(*names, tags=tags))
        except (MCPToolsError, ImportError, AttributeError, TypeError) as problem:
            logger.warning("another replica's tool change %s could not be applied here: %s", op, problem)


def _fold(document: Mapping[str, Any], change: Mapping[str, Any]) -> dict[str, Any]:
    """The shared document with one more change in it: what a replica starting later applies."""
    added = dict(document.get("added") or {})
    removed = set(document.get("removed") or ())
    names = set(document.get("disabled_names") or ())
    tags = set(document.get("disabled_tags") or ())
    op = change["op"]
    if op == "add":
        added[change["name"]] = {"ref": change["ref"], "options": change["options"]}
        removed.discard(change["name"])
    elif op == "remove":
        if added.pop(change["name"], None) is None:
            removed.add(change["name"])
    elif op == "disable":
        names |= set(change["names"])
        tags |= set(change["tags"])
    elif op == "enable":
        names -= set(change["names"])
        tags -= set(change["tags"])
    return {"added": added, "removed": sorted(removed), "disabled_names": sorted(names), "disabled_tags": sorted(tags)}
