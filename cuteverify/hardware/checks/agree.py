"""Agreement of a user's layout with the hardware (docs/model.md section 6): a TV layout with an MMA or copy
atom (also a tiled MMA of several atoms), a shared-memory layout with a GMMA smem atom tiled to its shape, and
a TMA box with a swizzle mode. Every comparison is exhaustive over the layout's domain; the answer is the
prover's :class:`~cuteverify.prover.verdict.Verdict` (``cv.agrees`` is :func:`agrees`).
"""
from __future__ import annotations

import re
import time
from dataclasses import replace

from ...core.layout import Layout
from ...core.notation.interop import as_layout
from ...core.notation.parse import as_assumptions
from ...errors import SpecError
from ...prover.queries import INTERNAL
from ...prover.verdict import Counterexample, Mismatch, Verdict
from ..library import formula as _fm
from ..library.dtypes import dtype_bits
from .family import family_facts, symbolic_tv_agreement, values_text
from ..library.intlayout import IntLayout, int_layout
from ..library.catalog import default_library, resolve
from .selfcheck import compare_tv, offset_disagreement, tv_disagreement
from ..library.spec import OPERAND_MODES, THREAD_VARS, Library, Spec, operand_formulas, substitute
from ..library.ptx_tables import expected_values, hw_indices, spec_int_layout

__all__ = ["agrees", "user_int_layout", "tiled_mma_table", "tiled_disagreement"]

METHOD = "spec enumeration"


def user_int_layout(layout, spec: Spec, params: dict) -> IntLayout:
    """The user's layout (a Layout / ComposedLayout, or CuTe text) with family parameters bound, as ints."""
    if isinstance(layout, str) and params:
        layout = substitute(layout, params)  # the family's parameters may size the text's shape
    layout = as_layout(layout)
    if hasattr(layout, "free_symbols") and layout.free_symbols and params:
        layout = layout.subs(**params)
    return int_layout(layout, "layout")


def agrees(layout, spec_name: str, operand: str | None = None, library: Library | None = None, *,
           dtype=None, tile=None, atom_layout=None, assume=None, **params) -> Verdict:
    """Does ``layout`` (a cuteverify Layout, or CuTe text) match the hardware for ``operand`` of a spec?

    * ``mma``/``copy`` specs: ``layout`` is a (thread, value) layout compared at every pair with the
      hardware element.  With ``tile=`` and/or ``atom_layout=`` it is the TV layout of a *tiled* MMA over
      a whole tile made of several atoms (see :func:`_compare_tv_tiled` for the convention).
    * ``smem_atom`` specs (full name, or a short name such as ``"GMMA_K_SW128"`` with ``dtype="bf16"``):
      a (row, col) or staged (row, col, stage) -> element offset layout made of whole atoms, in any order of
      atoms (CUTLASS ``tile_to_shape(atom, shape, order)``), see :func:`_compare_smem`. A TV layout of a
      tiled MMA without ``tile=``/``atom_layout=`` is an input error (``cuteverify.atoms.agrees_tiled``).
    * ``swizzle`` specs (``CU_TENSOR_MAP_SWIZZLE_128B`` or ``"TMA_SW128"``, with ``dtype``): a (row, col)
      layout of a TMA box in shared memory (rows of ``span`` bytes); it must equal the row-major box with
      the swizzle applied to byte offsets.

    Family parameters (``N=64``) select one instance. A family parameter left out, with ``assume`` facts
    (``["N % 8 == 0", "8 <= N", "N <= 256"]``) or a layout whose symbols name it (``(2,2,N/8)``), makes the
    claim one about every value of the family the assumptions allow (:func:`_agrees_family`): one symbolic
    proof where it goes through, else each allowed value instantiated; the method says which. Returns a
    Verdict: ``proved`` (equal at every
    (thread, value) / coordinate); ``refuted`` with a counterexample of kind ``disagree`` (the first
    (thread, value) and both elements as (row, col), see :func:`~cuteverify.hardware.checks.selfcheck.tv_disagreement`,
    or for shared memory the coordinate with the user's and the expected offset), re-checked by evaluating the
    layout there; ``refuted`` with kind ``mismatch`` when the shapes cannot agree (the reason in ``reason``
    and the note); ``unknown`` when the witness does not re-check. A spec error (unknown spec, missing
    parameter or dtype) raises :class:`SpecError` / :class:`~cuteverify.errors.UnknownSpec`.
    """
    t0 = time.perf_counter()
    extra = {"dtype": dtype, "tile": tile, "atom_layout": atom_layout}
    claim = f"agrees({layout}, {spec_name}" + (f", operand={operand}" if operand is not None else "") + \
        "".join(f", {k}={v}" for k, v in {**{k: v for k, v in extra.items() if v is not None}, **params}.items()) \
        + ")"
    # the one resolver: SM90_64x128x16_... fixes N, and a parameter contradicting the name is an input error
    spec, given = resolve(spec_name, dtype, library or default_library(), **params)
    open_params = [k for k in spec.params if k not in given]
    if open_params and (assume is not None or _names_in(layout) & set(open_params)):
        return _agrees_family(layout, spec, spec_name, operand, library, claim, t0, open_params, assume,
                              given, {"dtype": dtype, "tile": tile, "atom_layout": atom_layout})
    p = spec.check_params(given)
    operand = _operand(spec, operand)
    cex, reason = _compare(layout, spec, operand, p, dtype, tile, atom_layout)

    def done(status, **kw):
        return Verdict(status, claim=claim, method=METHOD, elapsed=time.perf_counter() - t0, **kw)

    if cex is None and reason is None:
        return done("proved")
    if cex is None:
        return done("refuted", counterexample=Mismatch(note=reason), reason=reason)
    try:
        ok = _recheck_agrees(layout, spec, p, cex)
    except Exception as e:
        ok, why = False, f"{type(e).__name__}: {e}"
    else:
        why = "the layout does not give the reported element there"
    if not ok:
        return done("unknown", reason=f"{INTERNAL} ({cex}; {why})")
    return done("refuted", counterexample=cex)


