"""Shared-memory matrix descriptors of wgmma (SM90) and UMMA / tcgen05.mma (SM100): the fields, their 64-bit
encoding, and the address function the PTX ISA defines for them (issue 16; docs/model.md section 6).

A descriptor names one MMA operand block of ``mn x k`` elements (``k`` = 256 bits of K per instruction) in
shared memory by a start address, two byte strides (LBO, SBO), a base offset and a layout type. The PTX ISA
("Matrix Descriptor Format", "Shared Memory Matrix Layout" for wgmma; "Shared memory descriptor" for tcgen05)
defines which byte each element is read from: the element's place in the *canonical layout* of its
majorness and layout type, then the swizzle XOR on the absolute shared-memory address. With ``T`` elements
per 16 bytes and ``W`` = 1 / 2 / 4 / 8 sixteen-byte chunks per swizzle row (INTERLEAVE / 32B / 64B / 128B),
an element's canonical byte offset is a mixed-radix sum (``canonical_levels``; the forms of CUTLASS's
``make_gmma_desc`` comment in cute/atom/mma_traits_sm90_gmma.hpp, in bytes):

* K-major INTERLEAVE: mn = (8 rows of 16 B, groups at SBO); k = (T contiguous, second chunk at LBO);
* K-major 32B/64B/128B: mn = (8 rows of 16W B, groups at SBO); k = (T contiguous, second chunk at +16 B);
* MN-major INTERLEAVE: mn = (T contiguous, groups at SBO); k = (8 rows of 16 B, groups at LBO);
* MN-major 32B/64B/128B: mn = (T contiguous, W chunks 16 B apart, groups at LBO); k = (8 rows of 16W B,
  groups at SBO);
* UMMA MN-major 128B_BASE32B: mn as 128B; k = (4 rows of 128 B, groups at SBO), swizzle ``Swizzle<2,5,2>``.

The byte read is ``swizzle(start + canonical)`` where the swizzle (``core.Swizzle``: ``Swizzle<B,4,3>`` on
bytes, B = 0..3) reads the address bits from bit 7 up shifted back by ``base_offset`` 128-byte rows (PTX: the
base offset is ``(pattern start >> 7) & 7`` when the swizzle pattern does not start on its boundary).

Sources and evidence: wgmma's formula is checked against the H200 (specs/evidence/sm90/wgmma_smem_desc.jsonl.gz,
20 descriptor configurations x 1024 elements, base offset 0; and wgmma_desc_base_offset.jsonl.gz, 12
configurations with start addresses off the pattern boundary and base offsets 0..3, where base offset 3 at
start +384 reads other bytes than base offset 0, each as modelled; tests/hardware/test_smem_desc.py). The UMMA
descriptor (version 1, LBO mode, the 3-bit layout types) is the PTX / CUTLASS formula only (its fields are
checked against CUTLASS's make_umma_desc compiled on the host): no SM100 silicon was available.
"""
from __future__ import annotations

import numpy as np

from ...core.arrays import swizzle_array
from ...core.swizzle import Swizzle
from ...errors import TmaError
from ...symbolic.expr import to_int
from ..library import swizzles
from ..library.dtypes import dtype_bits

__all__ = [
    "GMMA_LAYOUT_TYPES",
    "UMMA_LAYOUT_TYPES",
    "SmemDescriptor",
    "canonical_levels",
    "decode",
    "layout_type_of_swizzle",
    "swizzle_of_type",
]

#: wgmma descriptor bits 62-63 (cute::SM90::GMMA::LayoutType), from the one swizzle table
GMMA_LAYOUT_TYPES = {m.gmma_name: m.gmma for m in sorted(swizzles.MODES, key=lambda m: m.gmma or 0)
                     if m.gmma is not None}
#: tcgen05 descriptor bits 61-63 (cute::UMMA::LayoutType); 3, 5 and 7 are invalid
UMMA_LAYOUT_TYPES = {m.umma_name: m.umma for m in sorted(swizzles.MODES, key=lambda m: m.umma or 0)
                     if m.umma is not None}
_FIELD_LIMIT = 1 << 18  # matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4


