"""A piecewise (guarded) symbolic layout: the result of an operation that split into cases (docs/model.md
section 5.5).

``PiecewiseLayout`` is a ``decide.Piecewise`` whose piece values are layouts (or the ``CuteVerifyError`` the
operation raised in that case). Its pieces' conditions are disjoint and cover every assignment the
assumptions allow; each piece's layout carries that piece's assumptions (the caller's facts and the case)
and obligations. The prover decides a claim about it per piece; ``subs`` picks the piece whose case holds.
"""
from __future__ import annotations

from ..errors import CuteVerifyError, NotAdmissibleError, UndecidedError
from ..symbolic import symbol
from ..symbolic.decide import Piece, Piecewise
from ..symbolic.lazy import sympy


class PiecewiseLayout(Piecewise):
    """A guarded layout: ``pieces`` of ``decide.Piece`` (conditions, value, obligations, notes, assumptions)."""

    __slots__ = ()
    obligations = ()
    notes = ()

    @property
    def assumptions(self):
        """None: each piece's layout carries its own assumptions (the caller's facts and its case)."""
        return None

    def free_symbols(self):
        out = set()
        for p in self.pieces:
            if hasattr(p.value, "free_symbols") and callable(p.value.free_symbols):
                out |= p.value.free_symbols()
            for c in p.conditions:
                out |= c.symbols()
        return out

    def piece_at(self, values: dict):
        """The piece whose case holds at ``values`` (a full assignment of the conditions' symbols)."""
        for p in self.pieces:
            held = [_holds(c, values) for c in p.conditions]
            if None in held:
                names = sorted({s.name for c in p.conditions for s in c.symbols()} - set(values))
                raise UndecidedError(f"a piecewise result needs values for {', '.join(names)} to pick its case")
            if all(held):
                return p
        raise NotAdmissibleError("subs", f"{', '.join(f'{k}={v}' for k, v in sorted(values.items()))} lies in no "
                                 f"case of {self} (the assumptions exclude it)")

    def subs(self, values=None, **kw):
        """Instantiate symbols in the piece whose case holds (its layout's ``subs``: the concrete operation's
        printed form); an operation that refused in that case refuses here too."""
        values = dict(values or {}, **kw)
        p = self.piece_at(values)
        if isinstance(p.value, CuteVerifyError):
            raise p.value
        return p.value.subs(values)

    def values(self):
        raise UndecidedError(f"{self} has no single list of values: its cases differ; instantiate it "
                             "(subs) or ask a claim about it (decided per piece)")

    def __call__(self, *crd):
        raise UndecidedError(f"{self} has no single value at {crd}: its cases differ; instantiate it (subs) "
                             "or ask a claim about it (decided per piece)")

    def layouts(self):
        """The pieces' layouts (errors left out)."""
        return [p.value for p in self.pieces if not isinstance(p.value, CuteVerifyError)]

    def __str__(self):
        def valid(p):  # a piece's result holds where its (not printed-form-only) obligations do
            obs = [o.text() for o in p.obligations if not getattr(o, "canonical", False)]
            return f" (valid where {', '.join(obs)})" if obs else ""
        return "piecewise(" + "; ".join(f"where {' and '.join(map(str, p.conditions))}: {p.value}{valid(p)}"
                                       for p in self.pieces) + ")"

    __repr__ = __str__


def _holds(c, values):
    """``c`` at a full assignment, rational sides included (a case such as ``M/8 <= 4`` at ``M = 4``);
    None if symbols remain."""
    h = c.holds(values)
    if h is not None or c.kind == "divides":
        return h
    m = {symbol(k): v for k, v in values.items()}
    a, b = (x if type(x) is int else sympy.sympify(x).subs(m) for x in (c.a, c.b))
    if not (getattr(a, "is_Rational", type(a) is int) and getattr(b, "is_Rational", type(b) is int)):
        return None
    return {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b}[c.kind]


def flatten_pieces(pieces) -> list:
    """Pieces whose values are themselves ``PiecewiseLayout``s replaced by their pieces, conditions joined
    (outer first); the inner piece keeps its own obligations, notes and assumptions (which include the
    outer case)."""
    out = []
    for p in pieces:
        if isinstance(p.value, Piecewise):
            for q in flatten_pieces(p.value.pieces):
                out.append(Piece(p.conditions + q.conditions, q.value, q.obligations, q.notes, q.assumptions))
        else:
            out.append(p)
    return out


__all__ = ["PiecewiseLayout", "flatten_pieces"]
