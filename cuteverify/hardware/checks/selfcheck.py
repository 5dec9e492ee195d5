"""The spec self-check (docs/model.md section 6): a spec's CUTLASS layout against its independent PTX formula.

Each spec carries two descriptions of the same hardware fact, copied from two sources: the CuTe layout from
CUTLASS and the formula from the PTX ISA. :func:`self_check` evaluates both at every point (every thread and
value of every family instance; every coordinate of an smem atom; two repeat blocks of a swizzle) and refuses
the spec (:class:`~cuteverify.errors.SpecInconsistent`, kind ``refuted``) at the first disagreement.
:func:`compare_tv` is the same comparison for any TV layout; the agreement checks reuse it.
"""
from __future__ import annotations

import re

from ...core.swizzle import Swizzle
from ...errors import NotAdmissibleError, SpecError, SpecInconsistent
from ...prover.verdict import Counterexample, Disagree
from . import family as _family
from ..library import formula as _fm
from ..library import swizzles
from .family import family_facts, symbolic_tv_agreement, values_text
from ..library.intlayout import IntLayout, int_layout
from ..library.loader import line_of
from ..library.spec import THREAD_VARS, Spec, operand_formulas
from ..library.ptx_tables import element_of, expected_values, hw_elements, hw_indices, spec_int_layout

__all__ = ["self_check", "compare_tv", "parse_swizzle", "tv_disagreement", "offset_disagreement", "METHODS",
           "check_method", "family_facts", "symbolic_tv_agreement"]

_CHECKED: dict = {}

# How each family's TV operands were checked (spec name -> text), for ``spec check`` and the tests.
METHODS: dict = {}


def _element_text(operand: str, axes: tuple, el) -> str:
    if el is None:
        return "an element outside the tile"
    return f"{operand}[{axes[0]}={el[0]}, {axes[1]}={el[1]}]"


def tv_disagreement(operand: str, axes: tuple, thread: int, value: int, user_index, hardware_index, user,
                    hardware, atom: tuple | None = None, group: int | None = None) -> Counterexample:
    """The first (thread, value) where a TV layout and the hardware differ, as the prover's counterexample.

    Kind ``disagree``; ``coords`` = (thread, value), ``values`` = (user element, hardware element), each a
    (row, col) of the operand matrix as PTX writes it with ``axes`` naming them (None: outside the tile);
    ``detail`` (also read as attributes: ``cex.thread``, ``cex.user``, ...) holds the operand, the axes, both
    CuTe indices and, for a tiled MMA, the atom's block in the tile and its thread group."""
    pre = "" if atom is None else f"atom {atom} (thread group {group}), "
    note = (pre + f"thread {thread}, value {value}: the layout gives {_element_text(operand, axes, user)} "
            f"(index {user_index}) but the hardware holds {_element_text(operand, axes, hardware)} there "
            f"(index {hardware_index})")
    detail = {"operand": operand, "axes": tuple(axes), "user_index": user_index, "hardware_index": hardware_index,
              "thread": thread, "value": value, "value_index": value, "user": user, "hardware": hardware}
    if atom is not None:
        detail.update(atom=atom, group=group)
    return Disagree(coords=(thread, value), values=(user, hardware), value=value, note=note,
                          detail=detail)


def offset_disagreement(operand: str, coordinate: tuple, user_index: int, hardware_index: int) -> Counterexample:
    """The first (row, col) coordinate where a shared-memory layout and the hardware's offsets differ: kind
    ``disagree``, ``coords`` the coordinate, ``values`` (the layout's offset, the hardware's offset)."""
    note = (f"at coordinate {tuple(coordinate)}: the layout gives offset {user_index} but the hardware puts that "
            f"element at offset {hardware_index}")
    detail = {"operand": operand, "axes": ("row", "col"), "user_index": user_index,
              "hardware_index": hardware_index}
    return Disagree(coords=tuple(coordinate), values=(user_index, hardware_index), note=note,
                          detail=detail)


# ------------------------------------------------------------------------------------ TV comparison

