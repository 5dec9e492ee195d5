"""Differential campaign: cuteverify vs CuTe C++ (g++ on CuTe's headers).

    python -m tests.oracles.cpp_oracle.run_campaign --op composition --n 5000          # one family
    python -m tests.oracles.cpp_oracle.run_campaign --op all --n 5000                  # every family
    python -m tests.oracles.cpp_oracle.run_campaign --op all --cpp-only --jobs 16      # oracle answers only (no cuteverify)
    python -m tests.oracles.cpp_oracle.run_campaign --op all --check-only --write-known --report
                                                                              # re-check the committed corpus

Steps: generate seeded cases -> compile/run them with CuTe C++ (batches, in parallel) -> write
``corpus/<op>.jsonl.gz`` -> check every case with cuteverify -> print the table.  ``--write-known``
rewrites ``known_failures.json`` (the per-case xfail list the pytest uses); ``--report`` rewrites
``REPORT.md``.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import platform
import subprocess
import sys
import time

from cuteverify.frontend.trace import cpp_build
from . import harness as h


def _compiler_version():
    tc = cpp_build.toolchain()
    if not tc:
        return "n/a"
    try:
        return subprocess.run([tc[0], "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    except Exception:  # noqa: BLE001
        return "g++"


def check_records(records):
    """[(record, class, detail)]"""
    out = []
    for r in records:
        cls, detail = h.check(r)
        out.append((r, cls, detail))
    return out


def table(results_by_op):
    cols = ["cases", h.MATCH, h.FUNC_MISMATCH, h.PRINTED_ONLY, h.CV_REFUSES, h.CV_REFUSES_OTHER, h.CV_CRASH,
            h.PARSE_MISMATCH, h.CPP_REJECTS, h.CPP_WRONG]
    head = ["family", "cases", "match", "func mismatch", "printed-only", "cv refuses (NotAdmissible)",
            "cv refuses (other)", "cv crash", "parse mismatch", "C++ rejects", "C++ wrong (verified)"]
    rows = []
    tot = collections.Counter()
    for op, res in results_by_op.items():
        c = collections.Counter(cls for _, cls, _ in res)
        c["cases"] = len(res)
        tot.update(c)
        rows.append([op] + [str(c[k]) for k in cols])
    rows.append(["**total**"] + [str(tot[k]) for k in cols])
    w = [max(len(x) for x in col) for col in zip(head, *rows)]
    lines = ["| " + " | ".join(x.ljust(n) for x, n in zip(head, w)) + " |",
             "|" + "|".join("-" * (n + 2) for n in w) + "|"]
    lines += ["| " + " | ".join(x.ljust(n) for x, n in zip(r, w)) + " |" for r in rows]
    return "\n".join(lines)


def classes(results_by_op, include=(h.FUNC_MISMATCH, h.CV_CRASH, h.CV_REFUSES_OTHER, h.PARSE_MISMATCH,
                                     h.CV_REFUSES, h.PRINTED_ONLY)):
    """{(op, signature): [count, shortest reproducer (record, detail)]}"""
    groups = {}
    for op, res in results_by_op.items():
        for r, cls, d in res:
            if cls not in include:
                continue
            sig = h.failure_class(cls, d)
            key = (op, r.get("kind", ""), sig)
            g = groups.setdefault(key, [0, None])
            g[0] += 1
            ln = sum(len(a) for a in r["args"])
            if g[1] is None or ln < sum(len(a) for a in g[1][0]["args"]):
                g[1] = (r, d)
    return groups


def _repro(op, r, d):
    args = ", ".join(r["args"])
    call = f"{r['args'][0]}[{r['args'][1]}]" if op == "slice" else f"{op}({args})"
    cpp = r.get("result", r.get("cpp_reject", "?"))
    extra = f" ({' '.join(d['why'].split())})" if d.get("why") else ""
    return f"`{call}` -> C++ `{cpp}` -> cuteverify `{' '.join(str(d.get('cv', '?')).split())}`{extra}"


NOTES = """## Reading of the failure classes (campaign of 2026-12-01; re-check after library changes)

