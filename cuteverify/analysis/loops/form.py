"""The canonical form of a loop nest (paper section 1.2): ``(array + offset)[Shape:Stride]`` and back.

``loop_layout(nest)`` returns the accessor offset (``4*p + 3*q``) and the layout ``(4,20):(5*p,2*q)`` whose
mode 0 is the innermost loop; ``to_loop_nest(layout, offset)`` prints the canonical nest back;
``check_no_repeat`` (``loops_repeat``) proves that the nest touches no element twice or shows two colliding
iterations.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...algebra.coalesce import coalesce
from ...core.notation.format import format_tuple
from ...core.layout import Layout
from ...core.notation.interop import as_layout
from ...core.tuples import flatten
from ...errors import CuteVerifyError, LoopNestError
from ...symbolic import decide, normalize, parse_expr, symbol
from ...symbolic.conditions import Obligation
from ...symbolic.lazy import sympy
from .parse import LoopNest, coerce_nest, trip_count
from .repeat import ENUMERATION_LIMIT, NoRepeat, no_repeat

__all__ = ["LoopLayout", "loop_layout", "to_loop_nest", "check_no_repeat"]


@dataclass
class LoopLayout:
    """The canonical form of a loop nest: ``(array + offset)[layout(i0, i1, ...)]``.

    ``layout`` has one mode per loop, mode 0 the innermost loop; ``offset`` is a sympy expression (or int);
    ``coalesced`` is ``cv.coalesce(layout)``, a single mode when the nest walks a 1-D progression.
    """
    nest: LoopNest
    offset: object
    layout: Layout
    coalesced: Layout
    obligations: tuple = field(default_factory=tuple)

    @property
    def array(self) -> str:
        return self.nest.array

    @property
    def loops(self) -> tuple:
        return self.nest.loops

    @property
    def shape(self):
        return self.layout.shape

    @property
    def stride(self):
        return self.layout.stride

    @property
    def accessor(self) -> str:
        """``A + 4*p + 3*q`` (just ``A`` for a zero offset)."""
        return _accessor(self.array, self.offset, parens=False)

    @property
    def is_concrete(self) -> bool:
        return self.layout.is_concrete and type(self.offset) is int

    @property
    def one_loop(self) -> bool:
        """Does the nest coalesce into a single strided loop?"""
        return type(self.coalesced.shape) is not tuple

    def canonical(self, body: str = "g") -> str:
        """The canonical loop nest (C-like text, as in the paper)."""
        return to_loop_nest(self.layout, self.offset, self.array, body=body)

    def one_d(self, body: str = "f") -> str:
        """The nest as one loop over a 1-D coordinate ``k``: the coalesced single loop when it exists, else
        the paper's ``(A + off)[d0*(k%N0) + d1*(k/N0)]`` form."""
        return to_loop_nest(self.coalesced if self.one_loop else self.layout, self.offset, self.array,
                            body=body, one_d=True)

    def coords_of(self, canonical) -> dict:
        """Loop-variable values ``{var: value}`` (outermost first) of a canonical coordinate (mode 0 innermost)."""
        loops = self.loops
        n = len(loops)
        out = {}
        for depth, lp in enumerate(loops):
            c = canonical[n - 1 - depth]
            out[lp.var] = normalize(lp.start + lp.step * c)
        return out

    def offsets(self) -> list:
        """The offsets the nest touches, in loop order (concrete nests only)."""
        if not self.is_concrete:
            raise ValueError("offsets() needs concrete strides and offset; substitute the symbols first")
        return [self.offset + v for v in self.layout.values()]

    def check_no_repeat(self, **kw) -> "NoRepeat":
        return check_no_repeat(self, **kw)

    def __str__(self):
        return (f"Accessor: {self.accessor}\n   Shape: {format_tuple(self.layout.shape)}\n"
                f"  Stride: {format_tuple(self.layout.stride)}")



# --------------------------------------------------------------------------------------------------------
# canonical form

def loop_layout(nest) -> LoopLayout:
    """Canonical form of a loop nest: accessor offset and ``Shape:Stride`` (mode 0 = innermost loop).

    ``nest`` is loop text, a ``LoopNest``, ``{'loops': [(var, start, stop, step), ...], 'index': expr,
    'array': 'A'}`` or ``(loops, index)``, loops outermost first with exclusive ``stop``.
    """
    nest = coerce_nest(nest)
    index = sympy.expand(sympy.sympify(nest.index))
    vars_ = [symbol(lp.var) for lp in nest.loops]
    coeffs = []
    linear = sympy.Integer(0)
    for v in vars_:
        c = sympy.expand(sympy.diff(index, v))
        bad = c.free_symbols & set(vars_) or c.has(sympy.Derivative)
        if bad:
            raise LoopNestError(f"the subscript {index} is not affine in the loop variables "
                             f"(its coefficient of {v} is {c})")
        if c.is_integer is False:
            raise LoopNestError(f"the subscript {index} has a non-integer coefficient {c} for loop variable {v}")
        coeffs.append(c)
        linear += c * v
    rest = sympy.expand(index - linear)
    if rest.free_symbols & set(vars_):
        raise LoopNestError(f"the subscript {index} is not affine in the loop variables")
    offset = normalize(sympy.expand(index.subs({v: lp.start for v, lp in zip(vars_, nest.loops)})))
    shapes, strides, obligations = [], [], []
    for lp, c in zip(reversed(nest.loops), reversed(coeffs)):
        n = trip_count(lp.start, lp.stop, lp.step)
        if type(n) is not int and decide.le(0, n) is not True:
            obligations.append(Obligation(sympy.sympify(n) >= 0,
                                          f"loop '{lp.var}' runs a nonnegative number of times"))
        shapes.append(n)
        strides.append(normalize(sympy.expand(c * lp.step)))
    shape = shapes[0] if len(shapes) == 1 else tuple(shapes)
    stride = strides[0] if len(strides) == 1 else tuple(strides)
    layout = Layout(shape, stride, obligations=obligations)
    try:
        co = coalesce(layout)
    except CuteVerifyError:  # a symbolic merge the decider cannot settle: keep the nest as it is
        co = layout
    return LoopLayout(nest, offset, layout, co, tuple(obligations))


