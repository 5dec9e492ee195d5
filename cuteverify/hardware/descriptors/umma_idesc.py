"""The tcgen05.mma instruction descriptor (PTX ISA 9.7.16.4.2 "Instruction descriptor", Tables 42-44;
CUTLASS include/cute/arch/mma_sm100_desc.hpp ``UMMA::InstrDescriptor`` / ``InstrDescriptorBlockScaled``):
encode, decode, and the legality of each field as named rules (:mod:`.rules`).

Two layouts of the 32-bit word (bit ranges half-open, ``[lo, hi)``):

* dense kinds ``f16 tf32 f8f6f4 i8``: sparse_id2 [0,2), sparse [2], saturate [3], d_format [4,6),
  a_format [7,10), b_format [10,13), a_negate [13], b_negate [14], a_major [15], b_major [16],
  n_dim = N >> 3 [17,23), m_dim = M >> 4 [24,29), max_shift [30,32) (``.ws`` only);
* block-scaled kinds ``mxf8f6f4 mxf4 mxf4nvf4``: sparse_id2 [0,2), sparse [2], b_sf_id [4,6),
  a_format [7,10), b_format [10,13), a_negate [13], b_negate [14], a_major [15], b_major [16],
  n_dim [17,23), scale_format [23] (UE4M3 = 0, UE8M0 = 1), m_dim [24,29), a_sf_id [29,31), k_size [31].

Reserved bits (6, 23 and 29 dense; 3 and 6 block-scaled) are zero. :func:`encode` takes the fields by name
(formats by type name: ``f16 bf16 tf32 e4m3 e5m2 e2m3 e3m2 e2m1 u8 s8``, D ``f16 f32 s32``, scale
``ue8m0 ue4m3``; majors ``K``/``MN`` or 0/1) and requires concrete values; :func:`decode` inverts it
(``decode(kind, encode(kind, **f))`` gives back ``f``). :func:`idesc_rules` states the legality of a field
set whose M and N may be symbolic; :func:`check_idesc` decides them (proved / refuted with a value /
unknown). The shape rules are CUTLASS's static_asserts in include/cute/arch/mma_sm100_umma.hpp (the PTX
shape table is stricter for no instance CUTLASS defines); the field rules are the PTX tables'.
"""
from __future__ import annotations

from ...errors import SpecError
from ...symbolic.conditions import Condition
from ..checks.rules import Rule, check_rules, value_at

__all__ = [
    "BLOCK_SCALED_FIELDS",
    "DENSE_FIELDS",
    "FORMATS",
    "KINDS",
    "check_idesc",
    "decode",
    "encode",
    "idesc_rules",
]

DENSE_KINDS = ("f16", "tf32", "f8f6f4", "i8")
BLOCK_SCALED_KINDS = ("mxf8f6f4", "mxf4", "mxf4nvf4")
KINDS = DENSE_KINDS + BLOCK_SCALED_KINDS

#: field -> (lo, width)
DENSE_FIELDS = {"sparse_id2": (0, 2), "sparse": (2, 1), "saturate": (3, 1), "d_format": (4, 2),
                "a_format": (7, 3), "b_format": (10, 3), "a_negate": (13, 1), "b_negate": (14, 1),
                "a_major": (15, 1), "b_major": (16, 1), "n_dim": (17, 6), "m_dim": (24, 5), "max_shift": (30, 2)}
BLOCK_SCALED_FIELDS = {"sparse_id2": (0, 2), "sparse": (2, 1), "b_sf_id": (4, 2), "a_format": (7, 3),
                       "b_format": (10, 3), "a_negate": (13, 1), "b_negate": (14, 1), "a_major": (15, 1),
                       "b_major": (16, 1), "n_dim": (17, 6), "scale_format": (23, 1), "m_dim": (24, 5),
                       "a_sf_id": (29, 2), "k_size": (31, 1)}

_F8F6F4 = {"e4m3": 0, "e5m2": 1, "e2m3": 3, "e3m2": 4, "e2m1": 5}
#: kind -> A/B format codes (PTX Tables 42/43; CUTLASS F16F32Format, S8Format, MXF8F6F4Format, MXF4Format)
FORMATS = {"f16": {"f16": 0, "bf16": 1}, "tf32": {"tf32": 2}, "f8f6f4": _F8F6F4, "i8": {"u8": 0, "s8": 1},
           "mxf8f6f4": _F8F6F4, "mxf4": {"e2m1": 1}, "mxf4nvf4": {"e2m1": 1}}
