"""Mutants of CUTLASS's CuTe tutorial kernels (issue 29: "at least 3 mutants per kernel, edited in a copy of the
source, refuted at the right argument"), defined in ``cpp_mutants.py``: each is one edit of one line of the
nvidia-cutlass wheel's source, applied to a copy (the tests skip without the wheel).

The cheap tests read ``cpp/mutants.records.json``, what the host-only capture of each edited copy printed
(regenerate: ``tests/frontend/trace/cpp/make_mutants.py``), check that exactly the expected rows are refuted
(launch, claim kind, argument) and that the same rows of the unmodified source (the committed fixtures of
test_cpp*.py) are proved. Independent counts (an evaluator of printed layouts that shares no code with
cuteverify, tests/oracles/strategies.py) confirm a bank conflict degree and a broken vector per kind of mutant.
The ``differential`` tests rebuild two mutants with g++ and compare with the committed records.
"""
from __future__ import annotations

import functools
import json
from collections import Counter
from pathlib import Path

import pytest

from cuteverify.frontend.trace import cpp_build, cpp_capture, cpp_check, cpp_flow
from cuteverify.frontend.trace.cpp_capture import Record
from cuteverify.frontend.trace.cpp_read import read_printed
from tests.frontend.trace import cpp_mutants as cm
from tests.oracles.strategies import ev, parse_plain, size_of

HERE = Path(__file__).parent / "cpp"
ROOT = cm.source_root()
if ROOT is None:
    pytest.skip("the nvidia-cutlass wheel has no examples/cute/tutorial", allow_module_level=True)
_ALL = json.loads((HERE / "mutants.records.json").read_text())
DATA = _ALL["mutants"]
BY_NAME = {m.name: m for m in cm.MUTANTS + cm.REJECTED + cm.CONTROLS}


def _stored(name):
    """The records the capture of mutant ``name`` printed (stored as a delta against the original's)."""
    return cm.undelta(DATA[name], cm.original(BY_NAME[name], HERE, _ALL)[0])


def _records(name):
    return [Record(**r) for r in _stored(name)], DATA[name]["info"]


def _rows(m, records, info, text):
    return cpp_check.run_documents(cpp_check.documents(m.path, text, records, info))[0]


@functools.lru_cache(maxsize=None)
def _original_rows_of(file, entry):
    m = next(x for x in BY_NAME.values() if (x.file, x.entry) == (file, entry))
    records, info = cm.original(m, HERE, _ALL)       # the fixture of test_cpp*.py; 03-05: make_mutants.py's
    return _rows(m, [Record(**r) for r in records], info, (ROOT / m.path).read_text())


def _original_rows(m):
    return _original_rows_of(m.file, m.entry)


def test_at_least_three_mutants_per_kernel():
    count = Counter(m.kernel for m in cm.MUTANTS)
    assert {"sgemm_sm80 gemm_tn", "sgemm_sm80 gemm_nt", "wgmma_sm90", "wgmma_tma_sm90", "01_mma_sm100",
            "02_mma_tma_sm100"} <= set(count)
    assert min(count.values()) >= 3, count
    assert set(count) >= {"03_mma_tma_multicast_sm100", "04_mma_tma_2sm_sm100", "05_mma_tma_epi_sm100"}
    names = [m.name for m in cm.MUTANTS + cm.REJECTED + cm.CONTROLS]
    assert len(set(names)) == len(names) and set(DATA) == set(names)


@pytest.mark.parametrize("name", [m.name for m in cm.REJECTED])
def test_edits_cute_rejects_are_its_static_assertions(name):
    """Edits a kernel author could make that CuTe's own static assertions reject (so no mutant of a compiling
    kernel): the first error of the host build is the assertion the mutant's note quotes."""
    m = next(x for x in cm.REJECTED if x.name == name)
    err = DATA[name]["info"]["error"]
    assert not _stored(name) and "static assertion failed" in err
    assert err.split("static assertion failed", 1)[1].lstrip(": ").split(".")[0].strip() in m.why


