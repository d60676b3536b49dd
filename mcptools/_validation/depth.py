"""The instance nesting limit: a fixed number of levels, the same answer whatever the caller's stack.

Only a recursive schema (a tree whose ``items`` refer back to the root) lets the instance decide how deep
checking goes; everything else stops where the schema stops. For those, a value nesting more than
``MAX_DEPTH`` arrays / objects is refused up front (``value nests too deeply to validate``, or ``False``) by an
iterative scan, and the check itself runs with the recursion limit raised by enough frames for ``MAX_DEPTH``
levels, so a call made 500 frames down answers as one made at the top.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["MAX_DEPTH", "depth_guarded", "nests_deeper_than", "room_on_retry"]

MAX_DEPTH = 256
# Generated functions per level of the instance a recursive schema may use ($ref -> allOf -> items ...).
_FRAMES_PER_LEVEL = 8


def nests_deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` has more than ``limit`` arrays / objects inside one another (iterative: any depth)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(item, dict):
            stack.extend((child, depth + 1) for child in item.values() if isinstance(child, (dict, list, tuple)))
        else:
            stack.extend((child, depth + 1) for child in item if isinstance(child, (dict, list, tuple)))
    return False


class _StackRoom:
    """Raises the recursion limit while any guarded check runs; the last one out restores it (thread-safe)."""

    __slots__ = ("_lock", "_saved", "_users")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._users = 0
        self._saved = 0

    def __enter__(self) -> None:
        with self._lock:
            if self._users == 0:
                self._saved = sys.getrecursionlimit()
                sys.setrecursionlimit(self._saved + MAX_DEPTH * _FRAMES_PER_LEVEL)
            self._users += 1

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._users -= 1
            if self._users == 0:
                sys.setrecursionlimit(self._saved)


_ROOM = _StackRoom()


def depth_guarded(
    is_valid: Callable[[Any], bool], errors: Callable[[Any], list[str]], too_deep: str
) -> tuple[Callable[[Any], bool], Callable[[Any], list[str]]]:
    """``is_valid`` / ``errors`` with the fixed limit in front and room on the stack behind it."""

    def guarded_is_valid(x: Any) -> bool:
        if isinstance(x, (dict, list, tuple)):
            if nests_deeper_than(x, MAX_DEPTH):
                return False
            with _ROOM:
                return is_valid(x)
        return is_valid(x)

    def guarded_errors(x: Any) -> list[str]:
        if isinstance(x, (dict, list, tuple)):
            if nests_deeper_than(x, MAX_DEPTH):
                return [too_deep]
            with _ROOM:
                return errors(x)
        return errors(x)

    return guarded_is_valid, guarded_errors


def room_on_retry(
    is_valid: Callable[[Any], bool], errors: Callable[[Any], list[str]], too_deep: str
) -> tuple[Callable[[Any], bool], Callable[[Any], list[str]]]:
    """For a schema that compares whole values (``json_key`` stops at ``MAX_DEPTH`` by itself): a container that
    failed is checked again with room on the stack, so a deep caller gets the answer a shallow one does."""

    def retrying_is_valid(x: Any) -> bool:
        if is_valid(x):
            return True
        if not isinstance(x, (dict, list, tuple)):
            return False
        with _ROOM:
            return is_valid(x)

    def retrying_errors(x: Any) -> list[str]:
        found = errors(x)
        if found and found[0] == too_deep:
            with _ROOM:
                return errors(x)
        return found

    return retrying_is_valid, retrying_errors