def compare_tv(spec: Spec, operand: str, params: dict, lay: IntLayout):
    """Compare an int TV layout with the spec's formula at every (thread, value).

    Returns (a :func:`tv_disagreement` | None, reason | None).  When the layout's thread mode has only zero strides
    and the formula does not mention the thread, both sides are the same for every thread, so thread 0
    is evaluated for all of them (exact, not a sample).
    """
    thr = spec_int_layout(spec, "thr_id", {})
    tile = spec.tile(operand, **params)
    if lay.rank != 2:
        return None, f"expected a rank-2 (thread, value) layout, got rank {lay.rank}"
    nthr, nval = lay.mode_size(0), lay.mode_size(1)
    if nthr != spec.threads:
        return None, f"thread mode has size {nthr}, the atom has {spec.threads} threads"
    want_vals = expected_values(spec, operand, params, tile)
    if nval != want_vals:
        return None, f"value mode has size {nval}, the hardware holds {want_vals} values per thread"
    threads = list(range(nthr))
    fs = operand_formulas(spec, operand)
    thread_free = not (fs["row"].names | fs["col"].names) & set(THREAD_VARS)
    if thread_free and all(o == 0 for o in lay.modes[0]):
        # Broadcast operand (e.g. wgmma SS A/B): neither side depends on the thread, so thread 0 decides
        # every thread exactly.
        threads = [0]
    want = hw_indices(spec, operand, params, threads, nval, thr, tile)
    vals = lay.tv_values(threads)
    if want == vals:
        return None, None
    pos = next(p for p, (w, g) in enumerate(zip(want, vals)) if w != g)
    got = vals[pos]
    t, v = threads[pos // nval], pos % nval
    rc = hw_elements(spec, operand, params, [t], nval, thr)[v]
    user = element_of(got, tile) if 0 <= got < tile[0] * tile[1] else None
    return tv_disagreement(operand, spec.axes(operand), t, v, got, want[pos], user, rc), None


# ------------------------------------------------------------------------------------------ mma / copy

def _operand_problem(spec: Spec, operand: str, params: dict) -> str | None:
    """Self-check one TV operand for one parameter choice; a reason string, or None if consistent.

    Results are memoised on everything the check reads (layout text after substitution, formula trees,
    tile, threads, ThrID, coverage declaration), so identical operands shared by many specs (the wgmma
    accumulator of every dtype variant, say) are enumerated once.
    """
    fs = operand_formulas(spec, operand)
    node = spec.data["operands"][operand]
    used = fs["row"].names | fs["col"].names
    key = (spec.layout_text(operand, **params), fs["row"].key, fs["col"].key, spec.tile(operand, **params),
           spec.threads, spec.data["thr_id"], node.get("broadcast"), node.get("multiplicity"),
           node.get("values"), tuple(sorted((k, v) for k, v in params.items() if k in used)))
    if key not in _CHECKED:
        _CHECKED[key] = _operand_problem_uncached(spec, operand, params)
    return _CHECKED[key]


def _operand_problem_uncached(spec: Spec, operand: str, params: dict) -> str | None:
    lay = spec_int_layout(spec, operand, params)
    cex, reason = compare_tv(spec, operand, params, lay)
    if reason:
        return reason
    if cex:
        return f"CuTe layout and formula disagree: {cex}"
    return _coverage_problem(spec, operand, params, lay)


def _coverage_problem(spec: Spec, operand: str, params: dict, lay: IntLayout) -> str | None:
    """A bijection onto the tile, or the declared uniform broadcast; a reason string otherwise."""
    tile = spec.tile(operand, **params)
    n = tile[0] * tile[1]
    node = spec.data["operands"][operand]
    if node.get("broadcast") == "all":
        if any(o != 0 for o in lay.modes[0]):
            return "declared broadcast over all threads but the thread mode has a non-zero stride"
        vals = lay.modes[1]
        mult = 1
    else:
        vals = lay.values()
        mult = int(node.get("multiplicity", 1))
    want = list(range(n)) if mult == 1 else sorted(list(range(n)) * mult)
    if sorted(vals) == want:
        return None
    counts: dict = {}
    for v in vals:
        counts[v] = counts.get(v, 0) + 1
    missing = sorted(set(range(n)) - set(counts))[:3]
    if missing or len(counts) != n:
        return (f"image is not the whole {tile[0]}x{tile[1]} tile"
                + (f" (missing indices {missing}...)" if missing else " (indices outside the tile)"))
    bad = next(k for k, c in counts.items() if c != mult)
    what = "not a bijection" if mult == 1 else f"not a uniform {mult}-fold broadcast"
    return f"{what}: element {element_of(bad, tile)} is hit {counts[bad]} times"


def _params_read(spec: Spec) -> set:
    """The family parameters some layout, formula or extent of the spec mentions (the others, e.g. UMMA's
    operand majors, select a descriptor and cannot change the (thread, value) check)."""
    texts = [str(spec.data.get(k, "")) for k in ("shape_mnk", "tile")]
    used = set()
    for op in spec.operands:
        node = spec.data["operands"][op]
        texts += [str(node["layout"]), str(node.get("values", ""))]
        fs = operand_formulas(spec, op)
        used |= fs["row"].names | fs["col"].names
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", " ".join(texts)))
    return (used | words) & set(spec.params)


def _distinct_instances(spec: Spec) -> list:
    """One admissible instance per distinct choice of the parameters the check reads (exact: the others
    cannot change any value compared)."""
    read = _params_read(spec)
    seen, out = set(), []
    for params in spec.instances():
        key = tuple((k, v) for k, v in params.items() if k in read)
        if key not in seen:
            seen.add(key)
            out.append(params)
    return out


def _check_tv_spec(spec: Spec, symbolic: bool) -> list:
    problems = []
    thr = int_layout(spec.layout("thr_id"), "thr_id")
    if thr.size != spec.threads:
        problems.append(("thr_id", f"ThrID has size {thr.size}, declared threads {spec.threads}"))
    elif len(set(thr.values())) != thr.size:
        problems.append(("thr_id", "ThrID is not injective"))
    proved = _family_proofs(spec, symbolic)
    for params in _distinct_instances(spec) if len(proved) < len(spec.operands) else ():
        if spec.kind == "mma":
            dims = spec.shape_mnk(**params)
            if any(d <= 0 for d in dims):
                problems.append(("shape_mnk", f"non-positive shape {dims} for {params}"))
                break
        for op in spec.operands:
            if op in proved:
                continue
            reason = _operand_problem(spec, op, params)
            if reason:
                p = "".join(f" {k}={v}" for k, v in params.items())
                problems.append((op, f"operand {op}{p and ' with' + p}: {reason}"))
        if problems:
            break
    return problems


def _family_proofs(spec: Spec, symbolic: bool) -> set:
    """With ``symbolic``, the operands of a family proved for every parameter value at once
    (``symbolic_tv_agreement`` on the spec's own layout, its parameters as symbols); the others are checked
    instance by instance. Records in ``METHODS`` which it was."""
    read = _params_read(spec)
    if not read:
        return set()
    asm = family_facts(spec, read) if symbolic and spec.kind == "mma" else None
    proved = set()
    if asm is not None:
        for op in spec.operands:
            try:
                lay = spec.layout(op)
            except SpecError:
                continue
            if symbolic_tv_agreement(spec, op, lay, asm):
                proved.add(op)
    n = len(_distinct_instances(spec))
    where = ", ".join(f"{k} in {values_text(spec.params[k])}" for k in sorted(read))
    if len(proved) == len(spec.operands):
        METHODS[spec.name] = f"one symbolic proof per operand for every {where}"
    elif proved:
        METHODS[spec.name] = (f"operands {', '.join(sorted(proved))}: one symbolic proof for every {where}; "
                              f"the others: {n} instances checked")
    else:
        METHODS[spec.name] = f"{n} instances checked ({where})"
    return proved


def check_method(spec: Spec) -> str | None:
    """How ``self_check`` checked a family's TV operands (None for a single instruction or before a check)."""
    return METHODS.get(spec.name)


# --------------------------------------------------------------------------------------- smem atoms

def _check_smem_atom(spec: Spec) -> list:
    d = spec.data
    eb = d["element_bits"]
    if eb % 8 or eb & (eb - 1):
        return [("element_bits", f"element_bits {eb} is not a power-of-two number of bytes")]
    lay = int_layout(spec.layout("layout"), "layout")
    bits = int_layout(spec.layout("layout_bits"), "layout_bits")
    bsw = parse_swizzle(d["swizzle_bytes"], spec)
    if lay.rank != 2:
        return [("layout", "a shared-memory atom must be rank 2 (mn, k) / (k-major rows, cols)")]
    problems = []
    want_b = swizzles.by_atom(d["swizzle"]).byte_swizzle[0]
    if bsw[0] != want_b or bsw[1:] != (4, 3):
        problems.append(("swizzle_bytes", f"{d['swizzle']} is Swizzle<{want_b},4,3> on bytes, not {bsw}"))
    log_eb = (eb // 8).bit_length() - 1
    sw = lay.swizzle
    esw = None if sw is None else (sw.bits, sw.base, sw.shift)
    if esw is not None and esw[0] > 0 and esw != (bsw[0], 4 - log_eb, 3):
        problems.append(("layout", f"element-unit swizzle {esw} should be Swizzle<{bsw[0]},"
                                   f"{4 - log_eb},3> for {eb}-bit elements (byte swizzle <{bsw[0]},4,3>)"))
    return problems or _smem_atom_points(spec, lay, bits, _swizzle_of(bsw, spec))


def _smem_atom_points(spec: Spec, lay: IntLayout, bits: IntLayout, byte_swizzle: Swizzle) -> list:
    """The atom's three descriptions agree at every coordinate, and the atom is a bijection."""
    d = spec.data
    eb, rows, cols = d["element_bits"], lay.mode_size(0), lay.mode_size(1)
    # 1) layout vs formula over every coordinate (row fastest, matching colex order).
    f = operand_formulas(spec, "layout")["offset"]
    fn = _fm.table([f], ("col",), ("row",))
    want = fn([(c,) for c in range(cols)], [(r,) for r in range(rows)])
    got = lay.values()
    for j, (w, g) in enumerate(zip(want, got)):
        if w != g:
            r, c = j % rows, j // rows
            return [("layout", f"layout and offset formula disagree at coordinate ({r}, {c}): "
                               f"layout gives {g}, formula gives {w}")]
    # 2) element layout vs CUTLASS's bit-level definition with the swizzle applied to byte addresses.
    major = d["major"]
    for c in range(cols):
        for r in range(rows):
            bit = bits(r * eb, c) if major == "MN" else bits(r, c * eb)
            byte = byte_swizzle(bit // 8)
            if byte * 8 // eb != lay(r, c):
                return [("layout_bits", f"bit-level CUTLASS atom puts ({r}, {c}) at element "
                                        f"{byte * 8 // eb}, element layout says {lay(r, c)}")]
    # 3) bijection onto [0, size).
    if sorted(got) != list(range(len(got))):
        return [("layout", "layout is not a bijection onto [0, size)")]
    return []


# ---------------------------------------------------------------------------------------- swizzles

def parse_swizzle(text: str, spec: Spec) -> tuple:
    """``S<B,M,S>`` / ``Sw<B,M,S>`` text as (B, M, S); :class:`SpecError` otherwise."""
    t = text.strip()
    for pre in ("Sw<", "S<"):
        if t.startswith(pre) and t.endswith(">"):
            try:
                b, m, s = (int(x) for x in t[len(pre):-1].split(","))
                return (b, m, s)
            except ValueError:
                break
    raise SpecError(f"cannot parse swizzle {text!r} (expected S<B,M,S>)", spec.file, spec.line, spec.name)


def _swizzle_of(bms: tuple, spec: Spec) -> Swizzle:
    """The core's Swizzle for (B, M, S) from a spec; an inadmissible one (|S| < B) is a :class:`SpecError`."""
    try:
        return Swizzle(*bms)
    except NotAdmissibleError as e:
        raise SpecError(f"swizzle S<{bms[0]},{bms[1]},{bms[2]}>: {e}", spec.file, spec.line, spec.name) from None


def _check_swizzle(spec: Spec) -> list:
    d = spec.data
    b, m, s = parse_swizzle(d["swizzle"], spec)
    span = d["span_bytes"]
    problems = []
    if (16 << b if b else 0) != span:
        problems.append(("span_bytes", f"Swizzle<{b},{m},{s}> on bytes spans {16 << b if b else 0}B, not {span}B"))
    enc = d.get("encodings", {})
    mode = swizzles.by_span(span)  # the one swizzle table's encodings of this span
    for key, field in (("cu_tensor_map_swizzle", "tma"), ("gmma_layout_type", "gmma"), ("umma_layout_type", "umma")):
        want = getattr(mode, field) if mode is not None else None
        if key in enc and enc[key]["value"] != want:
            problems.append((key, f"{key} for a {span}B swizzle is {want}, spec says {enc[key]['value']}"))
    f = operand_formulas(spec, "swizzle")["address"]
    block = d["repeat_bytes"]
    fn = _fm.compile_formula(f, ("addr",))
    swizzle = _swizzle_of((b, m, s), spec)
    seen = set()
    for a in range(2 * block):
        want, got = fn(a), swizzle(a)
        if want != got:
            problems.append(("address", f"Swizzle<{b},{m},{s}>({a}) = {got} but the address formula gives {want}"))
            break
        if got // block != a // block:
            problems.append(("swizzle", f"address {a} leaves its {block}B block"))
            break
        seen.add(got)
    if not problems and len(seen) != 2 * block:
        problems.append(("swizzle", "not a bijection on its repeat block"))
    return problems


# ------------------------------------------------------------------------------------------ the check

# Whether self_check proves families symbolically by default (``cuteverify spec check`` turns it on; a plain
# library load checks every instance, which costs less for the shipped library).
FAMILY_PROOFS = False


def self_check(spec: Spec, symbolic: bool | None = None) -> None:
    """Check a spec's internal consistency; raise :class:`SpecInconsistent` (with the operand's line) if not.

    A family (``params``) is checked at every value of its parameters: with ``symbolic`` (default
    ``FAMILY_PROOFS``) by one symbolic proof per operand where it goes through (``family.py``), the rest
    instance by instance; :func:`check_method` says which.

    * ``mma`` / ``copy``: for every family instance and operand, at every (thread, value) the CuTe layout
      equals the PTX formula converted to the same index; the thread mode has the declared size; ThrID has
      ``threads`` distinct values; the operand covers its tile as a bijection, or as the declared uniform
      broadcast (``broadcast: all`` for wgmma SS operands, ``multiplicity`` for e.g. ldmatrix.x1 sources).
    * ``smem_atom``: layout == offset formula at every coordinate, == CUTLASS's bit-level atom with the
      swizzle on byte addresses, bijective, and swizzle parameters consistent with the mode and type.
    * ``swizzle``: the swizzle function == the address formula on two repeat blocks, stays in its block,
      is a bijection, and the enum encodings match the span.

    Malformed text met on the way (a layout that does not parse) is a :class:`SpecError` of kind ``input``.
    """
    if spec.kind in ("mma", "copy"):
        problems = _check_tv_spec(spec, FAMILY_PROOFS if symbolic is None else symbolic)
    elif spec.kind == "smem_atom":
        problems = _check_smem_atom(spec)
    else:
        problems = _check_swizzle(spec)
    if problems:
        where, reason = problems[0]
        raise SpecInconsistent(reason, spec.file, _line_for(spec, where), spec.name)


def _line_for(spec: Spec, where: str) -> int | None:
    d = spec.data
    if spec.kind in ("mma", "copy") and where in d.get("operands", {}):
        node = d["operands"][where]
        return getattr(node, "line", None) or spec.line
    return line_of(d, where, spec.line)


def clear_cache() -> None:
    """Forget memoised operand checks and family proofs (tests re-run the whole self-check from scratch)."""
    _CHECKED.clear()
    _family.clear_cache()
