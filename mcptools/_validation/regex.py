"""JSON Schema patterns (ECMA-262 regular expressions) as Python ``re`` patterns.

The two dialects mostly agree; where they differ, the ECMA meaning wins: ``\\d`` and ``\\w`` are ASCII only,
``\\s`` is ECMA's whitespace set, ``.`` stops at every line terminator, ``$`` only matches at the very end,
``\\p{Letter}`` is a Unicode property. A pattern that nests unbounded quantifiers (``(a+)+``) can take time
exponential in the instance's length under a backtracking engine, so it is refused when the schema is compiled
rather than allowed to hang the server on a hostile argument.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcptools._errors import SchemaError

if TYPE_CHECKING:
    import re

__all__ = ["compile_pattern", "translate_pattern"]

_WORD = "a-zA-Z0-9_"
_SPACE = " \\t\\n\\r\\x0b\\x0c\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
_LINE_END = "\\n\\r\\u2028\\u2029"
_OUTSIDE_CLASS = {
    "d": "[0-9]",
    "D": "[^0-9]",
    "w": f"[{_WORD}]",
    "W": f"[^{_WORD}]",
    "s": f"[{_SPACE}]",
    "S": f"[^{_SPACE}]",
    "b": f"(?:(?<=[{_WORD}])(?![{_WORD}])|(?<![{_WORD}])(?=[{_WORD}]))",
    "B": f"(?:(?<=[{_WORD}])(?=[{_WORD}])|(?<![{_WORD}])(?![{_WORD}]))",
}
_INSIDE_CLASS = {"d": "0-9", "w": _WORD, "s": _SPACE, "b": "\\x08"}
# Python's re has no \p{...}; these classes give the same answers for letters and digits.
_PROPERTIES_OUTSIDE = {
    "L": "[^\\W\\d_]",
    "Letter": "[^\\W\\d_]",
    "Lu": "(?:(?=[^\\W\\d_])(?-i:[^a-z\\W\\d_]))",
    "N": "\\d",
    "Nd": "\\d",
    "Number": "\\d",
    "Decimal_Number": "\\d",
    "digit": "\\d",
}
_NEGATED_PROPERTIES_OUTSIDE = {
    "L": "[\\W\\d_]",
    "Letter": "[\\W\\d_]",
    "N": "\\D",
    "Nd": "\\D",
    "Number": "\\D",
}
_MAX_PATTERN_LENGTH = 10_000


def translate_pattern(pattern: str, where: str) -> str:
    """``pattern`` as Python ``re`` source with ECMA-262 meaning, or ``SchemaError``."""
    if len(pattern) > _MAX_PATTERN_LENGTH:
        raise SchemaError(f"pattern at '{where}' is longer than {_MAX_PATTERN_LENGTH} characters")
    out: list[str] = []
    i = 0
    in_class = False
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            e = pattern[i + 1]
            i += 2
            if e in "pP" and i < n and pattern[i] == "{":
                end = pattern.find("}", i)
                name = pattern[i + 1 : end].rsplit("=", maxsplit=1)[-1] if end > 0 else ""
                table = _PROPERTIES_OUTSIDE if e == "p" else _NEGATED_PROPERTIES_OUTSIDE
                if in_class or name not in table:
                    raise SchemaError(
                        f"pattern {pattern!r} at '{where}' uses the Unicode property escape \\{e}{{{name}}}, "
                        "which mcptools does not support there; spell the character class out"
                    )
                out.append(table[name])
                i = end + 1
            elif e == "u" and i < n and pattern[i] == "{":
                end = pattern.find("}", i)
                out.append(_escape_code_point(int(pattern[i + 1 : end], 16)))
                i = end + 1
            elif e == "c" and i < n and pattern[i].isalpha():
                out.append(_escape_code_point(ord(pattern[i]) % 32))
                i += 1
            elif e == "k" and i < n and pattern[i] == "<":
                end = pattern.find(">", i)
                out.append(f"(?P={pattern[i + 1 : end]})")
                i = end + 1
            elif e == "0" and not (i < n and pattern[i].isdigit()):
                out.append("\\x00")
            elif in_class and e in _INSIDE_CLASS:
                out.append(_INSIDE_CLASS[e])
            elif not in_class and e in _OUTSIDE_CLASS:
                out.append(_OUTSIDE_CLASS[e])
            elif e.isalnum() and e not in "dDwWsSbBtnrvfxu0123456789":
                # ECMA's identity escapes (\/, \-) are literal; Python-only escapes (\A, \Z) are not ECMA.
                raise SchemaError(f"pattern {pattern!r} at '{where}' has the escape \\{e}, which ECMA-262 lacks")
            else:
                out.append("\\" + e)
            continue
        if in_class:
            if c == "]":
                in_class = False
            elif c == "[":
                out.append("\\[")
                i += 1
                continue
            out.append(c)
        elif c == "[":
            if pattern.startswith("[^]", i):
                out.append("[\\s\\S]")
                i += 3
                continue
            if pattern.startswith("[]", i):
                out.append("(?!)")
                i += 2
                continue
            in_class = True
            out.append(c)
            if i + 1 < n and pattern[i + 1] == "^":
                out.append("^")
                i += 1
        elif c == ".":
            out.append(f"[^{_LINE_END}]")
        elif c == "$":
            out.append("\\Z")
        elif c == "(" and pattern.startswith("(?<", i) and i + 3 < n and pattern[i + 3] not in "=!":
            out.append("(?P<")
            i += 3
            continue
        else:
            out.append(c)
        i += 1
    _refuse_nested_quantifiers(pattern, where)
    return "".join(out)


def _escape_code_point(code: int) -> str:
    return f"\\U{code:08x}"


_UNBOUNDED = 1 << 30


def _quantifier(pattern: str, i: int) -> tuple[int, int, int]:
    """The quantifier starting at ``i`` as (min, max, index after it); (1, 1, i) when there is none."""
    if i >= len(pattern):
        return 1, 1, i
    c = pattern[i]
    low, high, after = 1, 1, i
    if c == "*":
        low, high, after = 0, _UNBOUNDED, i + 1
    elif c == "+":
        low, high, after = 1, _UNBOUNDED, i + 1
    elif c == "?":
        low, high, after = 0, 1, i + 1
    elif c == "{":
        end = pattern.find("}", i)
        body = pattern[i + 1 : end] if end > 0 else ""
        first, comma, second = body.partition(",")
        if first.isdigit() and (second.isdigit() or second == ""):
            low = int(first)
            high = (int(second) if second else _UNBOUNDED) if comma else low
            after = end + 1
    if after < len(pattern) and after > i and pattern[after] == "?":
        after += 1
    return low, high, after


def _refuse_nested_quantifiers(pattern: str, where: str) -> None:
    """Refuse ``(a+)+``-shaped patterns, which backtrack exponentially on a crafted argument.

    A repeated group is dangerous when one of its alternatives repeats something and has nothing mandatory
    that occurs once (``(a+)+``, ``(\\w+\\s?)*``); ``(\\d+\\.)+`` is fine, its dot separates the repeats.
    A repeated group with two identical alternatives (``(a|a)*``) is refused too; subtler overlaps
    (``(a|ab|b)*``-like ambiguity) are not detected.
    """
    # per open group: [branch repeats, branch has a single mandatory atom, any branch dangerous,
    #                  any branch repeats, every branch has a single mandatory atom]
    stack: list[list[bool]] = [[False, False, False, False, True]]
    # per open group: where its current alternative starts, and the text of the finished ones
    branches: list[tuple[int, list[str]]] = [(0, [])]
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        group: list[bool] | None = None
        if c == "(":
            stack.append([False, False, False, False, True])
            i += 1
            if pattern.startswith("?", i):
                close = (
                    pattern.find(">", i) + 1
                    if pattern.startswith("?<", i) and pattern[i + 2 : i + 3] not in "=!"
                    else 0
                )
                i = close if close > 0 else i + (3 if pattern.startswith("?<", i) else 2)
            branches.append((i, []))
            continue
        if c == "|":
            _end_branch(stack[-1])
            start, done = branches[-1]
            done.append(pattern[start:i])
            branches[-1] = (i + 1, done)
            i += 1
            continue
        if c in "^$":
            i += 1
            continue
        alternatives: list[str] = []
        if c == ")" and len(stack) > 1:
            group = stack.pop()
            _end_branch(group)
            start, alternatives = branches.pop()
            alternatives.append(pattern[start:i])
            i += 1
        elif c == "\\":
            i += 2
            if (i < n and pattern[i - 1] in "pPu" and pattern[i] == "{") or (
                pattern[i - 1] == "k" and i < n and pattern[i] == "<"
            ):
                i = max(pattern.find("}" if pattern[i] == "{" else ">", i) + 1, i + 1)
        elif c == "[":
            i += 1
            if i < n and pattern[i] == "^":
                i += 1
            if i < n and pattern[i] == "]":
                i += 1
            while i < n and pattern[i] != "]":
                i += 2 if pattern[i] == "\\" else 1
            i += 1
        else:
            i += 1
        low, high, i = _quantifier(pattern, i)
        frame = stack[-1]
        if group is not None:
            if high > 1 and len(set(alternatives)) < len(alternatives):
                raise SchemaError(
                    f"pattern {pattern!r} at '{where}' repeats a group with two identical alternatives "
                    "(like '(a|a)*'); that can take exponential time on a crafted argument, so remove one"
                )
            if high > 1 and group[2]:
                raise SchemaError(
                    f"pattern {pattern!r} at '{where}' repeats a group whose body only repeats "
                    "(like '(a+)+'); "
                    "that can take exponential time on a crafted argument, so rewrite it without the nesting"
                )
            if high > 1 or group[3]:
                frame[0] = True
            if low >= 1 and high == 1 and group[4]:
                frame[1] = True
        elif high > 1:
            frame[0] = True
        elif low >= 1:
            frame[1] = True


def _end_branch(frame: list[bool]) -> None:
    if frame[0] and not frame[1]:
        frame[2] = True
    frame[3] = frame[3] or frame[0]
    frame[4] = frame[4] and frame[1]
    frame[0] = frame[1] = False


def compile_pattern(pattern: Any, where: str) -> re.Pattern[str]:
    """The compiled ECMA-262 ``pattern``; ``SchemaError`` naming ``where`` when it is not a valid pattern."""
    import re

    if not isinstance(pattern, str):
        raise SchemaError(f"'pattern' at '{where}' must be a string, got {pattern!r}")
    source = translate_pattern(pattern, where)
    try:
        return re.compile(source)
    except re.error as exc:
        raise SchemaError(f"pattern {pattern!r} at '{where}' is not a valid regular expression: {exc}") from None