# A family claim instantiates at most this many allowed parameter assignments when no symbolic proof holds.
FAMILY_INSTANCES = 512


def _names_in(layout) -> set:
    if isinstance(layout, str):
        return set(re.findall(r"[A-Za-z_]\w*", layout))
    fs = getattr(layout, "free_symbols", None)
    return {x.name for x in fs()} if callable(fs) else set()


def _agrees_family(layout, spec: Spec, spec_name, operand, library, claim, t0, open_params, assume, fixed, extra):
    """``agrees`` for every allowed value of the family parameters left open: the family's values that satisfy
    the assumptions (``assume`` and the layout's own). Proved by one symbolic proof
    (``selfcheck.symbolic_tv_agreement``: the layout with its symbols against the formula, every allowed value
    at once) where it applies; otherwise by instantiating each allowed value (refuted: the first value that
    disagrees, in the counterexample's ``assignment``)."""
    asm = as_assumptions(assume)
    lay = layout
    if isinstance(layout, str):
        lay = as_layout(substitute(layout, fixed) if fixed else layout, assume=asm)
    elif fixed and callable(getattr(layout, "free_symbols", None)) and _names_in(layout) & set(fixed):
        lay = layout.subs(**{k: v for k, v in fixed.items() if k in _names_in(layout)})
    own = getattr(lay, "assumptions", None)
    asm = own if asm is None else (asm if own is None else asm.merged(own))
    allowed = []
    for inst in spec.instances():
        if any(inst[k] != spec.check_params({**inst, **fixed})[k] for k in fixed if k in inst):
            continue
        if asm is None or asm.holds({k: inst[k] for k in open_params}) is not False:
            allowed.append({k: inst[k] for k in open_params})
    where = ", ".join(open_params)
    if not allowed:
        raise SpecError(f"agrees: no value of {where} in the family satisfies the assumptions", spec.file, spec.line,
                        spec.name)

    def done(status, method, **kw):
        return Verdict(status, claim=claim, method=method, elapsed=time.perf_counter() - t0, **kw)
    op = _operand(spec, operand)
    values = {k: sorted({a[k] for a in allowed}) for k in open_params}
    text = ", ".join(f"{k} in {values_text(v)}" for k, v in values.items())
    if spec.kind == "mma" and not any(v is not None for v in extra.values()) and isinstance(lay, Layout) and             len(allowed) == _product_count(values):
        facts = family_facts_for(spec, values, asm)
        if facts is not None and symbolic_tv_agreement(spec, op, lay, facts, coverage=False):
            return done("proved", f"symbolic: one proof for every {text}")
    if len(allowed) > FAMILY_INSTANCES:
        return done("unknown", "instantiation", reason=f"{len(allowed)} allowed values of {where}, past the "
                    f"{FAMILY_INSTANCES} a family claim instantiates, and no symbolic proof held")
    for inst in allowed:
        v = agrees(lay if isinstance(lay, Layout) or not isinstance(layout, str) else layout, spec_name, operand,
                   library, **extra, **fixed, **inst)
        if v.status != "proved":
            cex = v.counterexample
            return replace(v, claim=claim, elapsed=time.perf_counter() - t0,
                           counterexample=replace(cex, assignment=dict(inst)) if cex is not None else None,
                           method=f"instantiation: {v.method} at {', '.join(f'{k}={x}' for k, x in inst.items())}")
    return done("proved", f"instantiation: each of the {len(allowed)} allowed values ({text}), {METHOD}")


