"""Regenerate the mutant captures of issue 28: each real kernel's source with one plausible defect.

Each mutant (mutant_table.py) names the source file (as it reads in the captures' `loc(...)`: `kernels/<file>.py`
for the CUTLASS examples, `site-packages/<package path>` for FlashAttention-4 and QuACK), the mutated lines
(1-based line number, the exact old text on that line, its replacement), the kind of defect and the check that
should refute it. For each capture the script builds a root folder in a temporary directory holding `kernels/`
(a copy of the CUTLASS example sources) and, for an FA4/QuACK edit, `site-packages/<package>/` (a copy of the
installed package, first on PYTHONPATH), patches the copy and runs exactly what `../drivers/run_all.sh` runs for
the committed original, from that root: `cuteverify trace capture --arch <arch> [--stub-torch] -- <python>
../drivers/<driver>` (so location paths print the same way: `kernels/x.py`, `site-packages/flash_attn/...`).

Writes, next to this script: `<kernel>__<mutant>.mlir.gz` (gzip -9), `<kernel>__<mutant>.patch` (unified
diff) and `mutants.json` (one entry per mutant, with "visible": the type text of the ops at the mutated
line that differs between the original and the mutant capture, both captured here the same way).
With --check-originals it also verifies that the unpatched capture equals the committed original
`../<original>.mlir.gz` (so the mutants mutate exactly those captures).

Paths (defaults are the research setup of issue 28, see ../drivers/README.md):
  --kernels DIR      CUTLASS example sources (NOTES.md "Layout"), default /work/research28/kernels
  --site DIR         site-packages holding flash_attn and quack, default /work/research28/venv/lib/python3.11/site-packages
  --py-dsl PYTHON    Python with cuteverify and nvidia-cutlass-dsl 4.8.1 (CUTLASS kernels; its folder holds the
                     `cuteverify` command), default: this interpreter
  --py-fa PYTHON     Python of the FA4/QuACK venv, default /work/research28/venv/bin/python
usage: python make_mutants.py [--only KERNEL_OR_MUTANT[,..]] [--check-originals] [--keep DIR] [--dry] [--visible-only]
"""
import argparse
import difflib
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.dirname(HERE)
DRIVERS = os.path.join(DATA, "drivers")

# kernel -> (arch, driver, python key ("dsl": --py-dsl; "fa": --py-fa with --stub-torch), committed original)
KERNELS = {
    "ampere_tensorop_gemm": ("sm_80", "ampere_tensorop_gemm.py", "dsl", "ampere_tensorop_gemm_sm_80"),
    "hopper_dense_gemm": ("sm_90a", "hopper_dense_gemm.py", "dsl", "hopper_dense_gemm_sm_90a"),
    "blackwell_dense_gemm": ("sm_100a", "blackwell_dense_gemm.py", "dsl", "blackwell_dense_gemm_sm_100a"),
    "fa4_fwd_sm80": ("sm_80", "fa4_fwd.py", "fa", "fa4_fwd_sm_80"),
    "fa4_fwd_sm90": ("sm_90a", "fa4_fwd.py", "fa", "fa4_fwd_sm_90a"),
    "fa4_fwd_sm100": ("sm_100a", "fa4_fwd_sm100.py", "fa", "fa4_fwd_sm_100a"),
    "quack_gemm_sm90": ("sm_90a", "quack_gemm.py", "fa", "quack_gemm_sm_90a"),
    "quack_rmsnorm": ("sm_90a", "quack_rmsnorm.py", "fa", "quack_rmsnorm_sm_90a"),
}

from mutant_table import DISCARDED, MUTANTS  # noqa: E402  (the table lives next to this script)

ABOUT = ("Mutants of the committed captures (issue 28), made by make_mutants.py from mutant_table.py. "
         "mutants: capture/patch (files here), original (the committed capture in ..), file and line "
         "(the mutated source line, as the loc reads), at_line (the line whose ops carry the defect; a check "
         "should refute a claim there or at an also_at line, int = same file, str = file:line), kind, what, "
         "check (the planned check that should refute it), visible (ops at at_line in original vs mutant: "
         "changed = the type text that differs; changed_lines = lines of file whose ops differ). "
         "rejected: edits whose trace fails (DSL or library checks), with the error. discarded: edits that "
         "trace but are no defect (or none the capture can decide), with why.")
