"""``ctx.session``: the official SDK's low-level session as tools written for it call it, mapped onto ``Context``.

A tool moved over by its import line still calls ``await ctx.session.create_message(...)`` or
``ctx.session.send_resource_list_changed()``. Each method the SDK's examples use is answered by what ``Context``
already does (sampling, logging, progress, elicitation, roots); results come back as the SDK's models when the SDK
is installed (the tool reads ``result.content.text``), else as plain attribute views. What has no meaning here
raises a ``UsageError`` naming the mcptools way.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Final, final

from ._errors import UsageError

__all__ = ["PeerSession"]

logger = logging.getLogger("mcptools")

# The sampling parameters the SDK takes as keywords, by their wire names.
_SAMPLING_EXTRAS: Final = {
    "include_context": "includeContext",
    "stop_sequences": "stopSequences",
    "metadata": "metadata",
    "model_preferences": "modelPreferences",
    "tools": "tools",
    "tool_choice": "toolChoice",
}


def _wire(value: Any) -> Any:
    """An SDK model as its JSON (wire names), a list of them item by item; anything else as it is."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(value, (list, tuple)):
        return [_wire(item) for item in value]
    return value


def _view(model: str, data: Any) -> Any:
    """``data`` as the SDK's ``mcp.types`` model named ``model`` when the SDK is installed (the code calling
    ``ctx.session`` was written for it), else as nested attribute views."""
    try:
        import mcp.types
    except ImportError:
        return _namespace(data)
    return getattr(mcp.types, model).model_validate(data)


def _namespace(data: Any) -> Any:
    if isinstance(data, Mapping):
        return SimpleNamespace(**{key: _namespace(value) for key, value in data.items()})
    if isinstance(data, list):
        return [_namespace(item) for item in data]
    return data


@final
@dataclass(slots=True, eq=False)
class PeerSession:
    """What ``ctx.session`` offers: the SDK's ``ServerSession`` methods that tools call, each a ``Context`` call."""

    # The Context whose methods answer (typed Any: _context imports this module, and the graph has no cycle).
    _context: Any

    async def create_message(
        self,
        messages: Sequence[Any],
        *,
        max_tokens: int,
        system_prompt: str | None = None,
        temperature: float | None = None,
        related_request_id: object = None,
        **extras: Any,
    ) -> Any:
        """Sampling, as ``ctx.sample`` asks it; the answer as the SDK's ``CreateMessageResult``."""
        unknown = extras.keys() - _SAMPLING_EXTRAS.keys()
        if unknown:
            raise UsageError(f"ctx.session.create_message: unknown argument {sorted(unknown)[0]!r}; use ctx.sample")
        context = self._context
        request = context.sampling(
            _wire(list(messages)), max_tokens=max_tokens, system_prompt=system_prompt, temperature=temperature
        )
        for key, value in extras.items():
            if value is not None:
                request["params"][_SAMPLING_EXTRAS[key]] = _wire(value)
        name = context._key("sample", None)
        answers = await context.ask({name: request})
        return _view("CreateMessageResult", answers[name])

    async def elicit_form(
        self, message: str, requested_schema: Mapping[str, Any], related_request_id: object = None
    ) -> Any:
        """Form elicitation, as ``ctx.elicit`` asks it; the answer as the SDK's ``ElicitResult``."""
        answer = await self._context.elicit(message, dict(requested_schema))
        return _view("ElicitResult", dict(answer))

    elicit = elicit_form  # the SDK 1.x name

    async def elicit_url(self, message: str, url: str, elicitation_id: str, related_request_id: object = None) -> Any:
        """URL elicitation, as ``ctx.elicit_url`` asks it; the answer as the SDK's ``ElicitResult``."""
        answer = await self._context.elicit_url(message, url, elicitation_id=elicitation_id)
        return _view("ElicitResult", {"action": answer.action})

    async def list_roots(self) -> Any:
        """The client's roots, as ``ctx.list_roots`` asks for them, as the SDK's ``ListRootsResult``."""
        return _view("ListRootsResult", {"roots": await self._context.list_roots()})

    async def send_log_message(
        self, level: str, data: Any, logger: str | None = None, related_request_id: object = None
    ) -> None:
        """A log message, as ``ctx.log`` sends it."""
        await self._context.log(level, data, logger=logger)  # ctx.log checks the level

    async def send_progress_notification(
        self,
        progress_token: str | int,
        progress: float,
        total: float | None = None,
        message: str | None = None,
        related_request_id: object = None,
    ) -> None:
        """A progress notification for the token given (``ctx.report_progress`` uses the call's own)."""
        params: dict[str, Any] = {"progressToken": progress_token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        await self._context._send({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})

    async def send_tool_list_changed(self) -> None:
        """Sent as the SDK sends it; mcptools also sends it by itself whenever the served tools change."""
        await self._context._send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})

    async def send_resource_list_changed(self) -> None:
        """Nothing to send: mcptools serves no resources, so their (empty) list never changes."""
        logger.debug("ctx.session.send_resource_list_changed: mcptools serves no resources; nothing is sent")

    async def send_prompt_list_changed(self) -> None:
        """Nothing to send: mcptools serves no prompts, so their (empty) list never changes."""
        logger.debug("ctx.session.send_prompt_list_changed: mcptools serves no prompts; nothing is sent")

    async def send_resource_updated(self, uri: object) -> None:
        raise UsageError(
            "ctx.session.send_resource_updated: mcptools serves no resources; serve them from another MCP server"
        )

    def check_client_capability(self, capability: Any) -> bool:
        """Whether the client declared each capability ``capability`` (the SDK's ``ClientCapabilities``) names."""
        wanted = _wire(capability)
        declared = self._context.client_capabilities
        return isinstance(wanted, Mapping) and all(
            key in declared for key, value in wanted.items() if value is not None
        )

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        raise UsageError(
            f"ctx.session.{name}: the SDK's low-level session is not carried over; use Context's own methods "
            "(ctx.sample, ctx.elicit, ctx.elicit_url, ctx.list_roots, ctx.log, ctx.report_progress)"
        )
