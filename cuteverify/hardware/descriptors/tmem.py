"""SM100 tensor memory (TMEM): where tcgen05.mma leaves its accumulator, who can read it back, and how much
of it a CTA may allocate (PTX ISA 9.7.16.2 "Tensor Memory", 9.7.16.10.9 "Data path layout organization",
9.7.16.7 "tcgen05.alloc"; CUTLASS include/cute/atom/mma_traits_sm100.hpp ``UMMA::tmem_frg``).

No Blackwell GPU was available: everything here is ``evidence: none, PTX formula only``.

Addresses. A TMEM address is ``lane << 16 | column`` (PTX: lane in bits 31..16, 32-bit column in bits
15..0); CUTLASS's accumulator tensors print it that way (``tmem_[32b] o ((128,256)):((65536,1))``). A layout
"of the accumulator" maps the per-CTA tile coordinate ``(m, n)`` (colex index ``m + rows*n``, ``rows`` the
CTA's share of M) to such an address; it is valid for plain integer layouts (no swizzle, stride domain int).

Data-path layouts (the PTX names A..G), per CTA, ``N`` the instruction's N, columns of 32 bits:

====  ==========================  =====  ================================================================
name  instruction                 rows   D(m, n) at (lane, column)
====  ==========================  =====  ================================================================
A     M=256, cta_group::2          128    (m, n)
B     M=128, cta_group::2 dense     64    (m + 64*(n // (N/2)), n % (N/2))
C     M=128, cta_group::2 sparse    64    (32*(m // 16) + m % 16, n)
D     M=128, cta_group::1          128    (m, n)
E     M=64, .ws                     64    as B
F     M=64, cta_group::1            64    as C
G     M=32, .ws                     32    (m + 32*(n // (N/4)), n % (N/4))
====  ==========================  =====  ================================================================

For cta_group::2 the pair splits M: CTA ``c`` holds rows ``c*M/2 ..`` of D, so ``m`` above is the row
within the CTA. The independent definition is :func:`datapath_address` (the table); the CUTLASS side is
:func:`cutlass_atom` (the ``tmem_atom`` of ``tmem_frg::make`` restrided to addresses); :func:`check_datapath`
proves they agree for an instance by enumerating every coordinate.

Warp access (PTX 9.7.16.2.1): warp ``w`` of a warpgroup reaches TMEM lanes ``32*(w%4) .. 32*(w%4)+31`` only.
:func:`check_epilogue` ties a kernel's accumulator layout and its tcgen05.ld partition to the hardware: the
thread/register mapping of the load shape (the ``SM100_TMEM_LOAD_*`` specs' register formulas) composed with
the data path must deliver to ``(thread, value)`` the element the kernel's TV layout says.
"""
from __future__ import annotations

import time

from ...algebra import upcast
from ...core.layout import rank, size
from ...core.notation.interop import as_layout
from ...core.notation.parse import parse
from ...errors import SpecError
from ...prover.verdict import Disagree, Mismatch, Verdict
from ...symbolic.conditions import Condition as C
from ..library.dtypes import dtype_bits
from ..library.intlayout import IntLayout, int_layout
from ..library.catalog import resolve
from ..checks.rules import Rule, check_rules, value_at
from ..library.spec import operand_formulas

__all__ = [
    "COLUMNS",
    "DATAPATHS",
    "LANES",
    "LANE_SHIFT",
    "accumulator_columns",
    "alloc_rules",
    "check_accumulator",
    "check_alloc",
    "check_datapath",
    "check_epilogue",
    "cutlass_atom",
    "datapath",
    "datapath_address",
    "datapath_ns",
    "datapath_rows",
    "element_view",
    "warp_access_rule",
    "warp_lanes",
]

LANES = 128
COLUMNS = 512
LANE_SHIFT = 16
_LANE = 1 << LANE_SHIFT
METHOD = "TMEM data path (PTX formula, enumeration)"
EVIDENCE = "none, PTX formula only"

#: name -> (instruction, rows per CTA)
DATAPATHS = {
    "A": ("M=256, cta_group::2", 128),
    "B": ("M=128, cta_group::2, dense", 64),
    "C": ("M=128, cta_group::2, sparse", 64),
    "D": ("M=128, cta_group::1", 128),
    "E": ("M=64, .ws", 64),
    "F": ("M=64, cta_group::1", 64),
    "G": ("M=32, .ws", 32),
}


