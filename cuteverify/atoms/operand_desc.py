"""A tiled MMA's shared-memory operand read through wgmma (SM90) / UMMA (SM100) descriptors, checked against
the majorness the MMA declares (issue 25; the descriptor itself: ``hardware.smem_desc_rules``).

What the kernel does (CUTLASS ``mma_traits_sm90_gmma.hpp`` / ``mma_traits_sm100.hpp``): ``tCsA =
thr_mma.partition_A(sA)`` is ``(MMA, MMA_M, MMA_K, ...)``, its atom mode ``MMA`` the ``(MN, K)`` block one
instruction reads; ``thr_mma.make_fragment_A(tCsA)`` builds ``make_gmma_desc<Major>(tensor<0>(tCsA))``
(``make_umma_desc``) with the operand's *declared* ``Major`` and advances only the start address over the
other modes; SM100 kernels hand ``make_fragment_A`` the MMA-partitioned tile itself (``make_smem_layout_a``,
``tile_to_mma_shape``), already ``(MMA, MMA_M, MMA_K, stages)``. So for every thread slice and every block
``(m, k, stage...)`` of the partition (of the tile itself in the second form), the descriptor
of the declared major, its layout type, LBO and SBO taken from the block as ``make_gmma_desc`` takes them,
must read each element of the block where the smem layout puts it.

Definition (:func:`prove_operand`): proved when, for every distinct thread slice of the tiled MMA and every
rest coordinate of its ``partition_A/B(smem)``, ``hardware.smem_desc_rules.from_layout`` of the block (the
atom mode placed at the block's offset, the smem swizzle kept) with the declared major proves every rule:
the canonical form of that major and layout type, field alignment and range, and ``reads_layout`` (the
descriptor's address function equals the layout's on all elements of the block). Refuted with the block
(``k-block``, ``m-block`` / ``n-block``, ``stage``), the thread, the smem coordinate of an element read
from the wrong byte, and the cause (``declared Major::K but the tile is MN-major``).

Admissible (else :class:`NotAdmissibleError`, an input error): operand A or B of a tiled MMA whose atom reads
it through a shared-memory descriptor (an SS atom's A and B, an RS / TS atom's B); a declared major (the atom
named with CUTLASS's template arguments, ``SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::K,GMMA::Major::MN>``,
UMMA's ``a_major`` / ``b_major`` parameters, the K-major-only ``_TN`` atoms, or ``major=``); a concrete smem
layout in one of the two forms kernels hand over:

- an ``(MN, K[, stages])`` tile of rank >= 2 whose ``(MN, K)`` extents are multiples of the tiled MMA's operand
  tile, which the kernel partitions (``make_fragment_A(thr_mma.partition_A(sA))``; CuTe DSL's SM90
  ``make_smem_layout_a`` is ``tile_to_shape`` of ``(M, K, stages)``). For the 2-CTA UMMA atoms (``2x1SM``) it is
  the pair's ``(MN, K)`` tile; each CTA's half is a thread slice (its blocks start where the layout puts it);
- the MMA-partitioned tile ``((ATOM_MN, ATOM_K), REST_MN, REST_K[, stages])`` the kernel hands to
  ``make_fragment_A(sA)`` as is (CuTe DSL's SM100 ``make_smem_layout_a``: ``tile_to_mma_shape`` of
  ``partition_shape_A(tiled_mma, (M, K))`` and the stages; CUTLASS's ``MakeTensor<UMMA::smem_desc>`` builds
  ``make_umma_desc`` of mode 0 and advances the start address over the others). Its first mode is the atom's
  block per thread slice (:func:`atom_block`; for a 2-CTA atom the CTA's half, ``(M/2, K)`` of A and
  ``(N/2, K)`` of B: each CTA's own buffer, read CTA-relative), in any nesting. A shape that reads both ways
  is refused (``form=`` decides).

Sparse operands are not modelled.
"""
from __future__ import annotations

import itertools
import re
import time

