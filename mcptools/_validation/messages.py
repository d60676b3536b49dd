"""The error grammar: the contract's strings, and the same voice with a path for everything deeper.

For an object of arguments the strings are the contract's, in its order: ``missing required property '<name>'``
for each missing required name (in ``required`` order), then for each argument in its own order at most one of
``unexpected property '<name>'``, ``property '<name>' must be <type>``, ``property '<name>' must be one of [...]``
(Python's repr of the enum list).

Deeper, the same voice with a path: ``<subject> <predicate>``, where the subject is ``value`` for the instance
itself, ``property '<path>'`` below an object and ``item '<path>'`` below a top-level array; a path joins names
with dots and indices with brackets (``where.street``, ``tags[2]``, ``[0].name``); an empty name, or one holding
``.``, ``[``, ``]`` or ``'``, is written as a JSON string in brackets (``where[""]``, ``sort["user.age"]``), so it
is never mistaken for its parent or for two nested names. A path of one name alone is the name itself, as the
contract writes it (``property 'user.age' must be integer``); only the empty name keeps its brackets there.
Predicates: ``must be string or null``, ``must be null`` / ``must be 'on'`` (const, in
JSON's words), ``must be >= 1``, ``must be at most 20 characters``, ``must match pattern '...'``, ``must match
format 'date-time'``, ``must have at least 1 item``, ``must not contain duplicate items``, ``must contain at least
1 item that is object and has property 'id'``, ``must not have property 'a'``, ``must be >= 5 or <= 1``, ``must
match exactly one of: A, B`` ... (subschemas in words: see below; a failed union reports the branch the
value was meant for: see ``choice``). Fixed shapes: ``missing required property '<path>'``, ``missing property
'<path>' (required when '<path>' is present)``, ``unexpected property '<path>'`` / ``unexpected item '<path>'``
(plus `` (did you mean '<name>'?)`` only with ``suggest_names=True``), ``value nests too deeply to validate`` (more than
256 levels under a recursive schema), and a last ``... and N more errors`` when there are over 100 lines.

At most one error per location (the instance, or a property or item at any depth): a wrong type, enum or const
ends that location; otherwise its first failing keyword is reported, then its children.

Every word of every message is written here and nowhere else: the error paths (``errgen``, ``collect``) and
the union chooser (``choice``) only call these functions. A keyword checked against one value has its words
in ``KEYWORD_WORDS``; subschemas a message must name (``not``, ``contains``, anyOf / oneOf) are said in words
by ``describe_schema`` and the ``*_phrase`` functions: a model reads these, so a subschema is never shown as a
Python dict but as predicates (``be >= 5``, ``have property 'id'``, ``match pattern '^a'``) that read after
``must`` (``must not have property 'a'``), after ``item that`` (``is object and has property 'id'``), or as a
noun for a branch list (``Cat``, ``object that has 'kind' = 'cat'``). Values use JSON's words (``null``,
``true``) with strings quoted as in the enum lists (``'on'``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

__all__ = [
    "FORMAT_WORDS",
    "INVALID_ARGUMENTS",
    "KEYWORD_WORDS",
    "NOT_ALLOWED",
    "NO_MATCH",
    "TOO_DEEP",
    "any_of_phrase",
    "child_text",
    "closest_name",
    "const_predicate",
    "contains_phrase",
    "describe_schema",
    "enum_predicate",
    "format_failure",
    "invalid_arguments",
    "json_text",
    "keyword_part",
    "keyword_predicate",
    "matches_several",
    "missing_at",
    "missing_dependent",
    "missing_required",
    "more_errors",
    "name_segment",
    "negation_phrase",
    "one_of_phrase",
    "property_name_error",
    "render_path",
    "shown_path",
    "subject",
    "subject_at",
    "type_phrase",
    "type_predicate",
    "unexpected",
    "unexpected_at",
    "with_guess",
]


Path = tuple[Any, ...]


def name_segment(name: str) -> str:
    """How a property name follows its parent in a path: ``.street``, or ``[""]`` / ``["user.age"]``."""
    # Four substring tests beat a regex search on the short names arguments have (this runs per error).
    if name and not ("." in name or "[" in name or "]" in name or "'" in name):
        return "." + name
    return "[" + json.dumps(name, ensure_ascii=False) + "]"


def child_text(path: str, name: Any) -> str:
    """The path text of property ``name`` under path text ``path`` (odd names always bracketed)."""
    # JSON keys are strings; a Python caller's other keys are named as str() writes them.
    segment = name_segment(str(name))
    if path or segment[0] == "[":
        return path + segment
    return segment[1:]


def shown_path(path: str) -> str:
    """Path text as a message shows it: one odd name alone is the bare name, as the contract writes it."""
    if path[:2] == '["' and path[-2:] == '"]' and len(path) > 4:
        try:
            name = json.loads(path[1:-1])
        except ValueError:  # several segments: '["a.b"]["c.d"]'
            return path
        if isinstance(name, str):
            return name
    return path


def render_path(path: Path) -> str:
    """A path as messages show it: ``where.street``, ``tags[2]``, ``[0].a``, ``sort["user.age"]``."""
    if len(path) == 1 and type(path[0]) is not int and path[0] != "":
        return str(path[0])
    text = ""
    for segment in path:
        text = text + f"[{segment}]" if type(segment) is int else child_text(text, segment)
    return text


# The generated errors path keeps a location as its rendered text ("sort.where", "tags[2]", "" for the value
# itself), so these take that text; they run once per error, so the common case takes the shortest road.
def subject_at(path: str) -> str:
    if not path:
        return "value"
    if path[0] != "[":
        return "property '" + path + "'"
    if path[1] != '"':
        return "item '" + path + "'"
    return "property '" + shown_path(path) + "'"


def _child_shown(path: str, name: Any) -> str:
    """``child_text`` as a message shows it: below the value itself a name stands bare (unless empty)."""
    if path:
        return path + name_segment(str(name))
    text = str(name)
    return text if text else '[""]'


def missing_at(path: str, name: Any) -> str:
    return "missing required property '" + _child_shown(path, name) + "'"


def unexpected_at(path: str, name: Any) -> str:
    return "unexpected property '" + _child_shown(path, name) + "'"


def subject(path: Path) -> str:
    if not path:
        return "value"
    noun = "item" if type(path[0]) is int else "property"
    return f"{noun} '{render_path(path)}'"


# -- fixed shapes ------------------------------------------------------------------------------------------
NOT_ALLOWED = "value is not allowed"  # the schema is ``false``
NO_MATCH = "value does not match the schema"  # a failure no keyword explains (never expected)
TOO_DEEP = "value nests too deeply to validate"


def missing_required(shown: str) -> str:
    return f"missing required property '{shown}'"


def missing_dependent(shown: str, because: str) -> str:
    return f"missing property '{shown}' (required when '{because}' is present)"


def unexpected(shown: str, *, item: bool = False) -> str:
    return f"unexpected {'item' if item else 'property'} '{shown}'"


def with_guess(message: str, guess: str | None) -> str:
    """``suggest_names=True``: the declared name a misspelt one most likely meant."""
    return message if guess is None else f"{message} (did you mean '{guess}'?)"


def property_name_error(message: str) -> str:
    """A property name failing ``propertyNames``; a name no schema allows is simply an unexpected property."""
    return message if message.startswith("unexpected ") else "name of " + message


def matches_several(message: str, hits: int) -> str:
    return f"{message} (it matches {hits})"


def more_errors(rest: int) -> str:
    return f"... and {rest} more errors"


# -- predicates ----------------------------------------------------------------------------------------------
Part = tuple[str, str]  # (verb in the infinitive, the rest): ("be", ">= 5")

# What a value failing each single-value keyword must do: (verb, words with the keyword's value for "{}", and
# the (singular, plural) noun counted after it). The order is the order subschemas are described in.
KEYWORD_WORDS: dict[str, tuple[str, str, tuple[str, str] | None]] = {
    "minimum": ("be", ">= {}", None),
    "maximum": ("be", "<= {}", None),
    "exclusiveMinimum": ("be", "> {}", None),
    "exclusiveMaximum": ("be", "< {}", None),
    "multipleOf": ("be", "a multiple of {}", None),
    "minLength": ("be", "at least {}", ("character", "characters")),
    "maxLength": ("be", "at most {}", ("character", "characters")),
    "pattern": ("match", "pattern {!r}", None),
    "format": ("match", "format {!r}", None),
    "minItems": ("have", "at least {}", ("item", "items")),
    "maxItems": ("have", "at most {}", ("item", "items")),
    "minProperties": ("have", "at least {}", ("property", "properties")),
    "maxProperties": ("have", "at most {}", ("property", "properties")),
    "uniqueItems": ("not contain", "duplicate items", None),
}


def keyword_part(keyword: str, value: Any) -> Part:
    verb, words, noun = KEYWORD_WORDS[keyword]
    rest = words.format(value)
    if noun is not None:
        rest += " " + noun[value != 1]
    return verb, rest


# What a failed format check tells the model: the form expected and an example it can copy. A format not listed
# here reads "must match format 'name'".
FORMAT_WORDS: dict[str, str] = {
    "date-time": "a date-time (ISO 8601 with an offset), e.g. '2026-12-02T10:00:00Z'",
    "date": "a date (ISO 8601), e.g. '2026-12-02'",
    "time": "a time (ISO 8601 with an offset), e.g. '10:00:00Z'",
    "duration": "a duration (ISO 8601), e.g. 'P1DT2H30M'",
    "uuid": "a UUID, e.g. '123e4567-e89b-12d3-a456-426614174000'",
    "decimal": "a decimal number, e.g. '12.50'",
    "path": "a path (not empty, no NUL character), e.g. 'reports/2026-12.csv'",
    "base64": "base64 text, e.g. 'aGVsbG8='",
    "ipv4": "an IPv4 address, e.g. '192.0.2.1'",
    "ipv6": "an IPv6 address, e.g. '2001:db8::1'",
    "email": "an email address, e.g. 'someone@example.com'",
    "uri": "a URI, e.g. 'https://example.com/page'",
    "hostname": "a hostname, e.g. 'example.com'",
}


def format_failure(name: str | None) -> str:
    """The words after a value's path when it fails format ``name``."""
    words = FORMAT_WORDS.get(name or "")
    return f"must be {words}" if words is not None else f"must match format {name!r}"