def _product_count(values: dict) -> int:
    n = 1
    for v in values.values():
        n *= len(v)
    return n


def family_facts_for(spec: Spec, values: dict, asm):
    """Assumptions for the symbolic proof: each open parameter in its allowed set (a finite set, or the
    progression the family declares when every value of it is allowed), with the user's other facts."""
    facts = family_facts(spec, [k for k in values if sorted(values[k]) == sorted(spec.params[k])])
    if facts is None:
        return None
    for k, v in values.items():
        if sorted(v) != sorted(spec.params[k]):
            facts.add(f"{k} in {{{','.join(map(str, v))}}}")
    return facts if asm is None else facts.merged(asm)


def _operand(spec: Spec, operand: str | None) -> str:
    """The operand to compare: the one named (it must exist), or the only one of an smem / swizzle spec."""
    if operand is None:
        if spec.kind in ("mma", "copy"):
            raise SpecError(f"agrees: name an operand ({', '.join(spec.operands)})", spec.file, spec.line,
                            spec.name)
        return spec.operands[0]
    if operand not in spec.operands:
        raise SpecError(f"agrees: no operand {operand!r} (have {', '.join(spec.operands)})", spec.file,
                        spec.line, spec.name)
    return operand


def _compare(layout, spec: Spec, operand: str, p: dict, dtype, tile, atom_layout):
    """(disagreement | None, reason | None) for the spec's kind; a layout that cannot be read as ints is a
    reason (the shapes cannot agree), not an error."""
    try:
        user = user_int_layout(layout, spec, p)
    except SpecError as e:
        return None, e.reason
    if spec.kind == "smem_atom":
        return _compare_smem(user, spec, operand)
    if spec.kind == "swizzle":
        if dtype is None:
            raise SpecError("agrees: a swizzle mode needs dtype= (the element width of the box)", spec.file,
                            spec.line, spec.name)
        return _compare_tma_box(user, spec, dtype_bits(dtype))
    if tile is not None or atom_layout is not None:
        return _compare_tv_tiled(spec, operand, p, user, tile, atom_layout)
    _refuse_tiled(user, spec)
    if dtype is not None and spec.kind == "copy" and spec.data.get("units") == "bits":
        return _compare_tv_recast(spec, operand, p, user, dtype)
    return compare_tv(spec, operand, p, user)


