"""Coalesce and filter (ALGEBRA.md section 3)."""
from __future__ import annotations

from ..core.kernels import coalesce_flat_ints, coalesce_ints
from ..core.layout import Layout, leaves
from ..core.strides import F2
from ..core.tuples import flatten, transform2
from ..errors import NotAdmissibleError
from ..symbolic import decide
from ..symbolic.conditions import Condition
from ._op import operation


def coalesce_flat(shapes, strides, units_matter=True, keep_last=False):
    """Coalesce flat leaf lists; returns ``(shape, stride)`` as an int pair or flat tuples.

    Size-1 modes are dropped and neighbours ``s0:d0, s1:d1`` with ``d1 == s0*d0`` merge into
    ``s0*s1:d0``; nothing left gives ``1:0``. ``units_matter=False`` is for callers that only need the
    function (a kept mode that is really of size 1 changes nothing for them), so no obligation is made.
    ``keep_last=True`` never drops the last mode, even of size 1: it carries the layout's extended domain,
    which composition uses past the size (CuTe DSL composes with it).
    """
    ints = coalesce_flat_ints(shapes, strides, keep_last)
    if ints is not None:
        return ints
    rs: list = []
    rd: list = []
    for s, d in zip(shapes, strides):
        if type(s) is int:
            if s == 1:
                continue
            unit = False
        else:
            unit = decide.is_one(s)
            if unit:
                continue
        if rs:
            ps, pd = rs[-1], rd[-1]
            if type(d) is int and type(ps) is int and type(pd) is int:
                merge = d == ps * pd
            elif type(d) is F2 or type(pd) is F2:
                merge = f2_chain(ps, pd, s, d, unbounded=keep_last)
            elif hasattr(d, "path") or hasattr(pd, "path"):
                merge = _basis_chain(d, ps, pd)
            else:
                merge = decide.eq(d, ps * pd)
                if merge is None:
                    decide.obligate(Condition("ne", d, ps * pd),
                                    "coalesce keeps modes apart whose strides are not known to chain", canonical=True)
            if merge:
                # s == 1 would leave ps unchanged too, so no obligation on s is needed here
                rs[-1] = ps * s
                continue
        if unit is None and units_matter:
            decide.obligate(Condition("ne", s, 1), "coalesce keeps a mode whose size is not known to be 1",
                            canonical=True)
        rs.append(s)
        rd.append(d)
    if not rs:
        if keep_last and shapes:
            return shapes[-1], strides[-1]
        return 1, 0
    if keep_last and type(shapes[-1]) is int and shapes[-1] == 1:
        # the last mode carries the extended domain; CuTe keeps it through composition
        d, ps, pd = strides[-1], rs[-1], rd[-1]
        if hasattr(d, "path") or hasattr(pd, "path"):
            # an E<i> extension that chains on the last kept mode's axis is that mode's own extension
            # (CuTe's coalesce_x: ``(2,1):(1@0,2@0)`` is ``2:1@0`` everywhere)
            chains = _basis_chain(d, ps, pd)
        else:
            chains = type(d) is int and type(ps) is int and type(pd) is int and d == ps * pd
        if not chains:
            rs.append(1)
            rd.append(d)
    if len(rs) == 1:
        return rs[0], rd[0]
    return tuple(rs), tuple(rd)


# Past this many digits an F2 chain is merged only by the power-of-two rule (no enumeration).
_F2_ENUM = 4096


def f2_chain(s0, v0, s1, v1, unbounded=False):
    """Do F2 modes ``s0:^v0, s1:^v1`` equal the one mode ``s0*s1:^v0``? That is
    ``c0*v0 XOR c1*v1 == (c0 + s0*c1)*v0`` for all ``c0 < s0, c1 < s1``: it needs ``v1 == s0*v0``, and then the
    sum equals the XOR exactly when no bit of any ``c0*v0`` meets a bit of any ``c1*s0*v0`` (the ORs of the two
    ranges are disjoint; docs/model.md section 3.1). ``s0*v0`` a power of two always suffices, and it is the
    rule when ``c1`` is unbounded (``unbounded``: the last mode carries the extended domain, which
    composition reads past the size). Sizes must be integers (F2 values always are)."""
    if type(s0) is not int or type(s1) is not int:
        return False
    v0, v1 = int(v0), int(v1)
    if v1 != s0 * v0:
        return False
    p = s0 * v0
    if v0 == 0 or p & (p - 1) == 0:
        return True
    if unbounded or s0 > _F2_ENUM or s1 > _F2_ENUM:
        return False
    lo = hi = 0
    for c in range(s0):
        lo |= c * v0
    for c in range(s1):
        hi |= c * p
    return lo & hi == 0


