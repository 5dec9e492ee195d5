"""The rules of ``cuTensorMapEncodeTiled`` as named conditions over a descriptor's fields (the fields and
the sources of each rule: ``hardware.tma``). Each function below builds one :class:`~.rules.Rule`; a clause
is a ``Condition`` over the (possibly symbolic) sizes or a plain bool for the enum-level rules."""
from __future__ import annotations

from ...symbolic.conditions import Condition as C
from ...symbolic.expr import normalize
from ...symbolic.lazy import sympy
from ..checks.rules import Rule, value_at
from ..library import swizzles

__all__ = ["descriptor_rules", "SWIZZLE_SPAN", "MAX_BOX_BYTES_SM90"]

#: bytes of the inner box a swizzle mode allows (interleave NONE); the 128B_ATOM variants count as 128
SWIZZLE_SPAN = {m.tma: m.span_bytes for m in swizzles.MODES if m.span_bytes}
#: 228 KiB, the largest box (bytes loaded) the H200's driver accepted; 237568 was refused (evidence round 3)
MAX_BOX_BYTES_SM90 = 233472
_PACKED_A16 = (14, 15)
_PACKED = (13, 14, 15)
_ATOM_SWIZZLES = tuple(m.tma for m in swizzles.MODES if m.tma_base)  # SM100's 128B_ATOM modes
_OBSERVED = "H200 driver 580.159.04 (specs/evidence/sm90/tma_driver_verdicts.jsonl)"
_DOC = "cuda.h: cuTensorMapEncodeTiled"
_ENUM_RANGES = (("dtype", 16), ("interleave", 3), ("swizzle", 7), ("l2_promotion", 4), ("oob_fill", 2))


def _v(e, values):
    return value_at(e, values)


