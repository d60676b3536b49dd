"""Deriving a tool's published shape from its Python definition: schemas, descriptions, parameter metadata."""

from .derive import DerivedTool, derive_tool
from .docstrings import Docstring, parse_docstring
from .param import Param

__all__ = ["DerivedTool", "Docstring", "Param", "derive_tool", "parse_docstring"]
