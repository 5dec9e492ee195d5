"""TMA tensor-map descriptors: the rules of ``cuTensorMapEncodeTiled``, each a named condition decided for
every value of the symbolic problem sizes (docs/model.md sections 5 and 6).

The fields are the driver's, innermost dimension first: ``shape`` (globalDim, elements), ``stride``
(elements; the driver takes ``stride[1:]`` in bytes and the innermost stride is implicitly 1), ``box``
(boxDim), ``element_strides``, the interleave, swizzle, L2 promotion and out-of-bounds fill enums (by value
or by name) and the global address (bytes, optional). Sources of the rules, in order of authority:

1. the driver on silicon: ``specs/evidence/sm90/tma_driver_verdicts.jsonl`` holds the verdict of the H200's
   driver (580.159.04, CUDA 13.0) for 1154 parameter sets, and ``tests/hardware/test_tma_driver.py`` checks that
   this model agrees with every one. Where the documentation and that driver differ, the model follows the
   driver: the inner box of *interleaved* layouts must also be a multiple of 16 bytes; the elements a box
   loads (``prod ceil(box[i] / element_strides[i])`` times the element size) may not exceed 228 KiB (the
   SM's shared memory; 233472 bytes accepted, 237568 refused); ``element_strides[0]`` is checked (1..8)
   although documented as ignored; the 128B_ATOM swizzles and the packed 16U4/16U6 types are refused on
   sm_90; INTERLEAVE_32B with a swizzle other than 32B is accepted (the documented rule is kept as a
   warning, ``enforced=False``).
2. the documentation in ``cuda.h`` (CUDA 13.0) for what silicon did not cover (the packed types on sm_100).
"""
from __future__ import annotations

from ...core.notation.tiles import read_extents
from ...errors import TmaError
from ...symbolic import Assumptions, parse_expr
from ...symbolic.expr import normalize
from ...symbolic.lazy import sympy
from ..library import swizzles
from ..library.dtypes import DTYPE_BITS
from ..checks.rules import Rule, check_rules
from .rules import MAX_BOX_BYTES_SM90, SWIZZLE_SPAN, descriptor_rules

__all__ = ["TmaDescriptor", "DATA_TYPES", "SWIZZLES", "INTERLEAVES", "L2_PROMOTIONS", "OOB_FILLS",
           "SWIZZLE_SPAN", "MAX_BOX_BYTES_SM90", "enum_value", "tma_dtype"]

# CUtensorMapDataType: name -> (value, bits per element in global memory, float?)
DATA_TYPES = {
    "UINT8": (0, 8, False), "UINT16": (1, 16, False), "UINT32": (2, 32, False), "INT32": (3, 32, False),
    "UINT64": (4, 64, False), "INT64": (5, 64, False), "FLOAT16": (6, 16, True), "FLOAT32": (7, 32, True),
    "FLOAT64": (8, 64, True), "BFLOAT16": (9, 16, True), "FLOAT32_FTZ": (10, 32, True),
    "TFLOAT32": (11, 32, True), "TFLOAT32_FTZ": (12, 32, True),
    # packed: 16 x U4 in 8 bytes (ALIGN8B) or 16 bytes of shared memory (ALIGN16B), 16 x U6 in 12 bytes
    "16U4_ALIGN8B": (13, 4, False), "16U4_ALIGN16B": (14, 4, False), "16U6_ALIGN16B": (15, 6, False),
}
INTERLEAVES = {"NONE": 0, "16B": 1, "32B": 2}
SWIZZLES = {m.tma_name: m.tma for m in swizzles.MODES}  # CUtensorMapSwizzle, from the one swizzle table
L2_PROMOTIONS = {"NONE": 0, "L2_64B": 1, "L2_128B": 2, "L2_256B": 3}
OOB_FILLS = {"NONE": 0, "NAN_REQUEST_ZERO_FMA": 1}
_PREFIXES = ("CU_TENSOR_MAP_", "DATA_TYPE_", "SWIZZLE_", "INTERLEAVE_", "L2_PROMOTION_", "FLOAT_OOB_FILL_")
_ALIASES = {"64B": "L2_64B", "128B": "L2_128B", "256B": "L2_256B", "NAN": "NAN_REQUEST_ZERO_FMA"}
_PROJECT_DTYPES = {  # the project's dtype names (hardware.dtypes) -> the tensor-map type CUTLASS uses
    "f16": "FLOAT16", "fp16": "FLOAT16", "float16": "FLOAT16", "half": "FLOAT16", "half_t": "FLOAT16",
    "bf16": "BFLOAT16", "bfloat16": "BFLOAT16", "bfloat16_t": "BFLOAT16", "f32": "FLOAT32", "fp32": "FLOAT32",
    "float32": "FLOAT32", "float": "FLOAT32", "tf32": "TFLOAT32", "tfloat32_t": "TFLOAT32", "f64": "FLOAT64",
    "fp64": "FLOAT64", "float64": "FLOAT64", "double": "FLOAT64", "s32": "INT32", "int32": "INT32",
    "int32_t": "INT32", "u32": "UINT32", "uint32": "UINT32", "uint32_t": "UINT32", "b32": "UINT32",
    "s64": "INT64", "int64": "INT64", "u64": "UINT64", "b64": "UINT64",
}


