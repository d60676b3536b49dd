"""parse_docstring: Google, NumPy and reST styles -> summary, body, per-parameter text, returns."""

import textwrap

from hypothesis import given
from hypothesis import strategies as st

from mcptools._schema import parse_docstring


def test_nothing() -> None:
    for doc in (None, "", "   \n  "):
        parsed = parse_docstring(doc)
        assert (parsed.summary, parsed.body, parsed.params, parsed.returns) == ("", "", {}, None)
        assert parsed.description is None


def test_summary_only_and_wrapped_summary() -> None:
    assert parse_docstring("Say hello.").description == "Say hello."
    parsed = parse_docstring("Say hello to someone who\n    asked for it.\n\n    More.\n    ")
    assert parsed.summary == "Say hello to someone who asked for it."
    assert parsed.body == "More."


def test_raw_indented_docstring_is_cleaned() -> None:
    def tool() -> None:
        """Fetch a page.

        The page is cached for an hour.

            indented example stays indented
        """

    parsed = parse_docstring(tool.__doc__)
    assert parsed.summary == "Fetch a page."
    assert parsed.body == "The page is cached for an hour.\n\n    indented example stays indented"


GOOGLE = """
    Search the catalogue.

    Looks in titles and authors.

    Args:
        query (str): Words to look for,
            in any order.
        limit: How many results.

            At most 50.
        *tags: Ignored tags.
        **filters (dict[str, str]): Extra filters.

    Returns:
        list[str]: The matching titles.

    Raises:
        ValueError: When the query is empty.

    Examples:
        >>> search("dune")
"""


def test_google_style() -> None:
    parsed = parse_docstring(GOOGLE)
    assert parsed.summary == "Search the catalogue."
    assert parsed.body == 'Looks in titles and authors.\n\nExamples:\n    >>> search("dune")'
    assert parsed.params == {
        "query": "Words to look for, in any order.",
        "limit": "How many results.\n\nAt most 50.",
        "tags": "Ignored tags.",
        "filters": "Extra filters.",
    }
    assert parsed.returns == "list[str]: The matching titles."
    assert parsed.description == (
        'Search the catalogue.\n\nLooks in titles and authors.\n\nExamples:\n    >>> search("dune")'
    )


def test_google_section_aliases() -> None:
    for header in ("Arguments:", "Parameters:", "Params:", "Keyword Args:", "Keyword Arguments:", "args:"):
        parsed = parse_docstring(f"Do it.\n\n{header}\n    x: The x.\n")
        assert parsed.params == {"x": "The x."}, header
        assert parsed.body == ""


def test_google_section_straight_after_summary() -> None:
    parsed = parse_docstring("Do it.\nArgs:\n    x: The x.\nReturns:\n    Nothing.")
    assert parsed.summary == "Do it."
    assert parsed.params == {"x": "The x."}
    assert parsed.returns == "Nothing."


def test_google_returns_and_raises_on_one_line() -> None:
    parsed = parse_docstring("Do it.\n\nMore.\n\nReturns: The answer,\n    wrapped.\nRaises: ValueError if not.")
    assert parsed.body == "More."
    assert parsed.returns == "The answer, wrapped."


def test_google_entry_text_on_the_next_line() -> None:
    parsed = parse_docstring("Do.\n\nArgs:\n    x:\n        The x\n        value.\n    y: Y.")
    assert parsed.params == {"x": "The x value.", "y": "Y."}


def test_google_entry_without_text() -> None:
    assert parse_docstring("Do.\n\nArgs:\n    x:\n    y (int):\n").params == {"x": "", "y": ""}


NUMPY = """
    Compute a mean.

    Uses a two-pass algorithm.

    Parameters
    ----------
    values : list of float
        The numbers,
        in any order.
    weights, offsets : list of float, optional
        Same length as values.
    *args
        Ignored.

    Returns
    -------
    float
        The mean.

    Raises
    ------
    ValueError
        If values is empty.

    Notes
    -----
    Stable for large inputs.
"""


def test_numpy_style() -> None:
    parsed = parse_docstring(NUMPY)
    assert parsed.summary == "Compute a mean."
    assert parsed.body == "Uses a two-pass algorithm.\n\nNotes\n-----\nStable for large inputs."
    assert parsed.params == {
        "values": "The numbers, in any order.",
        "weights": "Same length as values.",
        "offsets": "Same length as values.",
        "args": "Ignored.",
    }
    assert parsed.returns == "The mean."


REST = """
    Send a message.

    Delivery is best effort.

    :param to: The recipient,
        an e-mail address.
    :param str subject: The subject line.
    :type to: str
    :keyword urgent: Mark as urgent.
    :returns: The message id.
    :rtype: str
    :raises IOError: When the server is down.
"""


def test_rest_style() -> None:
    parsed = parse_docstring(REST)
    assert parsed.summary == "Send a message."
    assert parsed.body == "Delivery is best effort."
    assert parsed.params == {
        "to": "The recipient, an e-mail address.",
        "subject": "The subject line.",
        "urgent": "Mark as urgent.",
    }
    assert parsed.returns == "The message id."


def test_body_text_that_looks_like_a_header_but_is_not() -> None:
    parsed = parse_docstring("Do it.\n\nNote: this is prose, not a section.\nSomething: else.")
    assert parsed.body == "Note: this is prose, not a section.\nSomething: else."
    assert parsed.params == {}


def test_unknown_google_header_stays_in_body() -> None:
    parsed = parse_docstring("Do it.\n\nWarning:\n    Slow.\n")
    assert parsed.body == "Warning:\n    Slow."


def test_repr_shows_all_parts() -> None:
    assert repr(parse_docstring("A.\n\n:param x: X.")) == (
        "Docstring(summary='A.', body='', params={'x': 'X.'}, returns=None)"
    )


words = st.lists(st.from_regex(r"[a-z]{1,8}", fullmatch=True), min_size=1, max_size=6).map(" ".join)
names = st.from_regex(r"[a-z_][a-z0-9_]{0,10}", fullmatch=True)


def render(style: str, summary: str, body: str, params: dict[str, str]) -> str:
    parts = [summary, "", body, ""] if body else [summary, ""]
    if style == "google":
        parts.append("Args:")
        parts.extend(f"    {name} (int): {text}" for name, text in params.items())
    elif style == "numpy":
        parts.extend(["Parameters", "----------"])
        for name, text in params.items():
            parts.extend([f"{name} : int", f"    {text}"])
    else:
        parts.extend(f":param {name}: {text}" for name, text in params.items())
    return textwrap.indent("\n".join(parts), "    ")


@given(
    style=st.sampled_from(["google", "numpy", "rest"]),
    summary=words,
    body=st.one_of(st.just(""), words),
    params=st.dictionaries(names, words, max_size=5),
)
def test_rendered_docstrings_parse_back(style: str, summary: str, body: str, params: dict[str, str]) -> None:
    parsed = parse_docstring(render(style, summary, body, params))
    assert parsed.summary == summary
    assert parsed.body == body
    assert parsed.params == params


@given(st.text())
def test_any_text_parses_without_error(doc: str) -> None:
    parsed = parse_docstring(doc)
    assert isinstance(parsed.summary, str)
    assert "\n" not in parsed.summary
