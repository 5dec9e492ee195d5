"""CuTe DSL's printed form of shapes, strides and layouts (docs/model.md section 2.5): the output half of the
notation; ``parse`` is the input half, and the two are exact inverses on CuTe notation."""
from __future__ import annotations

from ...symbolic.expr import format_value


def format_tuple(t) -> str:
    """``(4,(2,M))``: an HTuple with no spaces, entries as ``format_value`` prints them."""
    if type(t) is tuple:
        return "(" + ",".join(format_tuple(e) for e in t) + ")"
    return format_value(t)


def format_layout(layout) -> str:
    """``shape:stride`` (a swizzled layout prints itself as ``S<B,M,S> o offset o shape:stride``)."""
    return f"{format_tuple(layout.shape)}:{format_tuple(layout.stride)}"


__all__ = ["format_value", "format_tuple", "format_layout"]
