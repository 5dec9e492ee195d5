"""The one decision interface of the algebra.

Every arithmetic question an algebra operation asks (equal? divides? less than? is one?) goes through the
functions here. Each answers ``True``, ``False`` or ``None`` (unknown). Plain ints are decided by plain
arithmetic and never touch sympy; anything else is handed to the tactics (``symbolic.tactics``) under the
assumptions of the current context (docs/model.md section 5.3).

Unknown is never guessed. An operation turns it into an explicit ``Obligation`` via ``require`` (an
admissibility condition: the result is valid where it holds) or ``suppose`` (a branch taken for the generic
case: the result is the canonical one where it holds); if neither fits, it raises ``UndecidedError``.
"""
from __future__ import annotations

import contextvars
from contextlib import contextmanager

from ..errors import NotAdmissibleError, UndecidedError
from . import tactics
from .conditions import Condition, Note, Obligation

_INT = int


class Context:
    """The assumptions an operation runs under and the obligations it collects."""

    __slots__ = ("assumptions", "obligations", "notes")

    def __init__(self, assumptions):
        self.assumptions = assumptions
        self.obligations: list[Obligation] = []
        self.notes: list[Note] = []


_current: contextvars.ContextVar[Context | None] = contextvars.ContextVar("cuteverify_decide", default=None)


@contextmanager
def context(assumptions=None):
    """Run algebra under ``assumptions``; yields the list that collects obligations.

    Nested contexts share the outer list so an operation built from others reports every obligation once.
    """
    outer = _current.get()
    if outer is not None and (assumptions is None or assumptions is outer.assumptions):
        yield outer.obligations
        return
    ctx = Context(assumptions if assumptions is not None else (outer.assumptions if outer else None))
    if outer is not None:
        ctx.obligations = outer.obligations
        ctx.notes = outer.notes
    token = _current.set(ctx)
    try:
        yield ctx.obligations
    finally:
        _current.reset(token)


# The per-call wrapper of the algebra enters and leaves a context on every public call, so these three are
# the context variable's own methods (no Python frame of ours around them):
#   current() -> the active Context, or None outside every operation;
#   enter(ctx) -> a token that makes ctx active; leave(token) restores the previous one.
current = _current.get
enter = _current.set
leave = _current.reset


def _assumptions():
    ctx = _current.get()
    return ctx.assumptions if ctx is not None else None


def _sym():
    # sympy-backed tactics load on the first symbolic question: concrete work never imports them
    return tactics


# --- questions -----------------------------------------------------------------------------------------

def eq(a, b):
    if type(a) is _INT and type(b) is _INT:
        return a == b
    return _sym().decide("eq", a, b, _assumptions())


def lt(a, b):
    if type(a) is _INT and type(b) is _INT:
        return a < b
    return _sym().decide("lt", a, b, _assumptions())


def le(a, b):
    if type(a) is _INT and type(b) is _INT:
        return a <= b
    return _sym().decide("le", a, b, _assumptions())


def divides(a, b):
    """Does ``a`` divide ``b``? (0 divides only 0.)"""
    if type(a) is _INT and type(b) is _INT:
        return (b == 0) if a == 0 else b % a == 0
    return _sym().decide("divides", a, b, _assumptions())


def is_one(a):
    if type(a) is _INT:
        return a == 1
    return eq(a, 1)


def is_zero(a):
    if type(a) is _INT:
        return a == 0
    if not hasattr(a, "free_symbols"):
        return a == 0
    return eq(a, 0)


# --- turning answers into actions -----------------------------------------------------------------------

def obligate(condition: Condition, reason: str, canonical: bool = False) -> None:
    """Record that the result holds where ``condition`` does. ``canonical=True``: the result is the same
    function either way and only its canonical (printed) form depends on the condition."""
    ctx = _current.get()
    if ctx is None:
        raise UndecidedError(f"cannot decide {condition} ({reason}) outside a decision context")
    ob = Obligation(condition, reason, canonical)
    if ob not in ctx.obligations:
        ctx.obligations.append(ob)


def note(text: str, condition: Condition | None = None) -> None:
    """Record a note on the result (docs/model.md section 3.2): it is valid, but a stronger property does not
    hold, or holds only where ``condition`` does. Outside a context (a bare helper call) there is nothing to
    attach it to, and the note is dropped."""
    ctx = _current.get()
    if ctx is not None:
        n = Note(text, condition)
        if n not in ctx.notes:
            ctx.notes.append(n)


def require(answer, condition: Condition, operation: str, what: str, where: str = "") -> None:
    """An admissibility condition: False refuses the operation, None becomes an obligation."""
    if answer:
        return
    if answer is False:
        raise NotAdmissibleError(operation, what + f" ({condition})" if str(condition) not in what else what, where)
    obligate(condition, f"needed by {operation}: {what}" + (f" at {where}" if where else ""))


def suppose(answer, condition: Condition, reason: str) -> bool:
    """A branch decision with a generic default: unknown takes the branch where ``condition`` holds and
    records it, so the result is claimed only where the condition is true."""
    if answer is None:
        obligate(condition, reason)
        return True
    return answer


def decided(answer, question: str) -> bool:
    """A branch decision with no generic default: unknown is an error that says what was asked."""
    if answer is None:
        raise UndecidedError(f"cannot decide {question} under the given assumptions; add an assumption that settles it")
    return answer
