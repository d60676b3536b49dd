"""JSON Schema patterns (ECMA-262 regular expressions) as Python ``re`` patterns.

The two dialects mostly agree; where they differ, the ECMA meaning wins: ``\\d`` and ``\\w`` are ASCII only,
``\\s`` is ECMA's whitespace set, ``.`` stops at every line terminator, ``$`` only matches at the very end,
``\\p{Letter}`` is a Unicode property. Under a backtracking engine an ambiguous pattern (``(a+)+``,
``(a|aa)+$``) can take time exponential in the instance's length, so ``compile_pattern`` hands Python's ``re``
only the patterns ``backtrack.runs_in_linear_time`` proves safe and runs all others on the linear-time NFA.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from mcptools._errors import SchemaError

__all__ = ["PatternMatcher", "compile_pattern", "translate_pattern"]

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
        if pattern[i] == "\\" and i + 1 < n:
            text, i = _escape(pattern, i + 2, in_class, where)
        elif in_class:
            text, i, in_class = _in_class(pattern, i)
        else:
            text, i, in_class = _outside_class(pattern, i)
        out.append(text)
    return "".join(out)


def _escape(pattern: str, i: int, in_class: bool, where: str) -> tuple[str, int]:
    """The escape whose letter is ``pattern[i - 1]`` as ``re`` source, and where the pattern goes on."""
    e = pattern[i - 1]
    n = len(pattern)
    if e in "pP" and i < n and pattern[i] == "{":
        end = _closing(pattern, i, "}", f"\\{e}{{", where)
        name = pattern[i + 1 : end].rsplit("=", maxsplit=1)[-1]
        table = _PROPERTIES_OUTSIDE if e == "p" else _NEGATED_PROPERTIES_OUTSIDE
        if in_class or name not in table:
            raise SchemaError(
                f"pattern {pattern!r} at '{where}' uses the Unicode property escape \\{e}{{{name}}}, "
                "which mcptools does not support there; spell the character class out"
            )
        return table[name], end + 1
    if e == "u" and i < n and pattern[i] == "{":
        end = _closing(pattern, i, "}", "\\u{", where)
        return _escape_code_point(_code_point(pattern, pattern[i + 1 : end], where)), end + 1
    if e == "c" and i < n and pattern[i].isalpha():
        return _escape_code_point(ord(pattern[i]) % 32), i + 1
    if e == "k" and i < n and pattern[i] == "<":
        end = _closing(pattern, i, ">", "\\k<", where)
        return f"(?P={pattern[i + 1 : end]})", end + 1
    if e == "0" and not (i < n and pattern[i].isdigit()):
        return "\\x00", i
    if in_class and e in _INSIDE_CLASS:
        return _INSIDE_CLASS[e], i
    if not in_class and e in _OUTSIDE_CLASS:
        return _OUTSIDE_CLASS[e], i
    if e.isalnum() and e not in "dDwWsSbBtnrvfxu0123456789":
        # ECMA's identity escapes (\/, \-) are literal; Python-only escapes (\A, \Z) are not ECMA.
        raise SchemaError(f"pattern {pattern!r} at '{where}' has the escape \\{e}, which ECMA-262 lacks")
    return "\\" + e, i


def _in_class(pattern: str, i: int) -> tuple[str, int, bool]:
    """One character inside a class: (its ``re`` source, where the pattern goes on, still in the class)."""
    c = pattern[i]
    if c == "]":
        return c, i + 1, False
    if c == "[" or (c in "&|~" and pattern.startswith(c, i + 1)):
        # Literal in an ECMA class; re reads "[", "&&", "||" and "~~" there as (future) set syntax.
        return "\\" + c, i + 1, True
    return c, i + 1, True


def _outside_class(pattern: str, i: int) -> tuple[str, int, bool]:
    """One character outside a class: (its ``re`` source, where the pattern goes on, now in a class)."""
    c = pattern[i]
    if c == "[":
        if pattern.startswith("[^]", i):
            return "[\\s\\S]", i + 3, False
        if pattern.startswith("[]", i):
            return "(?!)", i + 2, False
        if i + 1 < len(pattern) and pattern[i + 1] == "^":
            return "[^", i + 2, True
        return c, i + 1, True
    if c == ".":
        return f"[^{_LINE_END}]", i + 1, False
    if c == "$":
        return "\\Z", i + 1, False
    if c == "(" and pattern.startswith("(?<", i) and i + 3 < len(pattern) and pattern[i + 3] not in "=!":
        return "(?P<", i + 3, False
    return c, i + 1, False


def _closing(pattern: str, start: int, closer: str, escape: str, where: str) -> int:
    """Where the escape opened at ``start`` closes; an unclosed one is a ``SchemaError``, never a restart at 0."""
    end = pattern.find(closer, start)
    if end < 0:
        raise SchemaError(
            f"pattern {pattern!r} at '{where}' has an unterminated {escape} escape; close it with {closer!r}"
        )
    return end


_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def _code_point(pattern: str, digits: str, where: str) -> int:
    # int(..., 16) alone would accept '_', spaces and signs, and raise a bare ValueError on the rest.
    if not digits or not _HEX_DIGITS.issuperset(digits) or int(digits, 16) > 0x10FFFF:
        raise SchemaError(
            f"pattern {pattern!r} at '{where}' has the escape \\u{{{digits}}}, which is not a code point; "
            "write hex digits for a code point up to 10FFFF"
        )
    return int(digits, 16)


def _escape_code_point(code: int) -> str:
    return f"\\U{code:08x}"


@runtime_checkable
class PatternMatcher(Protocol):
    """What validators need of a compiled pattern: ``re.Pattern`` or the linear-time ``NFAMatcher``."""

    def search(self, string: str, /) -> object:
        """Something truthy when the pattern matches somewhere in ``string``, else ``None``."""
        ...


def compile_pattern(pattern: Any, where: str) -> PatternMatcher:
    """The compiled ECMA-262 ``pattern``; ``SchemaError`` naming ``where`` when it is not a valid pattern.

    Decided once per schema: ``re`` (C, fast) when ``runs_in_linear_time`` proves it cannot backtrack badly,
    else the NFA, whose time is linear in the text whatever the pattern. A pattern neither can run safely (a
    backreference or long lookaround in a risky place, or counted repeats too big to expand) is refused.
    """
    import re
    import warnings

    # Imported here, not at the top: ``import mcptools`` should not pay for the parser, the NFA and the rule.
    from .backtrack import needs_memory, runs_in_linear_time
    from .nfa import MAX_STATES, TooLarge, build_matcher
    from .regex_syntax import Unsupported, parse

    if not isinstance(pattern, str):
        raise SchemaError(f"'pattern' at '{where}' must be a string, got {pattern!r}")
    source = translate_pattern(pattern, where)
    try:
        # re is the judge of syntax (a public, stable contract); our parser then reads only source re accepts.
        with warnings.catch_warnings():
            # "Possible set difference" for a class holding "--", which re reads today as ECMA does (a range
            # or a literal hyphen); the translator escapes the other set-syntax characters.
            warnings.simplefilter("ignore", FutureWarning)
            compiled = re.compile(source)
        tree = parse(source)
    except re.error as exc:
        raise SchemaError(f"pattern {pattern!r} at '{where}' is not a valid regular expression: {exc}") from None
    except RecursionError:
        raise SchemaError(f"pattern {pattern!r} at '{where}' nests groups too deeply") from None
    except Unsupported as exc:
        raise SchemaError(f"pattern {pattern!r} at '{where}' uses {exc}, which ECMA-262 patterns lack") from None
    if runs_in_linear_time(tree):
        return compiled
    try:
        return build_matcher(source, tree)
    except TooLarge:
        raise SchemaError(
            f"pattern {pattern!r} at '{where}' expands into more than {MAX_STATES} matcher states; "
            "use smaller counted repeats ({n,m}) or fewer of them"
        ) from None
    except Unsupported as exc:
        if not needs_memory(tree):
            raise SchemaError(f"pattern {pattern!r} at '{where}' uses {exc}, which ECMA-262 patterns lack") from None
    raise SchemaError(
        f"pattern {pattern!r} at '{where}' uses a backreference or a lookaround longer than one character "
        "where a backtracking matcher can take exponential time on a crafted argument; mcptools runs those "
        "only in anchored ('^...') patterns whose repeats apply to single characters, and not right after a "
        "repeat that could still match the next character"
    )