# PTX Table 42's D column: kind::f8f6f4 lists F32 only (the more permissive reading would prove an f16 D
# the table does not list; refusing a legal one is the lesser error)
_D_FORMATS = {"f16": {"f16": 0, "f32": 1}, "tf32": {"f32": 1}, "f8f6f4": {"f32": 1}, "i8": {"s32": 2}}
_D_CODES = {"f16": 0, "f32": 1, "s32": 2}
_SCALE = {"ue4m3": 0, "ue8m0": 1}
_SCALES_OF = {"mxf8f6f4": ("ue8m0",), "mxf4": ("ue8m0",), "mxf4nvf4": ("ue8m0", "ue4m3")}
_ALIASES = {"half": "f16", "half_t": "f16", "bfloat16": "bf16", "bfloat16_t": "bf16", "tfloat32_t": "tf32",
            "float": "f32", "float32": "f32", "int32": "s32", "int32_t": "s32", "int8": "s8", "int8_t": "s8",
            "uint8": "u8", "uint8_t": "u8", "float_e4m3_t": "e4m3", "float_e5m2_t": "e5m2",
            "float_e2m3_t": "e2m3", "float_e3m2_t": "e3m2", "float_e2m1_t": "e2m1", "float_ue8m0_t": "ue8m0",
            "float_ue4m3_t": "ue4m3"}
#: formats whose operands may be MN-major (CUTLASS: "Major value of 1 is only valid for E4M3, E5M2, INT8,
#: F16, BF16 and TF32"): the 4- and 6-bit types are K-major only
_MN_OK = {"f16", "bf16", "tf32", "e4m3", "e5m2", "u8", "s8"}
_SRC_PTX = "PTX ISA 9.7.16.4.2 Instruction descriptor"
_SRC_CUTLASS = "CUTLASS mma_sm100_umma.hpp static_assert"


def _kind(kind) -> str:
    k = str(kind).strip().lower().replace("kind::", "")
    if k not in KINDS:
        raise SpecError(f"unknown tcgen05.mma kind {kind!r} (one of {', '.join(KINDS)})")
    return k


def _name(t) -> str:
    t = str(t).strip().lower()
    return _ALIASES.get(t, t)


def _major(x, what):
    if isinstance(x, str):
        m = {"k": 0, "mn": 1}.get(x.strip().lower().replace("major::", "").replace("umma::", ""))
        if m is None:
            raise SpecError(f"{what}: a major is K or MN, got {x!r}")
        return m
    return x


def _fields(kind):
    return BLOCK_SCALED_FIELDS if kind in BLOCK_SCALED_KINDS else DENSE_FIELDS


def _raw(kind: str, f: dict) -> dict:
    """The named fields (types by name, M, N) as the descriptor's integer fields."""
    fm = FORMATS[kind]
    raw = {}
    for op in ("a", "b"):
        t = _name(f.get(f"{op}_type", next(iter(fm))))
        if t not in fm:
            raise SpecError(f"kind::{kind}: {op}_type {t!r} is not one of {', '.join(fm)}")
        raw[f"{op}_format"] = fm[t]
        raw[f"{op}_major"] = _major(f.get(f"{op}_major", 0), f"{op}_major")
        raw[f"{op}_negate"] = int(bool(f.get(f"{op}_negate", 0)))
    M, N = f.get("M"), f.get("N")
    if type(M) is not int or type(N) is not int:
        raise SpecError(f"encode: M and N must be concrete integers, got M={M!r}, N={N!r}")
    raw["m_dim"], raw["n_dim"] = M >> 4, N >> 3
    raw["sparse"] = int(bool(f.get("sparse", 0)))
    raw["sparse_id2"] = f.get("sparse_id2", 0)
    if kind in DENSE_KINDS:
        d = _name(f.get("d_type", "s32" if kind == "i8" else "f32"))
        if d not in _D_CODES:
            raise SpecError(f"kind::{kind}: d_type {d!r} is not one of f16, f32, s32")
        raw["d_format"] = _D_CODES[d]
        raw["saturate"] = int(bool(f.get("saturate", 0)))
        raw["max_shift"] = f.get("max_shift", 0)
    else:
        s = _name(f.get("scale_type", "ue8m0"))
        if s not in _SCALE:
            raise SpecError(f"kind::{kind}: scale_type {s!r} is not ue8m0 or ue4m3")
        raw["scale_format"] = _SCALE[s]
        raw["a_sf_id"], raw["b_sf_id"] = f.get("a_sf_id", 0), f.get("b_sf_id", 0)
        raw["k_size"] = f.get("k_size", 0)
    return raw


_KNOWN = {"a_type", "b_type", "d_type", "a_major", "b_major", "a_negate", "b_negate", "M", "N", "sparse",
          "sparse_id2", "saturate", "max_shift", "scale_type", "a_sf_id", "b_sf_id", "k_size"}


