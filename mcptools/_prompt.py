"""Answering a tool's questions at the terminal, for ``mcptools call``.

A tool that asks the user something (``ctx.elicit``, ``ctx.elicit_url``) gets its answer from the person at
the terminal: each field of the requested form is prompted for and read back in its type, a URL is shown to
be opened. Prompts go to stderr, so stdout keeps holding only the JSON answer. End of input (Ctrl-D) cancels.
Only primitive fields exist in an elicitation form (the spec allows no nesting): strings, numbers, integers,
booleans and enums.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, TextIO, final

__all__ = ["TerminalPrompter"]

_YES: Final = frozenset({"y", "yes", "true", "1"})
_NO: Final = frozenset({"n", "no", "false", "0"})


class _Cancelled(Exception):
    """End of input: the user gave up."""


@final
@dataclass(slots=True, eq=False)
class TerminalPrompter:
    """Answers ``elicitation/create`` requests by asking on ``stdin`` and ``out`` (a terminal)."""

    stdin: TextIO
    out: TextIO

    def __call__(self, params: dict[str, Any]) -> dict[str, Any]:
        try:
            if params.get("mode") == "url":
                return self._url(params)
            return self._form(params)
        except _Cancelled:
            self.out.write("\n(cancelled)\n")
            return {"action": "cancel"}

    def _ask(self, prompt: str) -> str:
        self.out.write(prompt)
        self.out.flush()
        line = self.stdin.readline()
        if not line:
            raise _Cancelled
        return line.rstrip("\r\n")

    def _url(self, params: dict[str, Any]) -> dict[str, Any]:
        self.out.write(f"\nThe tool asks: {params.get('message', '')}\nOpen this URL: {params.get('url', '')}\n")
        while True:
            answer = self._ask("Press Enter once done there, 'd' to decline, 'c' to cancel: ").strip().lower()
            if answer in ("", "y", "yes"):
                return {"action": "accept"}
            if answer in ("d", "decline", "n", "no"):
                return {"action": "decline"}
            if answer in ("c", "cancel"):
                return {"action": "cancel"}

    def _form(self, params: dict[str, Any]) -> dict[str, Any]:
        schema = params.get("requestedSchema")
        schema = schema if isinstance(schema, Mapping) else {}
        properties = schema.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        required = schema.get("required")
        needed = set(required) if isinstance(required, list) else set()
        self.out.write(f"\nThe tool asks: {params.get('message', '')}\n")
        answer = self._ask("Answer? [Y]es, [d]ecline, [c]ancel: ").strip().lower()
        if answer in ("d", "decline", "n", "no"):
            return {"action": "decline"}
        if answer in ("c", "cancel"):
            return {"action": "cancel"}
        content: dict[str, Any] = {}
        for name, declared in properties.items():
            field = declared if isinstance(declared, Mapping) else {}
            value = self._field(str(name), field, name in needed)
            if value is not None:
                content[str(name)] = value
        return {"action": "accept", "content": content}

    def _field(self, name: str, field: Mapping[str, Any], required: bool) -> Any:
        label = field.get("title") or name
        choices = field.get("enum")
        kind = field.get("type", "string")
        hint = " / ".join(map(str, choices)) if isinstance(choices, list) else kind
        if kind == "boolean":
            hint = "y/n"
        default = field.get("default")
        suffix = f" [{default}]" if default is not None else ("" if required else " (optional)")
        description = field.get("description")
        if description:
            self.out.write(f"  {description}\n")
        while True:
            text = self._ask(f"  {label} ({hint}){suffix}: ").strip()
            if not text:
                if default is not None:
                    return default
                if not required:
                    return None
                self.out.write("  a value is required\n")
                continue
            value, problem = _parse(text, kind, choices)
            if problem is None:
                return value
            self.out.write(f"  {problem}\n")


def _parse(text: str, kind: object, choices: object) -> tuple[Any, str | None]:
    """The typed value of ``text`` for a field of ``kind``, or a reason to ask again."""
    if isinstance(choices, list):
        return (text, None) if text in choices else (None, f"choose one of: {', '.join(map(str, choices))}")
    if kind == "boolean":
        lowered = text.lower()
        if lowered in _YES:
            return True, None
        if lowered in _NO:
            return False, None
        return None, "answer y or n"
    if kind == "integer":
        try:
            return int(text), None
        except ValueError:
            return None, "enter a whole number"
    if kind == "number":
        try:
            return float(text), None
        except ValueError:
            return None, "enter a number"
    return text, None