def keyword_predicate(keyword: str, value: Any) -> str:
    """``must be >= 5``, ``must have at most 1 item``, ``must be a date (ISO 8601), e.g. '2026-12-02'``."""
    if keyword == "format":
        return format_failure(value)
    verb, rest = keyword_part(keyword, value)
    return f"must {verb} {rest}"


def type_predicate(types: list[str]) -> str:
    return "must be " + type_phrase(types)


def enum_predicate(allowed: list[Any]) -> str:
    # Python's repr of the list, as the contract says.
    return f"must be one of {allowed!r}"


def const_predicate(value: Any) -> str:
    return "must be " + json_text(value)


def type_phrase(types: list[str]) -> str:
    """``['string']`` -> ``string``; ``['string', 'null']`` -> ``string or null``; three -> ``a, b or c``."""
    if len(types) == 1:
        return types[0]
    return ", ".join(types[:-1]) + " or " + types[-1]


def closest_name(name: str, candidates: list[str]) -> str | None:
    """The candidate a misspelt ``name`` most likely meant (edit distance at most 2, or a case change)."""
    best: str | None = None
    best_distance = 3
    lowered = name.lower()
    for candidate in candidates:
        if candidate.lower() == lowered:
            return candidate
        if abs(len(candidate) - len(name)) >= best_distance:
            continue
        distance = _edit_distance(lowered, candidate.lower(), best_distance)
        if distance < best_distance:
            best, best_distance = candidate, distance
    if best is not None and best_distance >= len(name):
        return None
    return best


