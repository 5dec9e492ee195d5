"""Compare GPU probe tables (``probes/``, JSON lines) with the spec library (issue 8).

A probe record says which element (row, col) a thread's register slot held on silicon. For each spec whose
PTX instruction was probed, every record is checked against the spec's PTX formula (which the spec's
self-check ties to its CuTe layout): confirmed, contradicted (first differing thread/slot), or not probed.
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path

from ...errors import SpecError
from ..library import formula as fm
from ..library import catalog as library
from ..library import swizzles
from ..library.intlayout import int_layout


def _jsonl(path, key):
    """Yield the records of a ``.jsonl`` / ``.jsonl.gz`` probe file that carry ``instr`` and ``key``."""
    p = Path(path)
    opener = gzip.open if p.suffix == ".gz" else open
    n = 0
    with opener(p, "rt", encoding="utf-8") as f:
        try:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    d = json.loads(line)
                except json.JSONDecodeError as e:
                    raise SpecError(f"not a JSON line ({e.msg})", str(p), n) from None
                if isinstance(d, dict) and "instr" in d and key in d:
                    yield d
        except UnicodeDecodeError:
            raise SpecError("not UTF-8 text", str(p), n + 1) from None


def records(path):
    """Yield the register-layout records of one probe file (the ``meta`` line is skipped)."""
    return _jsonl(path, "thread")


def _peek(lib, name):
    """A spec's metadata without its self-check (a :class:`Library`), or the spec (a plain dict)."""
    return lib.peek(name) if hasattr(lib, "peek") else lib[name]


def _specs_for(lib, instr, operand):
    """Every (spec, params) whose PTX instruction (family instance) is ``instr`` and which has a
    non-broadcast ``operand`` (several CUTLASS atoms share one instruction, e.g. the SS and RS wgmma).
    Candidates are matched on metadata; only the specs returned are handed out (self-checked)."""
    out = []
    for name in lib:
        s = _peek(lib, name)
        if s.kind not in ("mma", "copy") or operand not in s.operands:
            continue
        if s.data["operands"][operand].get("broadcast"):
            continue
        for params in s.instances():
            if s.ptx.replace("{N}", str(params.get("N", ""))) == instr:
                out.append((lib[name], params))
                break
    return out


def _operand_and_scale(rec):
    instr = rec["instr"]
    if instr.startswith("ldmatrix"):
        return "dst", 16  # probe records count 16-bit elements, copy specs count bits
    if instr.startswith("stmatrix"):
        return "src", 16
    return {"D": "C"}.get(rec.get("operand"), rec.get("operand")), 1


def _new_result():
    return {"status": "confirmed", "records": 0, "first": None, "operands": set(), "instances": set()}