def _bytes(bits_expr, values):
    """Bytes of a bit count at an assignment, as text (``8`` or ``4.5``)."""
    v = value_at(bits_expr, values)
    if type(v) is int:
        return str(v // 8) if v % 8 == 0 else f"{v / 8:g}"
    return f"({v})/8"


def _rank(d):
    yield Rule("rank", "1 <= rank <= 5", [(1 <= d.rank <= 5, lambda _: f"rank {d.rank} is not in 1..5")])
    yield Rule("interleave_rank", "rank >= 3 with an interleaved layout",
               [(d.interleave == 0 or d.rank >= 3,
                 lambda _: f"interleave {d.interleave} needs rank >= 3, rank is {d.rank}")])


def address_rule(d):
    """The rule on descriptor ``d``'s global address: 16-byte aligned (32 for interleave 32B and the
    16U4/16U6_ALIGN16B types); not checked where the address is not given."""
    align = 32 if d.interleave == 2 or d.dtype in _PACKED_A16 else 16
    text = f"global address {align}-byte aligned"
    if d.address is None:
        return Rule("address_alignment", text + " (address not given: not checked)", [])
    a = d.address
    return Rule("address_alignment", text,
                [(C("divides", align, a), lambda v: f"global address {_v(a, v)} is not {align}-byte aligned")])


def dim_rules(d):
    """The rules on descriptor ``d``'s global dimensions: each in 1..2**32, and a packed type's dim 0 a
    multiple of its packing."""
    clauses = []
    for i, s in enumerate(d.shape):
        clauses.append((C("le", 1, s), lambda v, i=i, s=s: f"global dim {i} is {_v(s, v)}, not >= 1"))
        clauses.append((C("le", s, 2 ** 32), lambda v, i=i, s=s: f"global dim {i} is {_v(s, v)} > 2**32"))
    yield Rule("global_dims", "every global dimension in 1..2**32", clauses)
    if d.dtype in _PACKED and d.shape:
        m = 128 if d.dtype in _PACKED_A16 else 2
        s0 = d.shape[0]
        yield Rule("packed_dims", f"a packed type's global dim 0 is a multiple of {m}",
                   [(C("divides", m, s0), lambda v: f"global dim 0 is {_v(s0, v)}, not a multiple of {m}")])


def stride_rules(d):
    """The rules on descriptor ``d``'s global strides (bytes): aligned to 16 (32), in 0..2**40 - 1, and the
    innermost stride 1."""
    m = 32 if d.interleave == 2 or d.dtype in _PACKED_A16 else 16
    mult, bound = [], []
    for i, sb in enumerate(d.stride_bytes(), 1):
        # bytes = num / den (den > 1 only for packed 4/6-bit types): a multiple of m iff m*den | num
        num, den = sympy.fraction(sympy.together(sympy.sympify(sb)))
        num, den = normalize(num), int(den)
        mult.append((C("divides", m * den, num),
                     lambda v, i=i, sb=sb: f"global stride {i} is {_v(sb, v)} bytes, not a multiple of {m}"))
        bound.append((C("lt", num, 2 ** 40 * den),
                      lambda v, i=i, sb=sb: f"global stride {i} is {_v(sb, v)} bytes, not < 2**40"))
        # the driver's strides are cuuint64_t: a negative stride wraps past 2**40, it is never accepted
        bound.append((C("le", 0, num),
                      lambda v, i=i, sb=sb: f"global stride {i} is {_v(sb, v)} bytes, negative (an unsigned count)"))
    yield Rule("stride_alignment", f"every global stride (bytes) a multiple of {m}", mult)
    yield Rule("stride_bound", "every global stride in 0..2**40 - 1 bytes", bound)
    if d.stride and d.stride[0] is not None:
        s0 = d.stride[0]
        yield Rule("innermost_contiguous", "the innermost dimension has stride 1 (the driver takes no stride "
                   "for it)", [(C("eq", s0, 1), lambda v: f"the innermost stride is {_v(s0, v)}, not 1")],
                   source="cuTensorMapEncodeTiled's interface")


def _box(d):
    clauses = []
    for i, b in enumerate(d.box):
        clauses.append((C("le", 1, b), lambda v, i=i, b=b: f"box dim {i} is {_v(b, v)}, not >= 1"))
        clauses.append((C("le", b, 256), lambda v, i=i, b=b: f"box dim {i} is {_v(b, v)} > 256"))
    yield Rule("box_dims", "every box dimension in 1..256", clauses)
    if not d.box or d.bits is None:
        return
    b0, bits = d.box[0], d.bits
    inner_bits = normalize(b0 * bits)
    yield Rule("inner_box_bytes", "the inner box (box[0] x element size) a multiple of 16 bytes",
               [(C("divides", 128, inner_bits),
                 lambda v: f"the inner box is {_bytes(inner_bits, v)} bytes, not a multiple of 16")],
               source=_DOC + " (interleave NONE); the " + _OBSERVED + " also for interleaved layouts")
    span = SWIZZLE_SPAN.get(d.swizzle)
    if d.interleave == 0 and span is not None:
        yield Rule("swizzle_span", f"the inner box at most the swizzle span ({span} bytes)",
                   [(C("le", inner_bits, span * 8),
                     lambda v: f"the inner box is {_bytes(inner_bits, v)} bytes > the {span}-byte swizzle span")])
    if d.dtype in _PACKED_A16:
        yield Rule("packed_box", "a 16U4_ALIGN16B / 16U6_ALIGN16B box has box[0] == 128",
                   [(C("eq", b0, 128), lambda v: f"box dim 0 is {_v(b0, v)}, not 128")])
    if d.arch == "sm_90" and len(d.element_strides) == len(d.box):
        loaded = 1
        for b, e in zip(d.box, d.element_strides):
            loaded = loaded * (b if e == 1 else sympy.floor((b + e - 1) / sympy.sympify(e)))
        total = normalize(loaded * bits)
        yield Rule("box_bytes", f"the elements a box loads fit in {MAX_BOX_BYTES_SM90} bytes (228 KiB)",
                   [(C("le", total, MAX_BOX_BYTES_SM90 * 8),
                     lambda v: f"the box loads {_bytes(total, v)} bytes > {MAX_BOX_BYTES_SM90}")],
                   source=_OBSERVED)


def element_stride_rules(d):
    """The rule on descriptor ``d``'s element strides: each in 1..8."""
    clauses = []
    for i, e in enumerate(d.element_strides):
        clauses.append((C("le", 1, e), lambda v, i=i, e=e: f"element stride {i} is {_v(e, v)}, not >= 1"))
        clauses.append((C("le", e, 8), lambda v, i=i, e=e: f"element stride {i} is {_v(e, v)} > 8"))
    yield Rule("element_strides", "every element stride in 1..8 (element_strides[0] included)", clauses,
               source=_DOC + "; element_strides[0] checked by the " + _OBSERVED)


def enum_rules(d):
    """The rules on descriptor ``d``'s enum fields (in range, interleave/swizzle and OOB-fill pairings)."""
    clauses = [(0 <= getattr(d, f) < n, lambda _, f=f, n=n: f"{f} value {getattr(d, f)} is not in 0..{n - 1}")
               for f, n in _ENUM_RANGES]
    yield Rule("enums", "dtype, interleave, swizzle, L2 promotion and OOB fill are values of their enums", clauses)
    yield Rule("interleave_swizzle", "INTERLEAVE_32B needs SWIZZLE_32B",
               [(d.interleave != 2 or d.swizzle == 1,
                 lambda _: f"interleave 32B with swizzle value {d.swizzle}, not 32B")],
               enforced=False, source=_DOC)
    yield Rule("oob_fill_float", "the NaN out-of-bounds fill only for (unpacked) floating-point types",
               [(d.oob_fill != 1 or d.is_float,
                 lambda _: f"NaN OOB fill with the non-float type value {d.dtype}")])
    if d.dtype == 15:
        yield Rule("packed_interleave", "16U6_ALIGN16B needs interleave NONE",
                   [(d.interleave == 0, lambda _: f"interleave value {d.interleave} with 16U6_ALIGN16B")])
    if d.dtype in _PACKED_A16:
        ok = (0, 3, 4, 6) if d.dtype == 15 else (0, 3, 4)
        yield Rule("packed_swizzle", "a packed type takes the swizzle modes its documentation lists",
                   [(d.swizzle in ok, lambda _: f"swizzle value {d.swizzle} with packed type value {d.dtype}")])
    if d.arch == "sm_90":
        yield Rule("arch", "sm_90 has no 128B_ATOM swizzles and no packed 16U4/16U6 types",
                   [(d.swizzle not in _ATOM_SWIZZLES, lambda _: f"swizzle value {d.swizzle} needs sm_100"),
                    (d.dtype not in _PACKED, lambda _: f"data type value {d.dtype} needs sm_100")],
                   source=_OBSERVED)


def descriptor_rules(d) -> list[Rule]:
    """Every rule for descriptor ``d`` (a ``TmaDescriptor``), in a fixed order."""
    out = list(_rank(d)) + [address_rule(d)]
    for part in (dim_rules, stride_rules, _box, element_stride_rules, enum_rules):
        out += list(part(d))
    return out