ERROR_RE = re.compile(r"(^|\s)(error(\[\w+\])?:|\w*Error:)")
LOC_RE = re.compile(r'loc\("([^"]+)":(\d+):(\d+)\)')


def write_gz(path, text):
    """gzip -9 with no name and mtime 0 in the header, so an unchanged capture gives the same bytes."""
    with open(path, "wb") as raw, gzip.GzipFile("", "wb", 9, raw, mtime=0) as f:
        f.write(text.encode())


def patch_copy(tmp, sources, mutant):
    """Lay out the capture root in tmp: kernels/ always, site-packages/<package>/ for an FA4/QuACK file; patch
    mutant['file'] there (no edits: the unpatched original). Returns the unified diff."""
    if not os.path.exists(os.path.join(tmp, "kernels")):
        shutil.copytree(sources["kernels"], os.path.join(tmp, "kernels"), ignore=shutil.ignore_patterns("__pycache__"))
    rel = mutant["file"]
    parts = rel.split("/")
    if parts[0] == "site-packages":
        dst = os.path.join(tmp, "site-packages", parts[1])
        if not os.path.exists(dst):
            shutil.copytree(os.path.join(sources["site-packages"], parts[1]), dst,
                            ignore=shutil.ignore_patterns("__pycache__"))
    path = os.path.join(tmp, rel)
    with open(path) as f:
        before = f.read().splitlines(keepends=True)
    after = list(before)
    for line, old, new in mutant.get("edits", []):
        if old not in after[line - 1]:
            raise SystemExit(f"{mutant['name']}: {rel}:{line} does not contain {old!r}: {after[line - 1]!r}")
        after[line - 1] = after[line - 1].replace(old, new, 1)
    with open(path, "w") as f:
        f.writelines(after)
    return "".join(difflib.unified_diff(before, after, "a/" + rel, "b/" + rel, n=2))


def capture(kernel, tmp, py, cuteverify):
    """Capture the kernel from the root tmp as run_all.sh does; (text, "") or (None, the failure's last lines)."""
    arch, driver, which, _ = KERNELS[kernel]
    out = os.path.join(tmp, "out")
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if os.path.isdir(os.path.join(tmp, "site-packages")):
        env["PYTHONPATH"] = os.path.join(tmp, "site-packages")
    cmd = [cuteverify, "trace", "capture", "--arch", arch, "-o", out] + (["--stub-torch"] if which == "fa" else [])
    r = subprocess.run(cmd + ["--", py, os.path.join(DRIVERS, driver)], cwd=tmp, env=env, capture_output=True,
                       text=True, timeout=900)
    files = sorted(os.listdir(out)) if os.path.isdir(out) else []
    if r.returncode != 0 or len(files) != 1:
        return None, "\n".join((r.stdout + r.stderr).strip().splitlines()[-40:])
    with open(os.path.join(out, files[0])) as f:
        return f.read(), ""


# ---- reading the printed module just enough to compare the ops of one source line -------------------
ALIAS_RE = re.compile(r"^([!#][\w.$-]+) = (.*)$", re.M)


def aliases(text):
    return {m.group(1): m.group(2) for m in ALIAS_RE.finditer(text)}


def line_of_loc(al, name, seen=0):
    """(file, line) of a #loc alias, following NameLoc wrappers."""
    body = al.get(name, "")
    m = LOC_RE.search(body)
    if m:
        return m.group(1), int(m.group(2))
    m = re.search(r"\((#loc\d+)\)\)$", body)
    if m and seen < 8:
        return line_of_loc(al, m.group(1), seen + 1)
    return None


def expand(al, text, depth=0):
    if depth > 6:
        return text
    return re.sub(r"![\w.$-]+", lambda m: expand(al, al[m.group(0)], depth + 1) if m.group(0) in al
                  else m.group(0), text)


def ops_by_line(text):
    """{(file, line): [signature text of each op printed with that loc, aliases expanded]}."""
    al = aliases(text)
    where = {k: line_of_loc(al, k) for k in al if k.startswith("#loc")}
    out = {}
    for m in re.finditer(r'^\s*(?:%[\w#:]+(?:, %[\w#:]+)* = )?"([\w.]+)"(.*) loc\((#loc\d+)\)$', text, re.M):
        at = where.get(m.group(3))
        if at:
            # value names differ between two captures; attributes (struct fields, modes) and types matter
            sig = re.sub(r"%[\w#:]+", "%", m.group(2)).replace("(%, ", "(").replace("(%)", "()")
            sig = re.sub(r"^\((%, )*%?\)", "", re.sub(r"%, ", "", sig)).strip()
            out.setdefault(at, []).append(m.group(1) + " " + expand(al, sig))
    return out