from ..core.layout import Layout, size
from ..core.swizzle import ComposedLayout, Swizzle
from ..core.tuples import flatten
from ..errors import NotAdmissibleError, TmaError
from ..hardware.library.dtypes import dtype_bits
from ..hardware.descriptors.smem_rules import from_layout, infer_major, prove_reads
from ..prover.verdict import Disagree, Verdict
from ._util import flat_coord, mode
from .mma import TiledMma, make_tiled_mma

__all__ = ["atom_block", "check_operand", "declared_major", "operand_blocks", "operand_descriptors", "prove_operand"]

_TILE_MODE = {"A": 0, "B": 1}        # the operand's MN mode among the tiled MMA's (M, N, K)
_MAJOR_TOKEN = re.compile(r"Major(?:Mode)?\s*(?:::|\.)\s*(MN|K)\b")
_TN = re.compile(r"_[SRT]S_TN(?:_|$)")  # wgmma / UMMA atoms that read both operands K-major only
_PERIOD = 1024  # every descriptor swizzle repeats within 1024 bytes (Swizzle<3,4,3>: bits 4..9)
_FIELD_LIMIT = 1 << 18


def _check_operand(operand):
    if operand not in _TILE_MODE:
        raise NotAdmissibleError("operand", f"the operand read through a shared-memory descriptor is A or B, "
                                 f"got {operand!r}")


def _arch(tm):
    arch = str(tm.spec.data.get("arch", ""))
    if arch.startswith("sm_90"):
        return "sm_90"
    if arch.startswith("sm_10") or arch.startswith("sm_11"):
        return "sm_100"
    return None


def declared_major(tiled_mma, operand):
    """The major ``"K"`` / ``"MN"`` the MMA declares for ``operand`` (A or B), or None when it declares none:
    UMMA's ``a_major`` / ``b_major`` parameter (0 = K, 1 = MN), else the ``Major::K`` / ``Major::MN`` template
    arguments the atom was named with, in CUTLASS's order (A's, then B's), else K for the K-major-only ``_TN``
    wgmma atoms (tf32, 8-bit)."""
    _check_operand(operand)
    key = "a_major" if operand == "A" else "b_major"
    if key in tiled_mma.params:
        return "K" if int(tiled_mma.params[key]) == 0 else "MN"
    tokens = _MAJOR_TOKEN.findall(getattr(tiled_mma, "template_args", "") or "")
    i = 0 if operand == "A" else 1
    if len(tokens) >= 2:
        return tokens[i]
    if _TN.search(tiled_mma.name):
        return "K"
    return None


def _operand_bits(tm, operand, dtype):
    if dtype is not None:
        return dtype, dtype_bits(dtype)
    d = tm.spec.data.get("dtypes", {}).get(operand.lower())
    cands = d if isinstance(d, list) else [d]
    bits = {dtype_bits(x) for x in cands if x is not None}
    if len(bits) != 1:
        raise NotAdmissibleError("operand", f"{tm.name} takes operand {operand} of types {d}: give dtype")
    return cands[0], bits.pop()


def _parts(layout):
    if isinstance(layout, ComposedLayout):
        if not isinstance(layout.outer, Layout) or not isinstance(layout.inner, Swizzle):
            raise NotAdmissibleError("operand", f"smem {layout}: a swizzle over a plain layout is expected")
        return layout.inner, layout.offset, layout.outer
    if not isinstance(layout, Layout):
        raise NotAdmissibleError("operand", f"smem must be a layout, got {type(layout).__name__}")
    return None, 0, layout


def atom_block(tiled_mma, operand):
    """The ``(MN, K)`` extents of the block one instruction reads per thread slice (per CTA for the 2-CTA UMMA
    atoms): the atom mode of CuTe's ``partition_shape_A/B(tiled_mma, (MN, K))``, i.e. of thread 0's
    ``partition_A/B`` of the operand tile."""
    tm = tiled_mma
    want = (tm.get_tile_size(_TILE_MODE[operand]), tm.get_tile_size(2))
    atom = mode(tm.get_slice(0).partition(operand, Layout(want)).layout, 0)
    if type(atom.shape) is not tuple or len(atom.shape) != 2:
        raise NotAdmissibleError("operand", f"{tm.name}: the atom mode of partition_{operand} is {atom}, not an "
                                 "(MN, K) block")
    return size(mode(atom, 0)), size(mode(atom, 1))


