"""CuTe DSL copy atoms and tiled copies of a capture as manifest expressions (docs/model.md section 10.4).

A ``!cute.tiled_copy<ATOM, layout_copy_tv = <"TV">, tiler_mn = <"[T0;T1]">>`` is CuTe DSL's ``make_tiled_copy(atom,
layout_tv, tiler_mn)`` (C++ ``make_tiled_copy_impl``): whatever builder the kernel called (``make_tiled_copy_tv``,
``make_tiled_copy_A``, ``make_tiled_copy_C_atom``, ``tcgen05.make_tmem_copy``), the DSL prints the TV layout and
tiler it computed. :func:`tiled_copy_expr` writes the manifest expression ``make_tiled_copy(SPEC, "TV", "TILER",
dtype)`` that rebuilds that object with cuteverify's builder, the atom named as CUTLASS names it:

==================================================================  ============================================
DSL atom (4.8.1 spelling)                                           CUTLASS / spec library name
==================================================================  ============================================
``ldsm<val_type = T, mode = <"(8,8)">, ..., num_matrices = n, n>``  ``SM75_U32x{n}_LDSM_N``
``ldsm<..., num_matrices = n, t>``                                  ``SM75_U16x{2n}_LDSM_T``
``stsm<T, mode = <"(8,8)">, num_matrices = n, n|t>``                ``SM90_U32x{n}_STSM_N`` / ``SM90_U16x{2n}_STSM_T``
``simt_async_copy<T, cache = always|global, B b>``                  ``SM80_CP_ASYNC_CACHEALWAYS|GLOBAL<uintB_t>``
``universal_copy<T[, B b]>``                                        ``UniversalCopy<uintB_t>`` (B: T's width)
``tmem_load|tmem_store<T, 32 DP, 32 bit, xR>``                      ``SM100_TMEM_LOAD|STORE_32dp32bRx``
==================================================================  ============================================

Admissibility: any other atom, or an argument of these outside the forms above (another ldmatrix mode, a TMEM
shape other than 32 data paths x 32 bits, a packed TMEM copy), is a :class:`CaptureError` naming the atom: it is
reported as not mapped, never approximated.
"""
from __future__ import annotations

import re

from ...errors import CaptureError
from .mlir import Bare, TypeExpr
from .types import elem_bits

__all__ = ["copy_atom_name", "copy_dtype", "tiled_copy_expr", "tiled_copy_parts"]

ATOM_PREFIX = "cute_nvgpu.atom."
_BITS = re.compile(r"^(\d+) b$")
_REPEAT = re.compile(r"^x(\d+)$")


def _bare(t: TypeExpr) -> list:
    return [str(a) for a in t.positional if isinstance(a, Bare)]


def _copy_bits(t: TypeExpr) -> int | None:
    """The ``N b`` argument (bits moved per copy), None when absent."""
    hits = [int(m.group(1)) for m in (_BITS.match(a) for a in _bare(t)) if m]
    return hits[0] if hits else None


def copy_dtype(atom: TypeExpr) -> str:
    """The element type a DSL copy atom moves (``val_type = T`` or its first bare argument)."""
    vt = atom.get("val_type")
    if vt is not None:
        return str(vt)
    bare = _bare(atom)
    if not bare:
        raise CaptureError(f"{atom.text}: a copy atom without an element type")
    return bare[0]


def _matrix_name(atom: TypeExpr, arch: str, op: str) -> str:
    mode = atom.get("mode")
    if mode is not None and str(mode) != "(8,8)":
        raise CaptureError(f"{atom.text}: {op} of {mode} matrices is not mapped (only (8,8) matrices)")
    n = atom.get("num_matrices")
    bare = _bare(atom)
    if n is None or str(n) not in ("1", "2", "4"):
        raise CaptureError(f"{atom.text}: {op} needs num_matrices 1, 2 or 4")
    n = int(str(n))
    if "t" in bare:
        return f"{arch}_U16x{2 * n}_{op}_T"
    if "n" in bare:
        return f"{arch}_U32x{n}_{op}_N"
    raise CaptureError(f"{atom.text}: {op} without its layout (n or t)")


def _uint(bits: int, atom: TypeExpr) -> str:
    if bits not in (8, 16, 32, 64, 128, 256):
        raise CaptureError(f"{atom.text}: a copy of {bits} bits is not mapped")
    return f"uint{bits}_t"


def copy_atom_name(atom: TypeExpr) -> str:
    """The CUTLASS / spec library name of a DSL copy atom type (module table). Raises :class:`CaptureError`
    naming the atom for one that is not mapped."""
    kind = atom.name[len(ATOM_PREFIX):] if atom.name.startswith(ATOM_PREFIX) else None
    if kind == "ldsm":
        return _matrix_name(atom, "SM75", "LDSM")
    if kind == "stsm":
        return _matrix_name(atom, "SM90", "STSM")
    if kind == "simt_async_copy":
        cache = str(atom.get("cache", ""))
        bits = _copy_bits(atom)
        if cache not in ("always", "global") or bits is None:
            raise CaptureError(f"{atom.text}: cp.async needs cache = always|global and its width in bits")
        if cache == "global" and bits != 128:
            raise CaptureError(f"{atom.text}: cp.async.cg moves 16 bytes only, not {bits} bits")
        return f"SM80_CP_ASYNC_CACHE{cache.upper()}<{_uint(bits, atom)}>"
    if kind == "universal_copy":
        bits = _copy_bits(atom) or elem_bits(copy_dtype(atom))
        return f"UniversalCopy<{_uint(bits, atom)}>"
    if kind in ("tmem_load", "tmem_store"):
        bare = _bare(atom)
        reps = [int(m.group(1)) for m in (_REPEAT.match(a) for a in bare) if m]
        if "32 DP" not in bare or "32 bit" not in bare or len(reps) != 1 or len(bare) != 4:
            raise CaptureError(f"{atom.text}: only 32 DP x 32 bit TMEM copies with one repeat xR are mapped")
        return f"SM100_TMEM_{kind[5:].upper()}_32dp32b{reps[0]}x"
    raise CaptureError(f"{atom.text}: copy atom {atom.name} is not mapped to a cuteverify copy atom")


def tiled_copy_parts(t: TypeExpr) -> tuple:
    """``(atom TypeExpr, layout_copy_tv text, tiler_mn text)`` of a ``cute.tiled_copy`` type."""
    if t is None or t.name != "cute.tiled_copy" or not t.args or not isinstance(t.args[0], TypeExpr):
        raise CaptureError(f"{t.text if t is not None else t}: not a tiled copy type")
    tv, tiler = t.get("layout_copy_tv"), t.get("tiler_mn")
    if not isinstance(tv, str) or not isinstance(tiler, str):
        raise CaptureError(f"{t.text}: a tiled copy without layout_copy_tv and tiler_mn")
    return t.args[0], tv, tiler


def tiled_copy_expr(t: TypeExpr) -> str:
    """The manifest expression building the tiled copy of type ``t``: ``make_tiled_copy(SPEC, "TV", "TILER",
    dtype)``. Post-condition: the built TiledCopy's ``layout_tv_tiled`` and tiler are the printed ones (the
    builder takes them as given), and its atom is the one the DSL printed (module table). Raises
    :class:`CaptureError` for a type or atom that is not mapped."""
    atom, tv, tiler = tiled_copy_parts(t)
    return f'make_tiled_copy({copy_atom_name(atom)}, "{tv}", "{tiler}", {copy_dtype(atom)})'
