"""Layouts as data the decision procedures read: ``Form``, the flat leaves of a layout split by stride domain.

Integer strides stay one list; coordinate strides (``ScaledBasis``) are grouped by their coordinate (a
canonical path: ``E<1,0>`` and ``E<1>`` denote the same coordinate, as ``ArithTuple`` addition identifies
them); F2 strides (``^v``) are their own domain (``f2``, or ``mixed`` next to non-zero integer strides); a
swizzled layout keeps its swizzle and offset around an integer inner form (docs/model.md sections 2 and 9).
Every procedure of the prover dispatches on ``Form.kind`` and says which kinds it is valid for.
"""
from __future__ import annotations

from ..algebra import composition
from ..core.layout import Layout
from ..core.strides import F2, ScaledBasis
from ..core.swizzle import ComposedLayout, Swizzle
from ..core.tuples import flatten
from ..errors import CuteVerifyError, Unsupported
from ..symbolic import decide
from ..symbolic.lazy import sympy


def canon_path(path):
    path = tuple(path)
    while path and path[-1] == 0:
        path = path[:-1]
    return path


def norm_value(v, prefix=()):
    """A layout value as ``{canonical path: int}`` without zero entries (ints are the path ``()``)."""
    out = {}
    if isinstance(v, tuple):
        for i, x in enumerate(v):
            for k, y in norm_value(x, prefix + (i,)).items():
                out[k] = out.get(k, 0) + y
        return {k: y for k, y in out.items() if y != 0}
    if isinstance(v, ScaledBasis):
        return norm_value(v.as_tuple(), prefix)
    if v != 0:
        out[canon_path(prefix)] = v
    return out


def is_symbolic(x):
    return not isinstance(x, (int, F2, ScaledBasis)) and isinstance(x, sympy.Basic) and not x.is_Integer


def as_int(x):
    """``x`` as an int where it is an integer (a sympy Integer too), else ``x`` itself. An F2 stride is not an
    integer stride: it is returned as it is, never unwrapped silently (plain ints never touch sympy)."""
    if type(x) is int:
        return x
    if isinstance(x, (F2, ScaledBasis)):
        return x
    if isinstance(x, sympy.Basic) and x.is_Integer:
        return int(x)
    return x


class Form:
    """``kind``: 'int' (strides ints/expressions), 'coord' (strides ``(path, value)`` or None for 0),
    'f2' (the ints ``v`` of F2 strides ``^v``, 0 for integer-0 strides), 'mixed' (F2 values and non-zero
    integer strides, as ints: only ``layout``'s own evaluation is meaningful), 'swizzle' (int inner form with
    ``swizzle`` and ``offset``), 'composed' (a concrete general composed layout, decided from its value table
    or through ``reduce_composed``: no strides; ``prover.composed``)."""

    __slots__ = ("kind", "shapes", "strides", "swizzle", "offset", "layout")

    def __init__(self, kind, shapes, strides, swizzle=None, offset=0, layout=None):
        self.kind, self.shapes, self.strides = kind, shapes, strides
        self.swizzle, self.offset, self.layout = swizzle, offset, layout

    @property
    def concrete(self):
        vals = list(self.shapes) + [self.offset]
        if self.kind == "coord":
            vals += [s[1] for s in self.strides if s is not None]
        else:
            vals += list(self.strides)
        return all(type(as_int(v)) is int for v in vals)

    def paths(self):
        return sorted({s[0] for s in self.strides if s is not None})

    def component(self, path, restricted=False):
        """Integer strides of one coordinate: other modes get stride 0 (or, restricted, are listed in the
        returned ignore set)."""
        strides, ignore = [], set()
        for k, s in enumerate(self.strides):
            if s is not None and s[0] == path:
                strides.append(s[1])
            else:
                strides.append(0)
                if restricted and not (s is None):
                    ignore.add(k)
        return strides, ignore


F2_KINDS = ("f2", "mixed")


def decompose(layout) -> Form:
    """The layout as a ``Form``, its kind saying which stride domain every leaf stride lies in: ``int``
    (integers or integer expressions), ``coord`` (``E<i>`` coordinate strides; integer 0 allowed), ``f2``
    (F2 strides ``^v`` with non-negative integer ``v``; integer 0 allowed: ``x + 0 == x ^ 0``), ``mixed``
    (F2 and non-zero integer strides: the value depends on the order and nesting in which the evaluator
    folds the modes, so only the evaluator itself decides it), ``swizzle`` (a swizzle over an ``int``
    inner form). Anything else raises ``Unsupported`` (the query answers unknown)."""
    if hasattr(layout, "outer"):
        inner = layout.inner
        if not isinstance(inner, Swizzle) or not isinstance(layout.outer, Layout):
            return _decompose_composed(layout)
        f = decompose(layout.outer)
        if f.kind != "int":
            raise Unsupported(f"a swizzle over {f.kind} strides is not modelled")
        return Form("swizzle", f.shapes, f.strides, inner, as_int(layout.offset), layout)
    shapes = [as_int(s) for s in flatten(layout.shape)]
    raw = list(flatten(layout.stride))
    if any(isinstance(d, F2) for d in raw):
        return _decompose_f2(shapes, raw, layout)
    if any(isinstance(d, ScaledBasis) for d in raw):
        strides = []
        for d in raw:
            if isinstance(d, ScaledBasis):
                v = as_int(d.value)
                if isinstance(v, F2):
                    raise Unsupported(f"coordinate stride {d} with an F2 value is not modelled")
                strides.append(None if (type(v) is int and v == 0) else (canon_path(d.path), v))
            elif type(as_int(d)) is int and as_int(d) == 0:
                strides.append(None)
            else:
                raise Unsupported(f"a layout mixing integer stride {d} with coordinate strides is not modelled")
        return Form("coord", shapes, strides, layout=layout)
    return Form("int", shapes, [as_int(d) for d in raw], layout=layout)