1. **slice of swizzled layouts, offset placement** (functional mismatch, fixed): `L[crd]` is CuTe's `slice`,
   the sublayout of `slice_and_offset` with the offset it hands to the pointer dropped; CuTe's decayed
   candidate is composed mode by mode as CuTe does and checked value by value, its offset taken from the
   values: `S<1,1,4> o 2 o (2,4):(2,32)[(1,_)]` -> C++ and cuteverify `((2,2)):((34,64))`, cuteverify's offset
   4 (C++'s own is 0: it XORs 2 ^ 2 where 2 + 2 carries).
2. **slice of swizzled layouts where CuTe C++ is wrong** (C++ wrong, verified): C++'s swizzle slice assumes the
   layout does not slice across swizzle bits that are set, and does not check it.
   `S<1,0,2> o 2 o (4,1):(2,8)[(_,0)]`: C++ itself evaluates `L(i,0)` = 2 5 7 8, but its slice is
   `((_2,_2)):((_2,_5))` = 0 2 5 7 with offset 2 (= 2 4 7 9); cuteverify `S<1,0,2> o 2 o 4:2` = 2 5 7 8.
3. **left_inverse of stride-0 (non-injective) layouts** (fixed): `left_inverse(2:0)` -> C++ and cuteverify
   `2:0`, CuTe's quasi-inverse with the NOT_INJECTIVE note (no left inverse exists; CuTe DSL prints `1:0`).
4. **cv.parse of nested composed layouts** (fixed): `Sw<1,0,2> o _0 o Sw<1,5,2> o _0 o _2:_16` parses.
5. **blocked_product with a coordinate-stride right operand** (crash, fixed): `cosize` of `E<i>` strides is
   CuTe's `size(coshape)`; `blocked_product(8:2, (4,2):(1@0,1@1))` -> `((8,4),(1,2)):((2,1),(0,16))` as C++.
6. **Printed-only differences** (same function): raked_product keeps C++'s size-1 modes differently
   (`((_2,_4),(_1,_3))` vs `((2,4),3)`); slice: C++ flattens the free modes (`((2,2),(2,4))[((_,1),(_,_))]` ->
   C++ `(_2,_2,_4):(_1,_2,_8)`, rank 3; cuteverify `(2,(2,4)):(1,(2,8))`, rank 2); composition: the stride of
   a size-1 mode (C++ keeps one, cuteverify writes 0).
7. Not reproduced with integer cotargets / these generators: complement with negative strides, left/right
   inverses with negative strides and max_common_vector on swizzles are now *refused* with named
   NotAdmissibleErrors (listed below); coordinate-stride compositions (457 `E` cases) all match.

C++ rejects are attributed from g++'s diagnostics to the case's function in a batch; a spot check that
compiled one reject per family on its own reproduced the same error class for all 12.
"""


def write_report(results_by_op, path, meta):
    lines = ["# CuTe C++ differential campaign", "",
             "Generated by `python -m tests.oracles.cpp_oracle.run_campaign` (see `tests/oracles/cpp_oracle/harness.py`).",
             f"Oracle: CuTe C++ headers of CUTLASS {meta.get('cutlass', '?')} compiled with "
             f"`{meta.get('compiler', '?')}` (`-std=c++17 -O0`, static `Int<>` everywhere).  "
             f"Cases are seeded (seed {meta.get('seed', 0)}); C++ answers are in `corpus/*.jsonl.gz`.", "",
             "Classes: **match** (same function and same print), **func mismatch** (values differ at some "
             "index, or sizes differ), **printed-only** (same function, different print), **cv refuses** "
             "(NotAdmissibleError where C++ answers), **cv refuses (other)** (another CuteVerifyError), "
             "**cv crash** (a non-CuteVerifyError exception), **parse mismatch** (`cv.parse` of C++'s print "
             "evaluates differently from C++), **C++ rejects** (does not compile: static_assert / no overload; or a "
             "degenerate result of size <= 0), **C++ wrong (verified)** (the answers differ and C++'s fails the "
             "operation's defining property -- slice values, inverse equation -- while cuteverify's passes).",
             "", table(results_by_op), "",
             "Re-run: `python -m tests.oracles.cpp_oracle.run_campaign --op all --check-only --write-known --report` "
             "(re-checks the committed corpus against the current cuteverify, ~1 min);  "
             "`python -m tests.oracles.cpp_oracle.run_campaign --op composition --n 5000 [--jobs N]` regenerates a "
             "family's corpus with g++ (~0.1 s of CPU per case; the committed corpus was built with `--cpp-only "
             "--jobs 16`).  `pytest tests/algebra/test_cpp_differential.py` checks the corpus (fails on failures not in "
             "`known_failures.json`) and compiles a fresh 51-case sample when g++ and the headers are present.", ""]
    lines += [NOTES, ""]
    groups = classes(results_by_op, include=(h.FUNC_MISMATCH, h.CV_CRASH, h.CV_REFUSES_OTHER,
                                             h.PARSE_MISMATCH))
    lines += ["## Failure classes (failing the pytest unless listed in known_failures.json)", ""]
    for (op, kind, sig), (n, (r, d)) in sorted(groups.items(), key=lambda kv: (kv[0][0], -kv[1][0])):
        lines.append(f"- **{op}** [{kind}] {sig} — {n} cases; e.g. {_repro(op, r, d)}")
    groups = classes(results_by_op, include=(h.CPP_WRONG,))
    lines += ["", "## Disagreements where CuTe C++ is verifiably wrong (not failures)", ""]
    for (op, kind, sig), (n, (r, d)) in sorted(groups.items(), key=lambda kv: (kv[0][0], -kv[1][0])):
        lines.append(f"- **{op}** [{kind}] {sig} — {n} cases; e.g. {_repro(op, r, d)}")
    groups = classes(results_by_op, include=(h.CV_REFUSES,))
    merged = {}
    for (op, kind, sig), (n, (r, d)) in groups.items():
        g = merged.setdefault((op, sig), [0, set(), None])
        g[0] += n
        g[1].add(kind)
        if g[2] is None or sum(map(len, r["args"])) < sum(map(len, g[2][0]["args"])):
            g[2] = (r, d)
    lines += ["", "## cuteverify refusals where C++ answers (allowed: named NotAdmissibleError)", "",
              "Top reasons per family (kinds of generated input in brackets).", ""]
    by_op = collections.defaultdict(list)
    for (op, sig), g in merged.items():
        by_op[op].append((sig, g))
    for op in sorted(by_op):
        items = sorted(by_op[op], key=lambda x: -x[1][0])
        for sig, (n, kinds, (r, d)) in items[:5]:
            lines.append(f"- **{op}** [{','.join(sorted(kinds))}] {n} cases: {_repro(op, r, d)[:330]}")
        if len(items) > 5:
            lines.append(f"- **{op}**: {len(items) - 5} more reasons, {sum(g[0] for _, g in items[5:])} cases")
    groups = classes(results_by_op, include=(h.PRINTED_ONLY,))
    lines += ["", "## Printed-only differences (same function)", ""]
    agg = collections.Counter()
    ex = {}
    for (op, kind, sig), (n, (r, d)) in groups.items():
        agg[op] += n
        if op not in ex or sum(map(len, r["args"])) < sum(map(len, ex[op][0]["args"])):
            ex[op] = (r, d)
    for op in sorted(agg):
        lines.append(f"- **{op}** — {agg[op]} cases; e.g. {_repro(op, *ex[op])}")
    rej = collections.Counter()
    cv_acc = collections.Counter()
    for op, res in results_by_op.items():
        for r, cls, d in res:
            if cls == h.CPP_REJECTS:
                rej[(op, d["cpp"])] += 1
                if d.get("cv", "").startswith("accepts"):
                    cv_acc[op] += 1
    lines += ["", "## C++ rejects (error classes)", ""]
    per = collections.defaultdict(list)
    for (op, cls), n in rej.items():
        per[op].append((n, cls))
    for op in sorted(per):
        lines.append(f"- {op}: " + "; ".join(f"`{cls}` {n}" for n, cls in sorted(per[op], reverse=True)))
    if cv_acc:
        lines += ["", "cuteverify returns a result where C++ does not compile: " +
                  ", ".join(f"{op} {n}" for op, n in sorted(cv_acc.items())) + " (informational)."]
    lines.append("")
    with open(path, "w") as f:
        f.write("\n".join(lines))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--op", action="append", default=None, help="family (repeatable, or 'all')")
    ap.add_argument("--n", type=int, default=5000, help="cases per family")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2, help="parallel g++ processes")
    ap.add_argument("--batch", type=int, default=300, help="cases per translation unit")
    ap.add_argument("--cpp-only", action="store_true", help="generate + run C++ + write corpus; no cuteverify")
    ap.add_argument("--check-only", action="store_true", help="check the existing corpus with cuteverify")
    ap.add_argument("--corpus-dir", default=h.CORPUS_DIR)
    ap.add_argument("--write-known", action="store_true", help="rewrite known_failures.json from this run")
    ap.add_argument("--report", action="store_true", help="rewrite REPORT.md from this run")
    ap.add_argument("--no-write", action="store_true", help="do not write the corpus")
    a = ap.parse_args(argv)
    ops = h.OPS if (not a.op or "all" in a.op) else [o for x in a.op for o in x.split(",")]
    h.CORPUS_DIR = a.corpus_dir
    meta = {"seed": a.seed, "compiler": _compiler_version()}
    try:
        cut = cpp_build.cutlass_include()
        with open(os.path.join(cut, "cutlass", "version.h")) as f:
            txt = f.read()
        import re
        meta["cutlass"] = ".".join(re.search(rf"define CUTLASS_{k} (\d+)", txt).group(1)
                                   for k in ("MAJOR", "MINOR", "PATCH"))
    except Exception:  # noqa: BLE001
        pass
    results = {}
    if a.cpp_only:
        # one pool over every family: better packing on many cores
        t0 = time.time()
        allrecs = {op: h.generate(op, a.n, seed=a.seed) for op in ops}
        flat = [r for op in ops for r in allrecs[op]]
        h.run_cases(flat, batch=a.batch, jobs=a.jobs, log=lambda m: print(f"  {m} ({time.time() - t0:.0f}s)",
                                                                          file=sys.stderr, flush=True))
        os.makedirs(h.CORPUS_DIR, exist_ok=True)
        for op in ops:
            h.write_corpus(op, allrecs[op])
            rej = sum(1 for r in allrecs[op] if "cpp_reject" in r)
            print(f"{op}: {len(allrecs[op])} cases, {rej} C++ rejects", flush=True)
        with open(os.path.join(h.CORPUS_DIR, "META.json"), "w") as f:
            json.dump({**meta, "host": platform.platform(), "n": a.n}, f, indent=1)
        print(f"C++ total {time.time() - t0:.0f}s", flush=True)
        return 0
    for op in ops:
        t0 = time.time()
        if a.check_only:
            recs = h.read_corpus(op)
        else:
            recs = h.generate(op, a.n, seed=a.seed)
            h.run_cases(recs, batch=a.batch, jobs=a.jobs,
                        log=lambda m: print(f"  [{op}] {m}", file=sys.stderr, flush=True))
            if not a.no_write:
                h.write_corpus(op, recs)
                recs = h.read_corpus(op)
        t1 = time.time()
        if a.cpp_only:
            rej = sum(1 for r in recs if "cpp_reject" in r)
            print(f"{op}: {len(recs)} cases, {rej} C++ rejects, C++ {t1 - t0:.0f}s", flush=True)
            continue
        results[op] = check_records(recs)
        print(f"{op}: {len(recs)} cases (C++ {t1 - t0:.0f}s, cuteverify {time.time() - t1:.0f}s)",
              file=sys.stderr, flush=True)
    if a.cpp_only:
        with open(os.path.join(h.CORPUS_DIR, "META.json"), "w") as f:
            json.dump({**meta, "host": platform.platform()}, f, indent=1)
        return 0
    print(table(results))
    groups = classes(results, include=tuple(h.FAILING))
    if groups:
        print("\nfailure classes:")
        for (op, kind, sig), (n, (r, d)) in sorted(groups.items(), key=lambda kv: (kv[0][0], -kv[1][0])):
            print(f"  {op} [{kind}] {sig}: {n}  e.g. {_repro(op, r, d)}")
    if a.write_known:
        known = h.load_known() if set(ops) != set(h.OPS) else {}
        known = {k: v for k, v in known.items() if k.split(":")[0] not in ops}
        for op, res in results.items():
            for r, cls, d in res:
                if cls in h.FAILING:
                    known[r["id"]] = h.failure_signature(r, cls, d)
        with open(h.KNOWN_PATH, "w") as f:
            json.dump({"about": "cases of tests/oracles/cpp_oracle/corpus that cuteverify currently gets wrong, keyed by "
                                "case id -> failure class; rewritten by `python -m tests.oracles.cpp_oracle.run_campaign "
                                "--op all --check-only --write-known`. Shrink it as bugs get fixed.",
                       "cases": dict(sorted(known.items()))}, f, indent=0)
            f.write("\n")
        print(f"wrote {h.KNOWN_PATH} ({len(known)} known failures)", file=sys.stderr)
    if a.report:
        if os.path.exists(os.path.join(h.CORPUS_DIR, "META.json")):
            with open(os.path.join(h.CORPUS_DIR, "META.json")) as f:
                meta.update(json.load(f))
        write_report(results, os.path.join(h.HERE, "REPORT.md"), meta)
    return 0


if __name__ == "__main__":
    sys.exit(main())