def enum_value(table: dict, x, what: str, aliases=None) -> int:
    """The value of an enum given by value or by name (``3``, ``"128B"``, ``"SWIZZLE_128B"``,
    ``"CU_TENSOR_MAP_SWIZZLE_128B"``; any case). An int is returned as it is (an out-of-range value is
    a rule violation, as the driver answers it); an unknown name is a :class:`TmaError`."""
    if isinstance(x, int) and not isinstance(x, bool):
        return x
    name = str(x).strip().upper()
    for p in _PREFIXES:
        if name.startswith(p):
            name = name[len(p):]
    name = (aliases or {}).get(name, name)
    if name not in table:
        raise TmaError(f"unknown {what} {x!r} (one of {', '.join(table)}, or a value)")
    v = table[name]
    return v[0] if isinstance(v, tuple) else v


def tma_dtype(dtype) -> int:
    """CUtensorMapDataType value of a driver name (``FLOAT16``, ``CU_TENSOR_MAP_DATA_TYPE_BFLOAT16``), a
    value, or one of the project's dtype names (``bf16``, ``e4m3``: 1- and 2-byte integers and fp8 are
    UINT8 / UINT16 as CUTLASS encodes them)."""
    if isinstance(dtype, str):
        key = dtype.strip().lower()
        if key in _PROJECT_DTYPES:
            return DATA_TYPES[_PROJECT_DTYPES[key]][0]
        if DTYPE_BITS.get(key) in (8, 16) and key.upper() not in DATA_TYPES:
            return DATA_TYPES["UINT8" if DTYPE_BITS[key] == 8 else "UINT16"][0]
    return enum_value(DATA_TYPES, dtype, "tensor-map data type")


def _name(table, value):
    for k, v in table.items():
        if (v[0] if isinstance(v, tuple) else v) == value:
            return k
    return f"<invalid {value}>"


def as_entries(x, what):
    """A tuple of ints / sympy expressions from a sequence, an int or text such as ``"(K,M)"`` / ``64x128`` (the
    one extents reader; any integer, since the descriptor's rules judge the values)."""
    if isinstance(x, str):
        return tuple(normalize(v) for v in read_extents(x, what, symbols=True, positive=False))
    if isinstance(x, (int, sympy.Basic)):
        return (normalize(x),)
    try:
        return tuple(parse_expr(v) if isinstance(v, str) else normalize(v) for v in x)
    except TypeError:
        raise TmaError(f"{what}: expected a tuple of sizes, got {x!r}") from None