def _smem_form(tm, operand, smem, name, form=None):
    """How the kernel hands the smem tile to the descriptor: ``("tile", extents)`` for an ``(MN, K[, stages])``
    tile it partitions (``make_fragment_A(partition_A(sA))``, CuTe DSL's SM90 ``make_smem_layout_a``:
    ``tile_to_shape``), ``("mma", None)`` for the MMA-partitioned ``((ATOM_MN, ATOM_K), REST_MN, REST_K[,
    stages])`` tile it reads as given (``make_fragment_A(sA)``; CuTe DSL's SM100 ``make_smem_layout_a``:
    ``tile_to_mma_shape`` of ``partition_shape_A``). ``form`` (``"tile"`` / ``"mma"``) fixes the reading; by
    default a shape that fits exactly one is read so, and one that fits both or neither is refused, naming the
    shape (its nested modes as written) and what each reading needs."""
    if form not in (None, "tile", "mma"):
        raise NotAdmissibleError("operand", f"form is 'tile' (partition_A/B's input) or 'mma' (make_fragment_A/B's "
                                 f"MMA-partitioned input), got {form!r}")
    _, _, outer = _parts(smem)
    if getattr(outer, "int_leaves", None) is None:
        raise NotAdmissibleError("operand", f"smem {name} = {smem}: a descriptor reads a concrete smem layout "
                                 "(integer shapes and strides)")
    shape = outer.shape if type(outer.shape) is tuple else (outer.shape,)
    want = (tm.get_tile_size(_TILE_MODE[operand]), tm.get_tile_size(2))
    block = atom_block(tm, operand)
    got = tuple(size(s) for s in shape)
    as_tile = len(shape) >= 2 and got[0] % want[0] == 0 and got[1] % want[1] == 0 and form != "mma"
    m0 = shape[0]
    as_mma = len(shape) >= 3 and type(m0) is tuple and len(m0) == 2 and form != "tile" \
        and (size(m0[0]), size(m0[1])) == block
    mn = "M" if operand == "A" else "N"
    has = f"the smem tile {name} has shape {_fmt(shape)} (mode sizes {_fmt(got)})"
    tile_rule = (f"partition_{operand} reads an ({mn}, K[, stages]) tile whose {mn} and K extents are multiples "
                 f"of the tiled MMA's operand {operand} tile ({mn},K) = {_fmt(want)}")
    mma_rule = (f"make_fragment_{operand} reads an MMA-partitioned tile ((ATOM_{mn},ATOM_K),REST_{mn},REST_K"
                f"[,stages]) as partition_shape_{operand} / tile_to_mma_shape build it, its first mode the "
                f"atom's ({mn},K) block {_fmt(block)}")
    if as_tile and as_mma:
        raise NotAdmissibleError("operand", f"{has}: it fits both readings, whose blocks differ: {tile_rule}; "
                                 f"{mma_rule}. Which one holds depends on whether the kernel partitions it or hands "
                                 "it to make_fragment as is (form= 'tile' / 'mma')")
    if as_mma:
        return "mma", None
    if as_tile:
        return "tile", got
    rules = {"tile": tile_rule, "mma": mma_rule}
    raise NotAdmissibleError("operand", f"{has}: " + ("; ".join(rules.values()) if form is None else rules[form]))


def _fmt(t):
    if type(t) is not tuple:
        return str(t)
    return "(" + ",".join(_fmt(x) for x in t) + ")"