def _edit_distance(a: str, b: str, limit: int) -> int:
    """Optimal string alignment distance (a swap of two neighbours counts once), capped at ``limit``."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) >= limit:
            return limit
        previous2, previous = previous, current
    return previous[-1]


# -- subschemas in words ---------------------------------------------------------------------------------
_CONJUGATIONS = {
    "be": ("is", "are"),
    "have": ("has", "have"),
    "match": ("matches", "match"),
    "not contain": ("does not contain", "do not contain"),
}
# What a value is or matches is described before a schema's required names, what it has (sizes) after them:
# the verb decides, so a keyword added anywhere in the table lands in its group.
_VALUE_KEYWORDS = [keyword for keyword, (verb, _, _) in KEYWORD_WORDS.items() if verb in ("be", "match")]
_SIZE_KEYWORDS = [keyword for keyword in KEYWORD_WORDS if keyword not in _VALUE_KEYWORDS]
_NUMBER_WORDS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"})


def _showable(keyword: str, value: Any) -> bool:
    """Whether the schema's value for ``keyword`` is one a message can quote."""
    if keyword in _NUMBER_WORDS:
        return isinstance(value, (int, float))
    if keyword in ("pattern", "format"):
        return isinstance(value, str)
    if keyword == "uniqueItems":
        return value is True
    return isinstance(value, int)


