"""How a registry's tasks are kept and run: ``TaskConfig``, read from the serving options' ``task_*`` keys."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Final, final

from .operations import DEFAULT_LEASE_MS, DEFAULT_MAX_ATTEMPTS

__all__ = ["TaskConfig", "config_from_options"]

_SHARED_SCHEMES: Final = ("sqlite", "redis", "rediss", "unix")


@final
@dataclass(frozen=True, slots=True)
class TaskConfig:
    """How tasks are kept and run: where (``store``, a URL), by how many concurrent runs in this process
    (``workers``; 0: this process only creates and answers tasks, ``mcptools worker`` runs them), kept how long
    after creation (``ttl_ms``), polled how often (``poll_interval_ms``, suggested to clients), and how a
    worker's death is noticed (``lease_ms``) and survived (``max_attempts`` runs lost before the task fails)."""

    store: str = "memory://"
    workers: int = 16
    ttl_ms: int = 3_600_000
    poll_interval_ms: int = 1_000
    lease_ms: int = DEFAULT_LEASE_MS
    max_attempts: int = DEFAULT_MAX_ATTEMPTS

    @property
    def shared(self) -> bool:
        """Whether other processes can reach the store (every replica and worker then shares the tasks)."""
        return self.store.partition("://")[0] in _SHARED_SCHEMES


def config_from_options(options: Mapping[str, Any], base: TaskConfig | None = None) -> TaskConfig:
    """The ``TaskConfig`` of resolved serving options (their ``task_*`` keys; seconds become milliseconds)."""
    config = base if base is not None else TaskConfig()
    store = options.get("task_store")
    return replace(
        config,
        store=store if store is not None else config.store,
        workers=int(options.get("task_workers", config.workers)),
        ttl_ms=_milliseconds(options.get("task_ttl"), config.ttl_ms),
        poll_interval_ms=_milliseconds(options.get("task_poll_interval"), config.poll_interval_ms),
        lease_ms=_milliseconds(options.get("task_lease"), config.lease_ms),
        max_attempts=int(options.get("task_attempts", config.max_attempts)),
    )


def _milliseconds(seconds: object, default: int) -> int:
    if seconds is None:
        return default
    return max(1, round(float(seconds) * 1000))  # type: ignore[arg-type]
