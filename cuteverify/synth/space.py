"""The searched space of shared-memory layouts (docs/model.md section 13.1).

For a tile ``(MN, K)`` of ``dtype`` (index ``m + MN*k``) the space holds, each repeated over the tile with
``tile_to_shape`` in column-major order (atoms down MN first, ``order=(0,1)``) and in row-major order
(``order=(1,0)``, C++ ``Step<_2,_1>``):

1. CuTe's GMMA atoms ``GMMA::Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T>`` for the element width, as the
   spec library holds them (``specs/smem_atoms.yaml``, CUTLASS's ``mma_traits_sm90_gmma.hpp``);
2. generic swizzle atoms ``Swizzle<B,M,S> o (r, c)`` with a K-major base ``(r,c):(c,1)`` or an MN-major base
   ``(r,c):(1,r)``: ``B`` in 1..3, ``2^M`` elements = 4, 8 or 16 bytes, the contiguous extent (``c`` K-major,
   ``r`` MN-major) a power of two from ``2^M`` elements up to the tile's, ``M + S`` = log2 of the contiguous
   extent (the row bits right above it) or of 128 bytes (the TMA / GMMA convention, rows of 128 bytes), the
   other extent ``2^(B+M+S)`` / contiguous, so that the swizzle period is the atom; and the unswizzled bases
   ``(1, c)`` / ``(r, 1)`` for every contiguous extent of 16 bytes and up;
3. with ``allow_padding=True`` only: the padded pitches ``(MN,K):(K+p,1)`` and ``(MN,K):(1,MN+p)`` for ``p``
   elements of 4, 8, 16 or 32 bytes.

Atoms that do not divide the tile, or whose swizzle leaves the atom, are not in the space. Candidates that are
the same function of the tile (equal offset tables) are one point, kept under the first name in the order
above (so a GMMA name wins). ``swizzles=[(B,M,S), ...]`` restricts the swizzled candidates to those swizzles
(element-level ``(B,M,S)``; ``(0,0,0)`` keeps the unswizzled ones).
"""
from __future__ import annotations

from ..algebra import tile_to_shape
from ..core.layout import Layout
from ..core.swizzle import ComposedLayout, Swizzle
from ..hardware import resolve
from ..hardware.library.swizzles import GMMA_ATOM_TAGS

__all__ = ["SPACE_TEXT", "Candidate", "cpp_type", "enumerate_space"]

SPACE_TEXT = ("GMMA atoms Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T>; generic Swizzle<B,M,S> atoms "
              "(B 1..3, 2^M elements = 4/8/16 bytes, M+S at the row bit or at 128 bytes, period = atom) over K-major "
              "(r,c):(c,1) and MN-major (r,c):(1,r) bases, and unswizzled (1,c) / (r,1) bases; tile_to_shape "
              "column- and row-major; padded pitches (+4/8/16/32 bytes) only with allow_padding")

GMMA_ELEMENT_TYPE = {8: "uint8_t", 16: "half_t", 32: "float"}
_CPP_T = {("bf16", "bfloat16", "bfloat16_t"): "cute::bfloat16_t", ("f16", "fp16", "half", "half_t", "float16"): "cute::half_t",
          ("f32", "fp32", "float", "float32"): "float", ("tf32", "tfloat32_t"): "cute::tfloat32_t",
          ("e4m3", "f8", "fp8", "float_e4m3_t"): "cute::float_e4m3_t", ("e5m2", "float_e5m2_t"): "cute::float_e5m2_t",
          ("s8", "int8", "int8_t"): "int8_t", ("u8", "uint8", "uint8_t", "b8"): "uint8_t"}


def cpp_type(dtype, bits):
    """The C++ element type CuTe names for ``dtype`` (``cute::bfloat16_t``), or ``uint{bits}_t``."""
    key = str(dtype).strip().lower()
    for names, t in _CPP_T.items():
        if key in names:
            return t
    return f"uint{bits}_t"


class Candidate:
    """One point of the space. ``family``: ``"gmma"``, ``"swizzle"``, ``"plain"`` or ``"padded"``; ``swizzle``:
    element-level ``(B, M, S)`` or None; ``atom``: ``(r, c)`` base shape; ``major``: ``"K"`` (base stride 1
    along mode 1) or ``"MN"``; ``order``: ``(0,1)`` or ``(1,0)``; ``pad``: padding elements per row / column;
    ``gmma``: ``"K_SW128"``-style name of a GMMA atom; ``layout``: the cuteverify layout of the tile;
    ``index``: place in the enumeration."""

    __slots__ = ("atom", "atom_layout", "family", "gmma", "index", "layout", "major", "order", "pad", "swizzle")

    def __init__(self, family, swizzle, atom, major, order, layout, atom_layout=None, pad=0, gmma=None):
        self.family, self.swizzle, self.atom, self.major, self.order = family, swizzle, atom, major, order
        self.layout, self.atom_layout, self.pad, self.gmma, self.index = layout, atom_layout, pad, gmma, None

    @property
    def swizzle_bits(self):
        return self.swizzle[0] if self.swizzle else 0

    def simplicity(self):
        """The last key of the objective (smaller is simpler): padding, swizzle bits, a non-GMMA atom, atom
        size, row-major order, enumeration index."""
        r, c = self.atom
        return (self.pad, self.swizzle_bits, 0 if self.gmma else 1, r * c, self.order != (0, 1), self.index)

    def describe(self):
        o = "" if self.order == (0, 1) else ", row-major order"
        if self.family == "padded":
            return f"padded {self.major}-major pitch (+{self.pad} elements): {self.layout}"
        if self.gmma:
            return f"GMMA::Layout_{self.gmma}_Atom tiled{o}: {self.layout}"
        sw = f"Swizzle<{self.swizzle[0]},{self.swizzle[1]},{self.swizzle[2]}> o " if self.swizzle else ""
        return f"{sw}{self.atom_layout.outer if self.swizzle else self.atom_layout} ({self.major}-major) tiled{o}: " \
               f"{self.layout}"

    def params(self):
        return {"family": self.family, "gmma_atom": self.gmma, "swizzle": self.swizzle, "atom": self.atom,
                "major": self.major, "order": self.order, "pad": self.pad, "layout": str(self.layout)}

    def __repr__(self):
        return f"Candidate({self.describe()})"


