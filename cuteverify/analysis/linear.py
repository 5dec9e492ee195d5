"""Semi-linearity (paper section 2.4.4) and completeness (section 2.4.3).

``linear_form(L)`` gives the matrix D with ``L(c) = D c~`` over the natural coordinates ``c~`` (the
flattened leaves): a 1 x n row of integer strides, or an m x n integer matrix for coordinate strides.
``completeness_chain(f)`` builds the paper's sequence of layouts whose composition, evaluated on the
extended domain, is any function ``f`` on ``Z_N`` with ``f(0) = 0``.
"""
from __future__ import annotations

from ..core.layout import Layout
from ..core.notation.interop import as_layout
from ..core.tuples import flatten
from ..errors import NotAdmissibleError


def linear_form(layout: Layout):
    """The matrix ``D`` (a list of rows) of ``L(c) = D c~`` (``layout`` as ``as_layout`` reads it): column j is
    the stride of leaf j.

    Integer strides give one row; coordinate strides ``a@i`` give one row per coordinate mode (nested
    paths are flattened by their first index, as the paper's examples do).
    """
    strides = flatten(as_layout(layout).stride)
    if all(not hasattr(d, "path") for d in strides):
        return [list(strides)]
    rows = 1 + max(d.path[0] for d in strides if hasattr(d, "path"))
    D = [[0] * len(strides) for _ in range(rows)]
    for j, d in enumerate(strides):
        if hasattr(d, "path"):
            D[d.path[0]][j] = d.value
        elif d != 0:
            raise NotAdmissibleError("linear_form", "mixed integer and coordinate strides have no single matrix")
    return D


def completeness_chain(values):
    """Layouts ``[L0, L1, ..., Lk]`` with ``f(i) == L0(L1(...Lk(i)))`` for ``i < N`` (paper 2.4.3).

    ``values`` is ``[f(0), f(1), ..., f(N-1)]`` with ``f(0) == 0``. The rightmost layouts send ``i`` to
    ``2**(i-1)`` on the extended domain and ``L0 = (2,2,...):(f(1),f(2),...)`` reads ``f`` off the bits.
    """
    values = list(values)
    if not values or values[0] != 0:
        raise NotAdmissibleError("completeness_chain", "f(0) must be 0")
    n = len(values)
    if n == 1:
        return [Layout(1, 0)]
    if n == 2:
        return [Layout(2, values[1])]
    chain = [Layout(tuple([2] * (n - 1)), tuple(values[1:]))]
    for k in range(3, n):
        chain.append(Layout((k, 1), (1, 2 * (k - 1))))
    return chain


def evaluate_chain(chain, i):
    """Apply a chain of layouts right to left (extended domain)."""
    for L in reversed(chain):
        i = L(i)
    return i
