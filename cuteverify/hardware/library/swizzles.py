"""The one table of shared-memory swizzle modes and their encodings (docs/model.md section 6): every other
place that names a swizzle mode (TMA descriptors, wgmma / UMMA matrix descriptors, GMMA smem atoms, the spec
self-checks, synthesis) reads it from here.

A mode is one byte-address swizzle ``Swizzle<B,M,S>`` (CuTe's ``core.Swizzle`` on byte addresses) with:

* ``span_bytes``: the bytes of one swizzled row (0 for no swizzle): the TMA inner box may not exceed it;
* ``chunks``: 16-byte chunks per swizzle row (the ``W`` of the matrix descriptors' canonical layouts);
* ``tma`` / ``tma_name``: ``CUtensorMapSwizzle`` (cuda.h: ``CU_TENSOR_MAP_SWIZZLE_<tma_name>``, values 0..6);
* ``tma_bits`` / ``tma_base``: CUTLASS's ``TMA::SmemSwizzleBits`` and ``TMA::SmemSwizzleBase``
  (cute/arch/copy_sm90_desc.hpp), whose pair ``to_CUtensorMapSwizzle`` maps to ``tma``;
* ``gmma`` / ``gmma_name``: wgmma's ``GMMA::LayoutType`` (cute/arch/mma_sm90_desc.hpp, descriptor bits
  62-63), None where SM90 has no such layout type;
* ``umma`` / ``umma_name``: tcgen05's ``UMMA::LayoutType`` (cute/arch/mma_sm100_desc.hpp, bits 61-63);
* ``atom``: the tag of CuTe's smem layout atoms (``GMMA::Layout_K_SW128_Atom<T>``, ``UMMA::Layout_MN_SW128_32B_Atom``;
  CuTe DSL's ``SmemLayoutAtomKind.K_SW128``), None where no atom uses the mode.

Every spelling of a mode (``128B``, ``SW128``, ``B128``, ``SWIZZLE_128B``, ``CU_TENSOR_MAP_SWIZZLE_128B``,
``GMMA::LayoutType::B128``, ``INTER``, ``INTERLEAVE``, ``SWIZZLE_NONE``, ...) is read by :func:`lookup`.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SwizzleMode", "MODES", "GMMA_ATOM_TAGS", "lookup", "by_tma", "by_span", "by_atom", "by_gmma", "by_umma",
           "by_byte_swizzle"]


@dataclass(frozen=True)
class SwizzleMode:
    """One row of the table (module docstring). ``byte_swizzle`` is ``(B, M, S)`` on byte addresses; None for
    the 128B_ATOM_32B_FLIP_8B mode (no CuTe swizzle describes it) and for 128B_ATOM_64B, whose swizzle
    ``Swizzle<2,6,S>`` takes its shift from the smem layout (``by_byte_swizzle`` reads it)."""

    name: str
    span_bytes: int
    chunks: int
    byte_swizzle: tuple | None
    tma: int
    tma_name: str
    tma_bits: int
    tma_base: int
    gmma: int | None
    gmma_name: str | None
    umma: int | None
    umma_name: str | None
    atom: str | None

    def element_swizzle(self, elem_bits: int):
        """``(B, M - log2(bytes per element), S)``: the same swizzle on indices of ``elem_bits``-bit elements
        (``Swizzle<3,4,3>`` on bytes is ``S<3,3,3>`` on 16-bit elements). Admissible for byte-multiple
        power-of-two widths whose log2 does not exceed M; None otherwise or where the mode has no swizzle."""
        if self.byte_swizzle is None or elem_bits % 8 or (elem_bits // 8) & (elem_bits // 8 - 1):
            return None
        b, m, s = self.byte_swizzle
        k = (elem_bits // 8).bit_length() - 1
        return (b, m - k, s) if k <= m else None

    def names(self) -> tuple:
        """Every spelling :func:`lookup` reads for this mode (upper case, without prefixes)."""
        out = {self.name, self.tma_name}
        out |= {x for x in (self.gmma_name, self.umma_name, self.atom) if x}
        if self.byte_swizzle is not None and self.byte_swizzle[0] and self.byte_swizzle[1:] == (4, 3):
            out |= {f"B{self.span_bytes}", f"SW{self.span_bytes}", f"SWIZZLE_{self.span_bytes}B"}
        return tuple(sorted(out))


#: the modes, in the order of their ``CUtensorMapSwizzle`` values
MODES = (
    SwizzleMode("NONE", 0, 1, (0, 4, 3), 0, "NONE", 0, 0, 0, "INTERLEAVE", 0, "SWIZZLE_NONE", "INTER"),
    SwizzleMode("32B", 32, 2, (1, 4, 3), 1, "32B", 1, 0, 3, "B32", 6, "SWIZZLE_32B", "SW32"),
    SwizzleMode("64B", 64, 4, (2, 4, 3), 2, "64B", 2, 0, 2, "B64", 4, "SWIZZLE_64B", "SW64"),
    SwizzleMode("128B", 128, 8, (3, 4, 3), 3, "128B", 3, 0, 1, "B128", 2, "SWIZZLE_128B", "SW128"),
    SwizzleMode("128B_BASE32B", 128, 8, (2, 5, 2), 4, "128B_ATOM_32B", 3, 1, None, None, 1, "SWIZZLE_128B_BASE32B",
                "SW128_32B"),
    SwizzleMode("128B_ATOM_32B_FLIP_8B", 128, 8, None, 5, "128B_ATOM_32B_FLIP_8B", 3, 2, None, None, None, None,
                None),
    SwizzleMode("128B_ATOM_64B", 128, 8, None, 6, "128B_ATOM_64B", 3, 3, None, None, None, None, None),
)

#: the atom tags of the four GMMA smem atoms (``GMMA::Layout_{K,MN}_<tag>_Atom<T>``), by span
GMMA_ATOM_TAGS = tuple(m.atom for m in MODES if m.gmma is not None)

_EXTRA = {"INTERLEAVE": "NONE", "B128_BASE32B": "128B_BASE32B", "SW128_BASE32B": "128B_BASE32B",
          "128B_ATOM_32B": "128B_BASE32B"}
_PREFIXES = ("CU_TENSOR_MAP_SWIZZLE_", "CU_TENSOR_MAP_", "GMMA::LAYOUTTYPE::", "UMMA::LAYOUTTYPE::",
             "LAYOUTTYPE::", "TMA_", "CU_")
_BY_NAME = {}
for _m in MODES:
    for _n in _m.names():
        _BY_NAME.setdefault(_n, _m)
for _n, _target in _EXTRA.items():
    _BY_NAME.setdefault(_n, next(m for m in MODES if m.name == _target))


def lookup(name):
    """The mode any spelling names (any case; prefixes ``CU_TENSOR_MAP_SWIZZLE_``, ``GMMA::LayoutType::``,
    ``UMMA::LayoutType::``, ``TMA_`` dropped), or None for a name of no mode."""
    key = str(name).strip().upper()
    if key in _BY_NAME:
        return _BY_NAME[key]
    for p in _PREFIXES:
        if key.startswith(p) and key[len(p):] in _BY_NAME:
            return _BY_NAME[key[len(p):]]
    return None


def _first(pred):
    return next((m for m in MODES if pred(m)), None)


def by_tma(value):
    """The mode of a ``CUtensorMapSwizzle`` value (None for a value of no mode)."""
    return _first(lambda m: m.tma == value)


def by_span(span_bytes):
    """The plain ``Swizzle<B,4,3>`` mode of a span in bytes (0, 32, 64, 128), or None."""
    return _first(lambda m: m.span_bytes == span_bytes and m.byte_swizzle is not None
                  and m.byte_swizzle[1:] == (4, 3))


def by_atom(tag):
    """The mode of a smem-atom tag (``INTER``, ``SW32``, ``SW64``, ``SW128``, ``SW128_32B``), or None."""
    return _first(lambda m: m.atom == str(tag).upper())


def by_gmma(value):
    """The mode of a ``GMMA::LayoutType`` value (wgmma descriptor bits 62-63), or None."""
    return _first(lambda m: m.gmma == value)


def by_umma(value):
    """The mode of a ``UMMA::LayoutType`` value (tcgen05 descriptor bits 61-63), or None."""
    return _first(lambda m: m.umma == value)


def by_byte_swizzle(byte_swizzle):
    """The mode whose swizzle on byte addresses is ``(B, M, S)``, as CUTLASS's ``get_tma_swizzle_bits`` /
    ``get_tma_swizzle_base`` read it: ``B = 0`` (no swizzle, any M, S) -> NONE; ``Swizzle<1..3,4,3>`` -> 32B,
    64B, 128B; ``Swizzle<2,5,2>`` -> 128B_BASE32B; ``Swizzle<2,6,S>`` -> 128B_ATOM_64B; anything else None."""
    b, m, s = byte_swizzle
    if b == 0:
        return MODES[0]
    if (b, m) == (2, 6):
        return _first(lambda x: x.name == "128B_ATOM_64B")
    return _first(lambda x: x.byte_swizzle == (b, m, s))