def _table(arch):
    return GMMA_LAYOUT_TYPES if arch == "sm_90" else UMMA_LAYOUT_TYPES


def layout_type_name(arch, layout_type) -> str:
    """The layout type's name from a value or a name (``B128``, ``SW128``, ``128B``, ``SWIZZLE_64B``); an
    unknown name or value is a :class:`TmaError`."""
    table = _table(arch)
    if isinstance(layout_type, int) and not isinstance(layout_type, bool):
        for k, v in table.items():
            if v == layout_type:
                return k
        raise TmaError(f"{arch} descriptor layout type value {layout_type} is none of "
                       + ", ".join(f"{k}={v}" for k, v in table.items()))
    mode = swizzles.lookup(layout_type)
    name = mode and (mode.gmma_name if arch == "sm_90" else mode.umma_name)
    if name not in table:
        raise TmaError(f"unknown {arch} descriptor layout type {layout_type!r} (one of {', '.join(table)})")
    return name


def swizzle_of_type(name):
    """``((B, M, S), W)``: the byte swizzle and the 16-byte chunks per swizzle row of a layout type name."""
    mode = swizzles.lookup(name)
    return mode.byte_swizzle, mode.chunks


def layout_type_of_swizzle(arch, byte_swizzle):
    """The layout type name of a byte swizzle ``(B, M, S)`` (CUTLASS's ``layout_type``), or None."""
    mode = swizzles.by_byte_swizzle(byte_swizzle)
    return mode and (mode.gmma_name if arch == "sm_90" else mode.umma_name)


def canonical_levels(major, type_name, bits):
    """The canonical layout of a majorness and layout type as mixed-radix digits per axis:
    ``(mn_levels, k_levels)``, each a list of ``(size, stride, rule)`` from the fastest digit up; ``size`` None
    is the unbounded last digit, ``stride`` bytes or the field name ``"LBO"`` / ``"SBO"``, ``rule`` the name of
    the canonical-form rule that checks that digit (hardware.smem_desc_rules). Valid for 8-, 16- and 32-bit
    elements (T = 128 / bits elements per 16 bytes)."""
    t = 128 // bits
    eb = bits // 8
    (_, _, _), w = swizzle_of_type(type_name)
    swizzled = type_name not in ("INTERLEAVE", "SWIZZLE_NONE")
    chunk = (t, eb, "chunk_contiguous")
    if major == "K":
        if type_name == "SWIZZLE_128B_BASE32B":
            raise TmaError("the 128B_BASE32B layout type is MN-major only (CUTLASS make_umma_desc)")
        mn = [(8, 16 * w, "core_rows"), (None, "SBO", "sbo_uniform")]
        k = [chunk, (None, 16, "k_chunk")] if swizzled else [chunk, (None, "LBO", "lbo_uniform")]
        return mn, k
    if not swizzled:
        return [chunk, (None, "SBO", "sbo_uniform")], [(8, 16, "core_rows"), (None, "LBO", "lbo_uniform")]
    rows = 4 if type_name == "SWIZZLE_128B_BASE32B" else 8
    return ([chunk, (w, 16, "swizzle_row"), (None, "LBO", "lbo_uniform")],
            [(rows, 16 * w, "core_rows"), (None, "SBO", "sbo_uniform")])


def _digits(x, levels):
    out = []
    for size, _, _ in levels:
        if size is None:
            out.append(x)
            break
        out.append(x % size)
        x //= size
    return out


def decode(value: int, arch="sm_90", **block) -> SmemDescriptor:
    """The descriptor a 64-bit value encodes (``block``: major, dtype, mn, k as for :class:`SmemDescriptor`).
    Fields are decoded as the hardware reads them (start, LBO, SBO in 16-byte units)."""
    if type(value) is not int or not 0 <= value < 1 << 64:
        raise TmaError(f"a descriptor is a 64-bit unsigned value, got {value!r}")
    start, lbo, sbo = (value & 0x3FFF) << 4, ((value >> 16) & 0x3FFF) << 4, ((value >> 32) & 0x3FFF) << 4
    base = (value >> 49) & 7
    if arch == "sm_90":
        return SmemDescriptor("sm_90", start=start, lbo=lbo, sbo=sbo, base_offset=base,
                              layout_type=(value >> 62) & 3, **block)
    return SmemDescriptor("sm_100", start=start, lbo=lbo, sbo=sbo, base_offset=base, layout_type=(value >> 61) & 7,
                          version=(value >> 46) & 7, lbo_mode=(value >> 52) & 1, **block)