def encode(kind, **fields) -> int:
    """The 32-bit descriptor of ``fields`` for ``kind``. Admissible: every integer field fits its width and M,
    N are multiples of 16 and 8 (the low bits are not encoded), else :class:`SpecError`; the field rules
    (:func:`idesc_rules`) are not required here (an illegal but encodable descriptor is encoded)."""
    kind = _kind(kind)
    extra = set(fields) - _KNOWN
    if extra:
        raise SpecError(f"encode: unknown field(s) {', '.join(sorted(extra))}")
    raw = _raw(kind, fields)
    if fields["M"] % 16 or fields["N"] % 8:
        raise SpecError(f"encode: M={fields['M']} must be a multiple of 16 and N={fields['N']} of 8")
    word = 0
    for name, (lo, width) in _fields(kind).items():
        v = raw.get(name, 0)
        if type(v) is not int or not 0 <= v < (1 << width):
            raise SpecError(f"encode: field {name} = {v!r} does not fit in {width} bit(s)")
        word |= v << lo
    return word


def decode(kind, word: int) -> dict:
    """The named fields of a descriptor word (types by name; M = m_dim << 4, N = n_dim << 3), plus
    ``reserved``: the value of the reserved bits (0 for a well-formed word). A format code no type has is
    reported as ``"code <n>"``."""
    kind = _kind(kind)
    if type(word) is not int or not 0 <= word < (1 << 32):
        raise SpecError(f"decode: a descriptor is a 32-bit unsigned integer, got {word!r}")
    spec = _fields(kind)
    raw = {name: (word >> lo) & ((1 << width) - 1) for name, (lo, width) in spec.items()}
    used = sum(((1 << w) - 1) << lo for lo, w in spec.values())
    inv = {v: k for k, v in FORMATS[kind].items()}
    out = {"a_type": inv.get(raw["a_format"], f"code {raw['a_format']}"),
           "b_type": inv.get(raw["b_format"], f"code {raw['b_format']}"),
           "a_major": raw["a_major"], "b_major": raw["b_major"], "a_negate": raw["a_negate"],
           "b_negate": raw["b_negate"], "M": raw["m_dim"] << 4, "N": raw["n_dim"] << 3,
           "sparse": raw["sparse"], "sparse_id2": raw["sparse_id2"], "reserved": word & ~used & 0xFFFFFFFF}
    if kind in DENSE_KINDS:
        dinv = {v: k for k, v in _D_CODES.items()}
        out.update(d_type=dinv.get(raw["d_format"], f"code {raw['d_format']}"), saturate=raw["saturate"],
                   max_shift=raw["max_shift"])
    else:
        sinv = {v: k for k, v in _SCALE.items()}
        out.update(scale_type=sinv[raw["scale_format"]], a_sf_id=raw["a_sf_id"], b_sf_id=raw["b_sf_id"],
                   k_size=raw["k_size"])
    return out


# ------------------------------------------------------------------------------------------ legality

class AnyOf(Condition):
    """A disjunction of conditions read through the one Condition vocabulary: the decision interface sees
    the *strongest* alternative (``first``; proving it proves the disjunction), while ``holds`` evaluates the
    whole disjunction, so a violation found for ``first`` that another alternative satisfies does not
    re-check and the clause is answered unknown, never refuted wrongly."""

    __slots__ = ("alternatives",)

    def __init__(self, first: Condition, *others: Condition):
        super().__init__(first.kind, first.a, first.b)
        self.alternatives = (first,) + others

    def holds(self, values=None):
        rs = [c.holds(values) for c in self.alternatives]
        if any(r is True for r in rs):
            return True
        return None if any(r is None for r in rs) else False

    def symbols(self):
        out = set()
        for c in self.alternatives:
            out |= c.symbols()
        return out

    def __str__(self):
        return " or ".join(f"({Condition.__str__(c)})" for c in self.alternatives)


def _n_rule(kind, cta_group, a_tmem, sparse):
    """CUTLASS's N range for the struct of (kind, cta_group, A source, sparsity): ``(step, lo, also8)``, or
    None for the M-dependent step (M == 64: 8, M == 128: 16)."""
    block = kind in BLOCK_SCALED_KINDS
    if cta_group == 1:
        if kind == "i8":
            return 16, 16, True
        if (a_tmem and not block) or (kind == "f8f6f4" and sparse):
            return None
        return 8, 8, False
    if kind == "i8" or (a_tmem and not block) or (kind == "f8f6f4" and sparse):
        return 32, 32, False
    return 16, 16, False