def json_text(value: Any) -> str:
    """A value as a message shows it: JSON's ``null`` / ``true`` / ``false``, strings quoted like enum lists."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(json_text(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json_text(str(key))}: {json_text(item)}" for key, item in value.items()) + "}"
    return repr(value)


def _names(names: list[str]) -> str:
    quoted = [repr(name) for name in names]
    if len(quoted) == 1:
        return "property " + quoted[0]
    return "properties " + ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _types(schema: dict[str, Any]) -> list[str] | None:
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list) and kind and all(isinstance(name, str) for name in kind):
        return list(kind)
    return None


def _or(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _discriminators(schema: dict[str, Any]) -> list[Part]:
    """``have 'kind' = 'cat'`` for each property pinned by a const (what tells union branches apart)."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return []
    parts: list[Part] = []
    for name, child in properties.items():
        if isinstance(child, dict) and "const" in child:
            parts.append(("have", f"{name!r} = {json_text(child['const'])}"))
    return parts


def parts_of(schema: Any) -> list[Part]:
    """The predicates a value must meet to pass ``schema``, as far as words can say (type first)."""
    if schema is True:
        return [("be", "anything")]
    if schema is False or not isinstance(schema, dict):
        return [("be", "nothing")]
    parts: list[Part] = []
    types = _types(schema)
    if types:
        parts.append(("be", _or(types)))
    if "const" in schema:
        parts.append(("be", json_text(schema["const"])))
    if isinstance(schema.get("enum"), list):
        parts.append(("be", "one of " + repr(schema["enum"])))
    for keyword in _VALUE_KEYWORDS:
        if _showable(keyword, schema.get(keyword)):
            parts.append(keyword_part(keyword, schema[keyword]))
    pinned = _discriminators(schema)
    parts.extend(pinned)
    required = schema.get("required")
    if not pinned and isinstance(required, list) and required and all(isinstance(n, str) for n in required):
        parts.append(("have", _names(list(dict.fromkeys(required)))))
    for keyword in _SIZE_KEYWORDS:
        if _showable(keyword, schema.get(keyword)):
            parts.append(keyword_part(keyword, schema[keyword]))
    reference = schema.get("$ref")
    if isinstance(reference, str):
        parts.append(("match", _reference_name(reference)))
    if not parts:
        shown = sorted(key for key in schema if key not in _ANNOTATIONS)
        if not shown:
            return [("be", "anything")]
        parts.append(("match", "the schema's " + ", ".join(repr(key) for key in shown[:4])))
    return parts


