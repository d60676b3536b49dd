"""Lifespan: the async context manager a registry runs once around serving, and the state it yields.

    @asynccontextmanager
    async def lifespan(registry: ToolRegistry) -> AsyncIterator[AppState]:
        async with httpx.AsyncClient() as http:   # opened once, when the server starts
            yield AppState(http)                  # what tools see as ctx.state
                                                  # closed once, on every way the server stops

    registry = ToolRegistry("app", lifespan=lifespan)

Who enters it: every server entry (``serve_stdio``, the ASGI app's lifespan events, so each HTTP worker process
runs its own, and ``registry.run()``) enters ``registry.running()``; so does a test, or an application that calls
``registry.handle_async`` itself. ``registry.handle`` used bare does not: a sync entry has no event loop that
would outlive the call, and state bound to one loop (a connection pool) would not work on the next call's loop.

Entries nest: the first opens the lifespan, later ones share it, the last one out closes it. That lets an app
both mounted in Starlette (whose lifespan enters ``running()``) and driven by a test client share one state. A
lifespan that raises while starting fails the entry (the server does not start) and leaves nothing open.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Final, final

from ._errors import ToolDefinitionError, UsageError

__all__ = ["LifespanRunner", "check_lifespan"]

_NOT_SET: Final = object()


def check_lifespan(registry_name: str, lifespan: object) -> None:
    """Definition-time check: a lifespan is a callable taking the registry, not an already-made context."""
    if lifespan is None:
        return
    if not callable(lifespan) or hasattr(lifespan, "__aenter__"):
        raise ToolDefinitionError(
            f"ToolRegistry({registry_name!r}): lifespan= must be a function taking the registry and returning an "
            f"async context manager (an @asynccontextmanager function), got {lifespan!r}; pass the function "
            "itself, not a call to it"
        )


@final
class LifespanRunner:
    """Runs one registry's lifespan: entered by nested ``running()`` blocks, opened by the first, closed by the
    last."""

    __slots__ = ("_depth", "_factory", "_manager", "_owner", "_running", "_services", "_state")

    def __init__(
        self,
        owner: object,
        factory: Callable[[Any], AbstractAsyncContextManager[Any]] | None,
        services: Callable[[], AbstractAsyncContextManager[Any] | None] | None = None,
    ) -> None:
        self._owner = owner
        self._factory = factory
        # What the registry itself runs while served (its tasks' workers), started once the lifespan is open, so
        # they can use its state, and stopped before it closes.
        self._services = services
        self._running: AbstractAsyncContextManager[Any] | None = None
        self._depth = 0
        self._manager: AbstractAsyncContextManager[Any] | None = None
        self._state: Any = _NOT_SET

    @property
    def active(self) -> bool:
        return self._depth > 0

    def state(self, name: str) -> Any:
        """What the lifespan yielded; ``None`` for a registry without one. ``LifespanError`` when not running."""
        if self._factory is None:
            return None
        if self._state is _NOT_SET:
            from ._errors import LifespanError

            raise LifespanError(
                f"the lifespan of ToolRegistry({name!r}) is not running, so there is no state yet: serve the "
                "registry (mcptools serve, registry.run(), serve_stdio, the ASGI app), or enter it with "
                "`async with registry.running():` around registry.handle_async calls"
            )
        return self._state

    @asynccontextmanager
    async def running(self) -> AsyncIterator[Any]:
        if self._depth == 0 and self._factory is not None:
            manager = self._factory(self._owner)
            if not hasattr(manager, "__aenter__"):
                raise UsageError(
                    f"lifespan {getattr(self._factory, '__qualname__', self._factory)!r} returned "
                    f"{type(manager).__name__}, not an async context manager; decorate it with "
                    "@contextlib.asynccontextmanager"
                )
            state = await manager.__aenter__()  # raises: nothing was opened, the entry fails
            self._manager, self._state = manager, state
        if self._depth == 0 and self._services is not None:
            services = self._services()
            if services is not None:
                try:
                    await services.__aenter__()
                except BaseException as exc:
                    await self._close(type(exc), exc, exc.__traceback__)
                    raise
                self._running = services
        self._depth += 1
        try:
            yield None if self._state is _NOT_SET else self._state
        except BaseException as exc:
            self._depth -= 1
            if self._depth == 0:
                await self._close(type(exc), exc, exc.__traceback__)
            raise
        else:
            self._depth -= 1
            if self._depth == 0:
                await self._close(None, None, None)

    async def _close(self, *exc_info: Any) -> None:
        services, self._running = self._running, None
        if services is not None:
            await services.__aexit__(None, None, None)
        manager, self._manager, self._state = self._manager, None, _NOT_SET
        if manager is not None:
            await manager.__aexit__(*exc_info)
