"""The compiled JSON Schema (draft 2020-12) validator behind ``validate``, ``call_tool`` and the registry."""

from __future__ import annotations

from .cache import checker_for, validate
from .compile import Validator, compile_schema

__all__ = ["Validator", "checker_for", "compile_schema", "validate"]
