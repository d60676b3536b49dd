"""Shapes the code keeps, checked over the source of ``mcptools``.

A class that only stores what it is given is a dataclass: ``@dataclass(slots=True)`` says so in one line,
writes the ``__init__`` (and a ``__repr__``) that the hand-kept version repeats field by field, and keeps the
fields' types next to their names. This test finds the hand-kept version: a class with ``__slots__`` whose
``__init__`` does nothing but assign its parameters, or fixed starting values (a constant, an empty ``[]`` /
``{}``), to attributes of ``self``. A class whose ``__init__`` computes, checks or calls anything stays as it is,
and so does one whose comment line just above says ``# Not a dataclass:`` and why (being a dataclass means
something to mcptools itself: the derivation reads any dataclass as a JSON object type).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "mcptools"


def _has_slots(cls: ast.ClassDef) -> bool:
    for statement in cls.body:
        targets = statement.targets if isinstance(statement, ast.Assign) else []
        if isinstance(statement, ast.AnnAssign):
            targets = [statement.target]
        if any(isinstance(target, ast.Name) and target.id == "__slots__" for target in targets):
            return True
    return False


def _is_starting_value(value: ast.expr) -> bool:
    """A value a dataclass field can take as its default: a constant, or an empty list or dict."""
    if isinstance(value, ast.Constant):
        return True
    return isinstance(value, (ast.List, ast.Dict)) and not (value.elts if isinstance(value, ast.List) else value.keys)


def _only_stores(init: ast.FunctionDef) -> bool:
    """Whether ``init`` assigns parameters (at least one) and starting values to ``self.x``, and nothing else."""
    arguments = init.args
    parameters = {argument.arg for argument in arguments.posonlyargs + arguments.args[1:] + arguments.kwonlyargs}
    stored = False
    for statement in init.body:
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue  # a docstring
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            target, value = statement.target, statement.value
        else:
            return False
        if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"):
            return False
        if isinstance(value, ast.Name) and value.id in parameters:
            stored = True
        elif not _is_starting_value(value):
            return False
    return stored and arguments.vararg is None and arguments.kwarg is None


def _says_why_not(lines: list[str], cls: ast.ClassDef) -> bool:
    """Whether the line above the class (and its decorators) is a ``# Not a dataclass:`` comment."""
    first = min([cls.lineno, *(decorator.lineno for decorator in cls.decorator_list)])
    above = first - 2  # 0-based index of the line above
    while above >= 0 and lines[above].startswith("# ") and not lines[above].startswith("# Not a dataclass:"):
        above -= 1  # the comment may run over several lines
    return above >= 0 and lines[above].startswith("# Not a dataclass:")


def hand_kept_dataclasses(source: str) -> list[tuple[int, str]]:
    """(line, class name) of every class in ``source`` that should be ``@dataclass(slots=True)``."""
    found: list[tuple[int, str]] = []
    lines = source.splitlines()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ClassDef) or not _has_slots(node) or _says_why_not(lines, node):
            continue
        init = next((s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
        if init is not None and _only_stores(init):
            found.append((node.lineno, node.name))
    return found


def test_the_detector_finds_a_hand_kept_dataclass_and_spares_one_with_logic() -> None:
    source = '''
class Plain:
    __slots__ = ("a", "b", "seen")

    def __init__(self, a: int, *, b: str) -> None:
        """Docstring."""
        self.a = a
        self.b: str = b
        self.seen: dict[str, int] = {}

class Computes:
    __slots__ = ("a",)

    def __init__(self, a: int) -> None:
        self.a = a + 1

class Calls:
    __slots__ = ("a", "b")

    def __init__(self, a: int) -> None:
        self.a = a
        self.b = dict(a=a)

class NoSlots:
    def __init__(self, a: int) -> None:
        self.a = a

class NoParameters:
    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0

# Not a dataclass: the reader treats dataclasses
# as something else.
@final
class Explained:
    __slots__ = ("a",)

    def __init__(self, a: int) -> None:
        self.a = a

# An ordinary comment.
class Unexplained:
    __slots__ = ("a",)

    def __init__(self, a: int) -> None:
        self.a = a
'''
    assert hand_kept_dataclasses(source) == [(2, "Plain"), (44, "Unexplained")]


def test_no_class_in_the_package_is_a_hand_kept_dataclass() -> None:
    problems = [
        f"{path.relative_to(ROOT.parent)}:{line}: class {name} only stores its parameters in __slots__; make it "
        "@dataclass(slots=True) (eq=False where instances are compared or hashed by identity; a non-parameter "
        "attribute becomes field(default=..., init=False))"
        for path in sorted(ROOT.rglob("*.py"))
        for line, name in hand_kept_dataclasses(path.read_text(encoding="utf-8"))
    ]
    assert not problems, "\n".join(problems)


def test_the_refused_arguments_prefix_is_written_in_one_place() -> None:
    # Every refusal of a call's arguments (validator, pydantic, providers, conversion) says the contract's
    # "Invalid arguments: " through messages.invalid_arguments; a second spelling could drift from it.
    places = []
    for path in sorted(ROOT.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = set()  # ids of this tree's docstring nodes, while the tree keeps them alive
        for node in ast.walk(tree):
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                docstrings.add(id(node.value))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and "Invalid arguments" in node.value
                and id(node) not in docstrings
            ):
                places.append(f"{path.relative_to(ROOT.parent)}:{node.lineno}")
    assert len(places) == 1 and places[0].startswith("mcptools/_validation/messages.py:"), places


# -- length ------------------------------------------------------------------------------------------------------

MAX_FUNCTION_LINES = 60
MAX_MODULE_LINES = 600


def _justified(lines: list[str], first: int) -> bool:
    """Whether a ``# Long:`` comment stands right above line ``first`` (1-based), over any comment lines."""
    above = first - 2
    while above >= 0 and lines[above].lstrip().startswith("#"):
        if lines[above].lstrip().startswith("# Long:"):
            return True
        above -= 1
    return False


def too_long(source: str) -> list[str]:
    """The functions over ``MAX_FUNCTION_LINES`` lines and the module, if over ``MAX_MODULE_LINES``, that no
    ``# Long:`` comment explains (above the function and its decorators; anywhere in the module for it)."""
    lines = source.splitlines()
    found = []
    if len(lines) > MAX_MODULE_LINES and not any(line.startswith("# Long:") for line in lines):
        found.append(f"the module has {len(lines)} lines")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            first = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
            if length > MAX_FUNCTION_LINES and not _justified(lines, first):
                found.append(f"{node.name} (line {node.lineno}) has {length} lines")
    return found


def test_the_length_detector_counts_and_reads_the_reason() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(61))
    assert too_long(f"def long():\n{body}\n") == ["long (line 1) has 62 lines"]
    assert too_long(f"# Long: a table, read top-down.\ndef long():\n{body}\n") == []
    assert too_long("x = 1\n" * 601) == ["the module has 601 lines"]


def test_functions_and_modules_stay_short_or_say_why() -> None:
    problems = [
        f"{path.relative_to(ROOT.parent)}: {problem}; split it, or say why it is one piece in a '# Long:' comment"
        for path in sorted(ROOT.rglob("*.py"))
        for problem in too_long(path.read_text(encoding="utf-8"))
    ]
    assert not problems, "\n".join(problems)
