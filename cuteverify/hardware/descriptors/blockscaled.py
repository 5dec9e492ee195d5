"""Scale-factor layouts of block-scaled UMMA GEMMs (CUTLASS include/cutlass/detail/sm100_blockscaled_layout.hpp
``Sm1xxBlockScaledBasicChunk`` and sm103_blockscaled_layout.hpp ``Sm103BlockScaledBasicChunk``; PTX ISA
9.7.16.10.7 "Scale factor matrices"): the atom, its tiling over a problem (``tile_atom_to_shape_SFA/SFB``),
an independent offset formula, and the check of a user's layout against it.

A scale factor covers ``sf_vec`` (16 or 32) consecutive K elements of one row (M for SFA, N for SFB). One
atom holds the scale factors of 128 rows x 4 K-blocks (``4*sf_vec`` K elements) in 512 bytes, one byte each;
offsets are in scale-factor elements (bytes). The atom's K mode has stride 0 inside a block: every element
of a block reads the same scale factor.

* SM100 K-major: ``((32,4),(sf_vec,4)):((16,4),(0,1))``: row ``mn`` at ``16*(mn % 32) + 4*(mn // 32)``,
  K-block ``kb`` at ``+ kb`` (a 16-byte line per group of 32 rows: four 32-bit TMEM words).
* SM103 K-major: ``((8,4,4),(sf_vec,4)):((16,128,4),(0,1))``: ``16*(mn % 8) + 128*((mn // 8) % 4) +
  4*(mn // 32) + kb``.
  As a function this is the SM100 atom (``mn % 32 = mn % 8 + 8*((mn // 8) % 4)``); only the factoring of
  the row mode differs, which matters for partitioning, not for where a scale factor lives.
* MN-major atoms transpose the modes: ``((sf_vec,4),(32,4)):((0,1),(16,4))`` (SM100) over ``(k, mn)``.

The tiling: ``tile_to_shape(atom, (MN, K, L), Step<2,1,3>)``: atoms along K first, then MN, then the batch,
512 bytes apart. Valid for plain integer layouts (stride domain int); the checks enumerate every coordinate.
"""
from __future__ import annotations

import time

from ...algebra import tile_to_shape
from ...core.layout import rank, size
from ...core.notation.interop import as_layout
from ...core.notation.parse import parse
from ...errors import SpecError
from ...prover.verdict import Disagree, Mismatch, Verdict
from ..library.intlayout import int_layout

__all__ = [
    "ARCHS",
    "SF_VECS",
    "check_sf_atom",
    "check_sf_layout",
    "sf_atom",
    "sf_atom_offset",
    "sf_layout",
    "sf_offset",
]

ARCHS = ("sm100", "sm103")
SF_VECS = (16, 32)
ATOM_BYTES = 512
METHOD = "scale-factor layout (formula, enumeration)"


def _args(arch, sf_vec, major="K"):
    a = str(arch).lower().replace("_", "")
    if a not in ARCHS:
        raise SpecError(f"unknown block-scaled layout arch {arch!r} (sm100 or sm103)")
    if sf_vec not in SF_VECS:
        raise SpecError(f"scale-factor vector size must be 16 or 32, got {sf_vec!r}")
    m = str(major).upper()
    if m not in ("K", "MN"):
        raise SpecError(f"major must be K or MN, got {major!r}")
    return a, m


def sf_atom(arch: str = "sm100", sf_vec: int = 16, major: str = "K") -> str:
    """CUTLASS's scale-factor atom (``SfKMajorAtom`` / ``SfMNMajorAtom``) as CuTe text."""
    a, m = _args(arch, sf_vec, major)
    rows, rstride = ("(32,4)", "(16,4)") if a == "sm100" else ("(8,4,4)", "(16,128,4)")
    if m == "K":
        return f"({rows},({sf_vec},4)):({rstride},(0,1))"
    return f"(({sf_vec},4),{rows}):((0,1),{rstride})"


