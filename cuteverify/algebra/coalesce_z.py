"""``coalesce_z``: coalesce that keeps the layout's values on every non-negative integer (the NVlabs reference's
``coalesce_z``)."""
from __future__ import annotations

from ..core.kernels import coalesce_flat_ints
from ..core.layout import Layout
from ._op import operation
from .coalesce import coalesce_by


def coalesce_z(layout, profile=None):
    """The same function on all of ``Z`` (every index ``i >= 0``, past the size included) with as few, as flat
    modes as possible.

    A layout is defined past its size through its last leaf, whose coordinate is not reduced (CuTe's
    ``idx2crd``: the extended domain, which composition reads). ``coalesce`` drops a trailing size-1 leaf
    and so may change those values (``(2,6,1):(1,8,0)`` maps 12 to 0, its coalesce ``(2,6):(1,8)`` to 48);
    ``coalesce_z`` keeps it.
    Definition: drop size-1 leaves except the last; merge ``s0:d0, s1:d1`` into ``s0*s1:d0`` when ``d1 ==
    s0*d0`` (for F2 strides only where the merged mode is the same function with its last coordinate
    unbounded, ``coalesce.f2_chain``); a trailing size-1 leaf ``1:d`` goes too when ``d`` continues the
    last kept mode (``d == s*d_last``). All leaves of size 1 give the last of them (``(1,1):(3,5)`` is
    ``1:5``). With ``profile`` (a tuple), mode ``i`` is coalesced separately to the profile's mode ``i``;
    modes past the profile are kept as they are.
    Valid for: every layout (integer, coordinate and F2 strides, concrete or symbolic; a composed layout
    through its outer layout); always admissible.
    Post-condition: ``R(i) == L(i)`` for every integer ``i >= 0``, ``size(R) == size(L)``, and ``depth(R) <=
    1`` (within each profiled mode). ``coalesce(L)`` is ``coalesce_z(L)`` without its trailing size-1 mode.
    """
    if profile is None and type(layout) is Layout and layout.assumptions is None and not layout.obligations:
        lv = layout.int_leaves
        if lv is not None:
            return Layout._make_ints(*coalesce_flat_ints(lv[0], lv[1], True))
    return _coalesce_z(layout, profile)


@operation
def _coalesce_z(layout, profile=None):
    return coalesce_by(coalesce_z, layout, profile, keep_last=True)


__all__ = ["coalesce_z"]