def datapath(M: int, cta_group: int = 1, *, sparse: bool = False, ws: bool = False) -> str:
    """The PTX data-path layout name of a tcgen05.mma accumulator. Admissible: cta_group 1 with M 64 or
    128 (``ws``: M 32, 64 or 128), cta_group 2 with M 128 or 256 (no ``.ws``); else :class:`SpecError`."""
    key = (int(M), int(cta_group), bool(ws))
    table = {(256, 2, False): "A", (128, 2, False): "C" if sparse else "B", (128, 1, False): "D",
             (64, 1, False): "F", (128, 1, True): "D", (64, 1, True): "E", (32, 1, True): "G"}
    if key not in table:
        raise SpecError(f"no TMEM data path for M={M}, cta_group::{cta_group}{', .ws' if ws else ''} "
                        "(cta_group::1: M 64/128, .ws M 32/64/128; cta_group::2: M 128/256)")
    return table[key]


def datapath_rows(name: str) -> int:
    return _entry(name)[1]


def _entry(name):
    try:
        return DATAPATHS[str(name).upper()]
    except KeyError:
        raise SpecError(f"unknown TMEM data path {name!r} (one of {', '.join(DATAPATHS)})") from None


def _check_n(name: str, N: int) -> None:
    split = {"B": 2, "E": 2, "G": 4}.get(name, 1)
    if type(N) is not int or N <= 0 or N % (8 * split):
        raise SpecError(f"data path {name}: N must be a positive multiple of {8 * split}, got {N!r}")


#: tcgen05.mma's largest N
N_MAX = 256


def datapath_ns(name: str) -> range:
    """The N that ``spec check`` checks data path ``name`` for: every N up to :data:`N_MAX` the placement
    admits (a multiple of 8; of 16 for B and E, of 32 for G, whose N/2 or N/4 columns per half or quarter
    are then whole 8-column groups), a superset of the N tcgen05.mma allows with that data path."""
    split = {"B": 2, "E": 2, "G": 4}.get(_name(name), 1)
    return range(8 * split, N_MAX + 1, 8 * split)


def _name(name):
    _entry(name)
    return str(name).upper()


def datapath_address(name: str, m: int, n: int, N: int) -> tuple:
    """``(lane, column)`` of D(m, n) (``m`` the row within the CTA) in data path ``name``: the PTX figure's
    placement, written out independently of CUTLASS's layouts."""
    name = str(name).upper()
    rows = _entry(name)[1]
    _check_n(name, N)
    if not (0 <= m < rows and 0 <= n < N):
        raise SpecError(f"data path {name}: D({m}, {n}) is outside the {rows} x {N} tile of a CTA")
    return _address(name, m, n, N)


