"""pydantic's URL types (``AnyUrl``, ``HttpUrl``, ``FileUrl``, the DSNs...) as parameters, fields and results.

Each URL class travels as one more ``StdType`` (see stdtypes.py), built from the class's own ``UrlConstraints``
the first time a tool names it, so what is published, checked and built is stated once, here:

- schema: ``{"type": "string", "format": "uri"}``; ``maxLength`` from ``max_length`` (2083 for ``HttpUrl``);
  ``allowed_schemes`` as a ``pattern`` anchored on the scheme and its colon, each letter written as a class
  (``^(?:[hH][tT][tT][pP]|[hH][tT][tT][pP][sS]):``): pydantic reads schemes case-insensitively, and an explicit
  class is the one spelling every regex dialect (and our translator) reads the same way. The pattern is built
  from the scheme names, never taken from them: a character that is not a letter, digit, ``+``, ``-`` or ``.``
  (all a scheme may hold) makes the type unmappable instead.
- validation: the compiled validator asserts ``format: uri`` for derived schemas (an absolute URI, ASCII only),
  the scheme and the length, in its own words; then the value is built with the class itself (``HttpUrl(text)``),
  so pydantic's own rules hold (a host where the scheme needs one, a port that fits). What pydantic still refuses
  (``http://`` has an empty host) raises ``ValueError`` with pydantic's reason only, which the argument converter
  answers as ``property 'url' cannot be a Python HttpUrl: 'http://' (empty host)``, never pydantic's dump.
- results: ``str(url)``, pydantic's normalised form (lower-case scheme and host, ``/`` for an empty path), which
  the same schema accepts.

pydantic is never imported here: a class can only be one of these if the user's code already imported
``pydantic.networks``. Needs pydantic 2.10 or later, where the URL types are classes; before that they are
``Annotated`` aliases, which stay refused at decoration with the usual message.
"""

from __future__ import annotations

import re
import sys
from typing import Any, Final

from .stdtypes import StdType

__all__ = ["dump_url", "scheme_pattern", "url_type"]

# What RFC 3986 allows in a scheme after its first letter (ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )).
_SCHEME: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*")
_TYPES: dict[type, StdType] = {}


def dump_url(value: Any) -> str:
    """A URL's JSON form: pydantic's normalised text, which its class's schema accepts."""
    return str(value)


def _letters(scheme: str) -> str:
    """``http`` -> ``[hH][tT][tT][pP]``; ``+``, ``-``, ``.`` and digits escaped or kept as themselves."""
    out = []
    for char in scheme:
        if char.isalpha():
            out.append(f"[{char.lower()}{char.upper()}]")
        elif char.isdigit() or char == "-":
            out.append(char)
        else:  # "+" and "." are regex operators
            out.append("\\" + char)
    return "".join(out)


def scheme_pattern(schemes: list[str]) -> str:
    """The ``pattern`` that holds a URL to ``schemes``; ``ValueError`` naming a scheme no URL can have."""
    for scheme in schemes:
        if not (scheme.isascii() and _SCHEME.fullmatch(scheme)):
            raise ValueError(f"allows the scheme {scheme!r}, which no URL can have")
    return "^(?:" + "|".join(_letters(scheme) for scheme in schemes) + "):"


def url_type(cls: type) -> StdType:
    """The ``StdType`` of a pydantic URL class (cached per class); ``ValueError`` if its constraints cannot be
    published exactly."""
    found = _TYPES.get(cls)
    if found is not None:
        return found
    constraints = getattr(cls, "_constraints", None)
    keywords: dict[str, Any] = {"format": "uri"}
    schemes = getattr(constraints, "allowed_schemes", None)
    if schemes:
        keywords["pattern"] = scheme_pattern(list(schemes))
    max_length = getattr(constraints, "max_length", None)
    if max_length is not None:
        keywords["maxLength"] = max_length
    pydantic_core = sys.modules["pydantic_core"]  # loaded: pydantic.networks imports it

    def parse(text: str) -> Any:
        try:
            return cls(text)
        except pydantic_core.ValidationError as exc:
            # Only pydantic's reason ("empty host"): its dump names its own types and links its docs.
            reasons = [str((error.get("ctx") or {}).get("error") or error.get("msg")) for error in exc.errors()]
            raise ValueError("; ".join(reasons) or "not a valid URL") from None

    found = _TYPES[cls] = StdType(cls, ("string",), keywords, parse, dump_url)
    return found