def _basis_chain(d, ps, pd):
    """Coordinate strides chain only along the same coordinate: ``a@i, b@i`` with ``b == ps*a``."""
    if not (hasattr(d, "path") and hasattr(pd, "path")) or d.path != pd.path:
        return False
    r = decide.eq(d.value, ps * pd.value)
    return bool(r)


def coalesce(layout, profile=None, mode=None):
    """The same function on ``Z_size`` with as few, as flat modes as possible.

    Definition: drop size-1 modes, merge ``s0:d0, s1:d1`` into ``s0*s1:d0`` when ``d1 == s0*d0``.
    Domains (docs/model.md section 3.1): integer strides as stated; coordinate strides only along the same
    coordinate; F2 strides only where the merged mode is the same function (``f2_chain``); a composed layout
    is coalesced through its outer layout.
    With ``profile`` (a tuple), mode ``i`` is coalesced separately to the profile's mode ``i``; modes past
    the profile are kept as they are. Admissible when the profile has at most as many modes as the layout,
    mode by mode (CuTe C++ asserts it; a longer profile is not a profile of the layout). Post-condition: ``R(i) == L(i)`` for ``i < size``,
    ``size(R) == size(L)``, and ``depth(R) <= 1``.
    """
    if mode is not None and mode != ():  # ``mode=`` (bymode.by_mode attaches at_mode)
        return coalesce.at_mode(layout, *(() if profile is None else (profile,)), mode=mode)
    if profile is None and type(layout) is Layout and layout.assumptions is None and not layout.obligations:
        lv = layout.int_leaves
        if lv is not None:
            return Layout._make_ints(*coalesce_ints(lv[0], lv[1], False))
    return _coalesce(layout, profile)


coalesce._takes_mode = True
coalesce.at_mode = None  # set by bymode.by_mode


@operation
def _coalesce(layout, profile=None):
    return coalesce_by(coalesce, layout, profile, keep_last=False)


def coalesce_by(op, layout, profile, keep_last):
    """The general path of ``coalesce`` / ``coalesce_z`` (``op``, applied again per profiled mode): a composed
    layout through its outer layout, a profile mode by mode (at most as many modes as the layout), else the flat
    leaves merged, the trailing size-1 mode kept when ``keep_last``."""
    if type(layout) is not Layout and hasattr(layout, "outer"):
        return layout.with_outer(op(layout.outer, profile))
    if type(profile) is tuple:
        if len(profile) > len(layout):
            raise NotAdmissibleError(op.__name__, "the profile must not have more modes than the layout",
                                     f"profile of rank {len(profile)}, layout {layout} of rank {len(layout)}")
        modes = []
        for i in range(len(layout)):
            sub = layout[i]
            if i < len(profile):
                sub = op(sub, profile[i])
            modes.append(sub)
        return Layout._make(tuple(m.shape for m in modes), tuple(m.stride for m in modes))
    s, d = coalesce_flat(*leaves(layout), keep_last=keep_last)
    return Layout._make(s, d)


@operation
def filter_zeros(layout):
    """Set the shape of every stride-0 mode to 1 (keeps the profile)."""
    shape = transform2(layout.shape, layout.stride, lambda s, d: 1 if _zero(d) else s)
    return Layout._make(shape, layout.stride)


def _zero(d):
    if type(d) is int:
        return d == 0
    if type(d) is F2:
        return d.value == 0
    z = decide.is_zero(d)
    if z is None:
        decide.obligate(Condition("ne", d, 0), "filter keeps a mode whose stride is not known to be 0")
    return z is True


@operation(swizzle_through=True)
def filter(layout):
    """``coalesce`` after dropping stride-0 modes: the image of ``L`` without repeats from broadcasting.

    Post-condition: ``image(filter(L)) == image(L)``; ``filter(L)`` has no stride-0 mode unless it is ``1:0``.
    """
    return coalesce(filter_zeros(layout))
