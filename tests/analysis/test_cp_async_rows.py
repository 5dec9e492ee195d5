"""The cp.async pass model (analysis/cp_async_banks.py) against the H200 measurements of probes/cp_async_rows
(specs/evidence/sm90/cp_async_rows.jsonl), and the sgemm_sm80 tutorial copies of issue 25."""
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import cuteverify as cv
from cuteverify.algebra import composition
from cuteverify.analysis.banks import bank_conflicts
from cuteverify.analysis.banks.verdict import VectorBreak
from cuteverify.analysis.banks.cp_async import CpAsyncConflict, cp_async_banks, cp_async_params, phase_passes
from cuteverify.atoms.copy import make_tiled_copy_tv
from cuteverify.frontend.cli.main import main
from cuteverify.errors import NotAdmissibleError

pytestmark = pytest.mark.differential  # compares with an outside oracle (tests/oracles/, recorded evidence)

RECORDS = [json.loads(line) for line in
           (Path(__file__).parents[2] / "specs/evidence/sm90/cp_async_rows.jsonl").read_text().splitlines()]
BY_NAME = {r["pattern"]: r for r in RECORDS}
#: the one .ca configuration where the order in which missed rows return changes the count (module docstring)
ARRIVAL_ORDER = {"ca16_inter4_d4"}


def _phases(rec):
    n, g, s = rec["lanes_per_phase"], rec["lane_gmem_byte_offsets"], rec["lane_smem_byte_offsets"]
    return [(g[p:p + n], s[p:p + n]) for p in range(0, 32, n)]


def _model(rec):
    """Passes of one warp instruction, summed over its phases (times the copies the launch made)."""
    per = [phase_passes(g, s, rec["access_bytes"], rec["cache"])[0] for g, s in _phases(rec)]
    return sum(per) * rec["copies"], max(per)


