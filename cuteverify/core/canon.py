"""Re-canonicalisation of an instantiated symbolic result (``Layout.subs``; docs/model.md sections 3.2, 5.1).

A symbolic operation keeps a mode whose size ``X`` is not known to be 1 and records the printed-form-only
obligation ``X != 1`` ("coalesce keeps a mode whose size is not known to be 1"). Once a substitution makes
``X`` equal to 1, the concrete operation would have taken the other branch, and CuTe's canonical form of
that mode is ``1:0``. Setting its stride to 0 does not change the function on ``[0, size)`` (the mode's only
coordinate is 0); it restores the printed form the concrete operation gives. Only modes tied to such an
obligation change: other size-1 modes are printed as the operation chose them (CuTe's products keep a
size-1 mode's stride, for example).
"""
from __future__ import annotations


def unit_sizes(obligations, values, names):
    """The sizes ``X`` of the printed-form-only obligations ``X != 1`` that ``values`` make false."""
    out = []
    for o in obligations:
        c = getattr(o, "condition", None)
        if not getattr(o, "canonical", False) or getattr(c, "kind", None) != "ne":
            continue
        for x, one in ((c.a, c.b), (c.b, c.a)):
            if type(one) is int and one == 1 and hasattr(x, "free_symbols") and \
                    {s.name for s in x.free_symbols} <= names and c.holds(values) is False:
                out.append(x)
    return out


def unit_strides(old_shape, new_shape, stride, units):
    """``stride`` with 0 for every mode whose symbolic size (in ``old_shape``) is one of ``units`` and is 1
    in ``new_shape``."""
    if not units:
        return stride
    if type(new_shape) is tuple:
        if type(stride) is not tuple or type(old_shape) is not tuple:
            return stride
        return tuple(unit_strides(o, n, d, units) for o, n, d in zip(old_shape, new_shape, stride))
    if type(new_shape) is int and new_shape == 1 and type(old_shape) is not int and type(stride) is not tuple \
            and any(old_shape == u for u in units):
        return 0
    return stride
