"""Errors are data: the library raises these, front ends render them; nothing here prints."""
from __future__ import annotations


class CuteVerifyError(Exception):
    """Base class of every error cuteverify raises on purpose."""


class ParseError(CuteVerifyError, ValueError):
    """Malformed text. ``column`` is 1-based; ``expected`` says what would have been accepted."""

    def __init__(self, text: str, column: int, expected: str, source: str = "layout"):
        self.text = text
        self.column = column
        self.expected = expected
        self.source = source
        pointer = " " * (column - 1) + "^"
        super().__init__(f"cannot parse {source} at column {column}: expected {expected}\n  {text}\n  {pointer}")


class NotAdmissibleError(CuteVerifyError, ValueError):
    """An algebra operation whose admissibility condition fails (or a malformed layout).

    ``operation`` names the operation, ``condition`` the violated condition in words,
    ``modes`` the offending modes (free text, e.g. ``"mode 1 (4:6)"``).
    """

    def __init__(self, operation: str, condition: str, modes: str = ""):
        self.operation = operation
        self.condition = condition
        self.modes = modes
        where = f" at {modes}" if modes else ""
        super().__init__(f"{operation} is not admissible: {condition}{where}")


class UndecidedError(CuteVerifyError, ValueError):
    """A symbolic algebra step needs a decision (e.g. an ordering) that the assumptions do not settle
    and that cannot be carried as an obligation because both answers lead to differently shaped results."""


class Obligation:
    """A side condition a symbolic result depends on: the result is valid exactly where it holds.

    ``condition`` is a sympy boolean (or text), ``reason`` says which operation needed it and where.
    """

    __slots__ = ("condition", "reason", "canonical")

    def __init__(self, condition, reason: str, canonical: bool = False):
        self.condition = condition
        self.reason = reason
        # canonical: on [0, size) the layout is the same function either way (e.g. a kept mode that may have
        # size 1), only its printed form and its extended domain depend on it
        self.canonical = canonical

    def __repr__(self):
        return f"Obligation({self.text()!r}, {self.reason!r})"

    def text(self) -> str:
        from .notation import format_condition
        return format_condition(self.condition)

    def __str__(self):
        kind = "printed form only: " if self.canonical else ""
        return f"{self.text()}  [{kind}{self.reason}]"

    def __eq__(self, other):
        return isinstance(other, Obligation) and str(self.condition) == str(other.condition)

    def __hash__(self):
        return hash(str(self.condition))
