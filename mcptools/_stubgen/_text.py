"""Schema text made safe for Python source: string literals, docstrings, comments and identifiers.

Every piece of text that comes from a schema (a tool name, a property name, a description, an enum value)
reaches the generated module through one of the functions here, and each of them produces ASCII that the
tokenizer can only read as the inside of a string or a comment. No schema text is ever spliced into code as it
is: a description that contains triple quotes, backslashes, a newline or a line of Python stays text.
"""

from __future__ import annotations

import keyword
import re
import textwrap
from typing import final

__all__ = [
    "NameAllocator",
    "escaped_lines",
    "is_plain_identifier",
    "method_name",
    "pascal_case",
    "py_string",
]

_ASCII_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_WORD_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_SIMPLE_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_char(char: str) -> str:
    """One character as ASCII that means the same inside a Python string literal."""
    if char in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[char]
    code = ord(char)
    if 0x20 <= code < 0x7F:
        return char
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def py_string(text: str) -> str:
    """An ASCII-only Python literal whose value is exactly ``text``.

    Double-quoted unless the text holds more double quotes than single ones: the choice ``ruff format``
    makes, so the generated module is already formatted.
    """
    quote = "'" if text.count('"') > text.count("'") else '"'
    return quote + "".join("\\" + char if char == quote else _escape_char(char) for char in text) + quote


def _escape_docstring_line(line: str) -> str:
    """A line for the inside of a triple-quoted string: never two unescaped quotes in a row.

    A quote is escaped only when another quote follows it, so ``"c" or "f"`` stays readable while three
    quotes in a row can never appear unescaped. (A docstring whose text ends with a quote puts its closing
    quotes on their own line.)
    """
    parts: list[str] = []
    for index, char in enumerate(line):
        if char == '"':
            is_followed = index + 1 < len(line) and line[index + 1] == '"'
            parts.append('\\"' if is_followed else '"')
        elif 0xD800 <= ord(char) <= 0xDFFF:
            # A lone surrogate cannot be in a class's __doc__ (CPython encodes it as UTF-8): keep it visible.
            parts.append(f"\\\\u{ord(char):04x}")
        else:
            parts.append(_escape_char(char))
    return "".join(parts)


def _paragraph_lines(text: str, width: int) -> list[str]:
    """Text split into lines of at most ``width`` characters where it has spaces, blank runs collapsed."""
    raw_lines = text.replace("\r\n", "\n").split("\n")
    lines: list[str] = []
    for raw in raw_lines:
        stripped = raw.rstrip()
        if not stripped:
            if lines and lines[-1]:
                lines.append("")
            continue
        body = stripped.lstrip(" ")
        lead = " " * (len(stripped) - len(body))
        wrapped = textwrap.wrap(
            body,
            width=max(width - len(lead), 20),
            break_long_words=False,
            break_on_hyphens=False,
            replace_whitespace=False,
            drop_whitespace=True,
        )
        lines.extend(lead + piece for piece in wrapped)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def escaped_lines(text: str, width: int) -> list[str]:
    """``text`` stripped, dedented, wrapped at ``width`` and escaped: lines for a docstring or a comment.

    The escaping is the same for both, so nothing in a line can end a string, start a new line or leave a
    comment.
    """
    stripped = text.strip()
    if not stripped:
        return []
    first, _, rest = stripped.replace("\r\n", "\n").partition("\n")
    normalised = first.strip() + ("\n" + textwrap.dedent(rest) if rest else "")
    return [_escape_docstring_line(line) for line in _paragraph_lines(normalised, width)]


def is_plain_identifier(name: str) -> bool:
    """Whether ``name`` can be written as a TypedDict field or keyword argument as it is.

    ASCII only (the generated module stays ASCII), not a keyword, and not ``__private`` (a class body would
    mangle it).
    """
    return bool(_ASCII_IDENTIFIER.match(name)) and not keyword.iskeyword(name) and not name.startswith("__")


def pascal_case(text: str, fallback: str) -> str:
    """``get_weather`` -> ``GetWeather``: the words of ``text`` capitalised, ASCII letters and digits only."""
    words = _WORD_PARTS.findall(text)
    joined = "".join(word[:1].upper() + word[1:] for word in words)
    if not joined:
        return fallback
    if joined[0].isdigit():
        return fallback + joined
    return joined


def method_name(tool_name: str) -> str:
    """A method name for a tool: the name itself when it is a plain identifier, else a sanitised one."""
    cleaned = "".join(char if char.isascii() and (char.isalnum() or char == "_") else "_" for char in tool_name)
    if not cleaned or cleaned[0].isdigit() or cleaned[0] == "_":
        cleaned = "tool_" + cleaned
    if keyword.iskeyword(cleaned):
        cleaned += "_"
    return cleaned


@final
class NameAllocator:
    """Hands out names that are unique within one generated module: ``Name``, then ``Name2``, ``Name3``..."""

    __slots__ = ("_separator", "_taken")

    def __init__(self, reserved: frozenset[str], *, separator: str = "") -> None:
        self._taken: set[str] = set(reserved)
        self._separator = separator

    def allocate(self, base: str) -> str:
        """``base`` if it is free, else ``base`` with the smallest free counter (from 2)."""
        if base not in self._taken:
            self._taken.add(base)
            return base
        counter = 2
        while f"{base}{self._separator}{counter}" in self._taken:
            counter += 1
        name = f"{base}{self._separator}{counter}"
        self._taken.add(name)
        return name