def _address(name, m, n, N):
    """:func:`datapath_address` without the argument checks (the enumerations below stay in range)."""
    if name in ("A", "D"):
        return m, n
    if name in ("B", "E"):
        half = N // 2
        return m + 64 * (n // half), n % half
    if name in ("C", "F"):
        return 32 * (m // 16) + m % 16, n
    quarter = N // 4
    return m + 32 * (n // quarter), n % quarter


def cutlass_atom(name: str, N: int) -> str:
    """CUTLASS's accumulator atom (``tmem_frg::make``'s ``tmem_atom``, DP stride 1 and column stride 128 in
    its virtual addressing) restrided to TMEM addresses ``lane << 16 | column``: a layout (m, n) -> address."""
    name = str(name).upper()
    _entry(name)
    _check_n(name, N)
    L = _LANE
    return {"A": f"(128,{N}):({L},1)", "D": f"(128,{N}):({L},1)",
            "B": f"(64,({N // 2},2)):({L},(1,{64 * L}))", "E": f"(64,({N // 2},2)):({L},(1,{64 * L}))",
            "C": f"((16,4),{N}):(({L},{32 * L}),1)", "F": f"((16,4),{N}):(({L},{32 * L}),1)",
            "G": f"(32,({N // 4},4)):({L},(1,{32 * L}))"}[name]


def _as_int_layout(layout, what: str) -> IntLayout:
    lay = as_layout(layout, what)
    il = int_layout(lay, what)
    if il.swizzle is not None:
        raise SpecError(f"{what}: a TMEM layout has no swizzle")
    return il


def _tile_modes(layout) -> tuple:
    """The (rows, columns) a tile layout's modes have: ``(R, N, 1, ...)``, or ``((R, N), 1, ...)`` as CUTLASS
    prints a partitioned accumulator; None for any other profile (the colex index m + rows*n would then not
    mean (m, n))."""
    lay = as_layout(layout)
    r = rank(lay)
    if r == 1:
        return None
    sizes = [size(lay[i]) for i in range(r)]
    if rank(lay[0]) == 2 and all(x == 1 for x in sizes[1:]):
        return size(lay[0][0]), size(lay[0][1])
    if all(x == 1 for x in sizes[2:]):
        return sizes[0], sizes[1]
    return None


def _split(addr: int, k: int = 1) -> tuple:
    """``(lane, column, part)`` of an address counted in units of ``32/k`` bits (CUTLASS's ``tmem_ptr<T>``
    counts ``T`` elements: ``k = 32 / sizeof_bits<T>`` of them per 32-bit column)."""
    lane, rem = divmod(addr, _LANE * k)
    col, part = divmod(rem, k)
    return lane, col, part


def _units(dtype) -> int:
    bits = 32 if dtype is None else dtype_bits(dtype)
    if bits > 32 or 32 % bits:
        raise SpecError(f"a TMEM accumulator element is 32, 16 or 8 bits, got {bits} ({dtype})")
    return 32 // bits


def _compare_tile(il: IntLayout, name: str, N: int, what: str, k: int = 1):
    """First (m, n) where ``il`` (colex index m + rows*n, addresses in units of 32/k bits) and the data path
    disagree, as a Counterexample. One value per 32-bit column (CUTLASS's default ``StorageType``)."""
    rows = _entry(name)[1]
    if il.size != rows * N:
        return Mismatch(note=f"{what} has {il.size} coordinates, data path {name} holds "
                                               f"{rows} x {N} = {rows * N} elements per CTA")
    for j, got in enumerate(il.values()):
        m, n = j % rows, j // rows
        want = _address(name, m, n, N)
        if got < 0 or _split(got, k) != want + (0,):
            gl, gc, gp = _split(got, k) if got >= 0 else (got, None, 0)
            if gp:
                gc = f"{gc} (+{gp} elements into it)"
            return Disagree(coords=(m, n), values=(got, want[0] * _LANE + want[1]),
                note=(f"D({m}, {n}): {what} puts it at lane {gl}, column {gc}; PTX data path {name} "
                      f"({DATAPATHS[name][0]}) holds it at lane {want[0]}, column {want[1]}"),
                detail={"m": m, "n": n, "user": (gl, gc), "hardware": want, "datapath": name})
    return None


def _verdict(cex, claim, t0, reason=None):
    status = "proved" if cex is None else "refuted"
    return Verdict(status, claim=claim, method=METHOD, counterexample=cex,
                   reason=reason if cex is None else str(cex), elapsed=time.perf_counter() - t0)


def check_datapath(name: str, N: int) -> Verdict:
    """CUTLASS's accumulator atom for data path ``name`` equals the PTX placement at every (m, n)."""
    t0 = time.perf_counter()
    il = _as_int_layout(cutlass_atom(name, N), f"CUTLASS atom of data path {name}")
    cex = _compare_tile(il, str(name).upper(), N, "CUTLASS's tmem_frg atom")
    return _verdict(cex, f"CUTLASS tmem_frg atom == PTX data path {name} (N={N})", t0,
                    f"evidence: {EVIDENCE}")


def check_accumulator(layout, M: int, N: int, cta_group: int = 1, *, sparse: bool = False,
                      ws: bool = False, dtype=None) -> Verdict:
    """A kernel's TMEM accumulator layout ((m, n) -> ``lane << 16 | column``, per CTA; e.g. the tutorial's
    ``tCtAcc`` = ``((128,256),1,1):((65536,1),0,0)``) agrees with the data path of its UMMA. ``dtype``: the
    tensor's element type when the layout counts ``tmem_ptr<T>`` elements (a 16-bit D in CUTLASS's default
    32-bit storage prints ``((128,64)):((131072,2))``). Refuted with the first D(m, n) whose lane or column
    differs."""
    t0 = time.perf_counter()
    name = datapath(M, cta_group, sparse=sparse, ws=ws)
    _check_n(name, N)
    il = _as_int_layout(layout, "accumulator layout")
    rows = _entry(name)[1]
    got = _tile_modes(layout)
    if got is not None and got != (rows, N) and il.size == rows * N:
        cex = Mismatch(note=f"the accumulator layout's modes are {got[0]} x {got[1]}; data path "
                                              f"{name} holds {rows} x {N} per CTA as (m, n)")
    elif got is None and il.size == rows * N:
        cex = Mismatch(note=f"the accumulator layout {layout} is not an (m, n) tile: expected modes "
                                              f"({rows}, {N}) or (({rows}, {N}), 1, ...)")
    else:
        cex = _compare_tile(il, name, N, "the accumulator layout", _units(dtype))
    return _verdict(cex, f"accumulator {layout} agrees with TMEM data path {name} (M={M}, N={N}, "
                         f"cta_group::{cta_group})", t0, f"evidence: {EVIDENCE}")


# ------------------------------------------------------------------------------------------ warp access

def warp_lanes(warp: int) -> range:
    """The TMEM lanes warp ``warp`` may access: its sub-partition ``warp % 4``."""
    if type(warp) is not int or warp < 0:
        raise SpecError(f"a warp index is a non-negative integer, got {warp!r}")
    q = warp % 4
    return range(32 * q, 32 * q + 32)


def warp_access_rule(warp: int, lane, rows: int = 32) -> Rule:
    """The rule that a tcgen05.ld/st of ``rows`` lanes starting at ``lane`` (int or symbolic) issued by warp
    ``warp`` stays in the warp's sub-partition."""
    r = warp_lanes(warp)
    lo, hi = r.start, r.stop
    return Rule("warp_subpartition", f"warp {warp} reaches TMEM lanes {lo}..{hi - 1} only",
                [(C("le", lo, lane), lambda v: f"lane {value_at(lane, v)} is below warp {warp}'s lanes {lo}..{hi - 1}"),
                 (C("le", lane + rows, hi),
                  lambda v: f"lanes {value_at(lane, v)}..+{rows - 1} pass warp {warp}'s last lane {hi - 1}")],
                source="PTX ISA 9.7.16.2.1 (tensor memory access restrictions)")


# ------------------------------------------------------------------------------------------ epilogue

def _ld_mapping(shape: str, R: int):
    """(rows, columns, per-thread 32-bit values, fn(lane_in_warp, value) -> (row, column)) of one
    tcgen05.ld of ``shape`` with repeat ``R``, read off the SM100_TMEM_LOAD spec's register formulas."""
    spec, params = resolve(f"SM100_TMEM_LOAD_{shape.replace('x', 'dp', 1)}{R}x")
    rows, col_bits = spec.tile("dst", **params)[:2]
    f = operand_formulas(spec, "dst")
    per_thread = rows * col_bits // 32 // 32

    # one table for the warp: the formulas are evaluated 32 * per_thread times, not once per value
    table = {(ln, v): (f["row"](lane=ln, i=32 * v, **params), f["col"](lane=ln, i=32 * v, **params) // 32)
             for ln in range(32) for v in range(per_thread)}
    return rows, col_bits // 32, per_thread, lambda lane, v: table[lane, v]


def check_epilogue(accumulator, tv, M: int, N: int, cta_group: int = 1, *, shape: str = "32x32b", R: int = 1,
                   sparse: bool = False, ws: bool = False, lane_offset: int = 0, dtype=None) -> Verdict:
    """A kernel's epilogue reads what it thinks it reads: ``accumulator`` is the kernel's TMEM accumulator
    layout (as :func:`check_accumulator`), ``tv`` its (thread, value) -> ``m + rows*n`` partition of the
    CTA's tile for the tcgen05.ld of ``shape`` (``32x32b``, ``16x64b``, ``16x128b``, ``16x256b``) with
    repeat ``R``, the load repeated over consecutive column blocks (value ``v`` = block ``v // per_thread``)
    and warp ``t // 32`` reading its sub-partition from lane ``32*(w%4) + lane_offset``.

    Post-condition (proved): the accumulator agrees with the data path, and for every thread and value the
    hardware delivers D(m, n) with ``m + rows*n == tv(t, v)``. Refuted with the first disagreement, named by
    thread, value, lane and column (and the warp rule when the element lies outside the warp's lanes)."""
    t0 = time.perf_counter()
    claim = f"epilogue tcgen05.ld.{shape}.x{R} of {accumulator} agrees with TMEM (M={M}, N={N}, cta_group::{cta_group})"
    acc = check_accumulator(accumulator, M, N, cta_group, sparse=sparse, ws=ws, dtype=dtype)
    if not acc.proved:
        return Verdict(acc.status, claim=claim, method=METHOD, counterexample=acc.counterexample,
                       reason=acc.reason, elapsed=time.perf_counter() - t0)
    name = datapath(M, cta_group, sparse=sparse, ws=ws)
    rows_cta = _entry(name)[1]
    owner = {_address(name, m, n, N): m + rows_cta * n for n in range(N) for m in range(rows_cta)}
    user = _as_int_layout(tv, "epilogue TV layout")
    if user.rank != 2:
        raise SpecError(f"epilogue TV layout {tv}: expected rank 2 (thread, value)")
    _, ld_cols, per_thread, fn = _ld_mapping(shape, R)
    nthr, nval = user.mode_size(0), user.mode_size(1)
    if nthr % 32 or nthr > 128:
        raise SpecError(f"epilogue TV layout {tv}: {nthr} threads; tcgen05.ld is issued by 1..4 whole warps")
    if nval % per_thread:
        raise SpecError(f"epilogue TV layout {tv}: {nval} values per thread is not a multiple of the "
                        f"{per_thread} 32-bit registers one tcgen05.ld.{shape}.x{R} fills")
    for t in range(nthr):
        w, ln = t // 32, t % 32
        base = 32 * (w % 4) + lane_offset
        for v in range(nval):
            row, col = fn(ln, v % per_thread)
            lane, column = base + row, (v // per_thread) * ld_cols + col
            want = user(t, v)
            got = owner.get((lane, column))
            if got == want:
                continue
            m, n = want % rows_cta, want // rows_cta
            if 0 <= want < rows_cta * N:
                wl, wc = datapath_address(name, m, n, N)
                where = f"D({m}, {n}) lives at lane {wl}, column {wc}"
                if wl not in warp_lanes(w):
                    r = warp_lanes(w)
                    where += f", a lane warp {w} cannot reach (it reaches lanes {r.start}..{r.stop - 1})"
            else:
                where = f"index {want} is outside the {rows_cta} x {N} tile"
            gets = ("no element of D" if got is None else f"D({got % rows_cta}, {got // rows_cta})")
            note = (f"thread {t} (warp {w}), value {v}: tcgen05.ld.{shape}.x{R} reads lane {lane}, column "
                    f"{column}, which holds {gets} in data path {name}; the kernel's layout says {where}")
            cex = Disagree(coords=(t, v), values=(want, got), note=note,
                                 detail={"thread": t, "value": v, "lane": lane, "column": column,
                                         "user": want, "hardware": got})
            return _verdict(cex, claim, t0)
    return _verdict(None, claim, t0, f"evidence: {EVIDENCE}")


# ------------------------------------------------------------------------------------------ allocation

def accumulator_columns(M: int, N: int, cta_group: int = 1, *, sparse: bool = False, ws: bool = False,
                        value_bits: int = 32) -> int:
    """32-bit TMEM columns one accumulator of the UMMA occupies per CTA (a 16-bit D packs two per column
    only when the kernel packs it; CUTLASS's default storage is one value per 32-bit column)."""
    name = datapath(M, cta_group, sparse=sparse, ws=ws)
    _check_n(name, N)
    cols = {"B": N // 2, "E": N // 2, "G": N // 4}.get(name, N)
    return max(1, cols * value_bits // 32)


def alloc_rules(ncols, *, live=0, relinquished: bool = False, needed=None, cta_group: int = 1) -> list:
    """The rules of ``tcgen05.alloc.cta_group::{1,2}.sync.aligned.b32 [dst], ncols`` (PTX 9.7.16.7.1) over
    int or symbolic sizes:

    * ``alloc_ncols_range``: 32 <= ncols <= 512;
    * ``alloc_ncols_pow2``: ncols a power of two (with the range: ncols divides 512);
    * ``alloc_capacity``: the columns already allocated by the CTA (``live``) plus ncols <= 512 (else the
      instruction blocks until another CTA frees columns: a kernel that allocates past 512 alone deadlocks);
    * ``alloc_after_relinquish``: no allocation after ``tcgen05.relinquish_alloc_permit`` (undefined);
    * ``alloc_fits`` (when ``needed`` is given, e.g. :func:`accumulator_columns`): needed <= ncols.

    ``cta_group`` 2 allocates the same columns in both CTAs of the pair; the rules are per CTA."""
    if cta_group not in (1, 2):
        raise SpecError(f"tcgen05.alloc: cta_group must be 1 or 2, got {cta_group!r}")
    src = "PTX ISA 9.7.16.7.1 tcgen05.alloc"
    rules = [
        Rule("alloc_ncols_range", "32 <= ncols <= 512",
             [(C("le", 32, ncols), lambda v: f"ncols {value_at(ncols, v)} < 32"),
              (C("le", ncols, COLUMNS), lambda v: f"ncols {value_at(ncols, v)} > 512")], source=src),
        Rule("alloc_ncols_pow2", "ncols is a power of two",
             [(C("divides", ncols, COLUMNS),
               lambda v: f"ncols {value_at(ncols, v)} is not a power of two (32, 64, 128, 256, 512)")],
             source=src),
        Rule("alloc_capacity", "columns already allocated + ncols <= 512",
             [(C("le", live + ncols, COLUMNS),
               lambda v: f"{value_at(live, v)} columns live + {value_at(ncols, v)} requested > 512")], source=src),
        Rule("alloc_after_relinquish", "no tcgen05.alloc after tcgen05.relinquish_alloc_permit",
             [(not relinquished, lambda _: "the CTA relinquished its allocation permit before this allocation")],
             source="PTX ISA 9.7.16.7.3 tcgen05.relinquish_alloc_permit"),
    ]
    if needed is not None:
        rules.append(Rule("alloc_fits", "the columns the kernel uses fit in the allocation",
                          [(C("le", needed, ncols),
                            lambda v: f"{value_at(needed, v)} columns needed > {value_at(ncols, v)} allocated")],
                          source=src))
    return rules


def check_alloc(ncols, assumptions=None, **kw):
    """Decide :func:`alloc_rules` (a :class:`~.rules.RuleVerdict`: proved / refuted with a value / unknown)."""
    return check_rules(alloc_rules(ncols, **kw), assumptions, claim=f"tcgen05.alloc of {ncols} columns is legal",
                       fields={"ncols": ncols})


# ------------------------------------------------------------------------------------------ element views

def element_view(op: str, dtype, *, library=None) -> dict:
    """A TMEM copy's Src/Dst layouts in ``dtype`` elements, as CUTLASS's ``Copy_Atom<Op, T>`` reads them
    (``ValLayoutSrc/Dst = upcast<sizeof_bits<T>>`` of the bit layouts): ``{"src": Layout, "dst": Layout}``.
    ``op`` is a CUTLASS name (``SM100_TMEM_LOAD_16dp256b1x``) or a family name with ``R`` in the name.
    Valid for the plain integer bit layouts of sm100_tmem.yaml (stride domain int). Admissible: ``dtype``
    divides the bits of a thread on both sides, else :class:`SpecError`."""
    spec, params = resolve(op, library=library)
    if not spec.name.startswith("SM100_TMEM_"):
        raise SpecError(f"{op}: not a TMEM copy (SM100_TMEM_LOAD_* / SM100_TMEM_STORE_*)")
    bits = dtype_bits(dtype)
    out = {}
    for side in ("src", "dst"):
        lay = spec.layout(side, **params)
        per_thread = int_layout(lay, f"{op} {side}").mode_size(1)
        if per_thread % bits:  # CUTLASS static_asserts that a thread's bits are whole values of T
            raise SpecError(f"{op}: a thread's {per_thread} bits ({side}) are not whole {bits}-bit {dtype} values")
        out[side] = upcast(lay, bits)
    return out