def _reference_name(reference: str) -> str:
    return reference.rsplit("/", 1)[-1] or reference


def _infinitive(parts: list[Part]) -> str:
    return " and ".join(f"{verb} {rest}" for verb, rest in parts)


def _conjugated(parts: list[Part], plural: bool) -> str:
    return " and ".join(f"{_CONJUGATIONS[verb][plural]} {rest}" for verb, rest in parts)


def describe_schema(schema: Any) -> str:
    """A noun for a subschema: its title, its $ref name, its value, or its type with what else it needs."""
    if isinstance(schema, dict):
        if isinstance(schema.get("title"), str):
            return str(schema["title"])
        keys = set(schema) - _ANNOTATIONS
        if keys == {"$ref"} and isinstance(schema["$ref"], str):
            return _reference_name(schema["$ref"])
        if keys == {"const"}:
            return json_text(schema["const"])
        if keys == {"enum"} and isinstance(schema["enum"], list):
            return "one of " + repr(schema["enum"])
    parts = parts_of(schema)
    head, rest = parts[0], parts[1:]
    if head[0] == "be" and isinstance(schema, dict) and _types(schema):
        return head[1] + (" that " + _conjugated(rest, plural=False) if rest else "")
    if len(parts) == 1 and head[0] == "be":
        return head[1]
    return "value that " + _conjugated(parts, plural=False)


def _unique(words: list[str]) -> list[str]:
    return list(dict.fromkeys(words))


def negation_phrase(schema: Any) -> str:
    """``must not be string``, ``must not have property 'a'``, ``must not be >= 5 and be <= 9``."""
    return "must not " + _infinitive(parts_of(schema))


def contains_phrase(schema: Any, count: int, bound: str) -> str:
    """``must contain at least 1 item that is object and has property 'id'``."""
    plural = count != 1
    items = "items that" if plural else "item that"
    return f"must contain {bound} {count} {items} {_conjugated(parts_of(schema), plural)}"


def any_of_phrase(branches: list[Any]) -> str:
    """``must be >= 5 or <= 1`` when each branch says one thing, else ``must match at least one of: A, B``."""
    named = any(isinstance(b, dict) and (isinstance(b.get("title"), str) or "$ref" in b) for b in branches)
    every = [parts_of(branch) for branch in branches]
    if not named and all(len(parts) == 1 for parts in every):
        words: list[str] = []
        previous = ""
        for verb, rest in _unique_parts([parts[0] for parts in every]):
            words.append(rest if verb == previous else f"{verb} {rest}")
            previous = verb
        return "must " + _or(words)
    return "must match at least one of: " + ", ".join(_unique([describe_schema(b) for b in branches]))


def _unique_parts(parts: list[Part]) -> list[Part]:
    return list(dict.fromkeys(parts))


def one_of_phrase(branches: list[Any]) -> str:
    return "must match exactly one of: " + ", ".join(_unique([describe_schema(b) for b in branches]))


_ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly", "$id",
     "$anchor", "$schema", "$defs", "discriminator"}
)  # fmt: skip


# The contract's prefix of a refused call's text: the validator's errors follow it joined by "; ", and so does
# every other reason a call's arguments are refused (pydantic's own validators, a provider's undecodable
# arguments, a value Python cannot hold), so a model reads one shape whoever refused.
INVALID_ARGUMENTS = "Invalid arguments: "


def invalid_arguments(problems: Iterable[str]) -> str:
    """``Invalid arguments: <problem>; <problem>``: the text of a call refused for its arguments."""
    return INVALID_ARGUMENTS + "; ".join(problems)