def _representatives(tm, operand):
    """One thread index per distinct slice of the operand: the thread coordinates along the operand's MN
    mode and K, and the atom's own thread coordinate unless the atom broadcasts it (wgmma's 128 threads all
    see the whole block)."""
    atom_tv = tm.tv_layout(operand)
    broadcast = all(s == 0 for s in flatten(mode(atom_tv, 0).stride))
    seen, out = set(), []
    for t in range(tm.size):
        v, m, n, k = flat_coord(tm.thr_layout_vmnk, t)
        key = (0 if broadcast else v, m if operand == "A" else n, k)
        if key not in seen:
            seen.add(key)
            out.append(t)
    return out


def _rest_name(operand, i, n):
    """The name of rest mode ``i`` of ``n`` (the partition's modes past the atom mode)."""
    if i == 0:
        return "m-block" if operand == "A" else "n-block"
    if i == 1:
        return "k-block"
    return "stage" if n == 3 else f"mode {i + 1}"


def operand_blocks(tiled_mma, operand, smem, name="smem", form=None):
    """The blocks one instruction reads, as the kernel hands them to the descriptor: a list of ``(thread, rest,
    block, origin)`` where ``thread`` is a representative thread index, ``rest`` the coordinate in the modes
    past the atom mode (``(m-block, k-block, stages...)``), ``block`` the ``(MN, K)`` layout of that block (the
    atom mode at the block's offset, the smem swizzle kept) and ``origin`` a function from a block element
    ``(i, j)`` to its coordinate in the smem tile. An ``(MN, K[, stages])`` tile is partitioned per thread
    slice (``partition_A/B``); an MMA-partitioned tile is read as given, its first mode at every coordinate of
    the others, the same blocks in every thread (``thread`` 0). Admissibility as :func:`prove_operand`."""
    _check_operand(operand)
    kind, extents = _smem_form(tiled_mma, operand, smem, name, form)
    if kind == "mma":
        swz, off, outer = _parts(smem)
        return [(0, rest, block, _mma_origin(rest)) for rest, block in _blocks(swz, off, outer)]
    index = Layout(extents)  # compact column-major over the tile: partitions to the coordinate's index
    out = []
    for t in _representatives(tiled_mma, operand):
        thr = tiled_mma.get_slice(t)
        part = thr.partition(operand, smem)
        swz, off, outer = _parts(part.layout)
        atom = mode(outer, 0)
        if type(atom.shape) is not tuple or len(atom.shape) != 2:
            raise NotAdmissibleError("operand", f"{tiled_mma.name}: the atom mode of partition_{operand} is "
                                     f"{atom}, not an (MN, K) block")
        ipart = thr.partition(operand, index)
        out += [(t, rest, block, _origin(ipart, rest, extents))
                for rest, block in _blocks(swz, off + part.offset, outer)]
    return out


def _blocks(swz, off, outer):
    """``(rest, block)`` per coordinate of the modes past the first: the first mode placed at its offset."""
    atom = mode(outer, 0)
    rank = len(outer.shape)
    for rest in itertools.product(*(range(size(mode(outer, i))) for i in range(1, rank))):
        o = outer(0, *rest) if rest else 0
        yield rest, ComposedLayout(swz if swz is not None else Swizzle(0, 4, 3), off + o, atom)


def _mma_origin(rest):
    def coord(i, j):
        return ((i, j),) + tuple(rest)
    return coord


def _origin(ipart, rest, extents):
    def coord(i, j):
        idx = ipart.offset + ipart.layout((i, j), *rest)
        c = []
        for e in extents:
            c.append(idx % e)
            idx //= e
        return tuple(c)
    return coord


def _major_spelling(arch, major):
    return f"{'GMMA' if arch == 'sm_90' else 'UMMA'}::Major::{major}"


