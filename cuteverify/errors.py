"""Every exception cuteverify raises on purpose (docs/model.md section 8); the base layer: it imports nothing
of the project, and every other module may import it.

Errors are data. Each class has a machine-readable ``kind``; front ends map kinds to exit codes with
``exit_code(error)`` and never sort errors by the words of their messages. Nothing here prints.
"""
from __future__ import annotations

# exit codes shared by every front end
EXIT_PROVED, EXIT_REFUTED, EXIT_INPUT, EXIT_UNKNOWN, EXIT_INTERNAL = 0, 1, 2, 3, 4


class CuteVerifyError(Exception):
    """Base class of every error cuteverify raises on purpose. ``kind`` names the family:
    ``input`` (the user's text, file or arguments are wrong), ``undecided`` (the assumptions do not settle a
    question the operation must answer), ``refuted`` (a check found a counterexample, e.g. a spec whose two
    descriptions disagree), ``internal`` (a procedure's own budget or translation limit)."""

    kind = "input"


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

    kind = "undecided"


class ContradictoryAssumptions(CuteVerifyError, ValueError):
    """No assignment of the symbols satisfies the assumptions (an input error, never a proof)."""


class Untranslatable(CuteVerifyError):
    """A term outside the vocabulary a decision procedure translates (e.g. to Z3): the procedure defers."""

    kind = "internal"


class OutOfBudget(CuteVerifyError):
    """An exact procedure would exceed its size or memory budget: it defers to the next one."""

    kind = "internal"


def exit_code(error: BaseException) -> int:
    """The exit code front ends give an error: 2 for input errors, 1 for refutations, 3 for undecided
    questions, 4 for everything else (a bug or an internal limit)."""
    kind = getattr(error, "kind", None) if isinstance(error, CuteVerifyError) else None
    return {"input": EXIT_INPUT, "refuted": EXIT_REFUTED, "undecided": EXIT_UNKNOWN}.get(kind, EXIT_INTERNAL)
