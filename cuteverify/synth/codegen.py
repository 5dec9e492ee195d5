"""A candidate of the space as CuTe C++ and as CuTe DSL Python (docs/model.md section 13.4).

C++: ``tile_to_shape(composition(Swizzle<B,M,S>{}, Layout<Shape<...>, Stride<...>>{}), Shape<...>{})`` for a
generic swizzle atom, ``tile_to_shape(GMMA::Layout_K_SW128_Atom<T>{}, Shape<...>{})`` for a GMMA atom, a
plain ``Layout<...>{}`` for a padded pitch, with ``Step<_2,_1>{}`` for the row-major tile order. The
element-level swizzle of the generic atoms is the one CuTe's ``composition(Swizzle, Layout)`` applies to
element offsets; a GMMA atom is CUTLASS's own type (its swizzle on byte addresses, ``upcast`` to ``T``).

DSL: ``cute.tile_to_shape(cute.make_composed_layout(cute.make_swizzle(b, m, s), 0, cute.make_layout(shape,
stride=...)), shape, order)`` (a GMMA atom written out as the same element-level composed atom), inside a
function ``make_smem_layout()`` to call under ``@cute.jit``. Both are checked against the layout on every
point by the tests (g++ with the CUTLASS headers, CuTe DSL).
"""
from __future__ import annotations

from ..core.swizzle import ComposedLayout
from .space import GMMA_ELEMENT_TYPE, cpp_type

__all__ = ["cpp", "dsl"]


# the static integers CuTe names ``_N`` (cute/numeric/integral_constant.hpp); others are ``Int<N>``
_NAMED = set(range(11)) | {12, 16, 24, 384, 768} | set(range(32, 257, 8)) | {1 << k for k in range(9, 20)}


def _cpp_int(n):
    return f"_{n}" if n in _NAMED else f"Int<{n}>"


def _cpp_tuple(kind, t):
    if isinstance(t, tuple):
        return f"{kind}<" + ",".join(_cpp_tuple(kind, x) for x in t) + ">"
    return _cpp_int(t)


def _cpp_layout(lay):
    return f"Layout<{_cpp_tuple('Shape', lay.shape)}, {_cpp_tuple('Stride', lay.stride)}>{{}}"


def _step(order):
    return "" if order == (0, 1) else ", Step<_2,_1>{}"


def cpp(cand, tile, dtype, bits):
    """The C++ expression (``using namespace cute``) of ``cand`` over ``tile``."""
    shape = f"Shape<{_cpp_int(tile[0])},{_cpp_int(tile[1])}>{{}}"
    if cand.family == "padded":
        return _cpp_layout(cand.layout)
    if cand.gmma:
        t = cpp_type(dtype, bits) if bits in GMMA_ELEMENT_TYPE else f"uint{bits}_t"
        return f"tile_to_shape(GMMA::Layout_{cand.gmma}_Atom<{t}>{{}}, {shape}{_step(cand.order)})"
    atom = cand.atom_layout
    if isinstance(atom, ComposedLayout):
        b, m, s = cand.swizzle
        inner = f"composition(Swizzle<{b},{m},{s}>{{}}, {_cpp_layout(atom.outer)})"
    else:
        inner = _cpp_layout(atom)
    return f"tile_to_shape({inner}, {shape}{_step(cand.order)})"


def _py(t):
    return repr(t)


def _dsl_layout(lay):
    return f"cute.make_layout({_py(lay.shape)}, stride={_py(lay.stride)})"


def dsl(cand, tile, dtype):
    """CuTe DSL Python: a function ``make_smem_layout()`` returning the layout (call it under ``@cute.jit``)."""
    if cand.family == "padded":
        body = _dsl_layout(cand.layout)
        note = f"padded pitch, +{cand.pad} elements"
    else:
        atom = cand.atom_layout
        if isinstance(atom, ComposedLayout):
            b, m, s = (atom.inner.bits, atom.inner.base, atom.inner.shift)
            inner = (f"cute.make_composed_layout(cute.make_swizzle({b}, {m}, {s}), 0, "
                     f"{_dsl_layout(atom.outer)})")
        else:
            inner = _dsl_layout(atom)
        body = f"cute.tile_to_shape({inner}, {_py(tuple(tile))}, {_py(tuple(cand.order))})"
        note = (f"GMMA::Layout_{cand.gmma}_Atom<{dtype}> tiled" if cand.gmma else "swizzle atom tiled")
    return ("import cutlass.cute as cute\n\n\n"
            "def make_smem_layout():\n"
            f"    # {note} to {tile[0]}x{tile[1]} {dtype} (call under @cute.jit)\n"
            f"    return {body}\n")