def _setup(tiled_mma, operand, major, dtype):
    tm = tiled_mma if isinstance(tiled_mma, TiledMma) else make_tiled_mma(tiled_mma)
    _check_operand(operand)
    if "SPARSE" in tm.name.upper():
        raise NotAdmissibleError("operand", f"{tm.name}: sparse operands (stored compressed, with metadata) are "
                                 "not modelled by the descriptor check")
    if tm.operand_source(operand) != "smem_desc":
        src = tm.spec.data["operands"].get(operand, {}).get("from", "rmem")
        src = {"rmem": "registers", "tmem": "tensor memory"}.get(src, src)
        raise NotAdmissibleError("operand", f"operand {operand} of {tm.name} is read from {src}, not through a "
                                 "shared-memory descriptor: there is no descriptor to check")
    arch = _arch(tm)
    if arch is None:
        raise NotAdmissibleError("operand", f"{tm.name} ({tm.spec.data.get('arch')}) has no matrix descriptor")
    declared = declared_major(tm, operand)
    if major is not None:
        major = str(major).strip().upper().split("::")[-1]
        if major not in ("K", "MN"):
            raise NotAdmissibleError("operand", f"major is K or MN, got {major!r}")
        if declared is not None and declared != major:
            raise NotAdmissibleError("operand", f"major {major} contradicts {tm.name}'s declared "
                                     f"{_major_spelling(arch, declared)} for operand {operand}")
        declared = major
    if declared is None:
        raise NotAdmissibleError(
            "operand", f"{tm.name} declares no major for operand {operand}: name the atom with CUTLASS's "
            f"template arguments ({tm.name}<GMMA::Major::K,GMMA::Major::MN>: A's, then B's) or give major "
            "(K or MN)")
    dtype, bits = _operand_bits(tm, operand, dtype)
    return tm, arch, declared, dtype, bits


def check_operand(tiled_mma, operand, smem, dtype=None, *, major=None, name="smem", form=None):
    """The admissibility of :func:`prove_operand` alone (no evaluation): raises :class:`NotAdmissibleError`
    naming what is missing or, for a smem tile that does not fit the operand tile, both shapes."""
    tm, _, _, _, _ = _setup(tiled_mma, operand, major, dtype)
    _smem_form(tm, operand, smem, name, form)


def operand_descriptors(tiled_mma, operand, smem, dtype=None, *, major=None, name="smem", form=None):
    """Per block of :func:`operand_blocks`: ``(thread, rest, SmemDescriptor or None, RuleVerdict)``, the
    descriptor CUTLASS builds for that block with the declared major (fields as ``make_gmma_desc`` /
    ``make_umma_desc`` take them, start address relative to the smem buffer) and the verdict of its rules."""
    tm, arch, declared, dtype, _ = _setup(tiled_mma, operand, major, dtype)
    out = []
    for t, rest, block, _ in operand_blocks(tm, operand, smem, name, form):
        d, v = from_layout(block, dtype, arch, major=declared)
        out.append((t, rest, d, v))
    return out