def sf_atom_offset(arch: str, sf_vec: int, mn: int, k: int) -> int:
    """Byte of the scale factor of row ``mn`` (< 128) and K element ``k`` (< 4*sf_vec) inside one atom."""
    a, _ = _args(arch, sf_vec)
    if not (0 <= mn < 128 and 0 <= k < 4 * sf_vec):
        raise SpecError(f"scale-factor atom coordinate ({mn}, {k}) is outside 128 x {4 * sf_vec}")
    kb = k // sf_vec
    if a == "sm100":
        return 16 * (mn % 32) + 4 * (mn // 32) + kb
    return 16 * (mn % 8) + 128 * ((mn // 8) % 4) + 4 * (mn // 32) + kb


def _dims(sf_vec, MN, K, L):
    for what, v, q in (("MN", MN, 128), ("K", K, 4 * sf_vec)):
        if type(v) is not int or v <= 0 or v % q:
            raise SpecError(f"scale-factor tiling: {what} = {v!r} must be a positive multiple of {q}")
    if type(L) is not int or L <= 0:
        raise SpecError(f"scale-factor tiling: L = {L!r} must be a positive integer")


def sf_offset(arch: str, sf_vec: int, mn: int, k: int, l: int, *, MN: int, K: int, L: int = 1) -> int:
    """Byte of the scale factor of (mn, k, batch l) in the tiled layout over an MN x K x L problem."""
    _dims(sf_vec, MN, K, L)
    if not (0 <= mn < MN and 0 <= k < K and 0 <= l < L):
        raise SpecError(f"scale-factor coordinate ({mn}, {k}, {l}) is outside {MN} x {K} x {L}")
    kblocks, mblocks = K // (4 * sf_vec), MN // 128
    block = (k // (4 * sf_vec)) + kblocks * (mn // 128) + kblocks * mblocks * l
    return ATOM_BYTES * block + sf_atom_offset(arch, sf_vec, mn % 128, k % (4 * sf_vec))


def sf_layout(arch: str, sf_vec: int, MN: int, K: int, L: int = 1):
    """CUTLASS's ``tile_atom_to_shape_SFA`` (SFB with N for MN): the K-major atom tiled over (MN, K, L) with
    ``Step<_2,_1,_3>`` (K first), computed with this library's ``tile_to_shape``."""
    _dims(sf_vec, MN, K, L)
    return tile_to_shape(parse(sf_atom(arch, sf_vec)), (MN, K, L), (1, 0, 2))


def _first_difference(values, rows, cols, want, what):
    for j, got in enumerate(values):
        r, c = j % rows, (j // rows) % cols
        l = j // (rows * cols)
        w = want(r, c, l)
        if got != w:
            return Disagree(coords=(r, c, l), values=(got, w),
                                  note=f"({r}, {c}, {l}): {what} gives byte {got}, the scale-factor formula {w}",
                                  detail={"coordinate": (r, c, l), "user": got, "hardware": w})
    return None


def check_sf_atom(arch: str = "sm100", sf_vec: int = 16, major: str = "K") -> Verdict:
    """CUTLASS's atom equals :func:`sf_atom_offset` at every coordinate (MN-major atoms read as (k, mn))."""
    t0 = time.perf_counter()
    _, m = _args(arch, sf_vec, major)
    il = int_layout(parse(sf_atom(arch, sf_vec, major)), "scale-factor atom")
    if m == "K":
        cex = _first_difference(il.values(), 128, 4 * sf_vec, lambda r, c, _: sf_atom_offset(arch, sf_vec, r, c),
                                "CUTLASS's atom")
    else:
        cex = _first_difference(il.values(), 4 * sf_vec, 128, lambda r, c, _: sf_atom_offset(arch, sf_vec, c, r),
                                "CUTLASS's atom")
    return Verdict("proved" if cex is None else "refuted", claim=f"{arch} {major}-major SF atom (sf_vec={sf_vec})",
                   method=METHOD, counterexample=cex, reason=None if cex is None else str(cex),
                   elapsed=time.perf_counter() - t0)


def check_sf_layout(layout, arch: str, sf_vec: int, MN: int, K: int, L: int = 1) -> Verdict:
    """A kernel's scale-factor layout ((mn, k, l) -> byte, colex, as CUTLASS's ``layout_SFA``) equals the
    tiled formula at every coordinate; refuted with the first coordinate and both bytes."""
    t0 = time.perf_counter()
    _args(arch, sf_vec)
    _dims(sf_vec, MN, K, L)
    lay = as_layout(layout, "scale-factor layout")
    il = int_layout(lay, "scale-factor layout")
    claim = f"{layout} is the {arch} scale-factor layout (sf_vec={sf_vec}, {MN} x {K} x {L})"
    if il.swizzle is not None or il.size != MN * K * L:
        cex = Mismatch(note=f"the layout has {il.size} coordinates, the problem {MN} x {K} x {L}"
                             if il.swizzle is None else "a scale-factor layout has no swizzle")
        return Verdict("refuted", claim=claim, method=METHOD, counterexample=cex, reason=str(cex),
                       elapsed=time.perf_counter() - t0)
    modes = tuple(size(lay[i]) for i in range(rank(lay))) if rank(lay) > 1 else (size(lay),)
    if modes not in ((MN, K, L), (MN, K) if L == 1 else None):
        cex = Mismatch(note=f"the layout's modes are {' x '.join(map(str, modes))}, not the "
                                              f"(MN, K, L) = {MN} x {K} x {L} of the problem")
        return Verdict("refuted", claim=claim, method=METHOD, counterexample=cex, reason=str(cex),
                       elapsed=time.perf_counter() - t0)
    cex = _first_difference(il.values(), MN, K,
                            lambda r, c, l: sf_offset(arch, sf_vec, r, c, l, MN=MN, K=K, L=L), "the layout")
    return Verdict("proved" if cex is None else "refuted", claim=claim, method=METHOD, counterexample=cex,
                   reason=None if cex is None else str(cex), elapsed=time.perf_counter() - t0)
