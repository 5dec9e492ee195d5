"""``cuteverify trace cpp`` on CUTLASS's Blackwell tutorials 03 (multicast TMA), 04 (2-SM UMMA and TMA) and 05
(TMA epilogue), unmodified, as the nvidia-cutlass wheel ships them: the launch's cluster, the multicast / 2-SM TMA
atoms and the tensor memory (allocation, accumulator, TMEM copy) that :mod:`cuteverify.frontend.trace.cpp_replay`
has the host capture print and :mod:`cuteverify.frontend.trace.cpp_emit_sm100` claims.

The fast tests read ``cpp/blackwell_0[1-5]_*.records.json`` (``cpp/make_blackwell_records.py`` regenerates them);
expected values come from the source text and evaluators of printed layouts that share no code with cuteverify
(tests/oracles/strategies.py). The ``differential`` test builds a capture with g++ and compares it with its
fixture.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cuteverify.frontend.trace import cpp_build, cpp_capture, cpp_check, cpp_replay
from cuteverify.frontend.trace.cpp_capture import Record
from cuteverify.frontend.trace.cpp_flow import kernel_flow
from cuteverify.frontend.trace.cpp_flow_sm90 import sm90_flow
from tests.oracles.strategies import ev, parse_plain, size_of

HERE = Path(__file__).parent / "cpp"
cutlass_library = pytest.importorskip("cutlass_library")
ROOT = Path(cutlass_library.__file__).parent / "source"
DIR = ROOT / "examples" / "cute" / "tutorial" / "blackwell"
NAMES = {"01": "01_mma_sm100", "02": "02_mma_tma_sm100", "03": "03_mma_tma_multicast_sm100",
         "04": "04_mma_tma_2sm_sm100", "05": "05_mma_tma_epi_sm100"}
if not all((DIR / f"{n}.cu").is_file() for n in NAMES.values()):
    pytest.skip("the nvidia-cutlass wheel has not all five Blackwell tutorials", allow_module_level=True)


def _src(key):
    return DIR / f"{NAMES[key]}.cu"


def _path(key):
    return f"examples/cute/tutorial/blackwell/{NAMES[key]}.cu"


def _fixture(key):
    data = json.loads((HERE / f"blackwell_{NAMES[key]}.records.json").read_text())
    return [Record(**r) for r in data["records"]], data["info"]


def _rows(key, records=None, info=None):
    if records is None:
        records, info = _fixture(key)
    docs = cpp_check.documents(_path(key), _src(key).read_text(), records, info)
    return cpp_check.run_documents(docs)[0]


def _line(key, needle):
    lines = [i + 1 for i, ln in enumerate(_src(key).read_text().splitlines()) if needle in ln]
    assert len(lines) == 1, needle
    return lines[0]


def _mutate(records, source, old, new):
    out = []
    for r in records:
        if r.source == source:
            assert old in r.text, (old, r.text)
            r = Record(**{**r.__dict__, "text": r.text.replace(old, new)})
        out.append(r)
    return out


def _refuted(rows):
    return {(r["kind"], r["at"].split(": ", 1)[1].split(" (")[0]) for r in rows if r["status"] == "refuted"}


def _plan(key):
    text = _src(key).read_text()
    (la, a, _), = cpp_capture.find_launches(text, _path(key))
    flow = kernel_flow(text, la.kernel, a)
    return cpp_replay.replay_plan(text, flow, sm90_flow(text, flow))


# ------------------------------------------------------------------------------------------ what is replayed

def test_replay_reads_the_tensor_memory_objects_and_the_cluster_argument_from_the_body():
    plan = _plan("03")
    assert [(i.kind, i.name, i.line) for i in plan.items] == [
        ("acc", "tCtAcc", _line("03", "Tensor tCtAcc = cta_mma.make_fragment_C(tCgC);")),
        ("tmem_copy", "tiled_t2r_copy", _line("03", "= make_tmem_copy(")),
        ("tmem_part", "tDtAcc", _line("03", "Tensor tDtAcc = thr_t2r_copy.partition_S(tCtAcc);")),
        ("tmem_columns", "TmemAllocator::Sm100TmemCapacityColumns", _line("03", "tmem_allocator.allocate(")),
        ("tmem_allocator", "tmem_allocator", _line("03", "tmem_allocator.allocate("))]
    assert plan.params[plan.cluster_param] == "cluster_shape"
    assert plan.alloc_base == "shared_storage.tmem_base_ptr"
    assert plan.placed["tCtAcc"] == ("shared_storage.tmem_base_ptr", _line("03", "tCtAcc.data() = "))
    # only what the printed objects need, never a statement naming shared memory
    assert not [d for d in plan.decls if "shared_" in d]
    assert "Tensor tCtAcc = cta_mma.make_fragment_C(tCgC)" in plan.decls
    plan5 = _plan("05")
    assert [(i.kind, i.name, i.of, i.by) for i in plan5.items if i.kind.startswith("tmem_") and "col" not in i.kind
            and "alloc" not in i.kind] == [("tmem_copy", "t2r_copy", "tAcc_epi(_,_0{})", ""),
                                            ("tmem_tensor", "tAcc_epi", "tCtAcc", ""),
                                            ("tmem_part", "tTR_tAcc", "tAcc_epi", "t2r_copy")]


def test_replay_renames_the_template_parameters_it_binds():
    """The lambda sits in the host function, whose own template parameters (``Alpha``) must not be shadowed: a
    kernel template parameter the replay uses is bound as ``cv_t_NAME``."""
    text = _src("03").read_text()
    (la, a, e), = cpp_capture.find_launches(text, _path("03"))
    call = cpp_replay.capture_calls(_plan("03"), la.args, '"at"', '"k"', lambda t: f'"{t}"')
    assert "using cv_t_TiledMMA = ::std::decay_t<decltype(tiled_mma)>;" in call
    assert "typename cv_t_TiledMMA::AtomThrID{}" in call and "using Alpha" not in call
    assert call.startswith("[](auto mA, auto mB, auto mC, auto mD, auto mma_tiler, auto tiled_mma, auto cluster_shape")
    assert call.endswith("(mA_tma, mB_tma, mC, mD, mma_tiler, tiled_mma, cluster_shape, tma_atom_A, tma_atom_B, "
                         "alpha, beta); ")
    assert cpp_replay.cluster_call(text, a, e, '"at"', '"k"', lambda t: f'"{t}"') == \
        '::cuteverify_capture::cluster("at", 5000, "k", "launch cluster: params", params); '


def test_no_tensor_memory_no_replay():
    """A kernel without tensor memory (sgemm_sm80's register accumulator ``make_fragment_C``) replays nothing."""
    src = ROOT / "examples" / "cute" / "tutorial" / "sgemm_sm80.cu"
    text = src.read_text()
    for la, a, _ in cpp_capture.find_launches(text, "sgemm_sm80.cu"):
        flow = kernel_flow(text, la.kernel, a)
        plan = cpp_replay.replay_plan(text, flow, sm90_flow(text, flow))
        assert plan is not None and not plan.items and plan.cluster_param is None


# ------------------------------------------------------------------------------------------- the launches

@pytest.mark.parametrize("key, atoms, views", [("03", ("tma_atom_A", "tma_atom_B"), 1),
                                               ("04", ("tma_atom_A", "tma_atom_B"), 1),
                                               ("05", ("tma_atom_A", "tma_atom_B"), 2)])
def test_every_argument_checked_every_claim_proved(key, atoms, views):
    rows = _rows(key)
    claims = [r for r in rows if r["kind"] not in ("note", "unmapped")]
    assert claims and all(r["status"] == "proved" for r in claims), [r for r in claims if r["status"] != "proved"]
    assert not [r for r in rows if r["kind"] == "unmapped"]
    text = _src(key).read_text()
    (la, _, _), = cpp_capture.find_launches(text, _path(key))
    args = {int(m.group(1)) for r in rows for m in [re.search(r" argument (\d+) ", r.get("at") or "")] if m}
    assert args == set(range(len(la.args)))
    kinds = [r["kind"] for r in claims]
    assert (kinds.count("tma_atom"), kinds.count("tmem_alloc"), kinds.count("tmem_view")) == (2, 1, views)
    assert {r["at"].split("`")[1] for r in claims if r["kind"] == "tma_atom"} == set(atoms)
    cl = [r for r in claims if r["kind"] == "equal" and "launch's cluster" in r["claim"]]
    assert len(cl) == 1 and "argument " + str(la.args.index("cluster_shape")) in cl[0]["at"]
    part = [r for r in claims if r["kind"] == "equal" and "partition_S" in r["claim"]]
    assert len(part) == 1


def _tmem_layout(text):
    m = re.fullmatch(r"tmem_\[32b\]\(0x0000\.0000\) o (.+)", text.strip())
    return parse_plain(m.group(1))


@pytest.mark.parametrize("key", ["01", "03", "04", "05"])
def test_the_accumulator_lies_in_the_allocation_counted_independently(key):
    """The printed TMEM accumulator (32-bit cells: lane = offset >> 16, column = offset & 0xffff), evaluated
    coordinate by coordinate: 128 lanes by 256 columns, inside the 512 columns the body allocates."""
    records, _ = _fixture(key)
    acc = [r for r in records if r.source == "acc: tCtAcc"]
    cols = [r for r in records if r.source.startswith("tmem_columns: ")]
    assert len(acc) == 1 and [r.text for r in cols] == ["512"]
    lay = _tmem_layout(acc[0].text)
    offs = {ev(lay, i) for i in range(size_of(lay))}
    assert {o >> 16 for o in offs} == set(range(128)) and {o & 0xFFFF for o in offs} == set(range(256))
    rows = [r for r in _rows(key) if r["kind"] in ("tmem_view", "tmem_alloc")]
    assert sorted(r["kind"] for r in rows)[:2] == ["tmem_alloc", "tmem_view"]
    assert all(r["status"] == "proved" for r in rows)


def test_multicast_counts_are_the_cluster_extents_counted_independently():
    """03: A multicasts over the cluster's N extent, B over its M extent (1-SM MMA: V = 1); 04: the same over the
    CTA pairs (2-SM MMA: the M extent 4 / V 2 = 2). The printed counts and the launch's cluster (4,4,1) say so."""
    for key, (a, b) in (("03", (4, 4)), ("04", (4, 2)), ("05", (4, 2))):
        records, _ = _fixture(key)
        by = {r.source.split(":")[0]: r.text for r in records}
        assert by["launch cluster"] == "(4,4,1)"
        assert (by["tma_atom_A multicast"], by["tma_atom_B multicast"]) == (f"_{a}", f"_{b}")
        m, n = 4, 4
        v = 2 if key != "03" else 1
        assert (n, m // v) == (a, b)


# ------------------------------------------------------------------------------------ mutants of the records

def test_a_cluster_the_multicast_does_not_fit_is_refuted_at_the_atoms_and_the_cluster_argument():
    records, info = _fixture("03")
    rows = _rows("03", _mutate(records, "launch cluster: params", "(4,4,1)", "(2,2,1)"), info)
    assert _refuted(rows) == {("tma_atom", "kernel_ptr argument 7 `tma_atom_A`"),
                              ("tma_atom", "kernel_ptr argument 8 `tma_atom_B`"),
                              ("equal", "kernel_ptr argument 6 `cluster_shape`")}
    why = [r["counterexample"]["note"] for r in rows if r["kind"] == "tma_atom"]
    assert all("num_multicast 4 divides neither cluster extent x 2 nor y 2" in w for w in why)


def test_an_odd_cluster_x_is_refuted_for_the_2sm_atoms():
    records, info = _fixture("04")
    rows = _rows("04", _mutate(records, "launch cluster: params", "(4,4,1)", "(3,4,1)"), info)
    refuted = _refuted(rows)
    assert ("equal", "kernel_ptr argument 6 `cluster_shape`") in refuted
    assert {("tma_atom", "kernel_ptr argument 7 `tma_atom_A`"), ("tma_atom", "kernel_ptr argument 8 `tma_atom_B`")} \
        <= refuted
    assert any("odd x extent 3" in r["counterexample"]["note"] for r in rows if r["kind"] == "tma_atom")


def test_an_allocation_smaller_than_the_accumulator_is_refuted_at_it():
    records, info = _fixture("03")
    source = "tmem_columns: TmemAllocator::Sm100TmemCapacityColumns"
    rows = _rows("03", _mutate(records, source, "512", "128"), info)
    acc = _line("03", "Tensor tCtAcc = cta_mma.make_fragment_C(tCgC);")
    assert {k for k, _ in _refuted(rows)} == {"tmem_view"}
    at = [r["at"] for r in rows if r["status"] == "refuted"][0]
    assert at.endswith(f"03_mma_tma_multicast_sm100.cu:{acc}: Tensor tCtAcc = cta_mma.make_fragment_C(tCgC)")
    rows = _rows("03", _mutate(records, source, "512", "384"), info)
    assert {k for k, _ in _refuted(rows)} == {"tmem_alloc"}


def test_a_partition_cute_did_not_print_is_refuted_at_the_partition():
    records, info = _fixture("03")
    rows = _rows("03", _mutate(records, "tmem_part: tDtAcc", "((_65536,_0),_1,_0,_0)", "((_65536,_0),_2,_0,_0)"),
                 info)
    refuted = [r for r in rows if r["status"] == "refuted"]
    assert [r["kind"] for r in refuted] == ["equal"] and "partition_S of `tCtAcc`" in refuted[0]["claim"]


def test_a_tma_atom_made_for_another_smem_layout_is_refuted_at_it():
    records, info = _fixture("04")
    rows = _rows("04", _mutate(records, "tma_atom_B smem: sB_layout", "Sw<3,4,3>", "Sw<2,4,3>"), info)
    assert {at for _, at in _refuted(rows)} == {"kernel_ptr argument 8 `tma_atom_B`"}


def test_records_without_the_blackwell_prints_are_unknowns_naming_why():
    """A capture whose Blackwell prints did not compile (cpp_capture builds again without any of them) prints no
    TMEM object, no cluster and no multicast count: the accumulator, the TMEM copy, the cluster argument and the
    multicast atoms are unknown rows quoting the compiler's error; nothing is claimed on them."""
    records, info = _fixture("03")
    bare = [r for r in records if r.index < cpp_replay.CLUSTER and not (r.index >= 3000 and r.index % 10 == 4)]
    rows = _rows("03", bare, dict(info, replay_error="the host-only build failed:\n  unit.cpp:1:1: error: boom"))
    unknown = [r for r in rows if r["kind"] == "unmapped"]
    assert len(unknown) == 5 and all("boom" in r["reason"] for r in unknown)
    assert {r["at"].split("`")[1] for r in unknown if "`" in r["at"]} == {"cluster_shape", "tma_atom_A", "tma_atom_B"}
    assert not [r for r in rows if r["kind"] in ("tmem_view", "tmem_alloc", "tma_atom")]
    assert all(r["status"] == "proved" for r in rows if r["kind"] not in ("note", "unmapped"))


# ------------------------------------------------------------------------------ the capture, end to end

needs_gxx = pytest.mark.skipif(cpp_build.toolchain() is None,
                               reason="g++, the CUTLASS headers or CUDA's headers (cuda_runtime_api.h) are missing")


@pytest.mark.differential
@needs_gxx
@pytest.mark.parametrize("key", ["03", "04", "05"])
def test_capture_prints_what_the_fixture_holds(monkeypatch, key):
    monkeypatch.chdir(ROOT)
    _, info = _fixture(key)
    entry, = info["entries"]
    records, _, got = cpp_capture.capture(_path(key), [entry], defines=["CUTLASS_ARCH_MMA_SM100_SUPPORTED=1"])
    fixture, _ = _fixture(key)
    assert [(r.at, r.index, r.source, r.type, r.text) for r in records] == \
        [(r.at, r.index, r.source, r.type, r.text) for r in fixture]
    assert "replay_error" not in got and got["entries"] == info["entries"]


def test_the_cluster_of_each_call_form_launch_is_printed_from_its_configuration():
    text = ("void host() {\n"
            "  auto s = cutlass::launch_kernel_on_cluster(params, (void const*) kptr, a, b);\n"
            "  cudaError_t e = cudaLaunchKernelEx(&cfg /* the config */, &kern<T, 4>, x);\n"
            "  kern<<<1, 2>>>(y);\n"
            "}\n")
    spans = [(a, e) for _, a, e in cpp_capture.find_launches(text, "t.cu")]
    calls = [cpp_replay.cluster_call(text, a, e, '"at"', '"k"', lambda t: f'"{t}"') for a, e in spans]
    assert calls == ['::cuteverify_capture::cluster("at", 5000, "k", "launch cluster: params", params); ',
                     '::cuteverify_capture::cluster("at", 5000, "k", "launch cluster: &cfg", &cfg); ', ""]
    # the printer: a cudaLaunchConfig_t pointer is read through its cluster dimension attribute
    assert "cudaLaunchAttributeClusterDimension" in cpp_replay.POSTLUDE and "p.cluster_dims.x" in cpp_replay.POSTLUDE


@pytest.mark.differential
@needs_gxx
def test_blackwell_prints_that_do_not_compile_fall_back_to_the_plain_capture(monkeypatch):
    """The replayed statements are the kernel's own, compiled in another scope: when they do not compile, the
    capture builds the unit again without any Blackwell print, keeps every launch argument, and says why."""
    monkeypatch.chdir(ROOT)
    real = cpp_replay.capture_calls
    monkeypatch.setattr(cpp_replay, "capture_calls",
                        lambda *a, **k: real(*a, **k).replace("Tensor tCtAcc =", "cv_no_such_name; Tensor tCtAcc ="))
    _, info = _fixture("03")
    entry, = info["entries"]
    records, _, got = cpp_capture.capture(_path("03"), [entry], defines=["CUTLASS_ARCH_MMA_SM100_SUPPORTED=1"])
    assert "cv_no_such_name" in got["replay_error"]
    fixture, _ = _fixture("03")
    plain = [(r.index, r.source, r.text) for r in fixture
             if r.index < cpp_replay.CLUSTER and not (r.index >= 3000 and r.index % 10 == 4)]
    assert [(r.index, r.source, r.text) for r in records] == plain
    rows = _rows("03", records, got)
    unknown = [r for r in rows if r["kind"] == "unmapped"]
    assert len(unknown) == 5 and all("cv_no_such_name" in r["reason"] for r in unknown)


def test_a_tmem_tensor_not_computed_from_the_accumulator_is_not_placed():
    """05's ``tAcc_epi`` is ``zipped_divide(tCtAcc, ...)``: placed where the accumulator is. Written over another
    TMEM pointer (same records, edited source) nothing places it in the allocation: unknown, not claimed."""
    text = _src("05").read_text()
    old = "Tensor tAcc_epi = zipped_divide(tCtAcc, epi_tiler_v);"
    assert text.count(old) == 1
    edited = text.replace(old, "Tensor tAcc_epi = zipped_divide(make_tensor(make_tmem_ptr<float>(), tCgC.layout()), "
                               "epi_tiler_v);")
    records, info = _fixture("05")
    rows = cpp_check.run_documents(cpp_check.documents(_path("05"), edited, records, info))[0]
    views = [r for r in rows if r["kind"] == "tmem_view"]
    assert len(views) == 1 and "tCtAcc" in views[0]["claim"]
    assert [r for r in rows if r["kind"] == "unmapped" and "not placed in the allocation" in r["reason"]
            and "tTR_tAcc" in r["claim"]]