def prove_operand(tiled_mma, operand, smem, dtype=None, *, major=None, name="smem", mma_name=None,
                  form=None) -> Verdict:
    """Does every block the tiled MMA reads of ``smem`` (of ``partition_A/B(smem)`` for an ``(MN, K[, stages])``
    tile, of the tile itself for an MMA-partitioned one) match the descriptor of its declared major (module
    docstring)? ``dtype`` defaults to the atom's operand type, ``major`` to the declared one (given with a
    declared one, the two must agree); ``name`` / ``mma_name`` name the two in the verdict; ``form``
    (``"tile"`` / ``"mma"``, default: by shape) fixes how the kernel hands ``smem`` over (:func:`operand_blocks`).

    Post-condition: proved only when every rule of every block holds; refuted with the block, the thread, the
    element and the cause; an input error
    (:class:`NotAdmissibleError`) when the operand has no descriptor, no major is declared, or the smem tile
    fits neither reading, or both (its shape and what each reading needs named).

    Every block has the same atom mode and swizzle; only its offset differs. Blocks whose start addresses agree
    modulo 1024 bytes (a multiple of every descriptor swizzle's period, so both address functions agree
    there as they agree on the representative) and lie in the fields' range share every rule's outcome: each
    such class is evaluated once, on all its elements."""
    t0 = time.perf_counter()
    tm, arch, declared, dtype, bits = _setup(tiled_mma, operand, major, dtype)
    mma_name = mma_name or tm.name
    spelled = _major_spelling(arch, declared)
    claim = (f"operand {operand} of {mma_name} ({spelled}) reads {name} through "
             f"{'wgmma' if arch == 'sm_90' else 'UMMA'} descriptors in every block")
    kind, _ = _smem_form(tm, operand, smem, name, form)
    blocks = operand_blocks(tm, operand, smem, name, kind)
    seen = {}
    eb = bits // 8
    for t, rest, block, origin in blocks:
        start = eb * block.offset
        key = (start % _PERIOD, 0 <= start < _FIELD_LIMIT)
        if key in seen:  # an equivalent start: the same rules hold (docstring)
            continue
        try:
            desc, v = from_layout(block, dtype, arch, major=declared)
        except TmaError as e:
            raise NotAdmissibleError("operand", f"{name}: {e}") from None
        seen[key] = v.status
        if v.status != "proved":
            return _refuted(claim, v, desc, block, t, rest, origin, tm, operand, declared, arch, name, t0)
    n = len(blocks[0][1]) if blocks else 0
    threads = len({b[0] for b in blocks})
    modes = ", ".join(_rest_name(operand, i, n) for i in range(n))
    how = (f"{threads} thread slice{'s' if threads != 1 else ''} x {len(blocks) // max(threads, 1)} ({modes}) of "
           f"partition_{operand}" if kind == "tile" else
           f"({modes}) of the MMA-partitioned tile as make_fragment_{operand} reads it, the same in every thread")
    return Verdict("proved", claim=claim, elapsed=time.perf_counter() - t0,
                   method=f"descriptor per block as make_{'gmma' if arch == 'sm_90' else 'umma'}_desc builds it: "
                          f"{len(blocks)} blocks ({how}), {len(seen)} distinct start phase"
                          f"{'s' if len(seen) != 1 else ''} each evaluated on all its elements")


def _refuted(claim, v, desc, block, t, rest, origin, tm, operand, declared, arch, name, t0):
    where = ", ".join(f"{_rest_name(operand, i, len(rest))} {r}" for i, r in enumerate(rest)) or "the block"
    where += f" (thread {t})"
    actual = infer_major(block)
    spelled = _major_spelling(arch, declared)
    broken = [r for r in v.rules if r.status != "proved"]
    first = broken[0] if broken else None
    detail = ""
    if first is not None:
        text = first.counterexample.note if getattr(first.counterexample, "note", "") else (first.reason or "")
        detail = f"{first.claim.split(':', 1)[0]}: {text}".rstrip(": ")
    if actual != declared:
        tile_is = f"{actual}-major" if actual else "neither K- nor MN-major (no stride-1 mode at its origin)"
        cause = f"declared {spelled} but the tile is {tile_is}"
    else:
        cause = f"the tile is {declared}-major but breaks {detail}"
    cex = None
    if desc is not None:
        r = prove_reads(desc, block)
        if r.refuted and r.counterexample is not None and r.counterexample.detail:
            i, j = r.counterexample.coords
            coord = origin(i, j)
            got, want = r.counterexample.values
            note = (f"{where}: element (mn={i}, k={j}) of the block = {name} coordinate {_fmt(coord)}: the "
                    f"descriptor reads byte {got}, {name} puts it at byte {want}")
            cex = Disagree(coords=coord, values=(got, want), note=note,
                                 detail={"thread": t, "rest": rest, "block_element": (i, j), "coordinate": coord,
                                         "descriptor": got, "layout": want})
    reason = f"{where}: {cause}"
    if cex is None and detail and actual != declared:
        reason += f" ({detail})"
    return Verdict("refuted", claim=claim, method="descriptor per block, evaluated on its elements",
                   counterexample=cex, reason=reason, elapsed=time.perf_counter() - t0)
