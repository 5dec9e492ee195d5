"""Triton's TTGIR layout attributes read as text (docs/model.md section 12).

Accepted (Triton's ``TritonGPUAttrDefs.td`` syntax, under the ``#ttg.`` prefix or the older ``#triton_gpu.``):
``blocked``, ``nvidia_mma`` (older name ``mma``), ``dot_op`` (parent given inline or by alias), ``nvmma_shared``,
``swizzled_shared`` (and the older ``shared`` with ``hasLeadingOffset = false``), ``linear``. The CTA fields
``CTAsPerCGA`` / ``CTASplitNum`` / ``CTAOrder`` are read wherever Triton prints them.

Brackets are split with the project's one scanner (:mod:`cuteverify.core.notation.scan`). Malformed text is a
:class:`~cuteverify.errors.ParseError` naming the column and what was expected; an attribute this package
does not model (``amd_mfma``, ``slice``, ...) is an :class:`UnsupportedAttribute` naming it. Whole TTGIR
files (aliases, tensor types) are read by :mod:`.ttgir` with this module's reader. The attributes
are plain frozen records: reading one checks field names, types and ranks, not Triton's verifier rules that
depend on a tensor shape (those are :mod:`.convert`'s).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.notation.scan import ALL, matching, split_top, unbalanced
from ..errors import ParseError, UnsupportedAttribute

__all__ = [
    "SUPPORTED",
    "UNSUPPORTED",
    "AttrReader",
    "Blocked",
    "CtaLayout",
    "DotOperand",
    "LinearAttr",
    "NvidiaMma",
    "NvmmaShared",
    "SwizzledShared",
    "parse_attr",
]

SUPPORTED = ("blocked", "nvidia_mma", "dot_op", "nvmma_shared", "swizzled_shared", "linear")
#: attributes of Triton's dialects this package refuses by name (no conversion is modelled for them)
UNSUPPORTED = ("amd_mfma", "amd_wmma", "slice", "shared_linear", "padded_shared", "amd_rotating_shared",
               "shared_memory", "nvidia_mma_v1", "sparse_dot_meta", "tensor_memory_encoding",
               "tensor_memory_scales_encoding", "partitioned_shared", "cta_layout")
_PREFIXES = ("ttg.", "triton_gpu.")
_SOURCE = "TTGIR attribute"
_NAME = re.compile(r"#([A-Za-z_][\w.$-]*)")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_INT = re.compile(r"-?\d+")
MAX_INT = 1 << 30  # larger field values are refused before any arithmetic on them
MAX_DEPTH = 16  # nested lists / parent attributes; deeper text is refused before Python's recursion limit


# ------------------------------------------------------------------------------------------ the records

@dataclass(frozen=True)
class CtaLayout:
    """How a tensor is split over the CTAs of a cluster. Two spellings: Triton 3.9's ``CGALayout = [[...], ...]``
    (``bases``: one tensor-index vector per bit of the block id, a zero vector where CTAs hold copies) and the
    older ``CTAsPerCGA`` / ``CTASplitNum`` / ``CTAOrder`` (``bases`` None; :meth:`cga_bases` gives the bases
    Triton's ``makeCgaLayout`` derives from them). ``single`` when there is one CTA (no block bits)."""

    ctas_per_cga: tuple
    cta_split_num: tuple
    cta_order: tuple
    bases: tuple = None

    @classmethod
    def default(cls, rank: int) -> CtaLayout:
        return cls((1,) * rank, (1,) * rank, tuple(range(rank - 1, -1, -1)))

    @classmethod
    def from_bases(cls, bases, rank: int) -> CtaLayout:
        """The 3.9 form: ``bases`` (tuples of ``rank`` ints each)."""
        return cls(None, None, None, tuple(tuple(b) for b in bases)) if bases else cls.default(rank)

    @property
    def rank(self) -> int:
        return len(self.bases[0]) if self.bases else len(self.cta_order)

    @property
    def single(self) -> bool:
        return not self.cga_bases()

    def cga_bases(self) -> tuple:
        """The block id's bases, bit 0 first (Triton's ``makeCgaLayout`` for the older fields: per dim of
        ``CTAOrder``, ``CTASplitNum`` distinct pieces then ``CTAsPerCGA / CTASplitNum`` copies)."""
        if self.bases is not None:
            return self.bases
        out = []
        rank = len(self.cta_order)
        for d in self.cta_order:
            split, ctas = self.cta_split_num[d], self.ctas_per_cga[d]
            for k in range(split.bit_length() - 1):
                out.append(tuple((1 << k) if i == d else 0 for i in range(rank)))
            out.extend([(0,) * rank] * ((ctas // split).bit_length() - 1))
        return tuple(out)

    def fields(self) -> str:
        if self.single:
            return ""
        if self.bases is not None:
            return f", CGALayout = {_lst(self.bases)}"
        return (f", CTAsPerCGA = {_lst(self.ctas_per_cga)}, CTASplitNum = {_lst(self.cta_split_num)}, "
                f"CTAOrder = {_lst(self.cta_order)}")


def _lst(xs) -> str:
    return "[" + ", ".join(_lst(x) if isinstance(x, tuple) else str(x) for x in xs) + "]"


@dataclass(frozen=True)
class Blocked:
    """``#ttg.blocked``: each thread holds ``sizePerThread`` contiguous elements, ``threadsPerWarp`` and
    ``warpsPerCTA`` tile them, dims taken in ``order`` (fastest first)."""

    size_per_thread: tuple
    threads_per_warp: tuple
    warps_per_cta: tuple
    order: tuple
    cta: CtaLayout
    kind = "blocked"
    shared = False

    @property
    def rank(self) -> int:
        return len(self.order)

    def text(self) -> str:
        return (f"#ttg.blocked<{{sizePerThread = {_lst(self.size_per_thread)}, threadsPerWarp = "
                f"{_lst(self.threads_per_warp)}, warpsPerCTA = {_lst(self.warps_per_cta)}, order = "
                f"{_lst(self.order)}{self.cta.fields()}}}>")


@dataclass(frozen=True)
class NvidiaMma:
    """``#ttg.nvidia_mma``: the accumulator of ``mma.sync`` (version 2, instrShape ``[16, 8]``) or of wgmma
    (version 3, instrShape ``[16, N, K]``), repeated over ``warpsPerCTA``."""

    version_major: int
    version_minor: int
    warps_per_cta: tuple
    instr_shape: tuple
    cta: CtaLayout
    kind = "nvidia_mma"
    shared = False

    @property
    def rank(self) -> int:
        return len(self.warps_per_cta)

    def text(self) -> str:
        return (f"#ttg.nvidia_mma<{{versionMajor = {self.version_major}, versionMinor = {self.version_minor}, "
                f"warpsPerCTA = {_lst(self.warps_per_cta)}{self.cta.fields()}, instrShape = "
                f"{_lst(self.instr_shape)}}}>")


@dataclass(frozen=True)
class DotOperand:
    """``#ttg.dot_op``: operand A (``opIdx = 0``) or B (``opIdx = 1``) of a dot whose result has layout
    ``parent``; ``kWidth`` consecutive K elements per thread and register group."""

    op_idx: int
    parent: object
    k_width: int
    kind = "dot_op"
    shared = False

    @property
    def rank(self) -> int:
        return self.parent.rank

    def text(self) -> str:
        return f"#ttg.dot_op<{{opIdx = {self.op_idx}, parent = {self.parent.text()}, kWidth = {self.k_width}}}>"


@dataclass(frozen=True)
class NvmmaShared:
    """``#ttg.nvmma_shared``: the shared layout wgmma / tcgen05 descriptors read: 8-row atoms of
    ``swizzlingByteWidth`` bytes (0, 32, 64 or 128), K-contiguous unless ``transposed``."""

    swizzling_byte_width: int
    transposed: bool
    element_bit_width: int
    fp4_padded: bool
    cta: CtaLayout
    nd: int = 0  # the ``rank`` field (Triton 3.9 prints it when not 2); 0 when the text has none
    kind = "nvmma_shared"
    shared = True

    @property
    def rank(self) -> int:
        return self.nd or self.cta.rank or 2

    def text(self) -> str:
        fp4 = ", fp4Padded = true" if self.fp4_padded else ""
        nd = f", rank = {self.nd}" if self.nd else ""
        return (f"#ttg.nvmma_shared<{{swizzlingByteWidth = {self.swizzling_byte_width}, transposed = "
                f"{str(self.transposed).lower()}, elementBitWidth = {self.element_bit_width}{fp4}{nd}"
                f"{self.cta.fields()}}}>")


@dataclass(frozen=True)
class SwizzledShared:
    """``#ttg.swizzled_shared``: rows of the two fastest dims of ``order`` XOR-swizzled by
    ``vec * ((row / perPhase) % maxPhase)``."""

    vec: int
    per_phase: int
    max_phase: int
    order: tuple
    cta: CtaLayout
    kind = "swizzled_shared"
    shared = True

    @property
    def rank(self) -> int:
        return len(self.order)

    def text(self) -> str:
        return (f"#ttg.swizzled_shared<{{vec = {self.vec}, perPhase = {self.per_phase}, maxPhase = "
                f"{self.max_phase}, order = {_lst(self.order)}{self.cta.fields()}}}>")


@dataclass(frozen=True)
class LinearAttr:
    """``#ttg.linear``: a linear layout given by its bases, ``((in dim, ((v0, v1, ...), ...)), ...)`` for
    the in dims register, lane, warp, block (out dims dim0, dim1, ...)."""

    bases: tuple
    kind = "linear"
    shared = False

    @property
    def rank(self) -> int:
        for _, bs in self.bases:
            if bs:
                return len(bs[0])
        return 0

    def text(self) -> str:
        return "#ttg.linear<{" + ", ".join(f"{n} = {_lst(bs)}" for n, bs in self.bases) + "}>"


# ------------------------------------------------------------------------------------------ the reader

@dataclass(frozen=True)
class _V:
    value: object
    pos: int


class AttrReader:
    """One attribute text (``text``) read with absolute positions, aliases looked up in ``aliases`` (name ->
    a record, or a callable giving one)."""

    def __init__(self, text: str, source: str, aliases=None):
        self.text, self.source, self.aliases = text, source, aliases or {}
        self.depth = 0

    def error(self, pos: int, expected: str):
        raise ParseError(self.text, pos + 1, expected, self.source)

    def skip(self, i: int, end: int) -> int:
        while i < end and self.text[i].isspace():
            i += 1
        return i

    def strip(self, start: int, end: int):
        start = self.skip(start, end)
        while end > start and self.text[end - 1].isspace():
            end -= 1
        return start, end

    # -- values ------------------------------------------------------------------------------------------
    def attr(self, start: int, end: int):
        start, end = self.strip(start, end)
        t = self.text
        m = _NAME.match(t, start, end)
        if not m:
            self.error(start, "a layout attribute such as #ttg.blocked<{...}> or an alias such as #blocked")
        name, i = m.group(1), self.skip(m.end(), end)
        if i >= end or t[i] != "<":
            if i < end:
                self.error(i, "the end of the attribute (or '<' after a dialect attribute's name)")
            return self.alias(name, start)
        close = matching(t, i, ALL)
        if close < 0 or close >= end:
            bad = unbalanced(t[i:end], ALL)
            self.error(i + bad[0] if bad else end, bad[1] if bad else "a closing '>'")
        j = self.skip(close + 1, end)
        if j < end:
            self.error(j, "the end of the attribute")
        kind = None
        for p in _PREFIXES:
            if name.startswith(p):
                kind = name[len(p):]
        if kind is None:
            raise UnsupportedAttribute(t, start + 1, name, "not a layout of Triton's GPU dialect (#ttg.)",
                                       self.source, SUPPORTED)
        kind = {"mma": "nvidia_mma"}.get(kind, kind)
        if kind == "shared":
            return self.legacy_shared(i + 1, close, start, name)
        if kind not in SUPPORTED:
            raise UnsupportedAttribute(t, start + 1, name, "" if kind in UNSUPPORTED else "unknown attribute",
                                       self.source, SUPPORTED)
        fields = self.fields(i + 1, close)
        return getattr(self, "make_" + kind)(fields, t.rfind("}", i, close))

    def alias(self, name: str, pos: int):
        if name not in self.aliases:
            known = ", ".join("#" + n for n in sorted(self.aliases)) or "none"
            self.error(pos, f"a defined alias (defined: {known}), not #{name}")
        a = self.aliases[name]
        return a() if callable(a) else a

    def fields(self, start: int, end: int) -> dict:
        """``{ key = value, ... }`` between ``start`` and ``end``: ``{key: (_V, key position)}``."""
        start, end = self.strip(start, end)
        t = self.text
        if start >= end or t[start] != "{":
            self.error(start, "'{' opening the attribute's fields")
        close = matching(t, start, ALL)
        if close < 0 or close >= end:
            self.error(end, "a '}' closing the attribute's fields")
        j = self.skip(close + 1, end)
        if j < end:
            self.error(j, "'>' after the fields' closing '}'")
        out = {}
        pieces = split_top(t, ",", ALL, start + 1, close)
        if len(pieces) == 1 and not pieces[0][0].strip():
            return out
        for piece, off in pieces:
            a, b = self.strip(off, off + len(piece))
            if a >= b:
                self.error(a, "a field 'name = value'")
            parts = split_top(t, "=", ALL, a, b)
            if len(parts) != 2:
                self.error(a if len(parts) < 2 else parts[2][1] - 1, "one 'name = value' per field")
            (k, koff), (v, voff) = parts
            ka, kb = self.strip(koff, koff + len(k))
            if not _IDENT.fullmatch(t, ka, kb):
                self.error(ka, "a field name")
            key = t[ka:kb]
            if key in out:
                self.error(ka, f"each field once ({key} is given twice)")
            out[key] = (self.value(voff, voff + len(v)), ka)
        return out

    def value(self, start: int, end: int) -> _V:
        start, end = self.strip(start, end)
        self.depth += 1
        try:
            return self._value(start, end)
        finally:
            self.depth -= 1

    def _value(self, start: int, end: int) -> _V:
        t = self.text
        if self.depth > MAX_DEPTH:
            self.error(start, f"at most {MAX_DEPTH} nested lists and parent attributes")
        if start >= end:
            self.error(start, "a value")
        c = t[start]
        if c == "[":
            close = matching(t, start, ALL)
            if close != end - 1:
                self.error(close + 1 if 0 <= close < end - 1 else end, "a ']' closing the list")
            items = split_top(t, ",", ALL, start + 1, close)
            if len(items) == 1 and not items[0][0].strip():
                return _V([], start)
            return _V([self.value(o, o + len(p)) for p, o in items], start)
        if c == "#":
            return _V(self.attr(start, end), start)
        word = t[start:end]
        if word in ("true", "false"):
            return _V(word == "true", start)
        m = _INT.fullmatch(word.split(":")[0].strip()) if ":" in word else _INT.fullmatch(word)
        if m:
            n = int(m.group(0))
            if abs(n) > MAX_INT:
                self.error(start, f"an integer of at most {MAX_INT}")
            return _V(n, start)
        self.error(start, "an integer, true / false, a list [...] or an attribute #...")

    # -- field access --------------------------------------------------------------------------------------
    def take(self, fields, allowed, close):
        for k, (_, kpos) in fields.items():
            if k not in allowed:
                self.error(kpos, f"one of the fields {', '.join(allowed)} (not {k})")

    def need(self, fields, key, close):
        if key not in fields:
            self.error(close, f"the field {key}")
        return fields[key][0]

    def int_of(self, v: _V, what: str, lo=0, choices=None) -> int:
        if type(v.value) is not int:
            self.error(v.pos, f"an integer for {what}")
        if v.value < lo or (choices and v.value not in choices):
            self.error(v.pos, f"{what} in {list(choices)}" if choices else f"{what} >= {lo}")
        return v.value

    def bool_of(self, v: _V, what: str) -> bool:
        if type(v.value) is not bool:
            self.error(v.pos, f"true or false for {what}")
        return v.value

    def ints(self, v: _V, what: str, rank=None, lo=1) -> tuple:
        if not isinstance(v.value, list):
            self.error(v.pos, f"a list of integers for {what}")
        out = tuple(self.int_of(x, f"each entry of {what}", lo) for x in v.value)
        if rank is not None and len(out) != rank:
            self.error(v.pos, f"{rank} entries in {what} (as many as the layout's rank), not {len(out)}")
        return out

    def order_of(self, v: _V, what: str, rank=None) -> tuple:
        out = self.ints(v, what, rank, lo=0)
        if sorted(out) != list(range(len(out))):
            self.error(v.pos, f"a permutation of 0..{len(out) - 1} for {what}")
        return out

    def cta(self, fields, rank, close) -> CtaLayout:
        old = [k for k in ("CTAsPerCGA", "CTASplitNum", "CTAOrder") if k in fields]
        if "CGALayout" in fields:
            if old:
                self.error(fields[old[0]][1], "either CGALayout (Triton 3.9) or the CTAsPerCGA / CTASplitNum / "
                                              f"CTAOrder fields, not both ({old[0]} is given with CGALayout)")
            v = fields["CGALayout"][0]
            if not isinstance(v.value, list):
                self.error(v.pos, "a list of bases for CGALayout")
            bases = tuple(self.ints(b, "a basis of CGALayout", rank, lo=0) for b in v.value)
            return CtaLayout.from_bases(bases, rank)
        if not old:
            return CtaLayout.default(rank)
        for k in ("CTAsPerCGA", "CTASplitNum", "CTAOrder"):
            self.need(fields, k, close)
        c = CtaLayout(self.ints(fields["CTAsPerCGA"][0], "CTAsPerCGA", rank),
                      self.ints(fields["CTASplitNum"][0], "CTASplitNum", rank),
                      self.order_of(fields["CTAOrder"][0], "CTAOrder", rank))
        for n, s, v in zip(c.ctas_per_cga, c.cta_split_num, fields["CTASplitNum"][0].value):
            if n % s:
                self.error(v.pos, f"a CTASplitNum entry that divides CTAsPerCGA ({s} does not divide {n})")
        return c

    # -- the attributes --------------------------------------------------------------------------------------
    _CTA = ("CTAsPerCGA", "CTASplitNum", "CTAOrder", "CGALayout")

    def make_blocked(self, f, close):
        self.take(f, ("sizePerThread", "threadsPerWarp", "warpsPerCTA", "order") + self._CTA, close)
        order = self.order_of(self.need(f, "order", close), "order")
        r = len(order)
        return Blocked(self.ints(self.need(f, "sizePerThread", close), "sizePerThread", r),
                       self.ints(self.need(f, "threadsPerWarp", close), "threadsPerWarp", r),
                       self.ints(self.need(f, "warpsPerCTA", close), "warpsPerCTA", r), order,
                       self.cta(f, r, close))

    def make_nvidia_mma(self, f, close):
        self.take(f, ("versionMajor", "versionMinor", "warpsPerCTA", "instrShape") + self._CTA, close)
        major = self.int_of(self.need(f, "versionMajor", close), "versionMajor", choices=(1, 2, 3))
        minor = self.int_of(f["versionMinor"][0], "versionMinor") if "versionMinor" in f else 0
        warps = self.ints(self.need(f, "warpsPerCTA", close), "warpsPerCTA")
        r = len(warps)
        if "instrShape" in f:
            instr = self.ints(f["instrShape"][0], "instrShape")
        elif major == 2:  # Triton's mma v2 tile when the text leaves it out (the m16n8 of mma.sync)
            instr = (1,) * (r - 2) + (16, 8)
        else:
            self.error(close, "the field instrShape (an mma v3 layout has no default instruction shape)")
        return NvidiaMma(major, minor, warps, instr, self.cta(f, r, close))

    def make_dot_op(self, f, close):
        self.take(f, ("opIdx", "parent", "kWidth"), close)
        op = self.int_of(self.need(f, "opIdx", close), "opIdx", choices=(0, 1))
        pv = self.need(f, "parent", close)
        if not isinstance(pv.value, (Blocked, NvidiaMma, LinearAttr, SwizzledShared, NvmmaShared, DotOperand)):
            self.error(pv.pos, "a parent layout attribute (#mma or #ttg.nvidia_mma<...>)")
        kw = self.int_of(f["kWidth"][0], "kWidth") if "kWidth" in f else 0
        return DotOperand(op, pv.value, kw)

    def make_nvmma_shared(self, f, close):
        self.take(f, ("swizzlingByteWidth", "transposed", "elementBitWidth", "fp4Padded", "rank") + self._CTA,
                  close)
        sw = self.int_of(self.need(f, "swizzlingByteWidth", close), "swizzlingByteWidth", choices=(0, 32, 64, 128))
        tr = self.bool_of(f["transposed"][0], "transposed") if "transposed" in f else False
        eb = self.int_of(self.need(f, "elementBitWidth", close), "elementBitWidth", choices=(4, 8, 16, 32, 64))
        fp4 = self.bool_of(f["fp4Padded"][0], "fp4Padded") if "fp4Padded" in f else False
        nd = self.int_of(f["rank"][0], "rank", 1) if "rank" in f else 0
        if "CTAOrder" in f and isinstance(f["CTAOrder"][0].value, list):
            r = len(f["CTAOrder"][0].value)
        elif "CGALayout" in f and isinstance(f["CGALayout"][0].value, list) and f["CGALayout"][0].value and \
                isinstance(f["CGALayout"][0].value[0].value, list):
            r = len(f["CGALayout"][0].value[0].value)
        else:
            r = nd or 2
        if nd and r != nd:
            self.error(f["rank"][1], f"rank = {nd} as many as the CTA fields' entries ({r})")
        return NvmmaShared(sw, tr, eb, fp4, self.cta(f, r, close), nd)

    def make_swizzled_shared(self, f, close):
        self.take(f, ("vec", "perPhase", "maxPhase", "order") + self._CTA, close)
        order = self.order_of(self.need(f, "order", close), "order")
        return SwizzledShared(self.int_of(self.need(f, "vec", close), "vec", 1),
                              self.int_of(self.need(f, "perPhase", close), "perPhase", 1),
                              self.int_of(self.need(f, "maxPhase", close), "maxPhase", 1), order,
                              self.cta(f, len(order), close))

    def legacy_shared(self, start, close, at, name):
        f = self.fields(start, close)
        close = self.text.rfind("}", start, close)
        if "hasLeadingOffset" in f and self.bool_of(f["hasLeadingOffset"][0], "hasLeadingOffset"):
            raise UnsupportedAttribute(self.text, at + 1, name, "hasLeadingOffset = true is the older form of "
                                       "nvmma_shared, whose tile depends on the element type: write "
                                       "#ttg.nvmma_shared<{...}>", self.source, SUPPORTED)
        f.pop("hasLeadingOffset", None)
        return self.make_swizzled_shared(f, close)

    def make_linear(self, f, close):
        self.take(f, ("register", "lane", "warp", "block"), close)
        rank, bases = None, []
        for dim in ("register", "lane", "warp", "block"):
            v = f.get(dim, (_V([], close), close))[0]
            if not isinstance(v.value, list):
                self.error(v.pos, f"a list of bases for {dim}")
            row = []
            for b in v.value:
                vec = self.ints(b, f"a basis of {dim}", rank, lo=0)
                rank = len(vec) if rank is None else rank
                row.append(vec)
            bases.append((dim, tuple(row)))
        return LinearAttr(tuple(bases))


# --------------------------------------------------------------------------------------------- entry points

def parse_attr(text: str, aliases=None, source: str = _SOURCE):
    """The record of one layout attribute's text (``#ttg.blocked<{...}>``, or ``#name`` given in ``aliases``,
    a dict name -> record). ParseError / UnsupportedAttribute with the column otherwise."""
    if not isinstance(text, str):
        raise ParseError(str(text), 1, "a layout attribute as text", source)
    return AttrReader(text, source, aliases).attr(0, len(text))
