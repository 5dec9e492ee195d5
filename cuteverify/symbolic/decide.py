"""The one decision interface of the algebra.

Every arithmetic question an algebra operation asks (equal? divides? less than? is one?) goes through the
functions here. Each answers ``True``, ``False`` or ``None`` (unknown). Plain ints are decided by plain
arithmetic and never touch sympy; anything else is handed to the tactics (``symbolic.tactics``) under the
assumptions of the current context (docs/model.md section 5.3).

Unknown is never guessed. An operation turns it into an explicit ``Obligation`` via ``require`` (an
admissibility condition: the result is valid where it holds) or ``suppose`` (a branch taken for the generic
case: the result is the canonical one where it holds); if neither fits, it raises ``UndecidedError``, unless
the operation splits into cases: ``split(condition, fn)`` runs ``fn`` where the condition holds and where it
does not and returns a ``Piecewise`` result whose pieces carry their cases (the prover decides a claim about
it per piece).
"""
from __future__ import annotations

import contextvars
from contextlib import contextmanager

from ..errors import NotAdmissibleError, UndecidedError
from . import smt, tactics
from .assumptions import Assumptions
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


# --- case splits ----------------------------------------------------------------------------------------

_NEGATION = {"eq": "ne", "ne": "eq"}


def negate(condition: Condition) -> Condition:
    """The condition that holds exactly where ``condition`` does not (``a | b`` has no negation in the
    vocabulary: refused)."""
    if condition.kind in _NEGATION:
        return Condition(_NEGATION[condition.kind], condition.a, condition.b)
    if condition.kind == "lt":
        return Condition("le", condition.b, condition.a)
    if condition.kind == "le":
        return Condition("lt", condition.b, condition.a)
    raise ValueError(f"{condition} has no negation among the conditions (a | b)")


class Piece:
    """One case of a ``Piecewise`` result: ``value`` (a result, or the ``CuteVerifyError`` the operation
    raised in this case) holds where every condition of ``conditions`` does, under ``assumptions`` (the
    caller's facts and those conditions), valid where ``obligations`` hold."""

    __slots__ = ("conditions", "value", "obligations", "notes", "assumptions")

    def __init__(self, conditions, value, obligations=(), notes=(), assumptions=None):
        self.conditions, self.value = tuple(conditions), value
        self.obligations, self.notes, self.assumptions = tuple(obligations), tuple(notes), assumptions

    def __repr__(self):
        return f"{' and '.join(map(str, self.conditions))}: {self.value}"


class Piecewise:
    """A guarded result: its pieces' conditions are disjoint and together cover every assignment the
    assumptions allow (``split`` builds them from a condition and its negation); a claim about it holds
    where it holds for every piece (docs/model.md section 5.5)."""

    __slots__ = ("pieces",)

    def __init__(self, pieces):
        self.pieces = list(pieces)

    def __iter__(self):
        return iter(self.pieces)

    def __len__(self):
        return len(self.pieces)

    def __repr__(self):
        return "Piecewise(" + "; ".join(map(repr, self.pieces)) + ")"

    __str__ = __repr__


def split(condition: Condition, fn, assume=None) -> Piecewise:
    """Run ``fn()`` once where ``condition`` holds and once where it does not, each under the current
    assumptions (or ``assume``) plus that case; a case the assumptions exclude (Z3 finds them contradictory)
    is left out. Each case collects its own obligations and notes; an operation that refuses or cannot
    decide in one case gives that piece the error as its value. Nested operations run in the case's
    context, so every decision they take knows the case."""
    ctx = _current.get()
    base = assume if assume is not None else (ctx.assumptions if ctx is not None else None)
    pieces = []
    for case in (condition, negate(condition)):
        asm = (base if base is not None else Assumptions()).merged(Assumptions([case]))
        if smt.satisfiable(asm) is False:
            continue
        sub = Context(asm)
        token = _current.set(sub)
        try:
            value = fn()
        except (NotAdmissibleError, UndecidedError) as e:
            value = e
        finally:
            _current.reset(token)
        pieces.append(Piece((case,), value, sub.obligations, sub.notes, asm))
    return Piecewise(pieces)
