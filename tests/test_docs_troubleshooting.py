"""The troubleshooting page quotes mcptools' own messages: each one in its tables is held to a string the package
builds, so a reworded message (or a misquoted one) fails here instead of misleading a reader.

The strings are read from the package's source: every string expression (a constant, an f-string, a sum) becomes
a pattern whose computed parts are wildcards. A wildcard may stand for a short part (a name, a value, a
number) or for data (a list, a repr, a parser's position: no run of words); a longer part in words must itself
be a message the package builds (a validator's line inside ``Invalid arguments: ...``), or a loose pattern such
as ``f"{where}: parameter {rest}"`` would pass any text, a stale quote included."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "troubleshooting.md"
# A pattern made mostly of placeholders (f"{where}: {message}") would match anything: it must hold this many
# characters of literal text to stand for a message.
MIN_LITERAL = 12
# The longest part of a message a wildcard may stand for without being a message the package builds itself, and
# what tells words apart from data (three lower-case words in a row: prose).
SHORT = 40
PROSE = re.compile(r"[a-z]{2,} [a-z]{2,} [a-z]{2,}")
WILD = "(.*?)"


def _pattern(node: ast.expr, names: dict[str, str]) -> tuple[str, int]:
    """A regex for the strings ``node`` can build (a computed part is a wildcard group) and its count of literal
    chars; ``names`` are the module's string constants (``INVALID_ARGUMENTS + ...``, ``f"...; {FIX}"``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return re.escape(node.value), len(node.value)
    if isinstance(node, ast.Name) and node.id in names:
        return re.escape(names[node.id]), len(names[node.id])
    if isinstance(node, ast.FormattedValue) and node.conversion == -1 and node.format_spec is None:
        return _pattern(node.value, names)
    if isinstance(node, ast.JoinedStr):
        parts = [_pattern(value, names) for value in node.values]
        return "".join(part for part, _ in parts), sum(count for _, count in parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _pattern(node.left, names), _pattern(node.right, names)
        return left[0] + right[0], left[1] + right[1]
    return WILD, 0


def _constants(tree: ast.Module) -> dict[str, str]:
    """The module's top-level ``NAME = "text"`` (or ``NAME: Final = "text"``) constants."""
    found: dict[str, str] = {}
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
        target = node.target if isinstance(node, ast.AnnAssign) else target
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        if isinstance(target, ast.Name) and isinstance(value, ast.Constant) and isinstance(value.value, str):
            found[target.id] = value.value
    return found


@cache
def source_patterns() -> tuple[tuple[str, re.Pattern[str], re.Pattern[str]], ...]:
    """Every message-like string expression in the package: its longest literal piece (which a message must
    contain before the patterns are tried), and the pattern a whole message must match after an optional
    computed prefix: ``where: `` (the function or registry a definition-time error starts with) for a message
    on the page, or any short head for a part inside another message (``'amount' `` before ``has annotation``)."""
    found: dict[str, tuple[str, re.Pattern[str], re.Pattern[str]]] = {}
    for path in sorted((ROOT / "mcptools").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = _constants(tree)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Constant, ast.Name, ast.JoinedStr, ast.BinOp)):
                pattern, literal = _pattern(node, names)
                if literal >= MIN_LITERAL and pattern not in found:
                    longest = max(pattern.split(WILD), key=len)
                    piece = re.sub(r"\\(.)", r"\1", longest)
                    found[pattern] = (
                        piece,
                        re.compile(f"(?:(.+?): )?(?:{pattern})", re.S),
                        re.compile(f"(?:(.+?)(?:: | ))?(?:{pattern})", re.S),
                    )
    return tuple(found.values())


def builds(message: str, depth: int = 2, *, inner: bool = False) -> bool:
    """Whether the package builds ``message``: a pattern matches it with every computed part short, data, or
    built in turn (``depth`` levels down)."""
    for piece, whole, part in source_patterns():
        if piece not in message:
            continue
        found = (part if inner else whole).fullmatch(message)
        if found is None:
            continue
        long = [text for text in found.groups() if text is not None and len(text) > SHORT and PROSE.search(text)]
        if all(depth > 0 and builds(text, depth - 1, inner=True) for text in long):
            return True
    return False


def quoted_messages() -> list[str]:
    """The code spans of the page's table cells that quote a message (the first cell holding one, per row)."""
    messages = []
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        if not line.startswith("| ") or line.startswith("|---"):
            continue
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]]
        for cell in cells:
            span = re.fullmatch(r"`(.+)`", cell)
            if span:
                messages.append(span.group(1).replace("\\|", "|"))
                break
    return messages


def test_the_page_quotes_enough_messages_to_be_worth_checking() -> None:
    assert len(quoted_messages()) >= 30


def test_every_quoted_message_is_one_mcptools_builds() -> None:
    unknown = [message for message in quoted_messages() if not builds(message)]
    assert not unknown, "messages on docs/troubleshooting.md that no string in mcptools builds:\n" + "\n".join(unknown)


def test_a_misquoted_message_is_caught() -> None:
    assert builds("Unknown tool: forecst")
    assert builds(
        "tool 'h' (function app.h): parameter 'x' has no annotation, so it accepts any JSON value unchecked "
        "(schema {}); annotate it (for example x: str) to publish and check the type, or write x: typing.Any to "
        "accept any value on purpose"
    )
    assert not builds("Tool not found: forecst")
    assert not builds("Forbidden: the host is not allowed")
    # A stale message: the words changed, though it still fits the loose "{where}: parameter {rest}".
    assert not builds(
        "tool 'search' (function app.search): parameter 'query' has no annotation; annotate it (for example "
        "query: str) so its type can be published, or use typing.Any to accept any JSON value"
    )