@pytest.mark.parametrize("name", list(BY_NAME))
def test_mutant_is_one_line_edit_of_the_wheels_source(name):
    m = BY_NAME[name]
    src, text = (ROOT / m.path).read_text(), cm.mutated_text(m, ROOT)
    assert text != src and text.count("\n") == src.count("\n")
    changed = [i for i, (a, b) in enumerate(zip(src.splitlines(), text.splitlines())) if a != b]
    assert changed == [m.line - 1]
    rec = DATA[name]
    assert (rec["file"], rec["line"], rec["old"], rec["new"], rec["entry"]) == (m.path, m.line, m.old, m.new, m.entry)


@pytest.mark.parametrize("name", [m.name for m in cm.MUTANTS + cm.CONTROLS])
def test_mutant_refuted_at_its_argument_and_proved_on_the_original(name):
    """A mutant: exactly its expected rows refuted, the same rows proved on the unmodified source. A control (an
    edit that keeps the kernel consistent): nothing refuted. Neither adds an unknown."""
    m = BY_NAME[name]
    records, info = _records(name)
    assert "error" not in info and records and all(e["returncode"] == 0 for e in info["entries"].values())
    rows = _rows(m, records, info, cm.mutated_text(m, ROOT))
    assert cm.refuted(rows) == m.expect
    orig = _original_rows(m)
    for line, kind, arg in m.expect:
        same = [r for r in orig if (cm.launch_line(r), r["kind"], cm.argument(r)) == (line, kind, arg)]
        assert same and all(r["status"] == "proved" for r in same), (line, kind, arg)
    # the mutant adds no unknown the original does not have, except a TMA atom over the smem layout the mutant made
    # overlap (refuted `injective` there): the descriptor rules of a non-compact box are not decided
    overlap = any(kind == "injective" for _, kind, _ in m.expect)
    unknown = Counter((cm.launch_line(r), cm.argument(r)) for r in rows if r["status"] == "unknown"
                      and not (overlap and "not a compact one-to-one tile" in r.get("reason", "")))
    before = Counter((cm.launch_line(r), cm.argument(r)) for r in orig if r["status"] == "unknown")
    assert not unknown - before


# ------------------------------------------------------------------------------------ independent counts

def _by_index(name, line):
    return {r.index: r for r in _records(name)[0] if r.at.endswith(f":{line}")}


def _swz(x, b, m, s):
    return x ^ ((x >> s) & (((1 << b) - 1) << m))


def _smem(text):
    """An evaluator of a printed smem layout (``Sw<B,M,S> o _0 o L`` in elements, or a plain layout)."""
    if " o " not in text:
        lay = parse_plain(text)
        return lambda i: ev(lay, i)
    sw, lay = text.split(" o ")[0], parse_plain(text.split(" o ")[-1])
    b, m, s = (int(v) for v in sw[3:-1].split(","))
    return lambda i: _swz(ev(lay, i), b, m, s)


