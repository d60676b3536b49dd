"""Docstrings -> the tool description and one description per parameter.

Three common styles are read, and may even be mixed in one docstring:

- Google: ``Args:`` (or ``Arguments:``, ``Parameters:``, ...), then indented ``name (type): text`` entries;
- NumPy: a ``Parameters`` header underlined with dashes, then ``name : type`` lines with indented text;
- reST: ``:param name: text`` / ``:param type name: text`` fields.

The description a model sees is the summary and the body; parameter, return, raise and attribute sections
are taken out of the body because their content is published elsewhere (per property) or means nothing to a
caller.
Other sections (Examples, Notes) stay in the body as written.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from typing import Final, final

__all__ = ["Docstring", "parse_docstring"]

_PARAM_SECTIONS: Final = frozenset(
    {
        "args",
        "arguments",
        "parameters",
        "params",
        "keyword args",
        "keyword arguments",
        "kwargs",
        "other parameters",
        "attributes",
        "fields",
    }
)
_RETURN_SECTIONS: Final = frozenset({"returns", "return", "yields", "yield"})
_DROPPED_SECTIONS: Final = frozenset({"raises", "raise", "except", "exceptions", "warns"})
_KNOWN_SECTIONS: Final = (
    _PARAM_SECTIONS
    | _RETURN_SECTIONS
    | _DROPPED_SECTIONS
    | {"examples", "example", "notes", "note", "warnings", "warning", "see also", "todo", "references"}
)

_GOOGLE_HEADER: Final = re.compile(r"^([A-Za-z][A-Za-z ]*?)\s*:\s*$")
_INLINE_SECTION: Final = re.compile(r"^(Returns|Return|Yields|Raises)\s*:\s*(\S.*)$", re.IGNORECASE)
_NUMPY_UNDERLINE: Final = re.compile(r"^\s*[-=]{3,}\s*$")
_REST_FIELD: Final = re.compile(r"^:([^:\s][^:]*):(.*)$")
_GOOGLE_ENTRY: Final = re.compile(r"^(\*{0,2}[A-Za-z_][\w.]*)\s*(?:\(([^)]*)\))?\s*:(.*)$")
_NUMPY_ENTRY: Final = re.compile(r"^(\*{0,2}[A-Za-z_]\w*(?:\s*,\s*\*{0,2}[A-Za-z_]\w*)*)\s*(?::(.*))?$")
_REST_PARAM_FIELDS: Final = frozenset({"param", "parameter", "arg", "argument", "key", "keyword"})
_REST_RETURN_FIELDS: Final = frozenset({"returns", "return"})


@final
@dataclass(slots=True, eq=False)
class Docstring:
    """A parsed docstring: ``summary`` and ``body`` are "" when absent; ``params`` maps names to text."""

    summary: str
    body: str
    params: dict[str, str]
    returns: str | None

    @property
    def description(self) -> str | None:
        """Summary and body separated by a blank line; None when the docstring says nothing about the tool."""
        text = "\n\n".join(part for part in (self.summary, self.body) if part)
        return text or None


def parse_docstring(doc: str | None) -> Docstring:
    """Parse a docstring (raw ``__doc__`` or already cleaned) in Google, NumPy or reST style."""
    if not doc or not doc.strip():
        return Docstring("", "", {}, None)
    lines = [line.rstrip() for line in inspect.cleandoc(doc).expandtabs().splitlines()]
    parser = _Parser(lines)
    parser.run()
    summary, body = _split_summary(parser.body_lines)
    return Docstring(summary, body, parser.params, parser.returns)


@final
@dataclass(slots=True, eq=False)
class _Parser:
    lines: list[str]
    body_lines: list[str] = field(default_factory=list)
    params: dict[str, str] = field(default_factory=dict)
    returns: str | None = None

    def run(self) -> None:
        lines = self.lines
        index = 0
        while index < len(lines):
            if self._is_numpy_header(index):
                end = index + 2
                while end < len(lines) and not self._is_numpy_header(end):
                    end += 1
                self._section(lines[index].strip(), lines[index + 2 : end], lines[index:end], numpy=True)
                index = end
                continue
            line = lines[index]
            header = _GOOGLE_HEADER.match(line)
            if header is not None and header.group(1).strip().lower() in _KNOWN_SECTIONS:
                end = index + 1
                while end < len(lines) and (not lines[end] or _indent(lines[end]) > 0):
                    end += 1
                self._section(header.group(1), lines[index + 1 : end], lines[index:end], numpy=False)
                index = end
                continue
            inline = _INLINE_SECTION.match(line)
            if inline is not None:  # "Returns: the value." on one line, possibly wrapped onto indented ones
                end = index + 1
                while end < len(lines) and lines[end] and _indent(lines[end]) > 0:
                    end += 1
                text = _join([inline.group(2).strip(), *(text.strip() for text in lines[index + 1 : end])])
                if inline.group(1).lower() in _RETURN_SECTIONS:
                    self.returns = text
                index = end
                continue
            field = _REST_FIELD.match(line)
            if field is not None:
                end = index + 1
                while end < len(lines) and lines[end] and _indent(lines[end]) > 0:
                    end += 1
                continuation = [text.strip() for text in lines[index + 1 : end]]
                self._rest_field(field.group(1).split(), _join([field.group(2).strip(), *continuation]))
                index = end
                continue
            self.body_lines.append(line)
            index += 1

    def _is_numpy_header(self, index: int) -> bool:
        lines = self.lines
        return (
            index + 1 < len(lines)
            and bool(lines[index].strip())
            and _indent(lines[index]) == 0
            and _NUMPY_UNDERLINE.match(lines[index + 1]) is not None
            and not _NUMPY_UNDERLINE.match(lines[index])
        )

    def _section(self, name: str, content: list[str], raw: list[str], *, numpy: bool) -> None:
        key = " ".join(name.lower().split())
        if key in _PARAM_SECTIONS:
            for names, text in _entries(content, numpy=numpy):
                for param in names:
                    self.params[param] = text
        elif key in _RETURN_SECTIONS:
            if numpy:
                texts = [text or " ".join(names) for names, text in _entries(content, numpy=True)]
                self.returns = "\n\n".join(texts) or None
            else:
                self.returns = _join([line.strip() for line in content]) or None
        elif key not in _DROPPED_SECTIONS:
            self.body_lines.extend(raw)

    def _rest_field(self, words: list[str], text: str) -> None:
        kind = words[0].lower()
        if kind in _REST_PARAM_FIELDS and len(words) >= 2:
            self.params[words[-1].lstrip("*")] = text
        elif kind in _REST_RETURN_FIELDS:
            self.returns = text or None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _entries(content: list[str], *, numpy: bool) -> list[tuple[list[str], str]]:
    """Split a parameter section into (names, text) entries; entries start at the section's least indent."""
    indents = [_indent(line) for line in content if line.strip()]
    if not indents:
        return []
    base = min(indents)
    entries: list[tuple[list[str], list[str]]] = []
    for line in content:
        if line.strip() and _indent(line) == base:
            stripped = line.strip()
            if numpy:
                match = _NUMPY_ENTRY.match(stripped)
                names = [n.strip().lstrip("*") for n in match.group(1).split(",")] if match else [stripped]
                entries.append((names, []))
            else:
                match = _GOOGLE_ENTRY.match(stripped)
                if match is None:
                    entries.append(([stripped.rstrip(":").lstrip("*")], []))
                else:
                    entries.append(([match.group(1).lstrip("*")], [match.group(3).strip()]))
        elif entries:
            entries[-1][1].append(line.strip())
    return [(names, _join(text)) for names, text in entries]


def _join(lines: list[str]) -> str:
    """Wrapped lines -> one line per paragraph; blank lines separate paragraphs."""
    paragraphs: list[str] = []
    current: list[str] = []
    for line in lines:
        if line:
            current.append(line)
        elif current:
            paragraphs.append(" ".join(current))
            current = []
    if current:
        paragraphs.append(" ".join(current))
    return "\n\n".join(paragraphs)


def _split_summary(lines: list[str]) -> tuple[str, str]:
    while lines and not lines[0].strip():
        lines = lines[1:]
    end = 0
    while end < len(lines) and lines[end].strip():
        end += 1
    summary = " ".join(line.strip() for line in lines[:end])
    body = "\n".join(lines[end:]).strip("\n")
    body = re.sub(r"\n{3,}", "\n\n", body).strip()
    return summary, body