def _decompose_composed(layout) -> Form:
    """A general composed layout (a layout as outer function, or nested): a concrete one is the 'composed'
    kind (``prover.composed`` enumerates it, exact whatever the functions, or reduces it past its budget); a
    symbolic one is the form of the plain (or swizzled) layout it equals on its domain (``reduce_composed``),
    else ``Unsupported`` (its symbols are then decided by substitution)."""
    if not layout.free_symbols():
        return Form("composed", [as_int(s) for s in flatten(layout.shape)], [], layout=layout)
    reduced = reduce_composed(layout)
    if reduced is None:
        raise Unsupported(f"the symbolic composed layout {layout} is decided only at concrete values of its "
                          "symbols, unless it has offset 0 and its functions compose into one layout")
    return decompose(reduced)


def reduce_composed(layout):
    """A plain layout (or a swizzle over one) equal to the composed ``layout`` at every index of its domain, or
    None. ``A o 0 o B`` is ``composition(A, B)``: composition's post-condition is ``R(c) == A(B(c))`` for
    every ``c < size(B)``, A read on its extended domain, which is how a composed layout reads A. Valid only
    where the composition needs no obligation: it runs apart from any claim's context, and a result that
    carries a new obligation (or is split into cases) is not used. Non-zero offsets are not reduced. Where a
    negative index may reach an A with coordinate or F2 strides (the composed layout is not defined there,
    ``ComposedLayout._apply``; composition would answer CuTe's ``-A(x)``) it raises ``Unsupported`` naming it."""
    outer = layout.outer
    if isinstance(outer, ComposedLayout):
        outer = reduce_composed(outer)
        if outer is None:
            return None
    if isinstance(layout.inner, Swizzle):
        return ComposedLayout(layout.inner, layout.offset, outer) if isinstance(outer, Layout) else None
    if not (type(layout.offset) is int and layout.offset == 0):
        return None
    token = decide.enter(None)
    try:
        if any(isinstance(d, (F2, ScaledBasis)) for d in layout.inner.leaves[1]) and _may_read_negative(outer):
            raise Unsupported(f"a negative index may reach the outer function {layout.inner} of {layout}, "
                              "whose coordinate or F2 strides have no A(-x) == -A(x) (not reduced)")
        r = composition(layout.inner, outer)
    except Unsupported:
        raise
    except CuteVerifyError:
        return None
    finally:
        decide.leave(token)
    if not isinstance(r, (Layout, ComposedLayout)):
        return None
    known = set(layout.obligations)
    if any(o not in known for o in r.obligations):
        return None
    return r


def _may_read_negative(lay) -> bool:
    """False only where every value of ``lay`` (a plain layout, or a swizzle over one) is proved
    non-negative: integer strides of decided sign summing to a non-negative minimum, F2 strides with
    non-negative values (their values are then non-negative integers); coordinate values are not indices."""
    if isinstance(lay, ComposedLayout):
        if not isinstance(lay.inner, Swizzle):
            return True  # a swizzle keeps a non-negative integer non-negative
        off, lay = lay.offset, lay.outer
    else:
        off = 0
    lo = off
    for s, d in zip(*lay.leaves):
        if isinstance(d, ScaledBasis):
            return True
        if isinstance(d, F2):
            if decide.le(0, d.value) is not True:
                return True
        elif decide.lt(d, 0) is True:
            lo = lo + (s - 1) * d
        elif decide.le(0, d) is not True:
            return True
    return decide.le(0, lo) is not True


def _decompose_f2(shapes, raw, layout):
    strides, mixed = [], False
    for d in raw:
        if isinstance(d, ScaledBasis):
            raise Unsupported("a layout mixing F2 and coordinate strides is not modelled")
        if isinstance(d, F2):
            v = as_int(d.value)
            if type(v) is not int or v < 0:
                raise Unsupported(f"F2 stride {d}: only non-negative integer F2 strides are modelled")
            strides.append(v)
            continue
        v = as_int(d)
        if type(v) is not int:
            raise Unsupported(f"a layout mixing F2 strides with the symbolic integer stride {d} is not modelled")
        mixed = mixed or v != 0
        strides.append(v)
    return Form("mixed" if mixed else "f2", shapes, strides, layout=layout)


def components(f: Form):
    """Integer strides per coordinate: ``{path: strides}`` for a coord form, ``{(): strides}`` otherwise."""
    if f.kind == "coord":
        return {p: f.component(p)[0] for p in f.paths()}
    return {(): list(f.strides)}


def path_of_index(i):
    return canon_path((i,))


__all__ = ["Form", "decompose", "reduce_composed", "norm_value", "canon_path", "as_int", "is_symbolic", "components", "F2_KINDS",
           "path_of_index"]