def _log2(n):
    return n.bit_length() - 1


def _pow2(lo, hi):
    out, x = [], lo
    while x <= hi:
        out.append(x)
        x *= 2
    return out


def _gmma_atoms(bits):
    t = GMMA_ELEMENT_TYPE.get(bits)
    if t is None:
        return []
    out = []
    for major in ("K", "MN"):
        for sw in GMMA_ATOM_TAGS:
            spec, _ = resolve(f"GMMA::Layout_{major}_{sw}_Atom<{t}>")
            out.append((f"{major}_{sw}", major, spec.layout("layout")))
    return out


def _generic_atoms(tile, eb):
    """``(family, swizzle, (r, c), major, atom layout)`` of the generic part of the space (module docstring)."""
    M_, K_ = tile
    out = []
    for major in ("K", "MN"):
        cont_max = K_ if major == "K" else M_
        other_max = M_ if major == "K" else K_
        for cont in reversed(_pow2(max(1, 16 // eb), cont_max)):  # unswizzled, widest rows first, 16 B and up
            shape = (1, cont) if major == "K" else (cont, 1)
            base = Layout(shape, (cont, 1)) if major == "K" else Layout(shape, (1, cont))
            out.append(("plain", None, shape, major, base))
        for b in (1, 2, 3):
            for m in (_log2(w // eb) for w in (4, 8, 16) if w >= eb):
                for cont in _pow2(1 << m, cont_max):
                    for ms in sorted({_log2(cont), _log2(max(128 // eb, 1))}):
                        s = ms - m
                        if s < b:  # CuTe's Swizzle requires |S| >= B
                            continue
                        period = 1 << (b + m + s)
                        if period % cont or period // cont > other_max or period // cont < 2:
                            continue
                        other = period // cont
                        shape = (other, cont) if major == "K" else (cont, other)
                        base = Layout(shape, (cont, 1)) if major == "K" else Layout(shape, (1, cont))
                        out.append(("swizzle", (b, m, s), shape, major, ComposedLayout(Swizzle(b, m, s), 0, base)))
    return out


def _divides(shape, tile):
    return tile[0] % shape[0] == 0 and tile[1] % shape[1] == 0


def enumerate_space(tile, bits, allow_padding=False, swizzles=None):
    """Every candidate of the space (module docstring), in order, not yet deduplicated."""
    eb = bits // 8
    allowed = None if swizzles is None else {tuple(s) for s in swizzles}
    out = []

    def keep(sw):
        if allowed is None:
            return True
        return ((0, 0, 0) in allowed) if not sw or sw[0] == 0 else tuple(sw) in allowed

    for name, major, atom in _gmma_atoms(bits):
        outer = atom.outer if isinstance(atom, ComposedLayout) else atom
        sw = (atom.inner.bits, atom.inner.base, atom.inner.shift) if isinstance(atom, ComposedLayout) else None
        sw = sw if sw and sw[0] else None
        shape = outer.shape
        if not _divides(shape, tile) or not keep(sw):
            continue
        for order in ((0, 1), (1, 0)):
            out.append(Candidate("gmma", sw, shape, major, order, tile_to_shape(atom, tile, order), atom, gmma=name))
    for fam, sw, shape, major, atom in _generic_atoms(tile, eb):
        if not _divides(shape, tile) or not keep(sw):
            continue
        for order in ((0, 1), (1, 0)):
            out.append(Candidate(fam, sw, shape, major, order, tile_to_shape(atom, tile, order), atom))
    if allow_padding:
        M_, K_ = tile
        for p in sorted({max(1, w // eb) for w in (4, 8, 16, 32)}):
            out.append(Candidate("padded", None, tile, "K", (0, 1), Layout(tile, (K_ + p, 1)), pad=p))
            out.append(Candidate("padded", None, tile, "MN", (0, 1), Layout(tile, (1, M_ + p)), pad=p))
    for i, c in enumerate(out):
        c.index = i
    return out
