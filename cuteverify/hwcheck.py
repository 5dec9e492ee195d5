"""Compare GPU probe tables (``probes/``, JSON lines) with the spec library (issue 8).

A probe record says which element (row, col) a thread's register slot held on silicon. For each spec whose
PTX instruction was probed, every record is checked against the spec's PTX formula (which the spec's
self-check ties to its CuTe layout): confirmed, contradicted (first differing thread/slot), or not probed.
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path


def records(path):
    """Yield the probe records of one ``.jsonl`` or ``.jsonl.gz`` file (the ``meta`` line is skipped)."""
    p = Path(path)
    opener = gzip.open if p.suffix == ".gz" else open
    with opener(p, "rt") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                d = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{p}:{n}: not a JSON line ({e.msg})") from None
            if "instr" in d and "thread" in d:
                yield d


def _spec_for(lib, instr, operand):
    for s in lib.values():
        if s.kind not in ("mma", "copy") or operand not in s.operands:
            continue
        if s.data["operands"][operand].get("broadcast"):
            continue
        for params in s.instances():
            if s.ptx.replace("{N}", str(params.get("N", ""))) == instr:
                return s, params
    return None, None


def _operand_and_scale(rec):
    instr = rec["instr"]
    if instr.startswith("ldmatrix"):
        return "dst", 16  # probe records count 16-bit elements, copy specs count bits
    if instr.startswith("stmatrix"):
        return "src", 16
    return {"D": "C"}.get(rec.get("operand"), rec.get("operand")), 1


def validate(paths, lib=None, keep=None):
    """Check probe files against the spec library.

    Returns ``{spec_name: {"status": "confirmed"|"contradicted", "records": n, "first": (...)}}`` plus the
    key ``"_unmatched"`` listing probed (instr, operand) pairs with no spec. ``keep(instr)`` filters records.
    """
    from . import specs
    lib = lib if lib is not None else {n: specs.get(n) for n in specs.names()}
    fns: dict = {}
    out: dict = {}
    unmatched = set()
    for path in paths:
        for rec in records(path):
            instr = rec["instr"]
            if keep is not None and not keep(instr):
                continue
            op, scale = _operand_and_scale(rec)
            key = (instr, op)
            if key not in fns:
                s, params = _spec_for(lib, instr, op)
                if s is None:
                    fns[key] = None
                else:
                    fs = s.formula(op)
                    names = ("thread", "tid", "lane", "warp", "i") + tuple(params)
                    fns[key] = (s.name, fs["row"].compile(names), fs["col"].compile(names), tuple(params.values()))
            entry = fns[key]
            if entry is None:
                unmatched.add(key)
                continue
            name, row, col, pv = entry
            t, i = rec["thread"], rec["slot"] * scale
            args = (t, t, t % 32, t // 32, i) + pv
            got = (row(*args), col(*args) // scale)
            r = out.setdefault(name, {"status": "confirmed", "records": 0, "first": None})
            r["records"] += 1
            if got != (rec["row"], rec["col"]) and r["status"] == "confirmed":
                r["status"] = "contradicted"
                r["first"] = {"instr": instr, "operand": op, "thread": t, "slot": rec["slot"],
                              "spec_says": got, "silicon": (rec["row"], rec["col"])}
    out["_unmatched"] = sorted(unmatched)
    return out
