"""`cuteverify trace` timings (issue 28's budgets: capture <= 30 s and check <= 10 s per kernel on the 2-core
machine; `trace check` of all committed captures <= 60 s).

Check: every committed capture (tests/frontend/trace_data/*.mlir.gz, or the paths given) read, mapped to claims
and checked in this process, one after the other on fresh readers; per kernel the seconds (wall and CPU) of
reading, of building the document, of running the claims, the number of claims and unmapped constructs, and the
total. As a peer in the same process, the time to merely decompress and split the capture's text into lines
(the floor any reader pays) is printed beside it: check seconds / floor seconds.

Capture (``--capture``, needs nvidia-cutlass-dsl): runs ``cuteverify trace capture`` on the repo's own small
kernel (tests/frontend/trace/kernels/) and, with ``--drivers DIR``, on each ``*.py`` driver there, and prints the
wall seconds of each capture beside the same script run with the DSL's dry run but no capture hook (the peer:
what tracing costs the user anyway).

    python bench/trace.py [--repeat 1] [CAPTURE...]
    python bench/trace.py --capture [--drivers tests/frontend/trace_data/drivers]
"""
from __future__ import annotations

import argparse
import gzip
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cuteverify.frontend import manifest as mf  # noqa: E402
from cuteverify.frontend.trace import check as trace_check  # noqa: E402
from cuteverify.frontend.trace.mlir import read_file  # noqa: E402


def _clock():
    return time.perf_counter(), time.process_time()


def _since(t):
    w, c = _clock()
    return w - t[0], c - t[1]


def bench_check(paths, repeat):
    rows = []
    for p in paths:
        best = None
        for _ in range(repeat):
            t = _clock()
            raw = gzip.decompress(p.read_bytes()) if p.suffix == ".gz" else p.read_bytes()
            raw.decode().splitlines()
            floor = _since(t)[0]
            t = _clock()
            read_file(p)
            read_s = _since(t)
            t = _clock()
            doc = trace_check.document(p)
            doc_s = _since(t)
            t = _clock()
            claims = mf.load_text(doc.yaml(), str(p)) if doc.claims else []
            results = mf.run(claims)
            run_s = _since(t)
            row = dict(kernel=trace_check.kernel_name(p), read=read_s[0], doc=doc_s[0], run=run_s[0],
                       wall=doc_s[0] + run_s[0], cpu=doc_s[1] + run_s[1], floor=floor, claims=len(results),
                       refuted=sum(r["status"] == "refuted" for r in results),
                       unknown=sum(r["status"] != "proved" and r["status"] != "refuted" for r in results),
                       unmapped=len(doc.unknowns))
            best = row if best is None or row["wall"] < best["wall"] else best
        rows.append(best)
    head = ("kernel", "claims", "refuted", "unknown", "unmapped", "read s", "doc s", "run s", "check s",
            "cpu s", "x floor")
    table = [head] + [(r["kernel"], str(r["claims"]), str(r["refuted"]), str(r["unknown"]), str(r["unmapped"]),
                       f"{r['read']:.2f}", f"{r['doc']:.2f}", f"{r['run']:.2f}", f"{r['wall']:.2f}",
                       f"{r['cpu']:.2f}", f"{r['wall'] / max(r['floor'], 1e-9):.0f}") for r in rows]
    widths = [max(len(x[i]) for x in table) for i in range(len(head))]
    for x in table:
        print("  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(x)))
    total = sum(r["wall"] for r in rows)
    worst = max(rows, key=lambda r: r["wall"])
    print(f"\ncheck: {len(rows)} captures, {sum(r['claims'] for r in rows)} claims, total {total:.1f} s "
          f"(budget 60 s), worst {worst['kernel']} {worst['wall']:.1f} s (budget 10 s per kernel)")


def _run(cmd, env):
    t = time.perf_counter()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    return time.perf_counter() - t, p


def bench_capture(scripts, arch_of):
    env = dict(os.environ)
    for script in scripts:
        arch = arch_of(script)
        out = Path("/tmp") / f"bench_trace_{script.stem}"
        cap_s, p = _run([sys.executable, "-m", "cuteverify.frontend.cli.main", "trace", "capture", "--arch", arch,
                         "-o", str(out), "--", sys.executable, str(script)], env)
        peer_env = dict(env, CUTE_DSL_ARCH=arch, CUTE_DSL_DRYRUN="1", CUTE_DSL_LINEINFO="1")
        peer_s, q = _run([sys.executable, str(script)], peer_env)
        status = "ok" if p.returncode == 0 else f"exit {p.returncode}: {p.stderr.strip()[-200:]}"
        print(f"{script.name:40s} {arch:8s} capture {cap_s:6.2f} s  script alone {peer_s:6.2f} s  "
              f"ratio {cap_s / max(peer_s, 1e-9):.2f}  (budget 30 s)  {status}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("captures", nargs="*", type=Path)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--capture", action="store_true")
    ap.add_argument("--drivers", type=Path)
    a = ap.parse_args()
    if a.capture:
        scripts = sorted((ROOT / "tests/frontend/trace/kernels").glob("*.py"))
        if a.drivers:
            scripts += sorted(a.drivers.glob("*.py"))

        def arch_of(s):
            for arch in ("sm_100a", "sm_90a", "sm_80"):
                if arch.replace("_", "") in s.stem.replace("_", ""):
                    return arch
            return "sm_80"
        bench_capture(scripts, arch_of)
        return
    paths = a.captures or sorted((ROOT / "tests/frontend/trace_data").glob("*.mlir.gz"))
    bench_check(paths, a.repeat)


if __name__ == "__main__":
    main()