class SmemDescriptor:
    """One wgmma (``arch="sm_90"``) or UMMA (``"sm_100"``) shared-memory descriptor and the operand block
    it describes.

    Fields (bytes): ``start`` (int, or a sympy expression in the buffer's address), ``lbo``, ``sbo``,
    ``base_offset`` (0..7), ``layout_type`` (name or value), and for SM100 ``version`` (1) and ``lbo_mode``
    (0: LBO is a relative offset; 1, absolute, sm_103a only, is not modelled). ``lbo``/``sbo`` None: the MMA
    does not read the field for this block (encoded 0, except K-major swizzled LBO, encoded 16 as CUTLASS
    does). The block: ``major`` ``"K"`` / ``"MN"``, ``bits`` per element, ``mn`` x ``k`` elements.
    Admissible: a known layout type, 8/16/32-bit elements, positive block extents (else :class:`TmaError`).
    """

    __slots__ = (
        "arch",
        "base_offset",
        "bits",
        "k",
        "layout_type",
        "lbo",
        "lbo_mode",
        "major",
        "mn",
        "sbo",
        "source",
        "start",
        "version",
    )

    def __init__(self, arch="sm_90", *, major="K", bits=16, mn=64, k=None, start=0, lbo=None, sbo=None,
                 base_offset=0, layout_type="INTERLEAVE", version=None, lbo_mode=0, dtype=None, source=None):
        if arch not in ("sm_90", "sm_100"):
            raise TmaError(f"arch {arch!r}: sm_90 (wgmma) or sm_100 (UMMA)")
        if dtype is not None:
            bits = dtype_bits(dtype)
        if bits not in (8, 16, 32):
            raise TmaError(f"{bits}-bit elements: a matrix descriptor block here has 8-, 16- or 32-bit elements")
        major = str(major).upper()
        if major not in ("K", "MN"):
            raise TmaError(f"major {major!r}: K or MN")
        self.arch, self.major, self.bits = arch, major, bits
        self.mn, self.k = mn, (256 // bits if k is None else k)
        for what, v in (("mn", self.mn), ("k", self.k)):
            if type(v) is not int or v < 1:
                raise TmaError(f"block extent {what} must be a positive integer, got {v!r}")
        self.start, self.lbo, self.sbo = start, lbo, sbo
        self.base_offset = base_offset
        self.layout_type = layout_type_name(arch, layout_type)
        self.version = (1 if arch == "sm_100" else None) if version is None else version
        self.lbo_mode = lbo_mode
        self.source = source
        if major == "K" and self.layout_type == "SWIZZLE_128B_BASE32B":
            raise TmaError("the 128B_BASE32B layout type is MN-major only (CUTLASS make_umma_desc)")

    # ---- the fields as the hardware takes them
    @property
    def layout_type_value(self) -> int:
        return _table(self.arch)[self.layout_type]

    @property
    def swizzled(self) -> bool:
        return self.layout_type not in ("INTERLEAVE", "SWIZZLE_NONE")

    def encoded(self, name):
        """The 14-bit encoding of ``start`` / ``lbo`` / ``sbo`` (``(x & 0x3FFFF) >> 4``), None if symbolic."""
        v = getattr(self, name)
        if v is None:
            v = 16 if name == "lbo" and self.major == "K" and self.swizzled else 0
        v = to_int(v, {}) if type(v) is not int else v
        return None if v is None else (v & (_FIELD_LIMIT - 1)) >> 4

    def value(self):
        """The 64-bit descriptor, or None while the start address is symbolic."""
        s, lbo, sbo = self.encoded("start"), self.encoded("lbo"), self.encoded("sbo")
        if s is None or lbo is None or sbo is None or type(self.base_offset) is not int:
            return None
        v = s | lbo << 16 | sbo << 32 | (self.base_offset & 7) << 49
        if self.arch == "sm_90":
            return v | (self.layout_type_value & 3) << 62
        return v | (self.version & 7) << 46 | (self.lbo_mode & 1) << 52 | (self.layout_type_value & 7) << 61

    def fields(self) -> dict:
        v = self.value()
        return {"arch": self.arch, "instruction": "wgmma" if self.arch == "sm_90" else "tcgen05.mma (UMMA)",
                "major": self.major, "element_bits": self.bits, "block": (self.mn, self.k),
                "start_address": self.start, "lbo_bytes": self.lbo, "sbo_bytes": self.sbo,
                "base_offset": self.base_offset, "layout_type": self.layout_type,
                "layout_type_value": self.layout_type_value,
                **({"version": self.version, "lbo_mode": self.lbo_mode} if self.arch == "sm_100" else {}),
                "value": None if v is None else f"0x{v:016x}"}

    def __repr__(self):
        f = self.fields()
        return "SmemDescriptor(" + ", ".join(f"{k}={v}" for k, v in f.items() if v is not None) + ")"

    # ---- the address function (PTX canonical layouts)
    def levels(self):
        return canonical_levels(self.major, self.layout_type, self.bits)

    def _stride(self, st):
        if isinstance(st, str):
            v = self.lbo if st == "LBO" else self.sbo
            return 0 if v is None else v
        return st

    def canonical_offset(self, i, j):
        """Byte offset of block element (mn=i, k=j) from the start address, before the swizzle."""
        mn_l, k_l = self.levels()
        off = 0
        for x, levels in ((i, mn_l), (j, k_l)):
            for d, (_, st, _) in zip(_digits(x, levels), levels):
                off += d * self._stride(st)
        return off

    def swizzle_address(self, addr: int) -> int:
        """The swizzle on an absolute shared-memory byte address, its row bits read ``base_offset`` rows back."""
        (b, m, s), _ = swizzle_of_type(self.layout_type)
        if b == 0:
            return addr
        period = 1 << (b + m + s)
        shift = period - ((self.base_offset * 128) % period)
        return Swizzle(b, m, s)(addr + shift) - shift

    def address(self, i, j, start=None):
        """The shared-memory byte address the MMA reads block element (mn=i, k=j) from (``start`` overrides
        a symbolic start address with a value)."""
        s = self.start if start is None else start
        s = to_int(s, {}) if type(s) is not int else s
        if s is None:
            raise TmaError(f"start address {self.start} is symbolic: give start= to evaluate the address")
        return self.swizzle_address(s + self.canonical_offset(i, j))

    def address_table(self, start=None):
        """:meth:`address` of every block element as an int64 array indexed ``[j, i]`` (k rows, mn columns),
        or None where int64 might not hold it exactly (a symbolic start or field, a magnitude past 2**40).
        The canonical offset is a sum of one term per axis (``canonical_offset``), so the table is an outer
        sum of two digit tables; the swizzle is applied elementwise (the same bits as on Python ints)."""
        s = self.start if start is None else start
        s = to_int(s, {}) if type(s) is not int else s
        strides = [self._stride(st) for levels in self.levels() for _, st, _ in levels]
        if s is None or type(self.base_offset) is not int or abs(s) >= 1 << 40 or any(type(v) is not int or abs(v) >= 1 << 24 for v in strides):
            return None
        mn_l, k_l = self.levels()
        axes = []
        for n, levels in ((self.mn, mn_l), (self.k, k_l)):
            x, off = np.arange(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
            for size, st, _ in levels:  # the mixed-radix digits of _digits, fastest first
                d = x if size is None else x % size
                off += d * self._stride(st)
                if size is None:
                    break
                x = x // size
            axes.append(off)
        addr = s + axes[0][None, :] + axes[1][:, None]
        (b, m, sh), _ = swizzle_of_type(self.layout_type)
        if b == 0:
            return addr
        period = 1 << (b + m + sh)
        shift = period - ((self.base_offset * 128) % period)
        return swizzle_array(Swizzle(b, m, sh), addr + shift) - shift

    def read_map(self, start=None) -> dict:
        """``{(i, j): byte address}`` for every element of the block."""
        return {(i, j): self.address(i, j, start) for j in range(self.k) for i in range(self.mn)}

