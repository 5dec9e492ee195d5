"""Mutants of real kernels are refuted at the mutated line (issue 28: "for each kernel at least 3 mutants of its
own source ... refuted at the mutated line").

The data is tests/frontend/trace_data/mutants/ (made by make_mutants.py there; mutants.json lists each mutant:
its capture, the committed original it mutates, the mutated file and line, ``at_line`` (the line whose ops carry
the defect) and ``also_at`` (the lines of the ops that consume the defective object, where a check may equally
report it). For each mutant, ``trace check``'s claims at those lines are run on the mutant and on the original:
some claim there must be refuted in the mutant and the original must have no refuted claim at that line (the
refutation is the mutation's doing, not a finding the original already had). Only the claims at those lines
are run, so the test stays cheap; each capture is read once.
"""
import functools
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from cuteverify.frontend import manifest as mf
from cuteverify.frontend.cli.trace_check_cmd import trace_check_cmd
from cuteverify.frontend.trace.check import document

DATA = Path(__file__).resolve().parents[1] / "trace_data"
MUTANTS = DATA / "mutants"
INDEX = json.loads((MUTANTS / "mutants.json").read_text())

#: mutants the checks do not refute yet, with why (strict: a mutant that starts being caught fails here, so
#: the entry is removed and the catch is kept)
XFAIL: dict = {
    "ampere_tensorop_gemm__sA_stage_half":
        "SharedStorageAB is allocated as raw bytes (no smem.struct_fields): the views sA [0, 32768) and sB "
        "[16384, 49152) are each checked inside the allocation, but no claim says two views of it are disjoint",
    "blackwell_dense_gemm__r2s_copy_S":
        "no claim checks a tiled copy made by make_tiled_copy_S/D from a TMEM copy (the mutant's r2s TV layout "
        "((32,4),((32,32),1)):((0,1),((128,4),0)) sends the 32 lanes of a warp to the same elements)",
    "blackwell_dense_gemm__ab_mbar_half":
        "the pipeline's mbarrier count (a full/empty pair per stage) is not a view in the capture: no check sees "
        "the array overflow into acc_full_mbar_ptr",
    "quack_rmsnorm__threads_half":
        "no claim relates a tiled copy's thread layout to the CTA tile it partitions (tiler_mn (2,4096) vs a "
        "64-thread copy tiling (1,512)) or to the launch's thread count",
    "quack_rmsnorm__vec_64b":
        "no claim states the widest vector the layouts allow (64-bit copies of 16 B-aligned contiguous rows: "
        "slow, not wrong)",
}

_AT = re.compile(r"^(.*?):(\d+)(?::|$)")


def at_key(at: str):
    """``(file, line)`` of a claim's ``at`` (``file:line: source text``), None when it names no line. Mutants
    and originals are captured the same way (``trace capture``'s portable paths), so files compare as text."""
    m = _AT.match(at or "")
    return (m.group(1), int(m.group(2))) if m else None


def targets(entry) -> set:
    """The (file, line) places where the mutant's defect may be reported."""
    out = {(entry["file"], entry["at_line"])}
    for a in entry.get("also_at", []):
        out.add((entry["file"], a) if isinstance(a, int) else at_key(a))
    return out


@functools.lru_cache(maxsize=None)
def _claims(path: Path) -> tuple:
    doc = document(path)
    return tuple(mf.load_text(doc.yaml(), str(path)) if doc.claims else ())


def refuted_at(path: Path, places: frozenset) -> dict:
    """{(file, line): [claim text, ...]} of the claims at ``places`` that ``trace check`` refutes in ``path``."""
    chosen = [c for c in _claims(path) if at_key(c.at) in places]
    out: dict = {}
    for c, r in zip(chosen, mf.run(chosen)):
        if r["status"] == "refuted":
            out.setdefault(at_key(c.at), []).append(r["claim"])
    return out


def _params():
    for e in INDEX["mutants"]:
        name = e["capture"].removesuffix(".mlir.gz")
        marks = [pytest.mark.xfail(strict=True, reason=XFAIL[name])] if name in XFAIL else []
        yield pytest.param(e, id=name, marks=marks)


@pytest.mark.parametrize("entry", list(_params()))
def test_mutant_is_refuted_at_the_mutated_line(entry):
    places = frozenset(targets(entry))
    mutant = refuted_at(MUTANTS / entry["capture"], places)
    original = refuted_at(DATA / entry["original"], places) if mutant else {}
    new = {k: v for k, v in mutant.items() if k not in original}
    assert new, (f"{entry['capture']}: no claim at {sorted(places)} is refuted in the mutant but not in the "
                 f"original ({entry['kind']}: {entry['what']}; expected check: {entry['check']}); refuted in "
                 f"mutant: {mutant}, in original: {original}")


def test_mutant_data_is_complete():
    """Every kernel of the issue has >= 3 mutants that the checks refute (the others are XFAIL); each mutant's
    files exist, its patch changes the line it names, its original is a committed capture; the folder stays
    small."""
    per_kernel: dict = {}
    for e in INDEX["mutants"]:
        per_kernel.setdefault(e["kernel"], []).append(e)
        assert (MUTANTS / e["capture"]).is_file() and (DATA / e["original"]).is_file()
        patch = (MUTANTS / e["patch"]).read_text()
        assert f"+++ b/{e['file']}" in patch
        hunk = re.search(r"^@@ -(\d+),", patch, re.M)
        old_start = int(hunk.group(1))
        removed = [i for i, l in enumerate(l for l in patch.split("\n@@", 1)[1].splitlines()[1:]
                                           if not l.startswith("+")) if l.startswith("-")]
        assert old_start + removed[0] == e["line"], (e["capture"], old_start, removed)
        assert e["visible"]["changed_lines"] or e["visible"]["changed_elsewhere"], e["capture"]
    assert sorted(per_kernel) == sorted({
        "ampere_tensorop_gemm", "hopper_dense_gemm", "blackwell_dense_gemm", "fa4_fwd_sm80", "fa4_fwd_sm90",
        "fa4_fwd_sm100", "quack_gemm_sm90", "quack_rmsnorm"})
    refuted = {k: [e for e in v if e["capture"].removesuffix(".mlir.gz") not in XFAIL] for k, v in per_kernel.items()}
    assert all(len(v) >= 3 for v in refuted.values()), {k: len(v) for k, v in refuted.items()}
    assert sum(p.stat().st_size for p in MUTANTS.iterdir()) < 3_000_000


def test_trace_check_command_refutes_a_mutant_at_its_line():
    """The command itself (one small kernel): the mutant exits 1 with a refuted row at the mutated statement,
    the original exits 0."""
    entry = next(e for e in INDEX["mutants"] if e["capture"] == "quack_rmsnorm__sX_row_overlap.mlir.gz")
    run = CliRunner().invoke
    mutant = run(trace_check_cmd, [str(MUTANTS / entry["capture"]), "--json"])
    rows = json.loads(mutant.output)["results"]
    assert mutant.exit_code == 1
    assert any(r["status"] == "refuted" and at_key(r.get("at")) == (entry["file"], entry["at_line"]) for r in rows)
    assert run(trace_check_cmd, [str(DATA / entry["original"])]).exit_code == 0