def _compare_tv_recast(spec: Spec, operand: str, params: dict, user: IntLayout, dtype):
    """A copy atom's TV layout in ``dtype`` elements (CUTLASS's ``Copy_Atom<Op, T>``: the bit layouts
    upcast by ``sizeof_bits<T>``) compared with the bit-level hardware.

    The user's layout is read in bits by the inverse recast: value ``v`` of thread ``t`` at element ``e`` is
    the bits ``(t, b + eb*v) -> eb*e + b`` for ``b < eb``; then every bit is compared with the PTX formula.
    A layout already in bits (as many values as the hardware's bits) is compared as it is. The counterexample
    is stated in elements: thread, value, the element the layout gives and the element holding the
    hardware's bit, as (row, col) of the tile in elements."""
    eb = dtype_bits(dtype)
    want_bits = expected_values(spec, operand, params, spec.tile(operand, **params))
    if user.rank != 2 or user.mode_size(1) == want_bits or eb == 1:
        return compare_tv(spec, operand, params, user)
    if user.mode_size(1) * eb != want_bits:
        return None, (f"value mode has size {user.mode_size(1)}, the hardware holds {want_bits} bits per thread "
                      f"= {want_bits / eb:g} {dtype} values")
    if user.swizzle is not None:
        return None, "a TV layout with a swizzle cannot be read in bits"
    t_offs, v_offs = user.modes
    bits = IntLayout(([eb * o for o in t_offs], [eb * o + b for o in v_offs for b in range(eb)]),
                     None, eb * user.base)
    cex, reason = compare_tv(spec, operand, params, bits)
    if cex is None:
        return None, reason
    d = cex.detail
    t, v = d["thread"], d["value"] // eb
    ui, hb = user.tv_values([t])[v], d["hardware_index"]
    if hb is not None and hb // eb == ui:
        return None, (f"thread {t}, value {v}: the hardware's bits are not whole {dtype} elements there (bit "
                      f"{d['value']} of the thread is bit {hb} of the tile)")

    def el(rc):
        return None if rc is None else (rc[0], rc[1] // eb)

    return tv_disagreement(operand, spec.axes(operand), t, v, ui, None if hb is None else hb // eb,
                           el(d["user"]), el(d["hardware"])), None


def _refuse_tiled(user: IntLayout, spec: Spec) -> None:
    """A TV layout whose thread mode is a multiple of the atom's threads is a tiled MMA's (several atoms),
    not the atom's: comparing it with one atom would report a wrong REFUTED, so it is an input error that
    says where such a layout is checked."""
    if user.rank != 2 or spec.kind != "mma":
        return
    nthr, T = user.mode_size(0), spec.threads
    if nthr > T and nthr % T == 0:
        raise SpecError(f"agrees: the layout's thread mode has {nthr} threads = {nthr // T} x the atom's {T}: "
                        f"a tiled MMA's TV layout, not the atom's; check it as a tiled MMA: "
                        f"cuteverify.atoms.agrees_tiled(layout, make_tiled_mma({spec.name}, atom_layout_mnk, "
                        f"permutation_mnk), operand), `cuteverify agrees LAYOUT --spec {spec.name} --atom-layout "
                        f"\"(AM,AN,AK)\" [--permutation \"(PM,PN,PK)\"]`, a manifest's atom_layout: / permutation:, "
                        f"or pass atom_layout= / tile= here (no permutation)",
                        spec.file, spec.line, spec.name)


def _recheck_agrees(layout, spec: Spec, params: dict, c: Counterexample) -> bool:
    """Evaluate the user's layout at the counterexample: it gives ``user_index`` there, which is not the
    hardware's."""
    d = c.detail
    if d.get("user_index") == d.get("hardware_index") and d.get("user") == d.get("hardware"):
        return False
    lay = user_int_layout(layout, spec, params)
    if "thread" not in d:
        return lay(*c.coords) == d["user_index"]
    return lay.tv_values([d["thread"]])[d["value"]] == d["user_index"]


# ------------------------------------------------------------------------------------------- tiled MMA


def _tiled_geometry(spec: Spec, operand: str, params: dict, lay: IntLayout, tile, atom_layout):
    """The tiled-MMA convention of :func:`_compare_tv_tiled` checked against the layout's sizes.

    Returns ``(geometry, None)`` with geometry = (atom grid (AM, AN, AK), the operand's grid extents (A0, A1),
    repetitions (R0, R1), the tile (T0, T1)), or ``(None, reason)`` when the sizes cannot fit the convention.
    """
    m_, n_, k_ = spec.shape_mnk(**params)
    axes_idx = OPERAND_MODES[operand]
    shape = tuple((m_, n_, k_)[i] for i in axes_idx)
    if lay.rank != 2:
        return None, f"expected a rank-2 (thread, value) layout, got rank {lay.rank}"
    nthr, nval = lay.mode_size(0), lay.mode_size(1)
    T = spec.threads
    if nthr % T:
        return None, f"thread mode has size {nthr}, not a multiple of the atom's {T} threads"
    groups = nthr // T
    V = expected_values(spec, operand, params, spec.tile(operand, **params))
    if nval % V:
        return None, f"value mode has size {nval}, not a multiple of the atom's {V} values per thread"
    reps = nval // V
    if atom_layout is None:
        if tile is None:
            return None, "a tiled layout needs tile= or atom_layout="
        grid = [tile[0] // shape[0], tile[1] // shape[1]]
        if grid[0] * grid[1] != groups:
            return None, (f"cannot infer the atom layout: tile {tuple(tile)} holds {grid[0]}x{grid[1]} atoms of "
                          f"{shape}, the layout has {groups} thread groups; pass atom_layout=")
        al = [1, 1, 1]
        al[axes_idx[0]], al[axes_idx[1]] = grid
    else:
        al = [int(x) for x in atom_layout] + [1] * (3 - len(atom_layout))
        if al[0] * al[1] * al[2] != groups:
            return None, (f"atom_layout {tuple(atom_layout)} has {al[0] * al[1] * al[2]} atoms, the layout has "
                          f"{groups} thread groups of {T}")
    A0, A1 = al[axes_idx[0]], al[axes_idx[1]]
    if tile is None:
        if reps != 1:
            return None, f"{reps} values-per-atom repetitions per thread: pass tile= to place them"
        tile = (A0 * shape[0], A1 * shape[1])
    T0, T1 = int(tile[0]), int(tile[1])
    if T0 % (A0 * shape[0]) or T1 % (A1 * shape[1]):
        return None, f"tile {(T0, T1)} is not a multiple of the atom grid {(A0 * shape[0], A1 * shape[1])}"
    R0, R1 = T0 // (A0 * shape[0]), T1 // (A1 * shape[1])
    if R0 * R1 != reps:
        return None, (f"value mode has size {nval} = {reps} x {V}, but tile {(T0, T1)} needs {R0 * R1} "
                      f"repetition(s) of the atom per thread")
    return (tuple(al), (A0, A1), (R0, R1), (T0, T1), shape, V), None


def _compare_tv_tiled(spec: Spec, operand: str, params: dict, lay: IntLayout, tile, atom_layout):
    """Compare the TV layout of a tiled MMA (several atoms) with the atom spec, atom by atom.

    Convention (CUTLASS ``TiledMMA`` with ``AtomLayoutMNK`` and no permutation, docs/model.md section 6):

    * the operand tile is indexed as the atom's codomain is: A ``m + TM*k``, B ``n + TN*k``, C ``m + TM*n``
      (column-major in the CuTe axes (M,K), (N,K), (M,N)); ``tile`` gives those two extents;
    * ``atom_layout`` = (AM, AN) or (AM, AN, AK) atoms, column-major: thread ``t`` belongs to thread group
      ``g = t // atom_threads`` at atom coordinate ``(g % AM, (g // AM) % AN, g // (AM*AN))`` and acts as
      the atom's logical thread ``t % atom_threads``.  Operand A uses the (m, k) coordinates of the group,
      B (n, k), C (m, n): groups differing only in the other coordinate hold the same A/B data;
    * a thread's value ``v`` is the atom's value ``v % V`` of repetition ``r = v // V`` (when the tile is
      larger than the atom grid), repetition ``r`` in column-major order over the operand's two axes; the
      atom block it lands in is ``(g0 + A0*r0, g1 + A1*r1)``.

    Either argument may be omitted: ``tile`` defaults to atom grid x atom shape (one repetition);
    ``atom_layout`` is inferred when the tile has no repetition and the operand sees all atom axes.
    The hardware's table is :func:`tiled_mma_table`'s, as for ``atoms.agrees_tiled``.
    Returns (Counterexample | None, reason | None) like :func:`compare_tv`.
    """
    geometry, reason = _tiled_geometry(spec, operand, params, lay, tile, atom_layout)
    if reason:
        return None, reason
    al, _, _, tile, _, _ = geometry
    T, nthr = spec.threads, lay.mode_size(0)
    coords = [(t % T, (t // T) % al[0], (t // T // al[0]) % al[1], t // T // (al[0] * al[1])) for t in range(nthr)]
    want = tiled_mma_table(spec, params, operand, coords, (T, *al), tile, (None, None))
    np = _numpy()
    got = np.array(lay.tv_values(), dtype=np.int64).reshape(want["shape"])
    return tiled_disagreement(operand, spec.axes(operand), got, want), None


def tiled_mma_table(spec: Spec, params: dict, operand: str, coords: list, counts: tuple, tile: tuple, perms: tuple,
                    full: bool = True) -> dict:
    """The one hardware table of a tiled MMA's operand: the element of the operand's tile every (thread, value)
    holds, from the atom's PTX formula (not its CUTLASS layout).

    Definition: thread ``t`` is the atom's logical thread ``v`` of atom ``(m, n, k)`` (``coords[t]``;
    ``counts`` = the sizes of (v, m, n, k)); its value ``i = a + V*(r0 + R0*r1)`` is the atom's value ``a``
    of repetition ``(r0, r1)``; the element is ``P0(e0 + S0*(g0 + G0*r0)) + T0 * P1(e1 + S1*(g1 + G1*r1))``
    with ``(e0, e1)`` the atom's element, ``(g0, g1)`` the thread's atom coordinates in the operand's modes
    (:data:`OPERAND_MODES`), ``G`` the atom counts, ``S`` the atom extents, ``(T0, T1)`` = ``tile`` and
    ``P`` = ``perms`` (None or an int: the identity; else a permutation layout, or its text).
    Admissibility: ``tile`` a multiple of the atom grid in both modes; concrete sizes. Post-condition:
    ``{"shape": (threads, values), "index": int64 array (-1 where the formula has none), "tile", "where":
    (thread, value) -> (atom block, atom index)}``; ``full=False``: one row of "index" per distinct thread key
    (the thread in the atom when the formula reads it, and its two atom coordinates), "reps" each key's first
    thread and "inverse" each thread's key, no "where" (see ``atoms.agree._agrees_by_groups``)."""
    m0, m1 = OPERAND_MODES[operand]
    shape_mnk = spec.shape_mnk(**params)
    S0, S1 = shape_mnk[m0], shape_mnk[m1]
    G0, G1 = counts[m0 + 1], counts[m1 + 1]
    T0, T1 = tile
    R0, R1 = T0 // (S0 * G0), T1 // (S1 * G1)
    f0, f1 = (_perm_values(p) for p in perms)
    T = spec.threads
    V = expected_values(spec, operand, params, spec.tile(operand, **params))
    thr = spec_int_layout(spec, "thr_id", {})
    fs = operand_formulas(spec, operand)
    # a formula of the value alone (an SS wgmma operand): every thread of the atom holds what thread 0 holds
    thread_free = not (fs["row"].names | fs["col"].names) & set(THREAD_VARS)
    hw = hw_indices(spec, operand, params, [0] if thread_free else list(range(T)), V, thr,
                    spec.tile(operand, **params))
    nthr, nval = len(coords), V * R0 * R1
    np = _numpy()
    hw_arr = np.array([-1 if e is None else e for e in hw], dtype=np.int64)
    c = np.array(coords, dtype=np.int64).reshape(nthr, 4)          # (threads, 4): v, m, n, k
    extra = {}
    if not full:
        # one int per (thread in atom, atom coordinates): a 1-d unique (an axis-0 unique is ~10x slower)
        key = c[:, m0 + 1] + G0 * c[:, m1 + 1] + (0 if thread_free else G0 * G1 * c[:, 0])
        _, reps, inverse = np.unique(key, return_index=True, return_inverse=True)
        extra = {"reps": reps, "inverse": inverse.reshape(-1)}
        c = c[reps]
    r, a = np.divmod(np.arange(nval, dtype=np.int64), V)
    r0, r1 = r % R0, r // R0
    e = hw_arr[(0 if thread_free else c[:, :1] * V) + a[None, :]]  # (threads, values)
    e = np.broadcast_to(e, (c.shape[0], nval))
    b0 = c[:, m0 + 1:m0 + 2] + G0 * r0[None, :]
    b1 = c[:, m1 + 1:m1 + 2] + G1 * r1[None, :]
    index = f0(e % S0 + S0 * b0) + T0 * f1(e // S0 + S1 * b1)
    index[e < 0] = -1                                              # a formula hole: never equal to a layout value
    if not full:
        return {"shape": (nthr, nval), "index": index, "tile": (T0, T1), **extra}

    def where(t, i):
        """The atom block (in atom units, before the permutation) and the atom's index of (thread, value)."""
        mnk = c[t, 1:]
        return (int(b0[t, i]), int(b1[t, i])), int(mnk[0] + counts[1] * (mnk[1] + counts[2] * mnk[2]))

    return {"shape": (nthr, nval), "index": index, "tile": (T0, T1), "where": where}


def tiled_disagreement(operand: str, axes: tuple, got, want: dict):
    """The first (thread, value), thread-major, where ``got`` (an int array of the user's elements, shaped as
    ``want["shape"]``) differs from :func:`tiled_mma_table`'s full table ``want``, as a counterexample naming
    atom block, thread group, thread, value and both elements as (row, col); None when they are equal."""
    bad = _numpy().argwhere((got != want["index"]) | (want["index"] < 0))  # a hole equals no layout value
    if not bad.size:
        return None
    t, v = (int(x) for x in bad[0])
    g, w = int(got[t, v]), int(want["index"][t, v])
    T0, T1 = want["tile"]
    (b0, b1), atom_id = want["where"](t, v)

    def el(idx):
        if idx is None or not 0 <= idx < T0 * T1:
            return None
        a, b = idx % T0, idx // T0
        return (b, a) if operand == "B" else (a, b)  # B: PTX writes (k, n)

    return tv_disagreement(operand, axes, t, v, g, None if w < 0 else w, el(g), el(None if w < 0 else w),
                           atom=(b0, b1), group=atom_id)


def _numpy():
    import numpy  # not a project module: loaded with the first tiled check, as atoms.check does
    return numpy


def _perm_values(p):
    """The permutation tile of one mode as a vectorised function of the pre-permutation coordinate."""
    if p is None or type(p) is int:
        return lambda x: x
    lay = as_layout(p, "permutation")
    table = _numpy().array(int_layout(lay, "permutation").values(), dtype="int64")
    return table.__getitem__


# ------------------------------------------------------------------------------ shared memory, TMA

def _compare_smem(user: IntLayout, spec: Spec, operand: str):
    """A staged shared-memory layout made of whole hardware atoms, compared at every coordinate.

    ``user``: ``(rows, cols)`` or ``(rows, cols, stages...)`` (the modes after the first two are pipeline
    stages, each read through its own descriptors: checked stage by stage). The hardware fixes the atom,
    not the order of the atoms (a wgmma descriptor places atoms by its LBO/SBO strides, any order; CUTLASS's
    ``tile_to_shape(atom, shape, Step<...>)``), so every ``(ar, ac)`` block of every stage must be the atom
    shifted by its first element's offset ``base`` (``user(r, c, s) == base + atom(r % ar, c % ac)``), and
    ``base`` must be aligned: a multiple of the atom's size for a swizzled atom (the swizzle pattern repeats
    with the atom: a shifted base would XOR other address bits), of 16 bytes for INTER (descriptor start
    addresses count 16-byte units), and no two blocks may share a base (they would overlap).
    Returns (Counterexample | None, reason | None); the first disagreement in column-major order of
    ``(row, col, stage)``, else the first misaligned block, else the first overlapping one."""
    hw = int_layout(spec.layout("layout"), "layout")
    ar, ac = hw.mode_size(0), hw.mode_size(1)
    sizes = tuple(user.mode_size(k) for k in range(user.rank))
    if user.rank < 2 or sizes[0] % ar or sizes[1] % ac:
        return None, f"shape {sizes} is not a multiple of the atom's ({ar}, {ac}) (rows, cols[, stages])"
    rows, cols = sizes[:2]
    asz, plane = ar * ac, rows * cols
    align = asz if spec.data.get("swizzle") != "INTER" else max(1, 128 // int(spec.data["element_bits"]))
    f = _fm.compile_formula(operand_formulas(spec, "layout")["offset"], ("row", "col"))
    atom = [[f(r, c) for c in range(ac)] for r in range(ar)]
    vals = user.values()

    def coord(j):
        r, c, s = j % rows, (j // rows) % cols, j // plane
        return (r, c) if user.rank == 2 else (r, c) + _stage_coord(s, sizes[2:])

    for j, got in enumerate(vals):
        r, c = j % rows, (j // rows) % cols
        base = vals[j - r % ar - rows * (c % ac)]
        want = base + atom[r % ar][c % ac]
        if got != want:
            return offset_disagreement(operand, coord(j), got, want), None
    owner = {}
    for j in range(len(vals)):
        r, c = j % rows, (j // rows) % cols
        if r % ar or c % ac:
            continue
        base = vals[j]
        if base % align:
            return _block_problem("misaligned", operand, coord(j), base,
                                  f"the atom at coordinate {coord(j)} starts at offset {base}, not a multiple "
                                  f"of {align} elements (the atom's alignment)"), None
        if base in owner:
            return _block_problem("overlap", operand, coord(j), base,
                                  f"the atoms at coordinates {owner[base]} and {coord(j)} both start at offset "
                                  f"{base}", other=owner[base]), None
        owner[base] = coord(j)
    return None, None


def _stage_coord(s: int, stage_sizes: tuple) -> tuple:
    out = []
    for n in stage_sizes:
        out.append(s % n)
        s //= n
    return tuple(out)


def _block_problem(kind: str, operand: str, coordinate: tuple, base: int, note: str, other=None) -> Counterexample:
    """An atom block placed where the hardware cannot read it (kind ``misaligned`` or ``overlap``): coords the
    block's first coordinate, whose offset ``base`` the re-check evaluates."""
    detail = {"operand": operand, "axes": ("row", "col"), "user_index": base, "hardware_index": None}
    if other is not None:
        detail["other"] = other
    return Counterexample.of(kind, coords=tuple(coordinate), values=(base,), note=note, detail=detail)


def _compare_tma_box(user: IntLayout, spec: Spec, eb: int):
    """User (row, col) layout of a TMA box == row-major box, swizzled on byte addresses."""
    if eb % 8:
        raise SpecError(f"TMA boxes need whole-byte elements, not {eb}-bit", spec.file, spec.line, spec.name)
    nb = eb // 8
    span = spec.data["span_bytes"]
    sizes = tuple(user.mode_size(k) for k in range(user.rank))
    if user.rank != 2 or (span and sizes[1] * nb != span):
        return None, (f"shape {sizes}: a {spec.name} box has rows of {span} bytes = "
                      f"{span // nb if span else 'any number of'} {eb}-bit elements")
    rows, cols = sizes
    if rows > 256 or cols > 256:
        # cuTensorMapEncodeTiled: every box dimension is at most 256 (hardware.tma, rule box_dims)
        return None, f"shape {sizes}: a TMA box dimension is at most 256 elements"
    f = _fm.compile_formula(operand_formulas(spec, "swizzle")["address"], ("addr",))
    for j, got in enumerate(user.values()):
        r, c = j % rows, j // rows
        want = f((r * cols + c) * nb) // nb
        if got != want:
            return offset_disagreement("swizzle", (r, c), got, want), None
    return None, None