def _accessor(array, offset, parens=True):
    if offset == 0:
        return array
    s = str(offset)
    s = f"{array} - {s[1:]}" if s.startswith("-") and _is_term(s[1:]) else f"{array} + {s}"
    return f"({s})" if parens else s


def _is_term(s):
    return not any(ch in s for ch in "+-")


def _term(stride, var):
    if stride == 0:
        return None
    if stride == 1:
        return var
    if stride == -1:
        return "-" + var
    s = str(stride)
    if isinstance(stride, sympy.Basic) and stride.is_Add:
        s = f"({s})"
    return f"{s}*{var}"


def _join(terms):
    terms = [t for t in terms if t is not None]
    if not terms:
        return "0"
    out = terms[0]
    for t in terms[1:]:
        out += f" - {t[1:]}" if t.startswith("-") else f" + {t}"
    return out


def to_loop_nest(layout, offset=0, array: str = "A", *, body: str = "g", one_d: bool = False,
                 names=None, indent: str = "  ") -> str:
    """Print the canonical loop nest of ``(array + offset)[layout]`` (C-like text as in the paper).

    Modes are flattened, mode 0 is the innermost loop. ``one_d`` prints one loop over a 1-D coordinate ``k``
    with the colexicographic split ``k % N0, (k / N0) % N1, ...`` (the paper's ``f(k)`` form).
    """
    layout = as_layout(layout)
    offset = normalize(offset) if not isinstance(offset, str) else parse_expr(offset)
    shapes = [s for s in flatten(layout.shape)]
    strides = [d for d in flatten(layout.stride)]
    acc = _accessor(array, offset)
    used = {s.name for s in _syms(shapes + strides + [offset])} | {array}
    if one_d:
        k = _fresh("k", used)
        if len(shapes) == 1:
            idx = [k]
        else:
            idx = []
            prefix = 1
            for r, n in enumerate(shapes):
                e = k if prefix == 1 else f"({k}/{_p(prefix)})"
                if r < len(shapes) - 1:
                    e = f"{e}%{_p(n)}" if prefix == 1 else f"{e}%{_p(n)}"
                    e = f"({e})"
                idx.append(e)
                prefix = normalize(prefix * n)
        total = normalize(sympy.Mul(*[sympy.sympify(s) for s in shapes])) if shapes else 1
        sub = _join([_term(d, i) for d, i in zip(strides, idx)])
        return f"for (int {k} = 0; {k} < {total}; ++{k})\n{indent}{acc}[{sub}] = {body}({k});"
    if names is None:
        if len(shapes) <= 3:
            names = ["i", "j", "k"][:len(shapes)]
        else:
            names = [f"i{r}" for r in range(len(shapes))]
        if any(nm in used for nm in names):
            names = [_fresh(f"i{r}", used) for r in range(len(shapes))]
    lines = []
    for depth, r in enumerate(reversed(range(len(shapes)))):
        i = names[r]
        lines.append(f"{indent * depth}for (int {i} = 0; {i} < {shapes[r]}; ++{i})")
    sub = _join([_term(d, i) for d, i in zip(strides, names)])
    lines.append(f"{indent * len(shapes)}{acc}[{sub}] = {body}({','.join(names)});")
    return "\n".join(lines)


def _p(x):
    s = str(x)
    return f"({s})" if isinstance(x, sympy.Basic) and (x.is_Add or x.is_Mul) else s


def _syms(xs):
    out = set()
    for x in xs:
        out |= set(getattr(x, "free_symbols", ()))
    return out


def _fresh(base, used):
    name, k = base, 0
    while name in used:
        k += 1
        name = f"{base}_{k}"
    return name


def check_no_repeat(x, *, limit: int = ENUMERATION_LIMIT, use_prover: bool = True) -> NoRepeat:
    """Does the nest (text, ``LoopNest``, ``LoopLayout`` or ``Layout``) touch any element twice?

    Admissible: anything ``loop_layout`` accepts, or a ``Layout`` (read as the nest of its canonical form at
    offset 0). Post-condition: a ``NoRepeat`` verdict; proved means distinct iterations touch distinct
    elements, refuted names two iterations (in the loops' own variables) that touch the same one. The
    procedure (stride tests, enumeration up to ``limit`` iterations, the prover) is ``loops_repeat.no_repeat``.
    """
    if isinstance(x, Layout):
        return no_repeat(x, None, limit=limit, use_prover=use_prover)
    ll = x if isinstance(x, LoopLayout) else loop_layout(x)
    return no_repeat(ll.layout, ll, limit=limit, use_prover=use_prover)