def _rule(name, text, clauses, source=_SRC_PTX):
    return Rule(name, text, clauses, source=source)


def idesc_rules(kind, *, M, N, cta_group: int = 1, a_type=None, b_type=None, d_type=None, a_major=0, b_major=0,
                a_negate=0, b_negate=0, saturate=0, sparse=0, sparse_id2=0, max_shift=0, ws=False, a_tmem=False,
                scale_type="ue8m0", a_sf_id=0, b_sf_id=0, k_size=0) -> list:
    """The named legality rules of a tcgen05.mma instruction descriptor. ``M`` and ``N`` may be ints or
    symbolic (sympy) expressions; the other fields are concrete. ``a_tmem``: A comes from tensor memory
    (CUTLASS's ``_TS`` structs); ``ws``: the ``.ws`` variant (the only one with a B-reuse shift).

    Rules: ``m_encodable`` (16 | M, M >> 4 < 32), ``n_encodable`` (8 | N, N >> 3 < 64), ``shape_m`` and
    ``shape_n`` (CUTLASS's static_asserts for the struct), ``ab_format``, ``d_format``, ``negate`` (i8 has
    none), ``saturate`` (i8 only), ``major`` (MN-major only for 8-bit-and-wider formats; mxf4/mxf4nvf4 K only),
    ``sparsity`` (sparse_id2 in 0..3 and 0 when dense), ``max_shift`` (0 unless .ws), ``scale_format``,
    ``scale_ids`` (0..3), ``k_size`` (1 only for dense mxf4/mxf4nvf4)."""
    kind = _kind(kind)
    if cta_group not in (1, 2):
        raise SpecError(f"cta_group must be 1 or 2, got {cta_group!r}")
    fm = FORMATS[kind]
    block = kind in BLOCK_SCALED_KINDS
    a = _name(a_type or next(iter(fm)))
    b = _name(b_type or next(iter(fm)))
    am, bm = _major(a_major, "a_major"), _major(b_major, "b_major")

    def v(x):
        return lambda vals: f"{value_at(x, vals)}"

    rules = [
        _rule("m_encodable", "M is a multiple of 16 and M >> 4 fits 5 bits",
              [(Condition("divides", 16, M), lambda s: f"M = {v(M)(s)} is not a multiple of 16"),
               (Condition("lt", M, 512), lambda s: f"M = {v(M)(s)}: M >> 4 does not fit 5 bits")]),
        _rule("n_encodable", "N is a multiple of 8 and N >> 3 fits 6 bits",
              [(Condition("divides", 8, N), lambda s: f"N = {v(N)(s)} is not a multiple of 8"),
               (Condition("lt", N, 512), lambda s: f"N = {v(N)(s)}: N >> 3 does not fit 6 bits")]),
    ]
    if cta_group == 1:
        ms = (128,) if block or (kind == "mxf8f6f4") else (64, 128)
    else:
        ms = (256,) if kind == "mxf8f6f4" else (128, 256)
    if len(ms) == 1:
        mc = [(Condition("eq", M, ms[0]), lambda s: f"M = {v(M)(s)}, cta_group::{cta_group} kind::{kind} needs "
                                                   f"M = {ms[0]}")]
    else:
        mc = [(Condition("le", ms[0], M), lambda s: f"M = {v(M)(s)} < {ms[0]}"),
              (Condition("le", M, ms[1]), lambda s: f"M = {v(M)(s)} > {ms[1]}"),
              (Condition("divides", ms[0], M), lambda s: f"M = {v(M)(s)} is not {ms[0]} or {ms[1]}")]
    rules.append(_rule("shape_m", f"M in {{{', '.join(map(str, ms))}}} (cta_group::{cta_group})", mc, _SRC_CUTLASS))
    nr = _n_rule(kind, cta_group, a_tmem, sparse)
    if nr is None:  # M == 64 -> N % 8, M == 128 -> N % 16, i.e. (M / 8) | N, i.e. M | 8N, for M in {64, 128}
        step_text = "M/8"
        nstep = [(Condition("divides", M, 8 * N), lambda s: f"N = {v(N)(s)} is not a multiple of M/8 = "
                                                             f"{value_at(M, s) // 8 if type(value_at(M, s)) is int else '?'}")]
        lo = 8
    else:
        step, lo, also8 = nr
        step_text = str(step) + (" or N == 8" if also8 else "")
        cond = Condition("divides", step, N)
        if also8:
            cond = AnyOf(cond, Condition("eq", N, 8))
        nstep = [(cond, lambda s, st=step_text: f"N = {v(N)(s)} is not a multiple of {st}")]
        lo = 8 if also8 else lo
    rules.append(_rule("shape_n", f"{lo} <= N <= 256, N a multiple of {step_text}",
                       [(Condition("le", lo, N), lambda s: f"N = {v(N)(s)} < {lo}"),
                        (Condition("le", N, 256), lambda s: f"N = {v(N)(s)} > 256")] + nstep, _SRC_CUTLASS))
    rules.append(_rule("ab_format", f"A and B types are kind::{kind} types ({', '.join(fm)})",
                       [(a in fm, lambda _: f"a_type {a} is not a kind::{kind} type"),
                        (b in fm, lambda _: f"b_type {b} is not a kind::{kind} type"),
                        (kind != "f16" or a == b, lambda _: f"kind::f16 needs A and B of one type, got {a} x {b}")]))
    if not block:
        d = _name(d_type or ("s32" if kind == "i8" else "f32"))
        rules.append(_rule("d_format", f"D type in {', '.join(_D_FORMATS[kind])}",
                           [(d in _D_FORMATS[kind], lambda _: f"d_type {d} is not allowed for kind::{kind}")]))
    rules.append(_rule("negate", "no negation for kind::i8",
                       [(kind != "i8" or not (a_negate or b_negate), lambda _: "kind::i8 cannot negate A or B")]))
    rules.append(_rule("saturate", "saturation only for kind::i8",
                       [(not saturate or kind == "i8", lambda _: f"kind::{kind} has no saturation")]))
    k_only = kind in ("mxf4", "mxf4nvf4")
    rules.append(_rule("major", "MN-major only for 8-bit or wider formats (mxf4/mxf4nvf4: K-major only)",
                       [(am in (0, 1) and bm in (0, 1), lambda _: f"majors are 0 (K) or 1 (MN), got {am}, {bm}"),
                        (am == 0 or (a in _MN_OK and not k_only), lambda _: f"A of type {a} must be K-major"),
                        (bm == 0 or (b in _MN_OK and not k_only), lambda _: f"B of type {b} must be K-major"),
                        (not a_tmem or am == 0, lambda _: "A from tensor memory is K-major")]))
    rules.append(_rule("sparsity", "sparse_id2 in 0..3, and 0 for a dense MMA",
                       [(sparse_id2 in (0, 1, 2, 3), lambda _: f"sparse_id2 {sparse_id2} not in 0..3"),
                        (bool(sparse) or sparse_id2 == 0, lambda _: f"dense MMA with sparse_id2 = {sparse_id2}")]))
    if not block:
        rules.append(_rule("max_shift", "a B-reuse shift only for .ws (0..3)",
                           [(max_shift in (0, 1, 2, 3), lambda _: f"max_shift {max_shift} not in 0..3"),
                            (ws or max_shift == 0, lambda _: f"max_shift {max_shift} without .ws")]))
    else:
        st = _name(scale_type)
        rules.append(_rule("scale_format", f"scale type in {', '.join(_SCALES_OF[kind])}",
                           [(st in _SCALES_OF[kind], lambda _: f"scale type {st} not allowed for kind::{kind}")]))
        rules.append(_rule("scale_ids", "a_sf_id and b_sf_id in 0..3",
                           [(a_sf_id in (0, 1, 2, 3), lambda _: f"a_sf_id {a_sf_id} not in 0..3"),
                            (b_sf_id in (0, 1, 2, 3), lambda _: f"b_sf_id {b_sf_id} not in 0..3")]))
        rules.append(_rule("k_size", "k_size 1 (K = 96) only for dense mxf4 / mxf4nvf4",
                           [(k_size in (0, 1), lambda _: f"k_size {k_size} not 0 or 1"),
                            (k_size == 0 or (k_only and not sparse),
                             lambda _: f"k_size 1 with kind::{kind}{' sparse' if sparse else ''}")],
                           "CUTLASS mma_sm100_desc.hpp InstrDescriptorBlockScaled::k_size_"))
    return rules


def check_idesc(kind, assumptions=None, **fields):
    """Decide :func:`idesc_rules` for ``fields`` under ``assumptions`` (a RuleVerdict; its ``fields`` hold the
    word when every field is concrete and encodable)."""
    rules = idesc_rules(kind, **fields)
    info = {}
    enc = {k: v for k, v in fields.items() if k in _KNOWN}
    if all(type(fields.get(k)) is int for k in ("M", "N")):
        try:
            info["word"] = f"0x{encode(kind, **enc):08x}"
        except SpecError as e:
            info["word"] = f"not encodable: {e}"
    return check_rules(rules, assumptions, claim=f"tcgen05.mma kind::{_kind(kind)} instruction descriptor is legal",
                       fields=info)
