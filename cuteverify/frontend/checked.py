"""The library's verdicts as the front ends (CLI, manifests) run them: an ``agrees`` layout that cannot be compared
is an input error (:class:`ShapeMismatch`), a ``dtype`` parameter must be a dtype, and a refutation of a swizzled
layout that another element-width reading would prove carries a hint that bytes and elements were mixed
(docs/model.md section 4). The verdicts themselves are the prover's and the spec library's, unchanged.
"""
from __future__ import annotations

from dataclasses import replace

from .. import prover as P
from ..core.notation.interop import as_layout
from ..core.swizzle import ComposedLayout, Swizzle
from ..errors import CuteVerifyError, ShapeMismatch
from ..hardware import agrees
from ..hardware.library.dtypes import dtype_bits

__all__ = ["byte_element_hint", "checked_equal", "checked_agrees"]


def byte_element_hint(check, layout):
    """A hint for a refuted claim about a swizzled layout: ``check(alternative) -> Verdict`` is re-run with the
    swizzle read at another element width (``S<B,M,S>`` on the bytes of 2**k-byte elements is ``S<B,M-k,S>`` on
    elements, CUTLASS's ``Sw<..> o smem_ptr[Nb]`` print). ``None`` unless one of them is proved: then bytes and
    elements were most likely mixed, and the hint says which reading agrees. Never changes the verdict."""
    if isinstance(layout, str):
        try:
            layout = as_layout(layout)
        except CuteVerifyError:
            return None
    sw = getattr(layout, "inner", None)
    if not isinstance(sw, Swizzle):
        return None
    for k in (1, 2, 3, 0):
        for sign in (-1, 1):
            if k == 0 or sw.base + sign * k < 0:
                continue
            try:
                alt = ComposedLayout(Swizzle(sw.bits, sw.base + sign * k, sw.shift), layout.offset, layout.outer)
                ok = check(alt).status == "proved"
            except CuteVerifyError:
                continue
            if ok:
                bits = 8 << k
                how = (f"{sw} as a swizzle of byte addresses of {bits}-bit elements (CUTLASS's Sw<...> o "
                       f"smem_ptr[{bits}b] print)" if sign < 0 else
                       f"{sw} as counting {bits}-bit elements where the other side swizzles byte addresses")
                return (f"hint: the refutation vanishes with {how}, i.e. {alt.inner} on element indices: "
                        "bytes and elements may be mixed")
    return None


def _with_hint(v, hint):
    if hint and v.status == "refuted":
        return replace(v, reason=f"{v.reason}; {hint}" if v.reason and v.reason != str(v.counterexample) else hint)
    return v


def checked_equal(a, b, assume=None):
    """``are_equal`` with the byte/element hint of :func:`byte_element_hint` on a refutation."""
    v = P.are_equal(a, b, assume=assume)
    if v.status == "refuted":
        hint = byte_element_hint(lambda x: P.are_equal(x, b, assume=assume), a) or \
            byte_element_hint(lambda x: P.are_equal(a, x, assume=assume), b)
        v = _with_hint(v, hint)
    return v


def checked_agrees(layout, spec_name: str, operand=None, library=None, **params):
    """``agrees`` as the front ends run it: a ``dtype`` parameter must be a dtype (even where the spec does not
    read it), and a layout whose shape cannot match the spec raises :class:`ShapeMismatch` (input error).
    This is ``cv.agrees`` of the Python API too: the API, the CLI and manifests give one answer."""
    if params.get("dtype") is not None:
        dtype_bits(params["dtype"])
    v = agrees(layout, spec_name, operand, library, **params)
    cex = v.counterexample
    if v.status == "refuted" and getattr(cex, "kind", None) == "mismatch":
        raise ShapeMismatch(f"the layout cannot be compared with {spec_name}"
                            + (f" operand {operand}" if operand else "") + f": {v.reason}")
    if v.status == "refuted":
        v = _with_hint(v, byte_element_hint(lambda x: agrees(x, spec_name, operand, library, **params), layout))
    return v
