"""Turn one run of run.sh (the ncu CSVs, gzipped or not, and the timing log) into the evidence records
``specs/evidence/sm90/cp_async_rows.jsonl``: one JSON object per pattern of patterns.py.

    python3 probes/cp_async_rows/to_jsonl.py probes/cp_async_rows > specs/evidence/sm90/cp_async_rows.jsonl

``hw_wavefronts`` is ``l1tex__data_pipe_lsu_wavefronts_mem_shared.sum`` (a hardware counter) less the
kernel's baseline: the value every ``.cg`` launch with the same number of copies reads (4 for one copy, 7 for
two, whatever the pattern: the counter does not see the bypass path's shared-memory writes). For ``.ca`` it is
the shared-memory wavefronts of the LDGSTS; for ``.cg`` it is null and ``cycles_per_copy`` (clock64, 64
back-to-back copies of the pattern) is the hardware's evidence. ``sass_wavefronts`` is ncu's SASS-patched
``smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum`` (computed by the profiler from the
addresses, recorded for comparison)."""
import csv
import gzip
import io
import json
import sys
from pathlib import Path

import patterns as P

HW = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"
KEEP = {
    "sass_wavefronts": "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum",
    "sass_bank_conflicts": "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum",
    "hw_bank_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum",
    "t_output_wavefronts": "l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_ldgsts_cache_access.sum",
    "t_sectors": "smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts.sum",
    "instructions": "smsp__sass_inst_executed_op_ldgsts.sum",
}
META = {"gpu": "NVIDIA H200", "driver": "580.159.04", "cc": "9.0", "ncu": "2025.3.1.0 (build 36398880)",
        "nvcc": "V13.0.88", "date": "2026-12-03", "program": "probes/cp_async_rows/cp_async_rows.cu",
        "command": "probes/cp_async_rows/run.sh (nvcc -O2 -gencode=arch=compute_90a,code=sm_90a; "
                   "ncu --csv --metrics <metrics_h200.txt> one launch per pattern, cache control all)"}


def _csv(d, pre):
    p = d / f"ncu_{pre}_h200.csv.gz"
    text = gzip.open(p, "rt").read() if p.exists() else (d / f"ncu_{pre}.csv").read_text()
    return list(csv.DictReader(io.StringIO("".join(l for l in text.splitlines(True) if l.startswith('"')))))


def main(d):
    d = Path(d)
    pats = P.patterns()
    vals = {}
    for pre in ("ca16", "cg16", "ca8", "ca4"):
        names = [p[0] for p in pats if p[0].startswith(pre)]
        rows = _csv(d, pre)
        ids = sorted({int(r["ID"]) for r in rows})
        if len(ids) != len(names):
            raise SystemExit(f"{pre}: {len(ids)} launches profiled, {len(names)} patterns")
        for r in rows:
            v = r["Metric Value"].replace(",", "")
            vals.setdefault(names[ids.index(int(r["ID"]))], {})[r["Metric Name"]] = \
                float(v) if v.replace(".", "").isdigit() else None
    cycles = {}
    log = d / "timing_sass_h200.txt"
    for line in log.read_text().splitlines():
        f = line.split()
        if f and f[0] == "time" and f[4] == "64" and f[-1] == "PASS":
            cycles[f[1]] = int(f[6]) / 64
    base = {}
    for name, w, cache, reps, g, s in pats:
        if cache == "cg":
            base.setdefault(reps, set()).add(vals[name][HW])
    if any(len(b) != 1 for b in base.values()):
        raise SystemExit(f"the .cg baseline is not one value per copy count: {base}")
    base = {k: int(next(iter(b))) for k, b in base.items()}
    for name, w, cache, reps, g, s in pats:
        m = vals[name]
        rec = {"pattern": name, "access_bytes": w, "cache": cache, "copies": reps, "lanes_per_phase": 128 // w,
               "lane_gmem_byte_offsets": g, "lane_smem_byte_offsets": s,
               "hw_wavefronts": int(m[HW]) - base[reps] if cache == "ca" else None,
               "hw_counter_raw": int(m[HW]), "hw_counter_baseline": base[reps],
               "cycles_per_copy": cycles.get(name)}
        rec.update({k: (int(m[v]) if m.get(v) is not None else None) for k, v in KEEP.items()})
        rec.update(META)
        print(json.dumps(rec))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent)
