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

C++ (``--cpp``, issue 29's budgets: a capture of one translation unit <= 3 minutes from a cold cache, its check
<= 10 s): for each tutorial translation unit the tests capture (CUTLASS's sgemm_sm80.cu with its four entries,
hopper/wgmma_sm90.cu, hopper/wgmma_tma_sm90.cu, blackwell/01-05, as the nvidia-cutlass wheel ships them; the
units, entries and -D flags are the tests' own, ``cpp_units()`` of tests/frontend/trace/test_cpp*.py), the
host-only capture with the cache off (the rewrite, the g++ compile and link at -O0, each entry's run), then the
documents built from its records and their claims run. The peer, in the same process: ``g++ -fsyntax-only`` of
the same rewritten unit with the same flags (the parse and template instantiation every g++ build of the source
pays; the kernel source itself is CUDA and does not build with g++ unrewritten): compile seconds / peer seconds.

    python bench/trace.py [--repeat 1] [CAPTURE...]
    python bench/trace.py --capture [--drivers tests/frontend/trace_data/drivers]
    python bench/trace.py --cpp [--only sgemm,wgmma_sm90,...]
"""
from __future__ import annotations

import argparse
import gzip
import math
import os
import resource
import subprocess
import sys
import tempfile
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


def cpp_units():
    """The tutorial translation units the tests capture: ``[(name, cpp_batch.Unit)]``, those the wheel ships."""
    from tests.frontend.trace import test_cpp, test_cpp_blackwell as bw, test_cpp_hopper as hop  # noqa: E402
    tn = "test_capture_prints_what_the_fixture_holds"
    later = bw.cpp_units()["test_later_tutorials_capture_and_prove"]
    out = [("sgemm_sm80", test_cpp.cpp_units()[tn][0])]
    out += [(Path(u.source).stem, u) for u in reversed(hop.cpp_units()[tn])]
    out += [("blackwell_01", bw.cpp_units()[tn + "_and_the_cli_reports_it"][0])]
    out += [("blackwell_02", u) for u in bw.cpp_units().get(tn.replace("capture", "tma_tutorial_capture"), [])]
    out += [("blackwell_" + Path(u.source).name[:2], u) for u in later]
    return out


def bench_cpp(only):
    from cuteverify.frontend.trace import cpp_build, cpp_capture, cpp_check  # noqa: E402
    if cpp_build.toolchain() is None:
        sys.exit("g++, the CUTLASS headers or CUDA's headers are missing")
    os.environ["CUTEVERIFY_TEST_CACHE"] = "0"  # every capture compiles: the cold figure
    here = os.getcwd()
    rows = []
    for name, u in cpp_units():
        if only and name not in only:
            continue
        os.chdir(u.cwd or here)
        try:
            text = Path(u.source).read_text()
            unit, _ = cpp_capture.rewrite(text, u.source, list(u.entries))
            with tempfile.TemporaryDirectory() as d:
                src = os.path.join(d, "unit.cpp")
                Path(src).write_text(unit)
                incs = cpp_capture.include_flags(u.source, u.includes, u.defines)
                t, c = time.perf_counter(), _child_cpu()
                subprocess.run([cpp_build.compiler(), *cpp_build.CXXFLAGS, "-fsyntax-only", *incs, src], check=True)
                peer, peer_cpu = time.perf_counter() - t, _child_cpu() - c
            t, c = time.perf_counter(), _child_cpu()
            records, _, info = cpp_capture.capture(u.source, list(u.entries), u.includes, u.defines)
            cap, cap_cpu = time.perf_counter() - t, _child_cpu() - c
            t = time.perf_counter()
            docs = cpp_check.documents(u.source, text, records, info)
            results, _ = cpp_check.run_documents(docs)
            check = time.perf_counter() - t
        finally:
            os.chdir(here)
        status = {}
        for r in results:
            status[r["status"]] = status.get(r["status"], 0) + 1
        rows.append((name, len(u.entries), len(records), len(results), cap, info["compile_s"], peer, check, status,
                     cap_cpu, peer_cpu))
        print(f"{name:16s} entries {len(u.entries)}  records {len(records):3d}  rows {len(results):3d}  "
              f"capture {cap:6.1f} s wall, {cap_cpu:6.1f} s cpu (budget 180 s; compile+link {info['compile_s']:5.1f} s)"
              f"  g++ -fsyntax-only peer {peer:5.1f} s wall, {peer_cpu:5.1f} s cpu: ratio {cap_cpu / peer_cpu:.2f} "
              f"cpu, {info['compile_s'] / peer:.2f} wall  check {check:5.2f} s (budget 10 s)  "
              f"{dict(sorted(status.items()))}",
              flush=True)
    if rows:
        worst_cap = max(rows, key=lambda r: r[4])
        worst_chk = max(rows, key=lambda r: r[7])
        print(f"\ncpp: {len(rows)} translation units, captures total {sum(r[4] for r in rows):.0f} s, worst "
              f"{worst_cap[0]} {worst_cap[4]:.0f} s (budget 180 s); checks worst {worst_chk[0]} {worst_chk[7]:.2f} s "
              f"(budget 10 s); geometric-mean capture / syntax-only (cpu) {_gmean([r[9] / r[10] for r in rows]):.2f}; "
              f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


def _child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("captures", nargs="*", type=Path)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--capture", action="store_true")
    ap.add_argument("--drivers", type=Path)
    ap.add_argument("--cpp", action="store_true")
    ap.add_argument("--only", default="", help="--cpp: the units to run, comma-separated (sgemm_sm80, ...)")
    a = ap.parse_args()
    if a.cpp:
        bench_cpp({x for x in a.only.split(",") if x})
        return
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