TOKEN_RE = re.compile(r'S<\d+,\d+,\d+>|"[^"]*"|<"[^"]*">|[\w.]+ = [\w.()<>, ]+?(?=[,>])|[\w.]+|.')


def changed_text(a, b):
    """The tokens (a swizzle, a quoted layout, a word, key = value) where a and b differ."""
    ta, tb = TOKEN_RE.findall(a), TOKEN_RE.findall(b)
    i = 0
    while i < min(len(ta), len(tb)) and ta[i] == tb[i]:
        i += 1
    j = 0
    while j < min(len(ta), len(tb)) - i and ta[-1 - j] == tb[-1 - j]:
        j += 1
    return "".join(ta[i:len(ta) - j]), "".join(tb[i:len(tb) - j])


PRIORITY = ["cute.make_view", "cute.memref.alloca", "cute.recast_iter", "cute.make_atom", "cute.make_tiled_copy",
            "cute_nvgpu.atom.make_non_exec_tiled_tma_load", "cute.mma.make_fragment", "cute.make_composed_layout",
            "cute.add_offset", "cute.make_layout", "cute.make_ordered_layout"]


def visible(orig, mut, file, line):
    """What differs between the two captures: at file:line, and which lines of file differ at all."""
    oa, ob = ops_by_line(orig), ops_by_line(mut)
    a, b = oa.get((file, line), []), ob.get((file, line), [])
    diff = sorted(k for k in set(oa) | set(ob) if oa.get(k) != ob.get(k))
    changed = [l for (f, l) in diff if f == file]
    elsewhere = [f"{f}:{l}" for (f, l) in diff if f != file]
    sb, sa = set(b), set(a)
    gone = [s for s in dict.fromkeys(a) if s not in sb]
    new = [s for s in dict.fromkeys(b) if s not in sa]
    out = {"ops_at_line": [len(a), len(b)], "changed_lines": changed[:20], "changed_elsewhere": elsewhere[:10]}
    if gone and new:
        # compare like with like: the same op kind, the most telling kinds first (at most 3 pairs)
        name = lambda sig: sig.split(" ", 1)[0]
        kinds = [k for k in PRIORITY if any(name(g) == k for g in gone) and any(name(n) == k for n in new)]
        kinds += [name(g) for g in gone if any(name(n) == name(g) for n in new) and name(g) not in kinds]
        pairs = [(next(x for x in gone if name(x) == k), next(x for x in new if name(x) == k)) for k in kinds[:3]]
        pairs = pairs or [(gone[0], new[0])]
        out["changed"] = [list(changed_text(g, n)) for g, n in pairs]
        out["op"] = [pairs[0][0][:600], pairs[0][1][:600]]
    else:
        out["only_original"], out["only_mutant"] = [s[:300] for s in gone[:2]], [s[:300] for s in new[:2]]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernels", default="/work/research28/kernels")
    ap.add_argument("--site", default="/work/research28/venv/lib/python3.11/site-packages")
    ap.add_argument("--py-dsl", default=sys.executable)
    ap.add_argument("--py-fa", default="/work/research28/venv/bin/python")
    ap.add_argument("--only", default="")
    ap.add_argument("--check-originals", action="store_true")
    ap.add_argument("--keep", default="")
    ap.add_argument("--dry", action="store_true", help="capture and report, write nothing")
    ap.add_argument("--visible-only", action="store_true",
                    help="recompute mutants.json's 'visible' from the stored captures (no DSL needed)")
    a = ap.parse_args()
    sources = {"kernels": a.kernels, "site-packages": a.site}
    cuteverify = os.path.join(os.path.dirname(a.py_dsl), "cuteverify")
    only = set(filter(None, a.only.split(",")))
    index_path = os.path.join(HERE, "mutants.json")
    index = json.load(open(index_path)) if os.path.exists(index_path) else {}
    by_name = {e["capture"]: e for e in index.get("mutants", [])}
    rejected = {e["name"]: e for e in index.get("rejected", [])}
    originals = {}
    if a.visible_only:
        for e in by_name.values():
            if only and e["kernel"] not in only and e["capture"][:-len(".mlir.gz")] not in only:
                continue
            with gzip.open(os.path.join(DATA, e["original"]), "rt") as f:
                orig = f.read()
            with gzip.open(os.path.join(HERE, e["capture"]), "rt") as f:
                e["visible"] = visible(orig, f.read(), e["file"], e["at_line"])
            print(e["capture"], e["visible"].get("changed"))
        rejected_list = list(rejected.values())
        with open(index_path, "w") as f:
            json.dump({"about": ABOUT, "mutants": list(by_name.values()), "rejected": rejected_list,
                       "discarded": DISCARDED}, f, indent=1)
            f.write("\n")
        return
    for mut in MUTANTS:
        kernel = mut["kernel"]
        name = f"{kernel}__{mut['name']}"
        if only and name not in only and kernel not in only:
            continue
        py = a.py_dsl if KERNELS[kernel][2] == "dsl" else a.py_fa
        orig_name = KERNELS[kernel][3]
        if kernel not in originals:
            with tempfile.TemporaryDirectory() as tmp:
                patch_copy(tmp, sources, dict(mut, edits=[]))
                text, err = capture(kernel, tmp, py, cuteverify)
            if text is None:
                raise SystemExit(f"{kernel}: original capture failed:\n{err}")
            originals[kernel] = text
            if a.check_originals:
                with gzip.open(os.path.join(DATA, orig_name + ".mlir.gz"), "rt") as f:
                    same = f.read() == text
                print(f"{kernel}: unpatched capture {'==' if same else '!='} committed {orig_name}")
        with tempfile.TemporaryDirectory() as tmp:
            diff = patch_copy(tmp, sources, mut)
            text, err = capture(kernel, tmp, py, cuteverify)
            if a.keep:
                shutil.copytree(tmp, os.path.join(a.keep, name), dirs_exist_ok=True)
        if text is None:
            print(f"{name}: TRACE REJECTED")
            lines = [re.sub(r"\x1b\[[0-9;]*m", "", l) for l in err.splitlines()]
            first = max([i for i, l in enumerate(lines) if ERROR_RE.search(l)] or [len(lines) - 1])
            reason = []
            for l in lines[first:first + 3]:
                if "suggestion" in l or "-->" in l:
                    break
                reason.append(l.strip())
            rejected[name] = {"name": name, "kernel": kernel, "file": mut["file"], "line": mut["edits"][0][0],
                              "kind": mut["kind"], "edit": [list(e) for e in mut["edits"]],
                              "error": re.sub(r"\x1b\[[0-9;]*m", "", " ".join(reason))[:300]}
            by_name.pop(name + ".mlir.gz", None)
            continue
        rejected.pop(name, None)
        at_line = mut.get("at_line", mut["edits"][0][0])
        vis = visible(originals[kernel], text, mut["file"], at_line)
        print(f"{name}: captured, {len(text)} chars; at {mut['file']}:{at_line}: {vis}")
        if a.dry:
            continue
        write_gz(os.path.join(HERE, name + ".mlir.gz"), text)
        with open(os.path.join(HERE, name + ".patch"), "w") as f:
            f.write(diff)
        by_name[name + ".mlir.gz"] = {
            "capture": name + ".mlir.gz", "patch": name + ".patch", "kernel": kernel,
            "original": orig_name + ".mlir.gz", "arch": KERNELS[kernel][0], "file": mut["file"],
            "line": mut["edits"][0][0], "at_line": at_line, "also_at": mut.get("also_at", []), "kind": mut["kind"], "what": mut["what"],
            "check": mut["check"], "visible": vis}
    if not a.dry:
        order = [f"{m['kernel']}__{m['name']}.mlir.gz" for m in MUTANTS]
        entries = sorted((e for e in by_name.values() if e["capture"] in order), key=lambda e: order.index(e["capture"]))
        names = {m["kernel"] + "__" + m["name"] for m in MUTANTS}
        for f in os.listdir(HERE):  # captures of mutants no longer in the table (or now rejected)
            stem = f.split(".")[0]
            if "__" in stem and f.endswith((".mlir.gz", ".patch")) and (
                    stem not in names or stem + ".mlir.gz" not in order or stem + ".mlir.gz" not in by_name):
                os.remove(os.path.join(HERE, f))
        rejected = {k: v for k, v in rejected.items() if k in names and k + ".mlir.gz" not in by_name}
        with open(index_path, "w") as f:
            json.dump({"about": ABOUT, "mutants": entries, "rejected": list(rejected.values()),
                       "discarded": DISCARDED}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