def _phase_degree(copy_rec, smem_text, tile_m, stride_k, bytes_per, threads):
    """The worst bank-group degree of one phase of ``threads`` threads writing their first vector: 16-byte
    (or 4-byte) units within a 128-byte window, counted from the printed TV layout and smem layout."""
    copy = read_printed(copy_rec.text, copy_rec.type)
    tv, smem = parse_plain(copy.fields["TiledLayout_TV"]), _smem(smem_text)
    unit = 16 if copy.op.endswith("uint128_t>") else 4
    groups = {}
    for t in range(threads):
        idx = ev(tv, t)                                   # (t, v=0) -> colex index into the (M, K) copy tile
        byte = bytes_per * smem(idx % tile_m + stride_k * (idx // tile_m))
        groups.setdefault(byte // unit % (128 // unit), set()).add(byte // unit)
    return max(len(v) for v in groups.values())


def test_hgemm_two_bit_swizzle_is_a_two_way_conflict():
    rec = _by_index("hgemm_swizzle_2bits", 424)
    assert rec[4].text.startswith("Sw<2,3,3> o _0 o ")
    assert _phase_degree(rec[5], rec[4].text, 16, 128, 2, 8) == 2
    orig = {r["index"]: Record(**r) for r in cm.original(BY_NAME["hgemm_swizzle_2bits"], HERE, _ALL)[0]}
    assert _phase_degree(orig[5], orig[4].text, 16, 128, 2, 8) == 1


def test_sgemm_nt_kmajor_threads_are_an_eight_way_conflict():
    rec = _by_index("sgemm_nt_threads_kmajor", 497)
    assert _phase_degree(rec[5], rec[4].text, 32 * 4, 128, 4, 8) == 8


def test_padded_nt_smem_breaks_the_16_byte_vectors():
    """sgemm_nt_padded: column k of sA starts at element 129 k, so a thread's 4 m-consecutive floats at (m, k)
    start at byte 4 (m + 129 k), not a multiple of 16 for k odd."""
    rec = _by_index("sgemm_nt_padded", 497)
    smem = _smem(rec[4].text)
    assert [smem(m + 128 * k) for m, k in ((0, 1), (4, 1))] == [129, 133]
    assert 4 * smem(128) % 16 != 0


@pytest.mark.parametrize("name,copy,smem,tile_m", [("hgemm_swizzle_shift4", 5, 4, 16),
                                                   ("hgemm_swizzle_shift4", 10, 9, 16),
                                                   ("hgemm_threads_32x4", 5, 4, 32)])
def test_hgemm_swizzle_and_thread_mutants_are_two_way_conflicts(name, copy, smem, tile_m):
    rec = _by_index(name, 424)
    assert _phase_degree(rec[copy], rec[smem].text, tile_m, 128, 2, 8) == 2


def test_wgmma_thread_mutant_is_a_two_way_conflict():
    rec = _by_index("wg_tn_threads_32x4", 463)
    text = rec[4].text.replace("Sw<3,4,3> o smem_ptr[16b](unset)", "Sw<3,3,3> o _0")  # bytes -> half elements
    assert _phase_degree(rec[5], text, 32, 128, 2, 8) == 2


@pytest.mark.parametrize("name,source", [("bw03_a_ktile_stride", "SMEMStorage::ASmemLayout"),
                                         ("bw01_a_overlap", "SMEMStorage::ASmemLayout"),
                                         ("bw01_a_ktile_stride", "SMEMStorage::ASmemLayout"),
                                         ("bw02_b_overlap", "SMEMStorage::BSmemLayout")])
def test_overlapping_mutants_have_two_coordinates_on_one_offset(name, source):
    records = _records(name)[0]
    rec = next(r for r in records if r.source == source)
    lay = parse_plain(rec.text.split(" o ")[-1])         # a swizzle is a bijection: the layout under it decides
    offsets = [ev(lay, i) for i in range(size_of(lay))]
    assert len(set(offsets)) < len(offsets)


def test_s2r_copy_tiled_for_b_fills_other_elements_than_the_a_fragment():
    """hgemm_s2r_tiled_for_b: the body tiles A's ldmatrix atom after the MMA's B operand and retiles tCrA (A's
    fragment) with it. The kernel body says so (``retiled``), and CuTe C++'s own printed layouts disagree: thread 0
    of its make_tiled_copy_B writes tile elements (16, ...) that thread 0's A fragment (LayoutA_TV of the tiled
    MMA) does not hold; cuteverify's counterexample names the same thread and element."""
    m = BY_NAME["hgemm_s2r_tiled_for_b"]
    text = cm.mutated_text(m, ROOT)
    la, start, _ = cpp_capture.find_launches(text, m.path)[0]
    assert cpp_flow.kernel_flow(text, la.kernel, start).retiled == {"s2r_copy_a": "A", "s2r_copy_b": "B"}
    records, info = _records(m.name)
    built = next(r for r in records if r.source == "s2r_copy_a")
    copy = read_printed(built.text, built.type)
    mma = next(r for r in records if r.index == 15)
    dst, a = parse_plain(copy.tiled["LayoutD_TV"]), parse_plain(read_printed(mma.text, mma.type).tiled["LayoutA_TV"])
    mine = {ev(dst, 128 * v) for v in range(8)}           # thread 0, its 8 values: colex (t, v), 128 threads
    theirs = {ev(a, 128 * v) for v in range(8)}
    assert 16 in mine - theirs
    row = next(r for r in _rows(m, records, info, text) if r["status"] == "refuted")
    assert (row["counterexample"]["thread"], row["counterexample"]["element"]) == (0, 16)
    assert "retiles it into the A fragment" in row["claim"]


def test_s2r_partition_of_a_feeding_the_b_fragment_is_refuted_at_a():
    """hgemm_s2r_src_of_a: ``tXsB = s2r_thr_copy_a.partition_S(sB)`` (A's ldmatrix slice) is copied into ``tXrB``
    (B's fragment, retiled by B's slice). CuTe C++'s printed layouts: thread 0 of make_tiled_copy_A(s2r_atom_A,
    mmaC) writes tile element 8, which thread 0's B fragment (LayoutB_TV) does not hold; cuteverify refutes the
    compatibility at `s2r_atom_A`, once per copy call (lines 245, 281), with the same thread and element."""
    m = BY_NAME["hgemm_s2r_src_of_a"]
    text = cm.mutated_text(m, ROOT)
    la, start, _ = cpp_capture.find_launches(text, m.path)[0]
    flow = cpp_flow.kernel_flow(text, la.kernel, start)
    assert [(v, x, line) for v, x, line, _ in flow.crossed] == [("s2r_copy_a", "B", 245), ("s2r_copy_a", "B", 281)]
    records, info = _records(m.name)
    built = next(r for r in records if r.source == "s2r_copy_a")
    mma = next(r for r in records if r.index == 15)
    dst = parse_plain(read_printed(built.text, built.type).tiled["LayoutD_TV"])
    b = parse_plain(read_printed(mma.text, mma.type).tiled["LayoutB_TV"])
    assert 8 in {ev(dst, 128 * v) for v in range(8)} - {ev(b, 128 * v) for v in range(size_of(b) // 128)}
    rows = [r for r in _rows(m, records, info, text) if r["status"] == "refuted"]
    assert len(rows) == 2 and all((r["counterexample"]["thread"], r["counterexample"]["element"]) == (0, 8)
                                  for r in rows)
    la, start, _ = cpp_capture.find_launches((ROOT / m.path).read_text(), m.path)[0]
    assert cpp_flow.kernel_flow((ROOT / m.path).read_text(), la.kernel, start).crossed == []


# ------------------------------------------------------------------------------ the capture, end to end

needs_gxx = pytest.mark.skipif(cpp_build.toolchain() is None,
                               reason="g++, the CUTLASS headers or CUDA's headers (cuda_runtime_api.h) are missing")


@pytest.mark.differential
@needs_gxx
@pytest.mark.parametrize("name", ["hgemm_s2r_src_of_a", "bw02_b_inter"])
def test_committed_records_are_what_the_capture_prints(monkeypatch, name):
    m = BY_NAME[name]
    cm.write_copy(m, ROOT)
    monkeypatch.chdir(cm.workdir(m))
    records, _, info = cpp_capture.capture(m.path, [m.entry], includes=[str((ROOT / m.path).parent)],
                                           defines=list(m.defines))
    assert all(e["returncode"] == 0 for e in info["entries"].values())
    assert [r.__dict__ for r in records] == _stored(name)
    assert cm.refuted(_rows(m, records, info, Path(m.path).read_text())) == m.expect
