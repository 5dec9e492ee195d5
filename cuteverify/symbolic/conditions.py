"""Conditions, obligations and notes (docs/model.md section 5.1): the small closed vocabulary of side
conditions that sympy and Z3 both read, the obligations a symbolic result carries, and the notes that say
which stronger property a valid result lacks."""
from __future__ import annotations

from .expr import format_value, to_int


class Condition:
    """A side condition in a small closed vocabulary that both sympy and Z3 can read.

    ``kind`` is one of ``eq ne lt le divides`` (``divides``: ``a | b``); ``a`` and ``b`` are ints or sympy
    expressions.
    """

    __slots__ = ("kind", "a", "b")
    _TEXT = {"eq": "{a} == {b}", "ne": "{a} != {b}", "lt": "{a} < {b}", "le": "{a} <= {b}", "divides": "{a} | {b}"}

    def __init__(self, kind: str, a, b):
        self.kind, self.a, self.b = kind, a, b

    def __str__(self):
        return self._TEXT[self.kind].format(a=format_value(self.a), b=format_value(self.b))

    __repr__ = __str__

    def holds(self, values: dict | None = None):
        """Evaluate under a full assignment (symbol name -> int); ``None`` if symbols remain."""
        a, b = _subs(self.a, values), _subs(self.b, values)
        if type(a) is not int or type(b) is not int:
            return None
        if self.kind == "eq":
            return a == b
        if self.kind == "ne":
            return a != b
        if self.kind == "lt":
            return a < b
        if self.kind == "le":
            return a <= b
        return (b == 0) if a == 0 else b % a == 0

    def symbols(self):
        out = set()
        for v in (self.a, self.b):
            out |= set(getattr(v, "free_symbols", ()))
        return out




def _subs(x, values):
    if type(x) is int:
        return x
    if not values:
        return None
    return to_int(x, values)


class Obligation:
    """A side condition a symbolic result depends on: the result is valid exactly where it holds.

    ``condition`` is a ``Condition`` (or text), ``reason`` says which operation needed it and where.
    ``canonical``: on ``[0, size)`` the layout is the same function either way (e.g. a kept mode that may have
    size 1); only its printed form and its extended domain depend on it.
    """

    __slots__ = ("condition", "reason", "canonical")

    def __init__(self, condition, reason: str, canonical: bool = False):
        self.condition = condition
        self.reason = reason
        self.canonical = canonical

    def __repr__(self):
        return f"Obligation({self.text()!r}, {self.reason!r})"

    def text(self) -> str:
        return str(self.condition)

    def __str__(self):
        kind = "printed form only: " if self.canonical else ""
        return f"{self.text()}  [{kind}{self.reason}]"

    def __eq__(self, other):
        return isinstance(other, Obligation) and str(self.condition) == str(other.condition)

    def __hash__(self):
        return hash(str(self.condition))


class Note:
    """A fact about a result that does not restrict where it is valid: the result is CuTe's and satisfies
    CuTe's post-condition, but a stronger property cuteverify usually guarantees does not hold (or, with a
    ``condition``, holds only where the condition does). The prover never assumes a note.

    ``complement((2,4):(1,3), 24)`` is CuTe's ``2:12`` with the note that ``(A, R)`` is no bijection."""

    __slots__ = ("text", "condition")

    def __init__(self, text: str, condition=None):
        self.text = text
        self.condition = condition

    def __str__(self):
        return self.text if self.condition is None else f"{self.text} (holds where {self.condition})"

    def __repr__(self):
        return f"Note({str(self)!r})"

    def __eq__(self, other):
        return isinstance(other, Note) and str(self) == str(other)

    def __hash__(self):
        return hash(str(self))