class TmaDescriptor:
    """The parameters of one ``cuTensorMapEncodeTiled`` call, sizes possibly symbolic.

    Definition: ``shape``, ``stride`` (elements), ``box`` and ``element_strides`` innermost first, as the
    driver takes them (its ``globalStrides[i-1]`` is ``stride[i]`` times the element size). Admissible: the
    same number of entries in each (``element_strides`` defaults to ones, ``stride`` to the packed strides);
    enums by value or name (an unknown name is a :class:`TmaError`). ``check()`` decides every rule for all
    assignments satisfying ``assume`` and returns a :class:`~cuteverify.hardware.checks.rules.RuleVerdict`.
    ``arch`` is ``"sm_90"`` (checked against the H200's driver) or ``"sm_100"`` (documentation only).
    """

    def __init__(self, dtype, shape, stride=None, box=None, element_strides=None, *, interleave="NONE",
                 swizzle="NONE", l2_promotion="NONE", oob_fill="NONE", address=None, assume=None,
                 arch="sm_90"):
        self.dtype = tma_dtype(dtype)
        self.shape = as_entries(shape, "shape")
        rank = len(self.shape)
        if stride is None:
            st, acc = [], 1
            for s in self.shape:
                st.append(acc)
                acc = normalize(acc * s)
            stride = tuple(st)
        self.stride = as_entries(stride, "stride")
        self.box = as_entries(box if box is not None else self.shape, "box")
        self.element_strides = as_entries(element_strides, "element_strides") if element_strides is not None \
            else (1,) * rank
        for what, t in (("stride", self.stride), ("box", self.box), ("element_strides", self.element_strides)):
            if len(t) != rank:
                raise TmaError(f"{what} has {len(t)} entries, shape has {rank}")
        self.interleave = enum_value(INTERLEAVES, interleave, "interleave")
        self.swizzle = enum_value(SWIZZLES, swizzle, "swizzle")
        self.l2_promotion = enum_value(L2_PROMOTIONS, l2_promotion, "L2 promotion", _ALIASES)
        self.oob_fill = enum_value(OOB_FILLS, oob_fill, "OOB fill", _ALIASES)
        self.address = parse_expr(address) if isinstance(address, str) else address
        a = self.address
        if a is not None and (isinstance(a, (bool, float)) or (
                (type(a) is int or getattr(a, "is_number", False)) and not (int(a) == a and a >= 0))):
            raise TmaError(f"address {address!r}: a global address is a non-negative integer (bytes)")
        self.assumptions = assume if isinstance(assume, Assumptions) or assume is None else \
            Assumptions([assume] if isinstance(assume, str) else assume)
        if self.assumptions:  # from a contradiction every rule would hold
            self.assumptions.check_consistent()
        if arch not in ("sm_90", "sm_100"):
            raise TmaError(f"arch {arch!r}: sm_90 or sm_100")
        self.arch = arch
        self.rank = rank
        self._stride_bytes = None

    @classmethod
    def from_driver(cls, dtype, rank, dims, strides, box, element_strides, interleave=0, swizzle=0,
                    l2_promotion=0, oob_fill=0, address=None, arch="sm_90"):
        """The descriptor of a literal driver call: ``strides`` are the driver's ``rank - 1`` byte strides
        and ``rank`` may disagree with the arrays (the rank rule then refutes it)."""
        d = cls.__new__(cls)
        d.dtype = tma_dtype(dtype)
        d.rank = rank
        n = max(0, min(rank, 5))
        d.shape, d.box = tuple(dims)[:n], tuple(box)[:n]
        d.element_strides = tuple(element_strides)[:n]
        d.stride = (1,) + (None,) * max(n - 1, 0)
        d._stride_bytes = tuple(strides)[:max(n - 1, 0)]
        d.interleave, d.swizzle, d.l2_promotion, d.oob_fill = interleave, swizzle, l2_promotion, oob_fill
        d.address, d.assumptions, d.arch = address, None, arch
        return d

    # ---- derived fields
    @property
    def bits(self):
        for v, b, _ in DATA_TYPES.values():
            if v == self.dtype:
                return b
        return None

    @property
    def is_float(self):
        return any(v == self.dtype and f for v, _, f in DATA_TYPES.values())

    def stride_bytes(self):
        """The driver's globalStrides (bytes) of dimensions 1..rank-1 (sympy where the bytes are a
        fraction of the element stride, e.g. packed 4-bit types)."""
        if self._stride_bytes is not None:
            return self._stride_bytes
        b = self.bits or 8
        return tuple(normalize(sympy.Rational(b, 8) * s) if b % 8 else normalize(s * (b // 8))
                     for s in self.stride[1:])

    def fields(self) -> dict:
        return {"dtype": _name(DATA_TYPES, self.dtype), "rank": self.rank, "global_dim": self.shape,
                "global_strides_bytes": self.stride_bytes(), "box_dim": self.box,
                "element_strides": self.element_strides, "interleave": _name(INTERLEAVES, self.interleave),
                "swizzle": _name(SWIZZLES, self.swizzle), "l2_promotion": _name(L2_PROMOTIONS, self.l2_promotion),
                "oob_fill": _name(OOB_FILLS, self.oob_fill), "address": self.address, "arch": self.arch}

    def __repr__(self):
        f = self.fields()
        return type(self).__name__ + "(" + ", ".join(f"{k}={v}" for k, v in f.items() if v is not None) + ")"

    def rules(self) -> list[Rule]:
        """Every rule, named (the names are stable: tests, the CLI's --json and manifests use them)."""
        return descriptor_rules(self)

    def check(self):
        """Decide every rule for all assignments satisfying the assumptions (docs/model.md section 5.3).

        Post-condition: ``proved`` when every enforced rule holds for all of them; ``refuted`` with a
        re-checked assignment as counterexample: the smallest violating one (in the order of the symbol names)
        over every clause of every broken rule, each broken rule's own FAIL line the smallest over its clauses
        (every stride, every dim); ``unknown`` with the undecided rules. ``.rules`` has each rule's Verdict."""
        claim = "cuTensorMapEncodeTiled accepts " + repr(self)
        return check_rules(self.rules(), self.assumptions, claim, fields=self.fields())