def _row_sum_bound(rec):
    """Each row served alone, in as many passes as its lanes' shared-memory bank degree with no read broadcast:
    an order-free upper bound for .ca (no merging of rows at all)."""
    tot = 0
    for g, s in _phases(rec):
        rows = {}
        for a, x in enumerate(g):
            rows.setdefault(x // 128, []).append(a)
        for lanes in rows.values():
            tot += phase_passes([g[a] for a in lanes], [s[a] for a in lanes], rec["access_bytes"], "ca")[0] \
                if len({g[a] for a in lanes}) == len(lanes) else len(lanes)
    return tot * rec["copies"]


def test_records_cover_the_issue():
    assert len(RECORDS) >= 100
    assert {(r["access_bytes"], r["cache"]) for r in RECORDS} == {(4, "ca"), (8, "ca"), (16, "ca"), (16, "cg")}
    assert all(r["gpu"] == "NVIDIA H200" and r["driver"] and r["command"] for r in RECORDS)
    rows = {len({x // 128 for x in g}) for r in RECORDS for g, _ in _phases(r)}
    assert {1, 2, 4, 8} <= rows
    # conflict-free and conflicted shared-memory sides
    assert any("_d1" in r["pattern"] for r in RECORDS) and any("_d8" in r["pattern"] for r in RECORDS)
    # the issue's probe: 8 distinct rows per 8-lane phase take 8 passes, one row 1 (hardware counter)
    assert BY_NAME["ca16_rows8_d1"]["hw_wavefronts"] == 4 * 8
    assert BY_NAME["ca16_rows1_d1"]["hw_wavefronts"] == 4 * 1


@pytest.mark.parametrize("rec", [r for r in RECORDS if r["cache"] == "ca"], ids=lambda r: r["pattern"])
def test_ca_model_matches_the_hardware_counter(rec):
    total, _ = _model(rec)
    if rec["pattern"] in ARRIVAL_ORDER:
        assert total <= rec["hw_wavefronts"] <= _row_sum_bound(rec)
    else:
        assert total == rec["hw_wavefronts"], rec["pattern"]
    # one pass per phase exactly when the hardware shows one
    phases = (32 // rec["lanes_per_phase"]) * rec["copies"]
    assert (total == phases) == (rec["hw_wavefronts"] == phases)


def test_ca_exceptions_are_only_the_arrival_order_case():
    off = {r["pattern"] for r in RECORDS if r["cache"] == "ca" and _model(r)[0] != r["hw_wavefronts"]}
    assert off == ARRIVAL_ORDER


def test_cg_model_orders_the_measured_cycles():
    """.cg writes are not seen by the wavefront counter: clock64 (64 back-to-back copies) is the evidence.
    Grouped by the model's passes per phase, every configuration of k passes runs faster than every one of
    2k passes, and levels 1, 2, 4, 8 all occur."""
    levels = {}
    for r in RECORDS:
        if r["cache"] == "cg":
            levels.setdefault(_model(r)[1], []).append(r["cycles_per_copy"])
    assert sorted(levels) == [1, 2, 4, 8]
    for k in (1, 2, 4):
        assert max(levels[k]) < min(levels[2 * k]), (k, levels[k], levels[2 * k])


def test_ca_and_cg_differ_where_measured():
    # every lane of a phase reading the same 16 bytes: .ca serves each lane alone, .cg broadcasts
    assert _model(BY_NAME["ca16_bcast_d1"])[1] == 8 and _model(BY_NAME["cg16_bcast_d1"])[1] == 1
    assert BY_NAME["ca16_bcast_d1"]["hw_wavefronts"] == 32
    # 128 contiguous bytes straddling two lines: one pass for .ca (disjoint banks), two for .cg (two rows)
    assert _model(BY_NAME["ca16_mis_d1"])[1] == 1 and _model(BY_NAME["cg16_mis_d1"])[1] == 2
    cyc = {n: BY_NAME[n]["cycles_per_copy"] for n in ("cg16_rows1_d1", "cg16_mis_d1", "cg16_rows2_d1")}
    assert cyc["cg16_mis_d1"] > 1.3 * cyc["cg16_rows1_d1"] and abs(cyc["cg16_mis_d1"] - cyc["cg16_rows2_d1"]) < 2


def test_layouts_reproduce_recorded_patterns():
    """The public entry point on TV layouts (f32, 4 values = one 16-byte copy per thread) that address exactly
    the recorded offsets, against the hardware counter."""
    cases = {  # pattern: (src, dst) in f32 elements
        "ca16_rows8_d1": ("((8,4),4):((1024,8192),1)", "((8,4),4):((4,2048),1)"),
        "ca16_rows1_d1": ("((8,4),4):((4,1024),1)", "((8,4),4):((4,2048),1)"),
        "ca16_rows1_d8": ("((8,4),4):((4,1024),1)", "((8,4),4):((256,2048),1)"),
        "ca16_rows2_d1": ("((4,2,4),4):((4,1024,2048),1)", "((8,4),4):((4,2048),1)"),
    }
    for name, (src, dst) in cases.items():
        rec = BY_NAME[name]
        S, D = cv.parse(src), cv.parse(dst)
        assert [S(t, 0) * 4 for t in range(32)] == rec["lane_gmem_byte_offsets"], name
        assert [D(t, 0) * 4 for t in range(32)] == rec["lane_smem_byte_offsets"], name
        v = cp_async_banks(S, D, "f32", 16)
        assert v.wavefronts == rec["hw_wavefronts"] and v.ideal_wavefronts == 4, name
        assert (v.status == "proved") == (rec["hw_wavefronts"] == 4)


# ------------------------------------------------------------------------------ the tutorial (issue 25)

SMEM_TILE = cv.parse("S<3,3,3> o 0 o (16,64):(64,1)")  # the swizzled K-major sA rows one copy tile writes


def _sgemm_copy(thr):
    """sgemm_sm80's f16 TN copy of A: cp.async.ca 16 bytes, 8 halves per thread along K, over a (16,64) tile
    of the K-major A (ldA = 4096) into the swizzled smem tile."""
    c = make_tiled_copy_tv("SM80_CP_ASYNC_CACHEALWAYS<uint128_t>", cv.parse(thr), cv.parse("(1,8)"), "f16")
    assert c.tiler_mn[0].shape == 16 and c.tiler_mn[1].shape == 64
    return c


def _gA(text):
    """The copy's (16,64) tile of A: ldA = 4096 (the tutorial's default K), or any K that keeps rows 128-byte
    aligned."""
    return cv.parse(text, assume=["K % 64 == 0"] if "K" in text else None)


@pytest.mark.parametrize("gA", ["(16,64):(4096,1)", "(16,64):(K,1)"])
def test_sgemm_sm80_m_major_thread_layout(gA):
    c = _sgemm_copy("(16,8):(1,16)")                        # M-major threads: 8 lanes = 8 rows of A
    src = composition(_gA(gA), c.layout_src_tv_tiled)
    # the shared-memory side alone is conflict-free (what cuteverify proved before)
    assert bank_conflicts(SMEM_TILE, c.layout_dst_tv_tiled, "f16").status == "proved"
    v = cp_async_banks(src, c.layout_dst_tv_tiled, "f16", 16, dst_smem=SMEM_TILE)
    assert v.status == "refuted" and v.degree == 8 and v.smem_degree == 1 and v.rows_per_phase == 8
    cex = v.counterexample
    assert isinstance(cex, CpAsyncConflict) and "global rows" in cex.why
    # the two threads are in one phase and read two rows of A at the same column: re-derived from the layouts
    t0, t1 = cex.threads
    assert t0 // 8 == t1 // 8 and cex.phase == (t0 % 32) // 8
    K = cex.assignment["K"] if "K" in gA else 4096
    m0, m1 = (c.layout_src_tv_tiled(t, 0) % 16 for t in (t0, t1))
    assert m0 != m1 and cex.gmem_bytes[1] - cex.gmem_bytes[0] == 2 * K * (m1 - m0)


@pytest.mark.parametrize("gA", ["(16,64):(4096,1)", "(16,64):(K,1)"])
def test_sgemm_sm80_k_major_control(gA):
    c = _sgemm_copy("(16,8):(8,1)")                         # the tutorial's K-major threads: 8 lanes = one row
    src = composition(_gA(gA), c.layout_src_tv_tiled)
    v = cp_async_banks(src, c.layout_dst_tv_tiled, "f16", 16, dst_smem=SMEM_TILE)
    assert v.status == "proved" and v.degree == 1 and v.wavefronts == v.ideal_wavefronts == 16


def test_symbolic_rows_undecided_refute_at_an_assignment_or_stay_unknown():
    c = _sgemm_copy("(16,8):(1,16)")
    src = composition(cv.parse("(16,64):(K,1)", assume=["K % 8 == 0"]), c.layout_src_tv_tiled)
    v = cp_async_banks(src, c.layout_dst_tv_tiled, "f16", 16, dst_smem=SMEM_TILE)
    assert v.status == "refuted" and v.counterexample.assignment
    K = v.counterexample.assignment["K"]
    assert cp_async_banks(src.subs(K=K), c.layout_dst_tv_tiled, "f16", 16, dst_smem=SMEM_TILE).degree == v.degree
    ctl = _sgemm_copy("(16,8):(8,1)")
    src = composition(cv.parse("(16,64):(K,1)", assume=["K % 8 == 0"]), ctl.layout_src_tv_tiled)
    assert cp_async_banks(src, ctl.layout_dst_tv_tiled, "f16", 16, dst_smem=SMEM_TILE).status == "unknown"


def test_bad_input_and_illegal_copies():
    S, D = cv.parse("((8,4),4):((4,1024),1)"), cv.parse("((8,4),4):((4,2048),1)")
    with pytest.raises(NotAdmissibleError, match="cg copies 16 bytes"):
        cp_async_banks(S, D, "f32", 8, cache="cg")
    with pytest.raises(NotAdmissibleError, match="32 threads x 4 values.*16 x 4"):
        cp_async_banks(S, cv.parse("(16,4):(4,1)"), "f32", 16)
    # values not contiguous on the shared side: not one 16-byte cp.async, refuted with the thread
    v = cp_async_banks(S, cv.parse("((8,4),4):((4,2048),8192)"), "f32", 16)
    assert v.status == "refuted" and isinstance(v.counterexample, VectorBreak) and "destination" in v.reason


def test_cli_verb_exit_codes():
    args = ["cp-async-banks", "--dst", "((16,8),(8,1)):((1,128),(16,0))", "--smem", "S<3,3,3> o 0 o (16,64):(64,1)",
            "--dtype", "f16"]
    r = CliRunner().invoke(main, args + ["--src", "((16,8),(8,1)):((4096,8),(1,0))", "--json"])
    d = json.loads(r.output)
    assert r.exit_code == 1 and d["degree"] == 8 and d["smem_degree"] == 1 and d["counterexample"]["threads"]
    r = CliRunner().invoke(main, args + ["--src", "((16,8),(8,1)):((K,8),(1,0))", "--assume", "K % 64 == 0"])
    assert r.exit_code == 1 and "8-way" in r.output
    ok = ["cp-async-banks", "--src", "((8,16),(8,1)):((8,4096),(1,0))", "--dst", "((8,16),(8,1)):((128,1),(16,0))",
          "--smem", "S<3,3,3> o 0 o (16,64):(64,1)", "--dtype", "f16"]
    assert CliRunner().invoke(main, ok).exit_code == 0
    r = CliRunner().invoke(main, ok + ["--cache", "cg", "--size", "8"])
    assert r.exit_code == 2 and "16 bytes" in r.output and "Traceback" not in r.output


def test_cp_async_params_from_the_atoms():
    for name, want in (("SM80_CP_ASYNC_CACHEALWAYS<uint128_t>", ("ca", 16)), ("SM80_CP_ASYNC_CACHEALWAYS<uint32_t>",
                                                                              ("ca", 4)),
                       ("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", ("cg", 16)), ("SM75_U32x4_LDSM_N", None)):
        assert cp_async_params(cv.make_copy_atom(name, "f16").spec.ptx) == want, name