def validate(paths, lib=None, keep=None):
    """Check probe files against the spec library.

    Returns ``{spec_name: {"status": "confirmed"|"contradicted", "records": n, "first": (...),
    "operands": {...}, "instances": {...}}}`` plus the key ``"_unmatched"`` listing probed (instr, operand)
    pairs with no spec.  A record counts for every spec that shares its instruction (the SS and RS wgmma
    atoms, SM75/SM80 m16n8k8).  ``keep(instr)`` filters records.

    Every file is read (and a malformed one refused, :class:`SpecError` naming its line) before the library
    is touched; then only the specs whose instruction was probed are self-checked (the default library checks
    a spec when it hands it out).
    """
    recs = [rec for path in paths for rec in records(path) if keep is None or keep(rec["instr"])]
    if lib is None:
        lib = library.default_library() if recs else {}
    fns: dict = {}
    out: dict = {}
    unmatched = set()
    for rec in recs:
        instr = rec["instr"]
        op, scale = _operand_and_scale(rec)
        key = (instr, op)
        entries = fns.get(key)
        if entries is None:
            # Specs sharing the instruction usually share the formulas too (SS/RS wgmma C): evaluate
            # each distinct (row, col, params) once per record.
            groups: dict = {}
            for s, params in _specs_for(lib, instr, op):
                fs = s.formula(op)
                gk = (fs["row"].key, fs["col"].key, tuple(sorted(params.items())))
                if gk not in groups:
                    names = ("thread", "tid", "lane", "warp", "i") + tuple(params)
                    groups[gk] = (fs["row"].compile(names), fs["col"].compile(names), tuple(params.values()),
                                  gk[2], [])
                groups[gk][4].append(s.name)
            entries = fns[key] = list(groups.values())
        if not entries:
            unmatched.add(key)
            continue
        t, i = rec["thread"], rec["slot"] * scale
        silicon = (rec["row"], rec["col"])
        for row, col, pv, pkey, spec_names in entries:
            args = (t, t, t % 32, t // 32, i) + pv
            got = (row(*args), col(*args) // scale)
            for name in spec_names:
                r = out.get(name)
                if r is None:
                    r = out[name] = _new_result()
                r["records"] += 1
                r["operands"].add(op)
                r["instances"].add(pkey)
                if got != silicon and r["status"] == "confirmed":
                    r["status"] = "contradicted"
                    r["first"] = {"instr": instr, "operand": op, "thread": t, "slot": rec["slot"],
                                  "spec_says": got, "silicon": silicon}
    out["_unmatched"] = sorted(unmatched)
    return out


# ------------------------------------------------------------------ shared memory: descriptors and TMA

def smem_records(path):
    """Yield the records of a ``wgmma_smem_desc`` or ``tma`` probe file (they carry ``smem_offset``)."""
    return _jsonl(path, "smem_offset")


def _atom_for(lib, major, swizzle, element_bits):
    for name in lib:
        s = _peek(lib, name)
        d = s.data
        if s.kind == "smem_atom" and (d["major"], d["swizzle"], d["element_bits"]) == (major, swizzle,
                                                                                       element_bits):
            return lib[name]
    return None


_ATOM_FNS: dict = {}


def _atom_offset_fn(spec):
    """(rows, cols, offset(row, col) in elements) of a smem atom, from its offset formula."""
    key = (spec.name, spec.data["layout"], str(spec.data["offset"]))
    if key in _ATOM_FNS:
        return _ATOM_FNS[key]
    f = fm.compile_formula(spec.formula("layout")["offset"], ("row", "col"))
    lay = int_layout(spec.layout("layout"), spec.name)
    _ATOM_FNS[key] = out = (lay.mode_size(0), lay.mode_size(1), f)
    return out


def _desc_predict(spec, rec):
    """Byte offset a wgmma descriptor reads for A(m, k) / B(k, n), predicted from the spec's atom.

    The operand is the atom repeated along MN and K at the descriptor's strides (probes/README.md): K-major
    8-row groups at SBO and (no-swizzle only) K-adjacent core matrices at LBO; MN-major swizzled: K groups
    of 8 at SBO, swizzle-width MN blocks at LBO; MN-major INTERLEAVE the other way round.  The start
    address offset (inside the swizzle atom, K-major) moves the window along K.  The repeat strides must be
    multiples of the atom's bytes (the swizzle pattern then repeats with the atom); otherwise None.
    """
    rows, cols, f = _atom_offset_fn(spec)
    eb = spec.data["element_bits"] // 8
    if rec["operand"] == "A":
        mn, k = rec["row"], rec["col"]
    else:
        k, mn = rec["row"], rec["col"]
    lbo, sbo, start = rec["desc_lbo"], rec["desc_sbo"], rec["start_offset"]
    if start % eb:
        return None
    if spec.data["major"] == "K":
        k += start // eb
        d_mn, d_k = sbo, lbo
        r, c, bmn, bk = mn % rows, k % cols, mn // rows, k // cols
    else:
        if start:
            return None
        d_mn, d_k = (sbo, lbo) if spec.data["swizzle"] == "INTER" else (lbo, sbo)
        r, c, bmn, bk = mn % rows, k % cols, mn // rows, k // cols
    atom_bytes = rows * cols * eb
    if (bmn and d_mn % atom_bytes) or (bk and d_k % atom_bytes):
        return None
    return f(r, c) * eb + bmn * d_mn + bk * d_k


def validate_smem(paths, lib=None):
    """Check wgmma descriptor and TMA probe records against the smem-atom and swizzle-mode specs.

    * ``wgmma_smem_desc``: each record (byte offset read as A(m,k) / B(k,n)) is compared with the GMMA atom
      of the layout it names (``K_SW128`` with 16-bit elements -> ``GMMA::Layout_K_SW128_Atom<half_t>``),
      repeated at the descriptor's LBO/SBO (:func:`_desc_predict`).
    * ``tma``: each record (byte offset holding box element (row, col)) is compared with the swizzle mode's
      address formula on the row-major box, and for swizzled modes also with the K-major GMMA atom of that
      element width tiled over the box (a 16-row box is two 8-row atoms).

    Returns the same structure as :func:`validate` (``operands`` holds the probe's layout names).
    """
    lib = lib if lib is not None else library.default_library()  # a spec is self-checked when handed out
    out: dict = {}
    cache: dict = {}

    def note(name, what, ok, rec, spec_says):
        r = out.get(name)
        if r is None:
            r = out[name] = _new_result()
        r["records"] += 1
        r["operands"].add(what)
        if not ok and r["status"] == "confirmed":
            r["status"] = "contradicted"
            r["first"] = {"instr": rec["instr"], "record": rec, "spec_says": spec_says,
                          "silicon": rec["smem_offset"]}

    unmatched = set()
    for path in paths:
        for rec in smem_records(path):
            if rec["instr"] == "tma_2d":
                span, nb = swizzles.lookup(rec["swizzle"]).span_bytes, rec["elem_bytes"]
                mode = "CU_TENSOR_MAP_SWIZZLE_" + rec["swizzle"]
                cols = rec["box_cols"]
                byte = (rec["row"] * cols + rec["col"]) * nb
                if mode not in lib:
                    unmatched.add((rec["instr"], mode))
                    continue
                key = ("tma", mode)
                if key not in cache:
                    cache[key] = fm.compile_formula(lib[mode].formula("swizzle")["address"], ("addr",))
                want = cache[key](byte)
                note(mode, f"tma {nb}B", want == rec["smem_offset"], rec, want)
                if span:
                    sw = swizzles.by_span(span).atom
                    atom = _atom_for(lib, "K", sw, nb * 8)
                    if atom is None:
                        continue
                    key = ("atom", atom.name)
                    if key not in cache:
                        cache[key] = _atom_offset_fn(atom)
                    ar, ac, f = cache[key]
                    r, c = rec["row"], rec["col"]
                    # the box is tile_to_shape(atom, (box_rows, box_cols)): atoms column-major
                    want = (f(r % ar, c % ac) + ar * ac * (r // ar + (c // ac) * (rec["box_rows"] // ar))) * nb
                    note(atom.name, f"tma {rec['swizzle']}", want == rec["smem_offset"], rec, want)
                continue
            if "smem_layout" not in rec:
                continue
            major, sw = rec["smem_layout"].split("_", 1)
            if getattr(swizzles.by_gmma(rec["swizzle_mode"]), "atom", None) != sw:  # descriptor bits 62-63
                unmatched.add((rec["instr"], rec["smem_layout"] + " (swizzle code mismatch)"))
                continue
            ebits = 16 if ".f16.f16" in rec["instr"] or ".bf16.bf16" in rec["instr"] else None
            atom = _atom_for(lib, major, sw, ebits) if ebits else None
            if atom is None:
                unmatched.add((rec["instr"], rec["smem_layout"]))
                continue
            want = _desc_predict(atom, rec)
            if want is None:
                unmatched.add((rec["instr"], rec["smem_layout"] + f" start {rec['start_offset']}"))
                continue
            note(atom.name, f"wgmma {rec['operand']} desc", want == rec["smem_offset"], rec, want)
    out["_unmatched"] = sorted(unmatched)
    return out


# ------------------------------------------------------------------------ spec annotations (issue 8)

TV_FILES = ("mma_sync.jsonl", "wgmma.jsonl", "wgmma_types.jsonl", "ldmatrix.jsonl", "stmatrix.jsonl")
SMEM_FILES = ("wgmma_smem_desc.jsonl", "tma.jsonl")


def _existing(evidence_dir, names):
    d = Path(evidence_dir)
    out = []
    for n in names:
        for p in (d / n, d / (n + ".gz")):
            if p.exists():
                out.append(p)
                break
    return out


def _meta(paths) -> dict:
    for p in paths:
        opener = gzip.open if p.suffix == ".gz" else open
        with opener(p, "rt") as f:
            first = json.loads(f.readline() or "{}")
        if "meta" in first:
            return first["meta"]
    return {}


def evidence_results(evidence_dir, lib=None) -> dict:
    """Every spec's result against one directory of committed probe files (TV records via
    :func:`validate`, descriptor/TMA records via :func:`validate_smem`), with ``"_unmatched"`` and
    ``"_meta"`` (the probe run's GPU, date, ...)."""
    tv, sm = _existing(evidence_dir, TV_FILES), _existing(evidence_dir, SMEM_FILES)
    res = validate(tv, lib=lib)
    res2 = validate_smem(sm, lib=lib)
    unmatched = res.pop("_unmatched") + res2.pop("_unmatched")
    overlap = set(res) & set(res2)
    assert not overlap, overlap  # TV specs and smem specs are disjoint kinds
    res.update(res2)
    res["_unmatched"] = unmatched
    res["_meta"] = _meta(tv + sm)
    return res


def evidence_entry(result: dict, silicon: str, gpu: str) -> dict:
    """The ``evidence:`` mapping written into a spec for one :func:`evidence_results` entry."""
    return {"silicon": silicon, "gpu": gpu, "confirmed": result["status"] == "confirmed",
            "records": result["records"], "probed": sorted(result["operands"]),
            "instances": max(1, len(result.get("instances") or ()))}


def _flow(entry: dict) -> str:
    def one(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(json.dumps(x) for x in v) + "]"
        return json.dumps(v) if isinstance(v, str) else str(v)
    return "{" + ", ".join(f"{k}: {one(v)}" for k, v in entry.items()) + "}"


def annotate(spec_dir, evidence_dir, silicon: str = "sm90") -> dict:
    """Rewrite the ``evidence:`` line of every spec in ``spec_dir/*.yaml`` from ``evidence_dir``.

    A probed spec gets ``evidence: {silicon: sm90, gpu: ..., confirmed: true, records: N, probed: [...],
    instances: k}``; a spec that would inherit another's annotation through a YAML merge key gets
    ``evidence: null``.  Returns ``{spec_name: entry}``.  Idempotent.
    """
    spec_dir = Path(spec_dir)
    files = sorted(spec_dir.glob("*.yaml"))
    for f in files:  # drop old annotations (spec keys are indented 4 spaces)
        lines = f.read_text().splitlines(keepends=True)
        f.write_text("".join(x for x in lines if not x.startswith("    evidence: ")))
    lib = library.load(files, shipped=False)
    res = evidence_results(evidence_dir, lib=lib)
    gpu = res["_meta"].get("gpu", "unknown")
    entries = {n: evidence_entry(r, silicon, gpu) for n, r in res.items() if not n.startswith("_")}

    def insert(wanted: dict):
        lib2 = library.load(files, shipped=False, check=False)
        by_file: dict = {}
        for name, text in wanted.items():
            s = lib2[name]
            by_file.setdefault(s.file, []).append((s.line, text))
        for f, items in by_file.items():
            lines = Path(f).read_text().splitlines(keepends=True)
            for line, text in sorted(items, reverse=True):
                lines.insert(line, f"    evidence: {text}\n")  # first key of the spec's mapping
            Path(f).write_text("".join(lines))

    insert({n: _flow(e) for n, e in entries.items()})
    lib3 = library.load(files, shipped=False, check=False)
    insert({n: "null" for n, s in lib3.items() if n not in entries and s.data.get("evidence") is not None})
    return entries
