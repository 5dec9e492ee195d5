"""``cuteverify trace cpp`` on CUTLASS's ``examples/cute/tutorial/sgemm_sm80.cu``, unmodified, as the
nvidia-cutlass wheel ships it (``cutlass_library/source/examples``; the tests skip without the wheel): the launch
rewrite, the print-form reader, the documents and their verdicts.

The cheap tests read ``cpp/sgemm_sm80.records.json``: the records a real host-only capture printed (g++ 12,
nvidia-cutlass 4.2.0's headers, CUDA 13.0's; regenerate with ``cpp_capture.capture``, see its
``generated_by``). The ``differential`` tests build the capture with g++ (about 20 s per translation unit,
cached by content; skipped without g++ / the CUTLASS or CUDA headers) and check the source and a mutant.
Expected values come from the source text and from an evaluator of printed layouts that shares no code with
cuteverify (tests/oracles/strategies.py).
"""
from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from cuteverify.errors import CaptureError
from cuteverify.frontend import manifest as mf
from cuteverify.frontend.cli.main import main
from cuteverify.frontend.trace import cpp_build, cpp_capture, cpp_check, cpp_flow
from cuteverify.frontend.trace.cpp_batch import Unit
from cuteverify.frontend.trace.cpp_capture import Record
from cuteverify.frontend.trace.cpp_emit import atom_layout_mnk
from cuteverify.frontend.trace.cpp_read import dtype_name, is_dynamic, op_name, read_printed, tile_text
from tests.oracles.strategies import ev, parse_plain

HERE = Path(__file__).parent / "cpp"
ROOT = Path(__file__).parents[3]
cutlass_library = pytest.importorskip("cutlass_library")
SRC = Path(cutlass_library.__file__).parent / "source" / "examples" / "cute" / "tutorial" / "sgemm_sm80.cu"
if not SRC.is_file():
    pytest.skip(f"the nvidia-cutlass wheel has no {SRC}", allow_module_level=True)
PATH = "examples/cute/tutorial/sgemm_sm80.cu"
HGEMM = "gemm_tn<cute::half_t, cute::half_t>"
ENTRIES = [HGEMM, "gemm_nt<cute::half_t, cute::half_t>", "gemm_nt<float, float, float, float, float>",
           "gemm_tn<float, float, float, float, float>"]


def _fixture():
    data = json.loads((HERE / "sgemm_sm80.records.json").read_text())
    return [Record(**r) for r in data["records"]], data["info"]


def _docs(records=None, info=None):
    if records is None:
        records, info = _fixture()
    return cpp_check.documents(PATH, SRC.read_text(), records, info)


def _rows(docs):
    results, _ = cpp_check.run_documents(docs)
    return results


# ------------------------------------------------------------------------------------------- the rewrite

def test_launches_found_with_their_argument_texts():
    text = SRC.read_text()
    found = cpp_capture.find_launches(text, PATH)
    lines = [i + 1 for i, ln in enumerate(text.splitlines()) if "<<<" in ln]
    assert [la.line for la, _, _ in found] == lines == [424, 497, 574]
    hg = found[0][0]
    assert hg.kernel == "kernel_fptr" and len(hg.args) == 18
    assert hg.args[6] == "s2r_atom_A" and hg.args[15] == "mmaC"
    assert found[1][0].args[6] == "Copy_Atom<AutoVectorizingCopy, TA>{}"  # a comma inside <...> is no split


def test_rewrite_keeps_every_source_line_in_place():
    text = SRC.read_text()
    unit, _ = cpp_capture.rewrite(text, PATH, [HGEMM])
    body = unit.split(f'#line 1 "{PATH}"\n', 1)[1].splitlines()
    src = text.splitlines()
    launch_spans = {424, 425, 426, 427, 428, 429, 497, 498, 499, 500, 501, 502, 574, 575, 576, 577, 578, 579}
    for n, line in enumerate(src, 1):
        if n not in launch_spans and "int main(" not in line:
            assert body[n - 1] == line, n
    assert "::cuteverify_capture::launch(" in body[423] and "<<<" not in "\n".join(body)


def test_first_error_names_the_cuda_only_construct():
    err = "k.cu:60:1: error: ISO C++ forbids declaration of \u2018__launch_bounds__\u2019 with no type\n"
    msg = cpp_capture.first_error("k.cu: In function\n" + err + "k.cu:70:1: error: later", "k.cu")
    assert "k.cu:60:1" in msg and "`__launch_bounds__`" in msg and "70" not in msg
    msg = cpp_capture.first_error("k.cu:9:3: error: \u2018threadIdx\u2019 was not declared", "k.cu")
    assert "`threadIdx`" in msg
    msg = cpp_capture.first_error("k.cu:720:3: error: \u2018gemm_tm\u2019 was not declared", "k.cu", 717, ["gemm_tm"])
    assert "in the driver" in msg and "--entry (gemm_tm)" in msg


def test_no_launch_and_no_entry_are_input_errors(tmp_path):
    with pytest.raises(CaptureError, match="no `kernel<<<"):
        cpp_capture.rewrite("int f() { return 0; }\n", "x.cu", ["f"])
    with pytest.raises(CaptureError, match="--entry"):
        cpp_capture.capture(SRC, [])


# ------------------------------------------------------------------------------------------ the reader

def test_printed_objects_read_back():
    records, _ = _fixture()
    hg = {r.index: r for r in records if r.at.endswith(":424")}
    copy = read_printed(hg[5].text, hg[5].type)
    assert copy.kind == "tiled_copy" and copy.op == "SM80_CP_ASYNC_CACHEALWAYS<uint128_t>" and copy.dtype == "f16"
    assert copy.fields == {"Tiler_MN": "(_16,_64)", "TiledLayout_TV": "((_8,_16),_8):((_128,_1),_16)"}
    atom = read_printed(hg[6].text, hg[6].type)
    assert atom.kind == "copy_atom" and atom.op == "SM75_U32x4_LDSM_N"
    assert atom.atom["ValLayoutSrc"] == "(_32,_8):(_8,_1)" and atom.atom["ValueType"] == "16b"
    mma = read_printed(hg[15].text, hg[15].type)
    assert mma.kind == "tiled_mma" and mma.op == "SM80_16x8x16_F16F16F16F16_TN"
    assert mma.fields["PermutationMNK"] == "(_32,_32,_16)"
    assert set(mma.tiled) == {"LayoutA_TV", "LayoutB_TV", "LayoutC_TV"} and set(copy.tiled) == {"LayoutS_TV", "LayoutD_TV"}
    sa = read_printed(hg[4].text, hg[4].type)
    assert sa.kind == "layout" and sa.text.startswith("Sw<3,3,3> o _0 o ") and not sa.dynamic
    assert read_printed(hg[3].text, hg[3].type).dynamic          # dA = (0,_1): ldA is a runtime value
    assert read_printed(hg[2].text, hg[2].type).kind == "pointer"
    with pytest.raises(CaptureError, match="ValLayoutDst"):
        read_printed("Copy_Atom\n  ThrID: _1:_0\n  ValLayoutSrc: (_1,_8):(_0,_1)\n", "cute::Copy_Atom<X, float>")


def test_names_tiles_and_atom_layouts():
    assert op_name("cute::SM80_CP_ASYNC_CACHEALWAYS<float, float>") == "SM80_CP_ASYNC_CACHEALWAYS<uint32_t>"
    assert op_name("cute::UniversalFMA<float, float, float, float>") == "UniversalFMA<float, float, float, float>"
    assert dtype_name("cutlass::half_t") == "f16" and dtype_name("cutlass::complex<float>") is None
    assert tile_text("(_32,_32,_16)") == "[32:1;32:1;16:1]" and tile_text("(_,_16:_2)") == "[_;16:2]"
    assert is_dynamic("(_128,0)") and not is_dynamic("Sw<2,3,3> o _0 o (_8,_8):(_8,_1)")
    # the atom layout the C++ type states (Layout<Shape<_2,_2,_1>, Stride<_1,_2,_0>>), from the printed VMNK
    assert atom_layout_mnk("(_32,_2,_2,_1):(_1,_32,_64,_0)") == "(2,2,1):(1,2,0)"
    assert atom_layout_mnk("(_1,_16,_16,_1):(_0,_1,_16,_0)") == "(16,16,1):(1,16,0)"


def test_kernel_body_relations():
    text = SRC.read_text()
    la, start, _ = cpp_capture.find_launches(text, PATH)[0]
    flow = cpp_flow.kernel_flow(text, la.kernel, start)
    assert flow.kernel == "gemm_device" and flow.params[4] == "sA_layout" and flow.params[14] is None
    assert flow.smem == {4: ["sA"], 9: ["sB"]}
    assert flow.built == {"s2r_copy_a": ("A", 6, 15), "s2r_copy_b": ("B", 11, 15)}
    assert {(c, s, i) for c, s, i, _, _ in flow.accesses} == {
        (5, "dst", 4), (10, "dst", 9), ("s2r_copy_a", "src", 4), ("s2r_copy_b", "src", 9)}
    assert [(c, s, t) for c, s, t, _, _ in flow.others] == [(5, "src", "gA"), (10, "src", "gB")]


# ----------------------------------------------------------------------------------- documents, verdicts

def test_hgemm_launch_every_argument_covered_and_proved():
    docs = _docs()
    rows = [r for r in _rows(docs) if r["kernel"] == "gemm_device_424"]
    claims = [r for r in rows if r["kind"] not in ("note", "unmapped")]
    assert claims and all(r["status"] == "proved" for r in claims), [r for r in claims if r["status"] != "proved"]
    kinds = {r["kind"] for r in claims}
    assert {"agrees", "covers", "injective", "banks", "vector", "compatible", "equal"} <= kinds
    args = {int(m.group(1)) for r in rows for m in [re.search(r"argument (\d+) ", r.get("at") or "")] if m}
    assert args == set(range(18))
    # the only unknowns: the cp.async reads of gA / gB are 16-byte vectors only where 8 | ldA (cpp_gmem)
    unmapped = [r for r in rows if r["kind"] == "unmapped"]
    assert len(unmapped) == 2 and all("8 | ld" in r["reason"] for r in unmapped), unmapped
    smem = {r["at"].split("`")[1] for r in claims if r["kind"] == "injective"}
    assert smem == {"sA", "sB"}


def test_asserting_entry_and_unreached_launch_are_reported():
    records, info = _fixture()
    rows = _rows(_docs([r for r in records if r.entry == HGEMM], {"entries": {
        HGEMM: info["entries"][HGEMM], ENTRIES[1]: info["entries"][ENTRIES[1]]}}))
    bad = [r for r in rows if r["kind"] == "unmapped" and "Not implemented" in r["reason"]]
    assert len(bad) == 1 and "signal 6" in bad[0]["reason"]
    unreached = {r["at"] for r in rows if r["kind"] == "note" and "no --entry" in r["reason"]}
    assert unreached == {f"{PATH}:497", f"{PATH}:574"}


def test_generic_tn_smem_writes_conflict_as_an_independent_count_says():
    """The tutorial's generic TN SGEMM writes its padded m-major smem (stride 129) with a k-major 32x8 thread
    layout, one float each: threads (m, k) and (m+1, k-1) hit one bank. cuteverify refutes `banks` there; the
    evaluator of printed layouts counts the same 4-way conflict."""
    records, _ = _fixture()
    rows = _rows(_docs())
    refuted = [r for r in rows if r["status"] == "refuted"]
    assert {(r["kernel"], r["kind"], r["at"].split("`")[1]) for r in refuted} == {
        ("gemm_device_574", "banks", "copyA"), ("gemm_device_574", "banks", "copyB")}
    rec = {r.index: r for r in records if r.at.endswith(":574")}
    copy = read_printed(rec[5].text, rec[5].type)
    tv, smem = parse_plain(copy.fields["TiledLayout_TV"]), parse_plain(rec[4].text)
    tile_m = int(copy.fields["Tiler_MN"].strip("()").split(",")[0].lstrip("_"))
    words = {}
    for t in range(32):                     # warp 0, its one value each
        idx = ev(tv, t)                     # (t, v=0) -> colex index into the tiler's (M, K) tile
        m, k = idx % tile_m, idx // tile_m
        w = ev(smem, m + 128 * k)           # f32: the element offset is the word
        words.setdefault(w % 32, set()).add(w)
    assert max(len(v) for v in words.values()) == 4 == refuted[0]["degree"]


def test_tiled_layouts_of_cute_cpp_are_cuteverifys():
    """CuTe C++'s get_layoutA/B/C_TV of the launched tiled MMA, get_layoutS/D_TV of the tiled copies, and its own
    make_tiled_copy_A/B(s2r atom, mma) (printed by the capture) equal cuteverify's; a changed print is refuted at
    the argument it belongs to."""
    records, info = _fixture()
    rows = [r for r in _rows(_docs()) if r["kernel"] == "gemm_device_424" and r["kind"] == "equal"]
    names = {r["claim"] for r in rows}
    for want in ("tv_layout_A_tiled of mmaC", "layout_src_tv_tiled of copyA", "layout_tv_tiled of s2r_copy_a (CuTe's)",
                 "tiler_mn[1] of s2r_copy_b (CuTe's)"):
        assert any(want in n for n in names), want
    assert all(r["status"] == "proved" for r in rows)

    def mutate(r):
        if r.at.endswith(":424") and r.index == 15:  # the tiled A layout, its two thread modes swapped
            head, tail = r.text.split("TiledLayouts")
            tail = tail.replace("LayoutA_TV: ((_4,_8,_2,_2),", "LayoutA_TV: ((_8,_4,_2,_2),")
            return Record(**{**r.__dict__, "text": head + "TiledLayouts" + tail})
        if r.at.endswith(":424") and r.source == "s2r_copy_a":
            return Record(**{**r.__dict__, "text": r.text.replace("Tiler_MN:       (_32,_16)", "Tiler_MN: (_16,_32)")})
        return r
    tiled = [r for r in records if r.at.endswith(":424") and r.index == 15][0].text
    assert "TiledLayouts\n  LayoutA_TV: ((_4,_8,_2,_2)," in tiled
    rows = [r for r in _rows(_docs([mutate(r) for r in records], info)) if r["kernel"] == "gemm_device_424"]
    refuted = {(r["claim"].split(" equals")[0], r["at"].split("`")[1]) for r in rows if r["status"] == "refuted"}
    assert refuted == {("cuteverify's tv_layout_A_tiled of mmaC", "mmaC"),
                       ("cuteverify's tiler_mn[0] of s2r_copy_a (CuTe's)", "s2r_atom_A"),
                       ("cuteverify's tiler_mn[1] of s2r_copy_a (CuTe's)", "s2r_atom_A")}


def test_mutated_printed_smem_layout_is_refuted_at_its_argument():
    records, info = _fixture()
    mutated = [r if not (r.at.endswith(":424") and r.index == 4) else
               Record(**{**r.__dict__, "text": r.text.replace("(_8,_512)", "(_8,_256)")}) for r in records]
    rows = _rows(_docs(mutated, info))
    refuted = {(r["kind"], r["at"].split("`")[1]) for r in rows if r["status"] == "refuted"
               and r["kernel"] == "gemm_device_424"}
    assert ("injective", "sA") in refuted and all(src == "sA" or kind == "banks" for kind, src in refuted)


# ------------------------------------------------------------------------------ the capture, end to end

needs_gxx = pytest.mark.skipif(cpp_build.toolchain() is None,
                               reason="g++, the CUTLASS headers or CUDA's headers (cuda_runtime_api.h) are missing")


@pytest.mark.differential
@needs_gxx
def test_capture_prints_what_the_fixture_holds(monkeypatch):
    monkeypatch.chdir(SRC.parents[3])  # the wheel's source/ folder: PATH is the file relative to it
    records, _, info = cpp_capture.capture(PATH, ENTRIES)
    assert len(records) == 3 * 18 + 3 * 2 and {r.at for r in records} == {f"{PATH}:{n}" for n in (424, 497, 574)}
    assert sorted(r.source for r in records if r.index >= cpp_capture.BUILT) == ["s2r_copy_a"] * 3 + ["s2r_copy_b"] * 3
    assert info["entries"][ENTRIES[1]]["returncode"] != 0 and info["entries"][HGEMM]["returncode"] == 0
    fixture, _ = _fixture()
    assert [(r.at, r.index, r.source, r.type, r.text) for r in records] == \
        [(r.at, r.index, r.source, r.type, r.text) for r in fixture]


def _noswizzle() -> Path:
    text = SRC.read_text()
    assert text.count("Swizzle<3,3,3>") == 1
    # a fixed path: the unit names its file, so the content-hash cache hits on the next run
    mutant = Path(tempfile.gettempdir()) / "cuteverify-trace-cpp" / "sgemm_sm80_noswizzle.cu"
    mutant.parent.mkdir(exist_ok=True)
    mutant.write_text(text.replace("Swizzle<3,3,3>", "Swizzle<0,3,3>"))
    return mutant


@pytest.mark.differential
@needs_gxx
def test_mutant_without_swizzle_is_refuted_at_the_cp_async_writes():
    """Without the swizzle (an edited copy of the source), each quarter warp's 16-byte cp.async writes of copyA
    land 128 bytes apart (k-chunks of one smem row): an 8-way conflict, refuted at the launch's `copyA` and
    `copyB` arguments. ldmatrix's reads stay conflict-free (its 8 row addresses are 8 rows of one atom, 16 bytes
    apart), so nothing else is refuted; the evaluator of printed layouts counts the same."""
    mutant = _noswizzle()
    records, _, info = cpp_capture.capture(str(mutant), [HGEMM])
    rows = _rows(cpp_check.documents(str(mutant), mutant.read_text(), records, info))
    refuted = {(r["kind"], r["at"].split("`")[1]) for r in rows if r["status"] == "refuted"}
    assert refuted == {("banks", "copyA"), ("banks", "copyB")}
    # besides: the gmem vectors' obligation 8 | ldA / ldB (cpp_gmem), unknown as on the unmodified source
    assert all(r["status"] in ("proved", "n/a") or "8 | ld" in (r.get("reason") or "")
               for r in rows if r["status"] != "refuted")
    rec = {r.index: r for r in records}
    copy = read_printed(rec[5].text, rec[5].type)
    tv = parse_plain(copy.fields["TiledLayout_TV"])
    smem = parse_plain(rec[4].text.split(" o ")[-1])     # Sw<0,3,3> is the identity
    chunks = {}
    for t in range(8):                                   # the first quarter warp, one 16-byte access each
        idx = ev(tv, t)
        m, k = idx % 16, idx // 16
        byte = 2 * ev(smem, m + 128 * k)
        chunks.setdefault(byte // 16 % 8, set()).add(byte)
    assert max(len(v) for v in chunks.values()) == 8


# ------------------------------------------------------------------------------------------------ the CLI

_SMALL = r"""#include <cute/tensor.hpp>
using namespace cute;

template <class SmemLayout, class Copy>
__global__ void stage(float const* in, SmemLayout sl, Copy copy)
{
  __shared__ float smem[cosize_v<SmemLayout>];
  Tensor s = make_tensor(make_smem_ptr(smem), sl);
  ThrCopy thr = copy.get_slice(threadIdx.x);
  Tensor ts = thr.partition_D(s);
}

void launch(float const* in)
{
  auto sl = make_layout(make_shape(Int<32>{}, Int<8>{}), make_stride(STRIDE));
  auto copy = make_tiled_copy(Copy_Atom<UniversalCopy<float>, float>{},
                              Layout<Shape<_32,_1>>{}, Layout<Shape<_1,_1>>{});
  stage<<<1, 32>>>(in, sl, copy);
}
"""


def _small(name, stride, body=_SMALL):
    path = Path(tempfile.gettempdir()) / "cuteverify-trace-cpp" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(body.replace("STRIDE", stride))
    return path


STRIDE_D = "SMEM_STRIDE=_1{},_32{}"


def _stages():
    """The row-major stage and the column-major one (its stride from -D STRIDE_D)."""
    return _small("stage_rowmajor.cu", "Int<8>{}, Int<1>{}"), _small("stage_colmajor.cu", "SMEM_STRIDE")


def _cg():
    return _small("stage_cg.cu", "Int<1>{}, Int<32>{}",
                  _SMALL.replace("Tensor ts = thr.partition_D(s);", "cooperative_groups::this_thread_block().sync();"))


@pytest.mark.differential
@needs_gxx
def test_cli_refutes_a_row_major_stage_at_its_copy_and_writes_the_manifest(tmp_path):
    """32 threads write one column of a row-major 32x8 float tile: words 8m, four banks, an 8-way conflict,
    refuted at the launch's `copy` argument; the column-major tile proves. The manifest loads."""
    bad, good = _stages()
    out = tmp_path / "stage.yaml"
    r = CliRunner().invoke(main, ["trace", "cpp", str(bad), "--entry", "launch", "--json", "--manifest", str(out)])
    assert r.exit_code == 1, r.output
    rows = json.loads(r.output)["results"]
    refuted = [x for x in rows if x["status"] == "refuted"]
    assert [(x["kind"], x["at"]) for x in refuted] == [("banks", f"{bad}:18: stage argument 2 `copy`")]
    assert refuted[0]["degree"] == 8
    assert {x["kind"] for x in rows if x["status"] == "proved"} >= {"injective", "covers", "vector"}
    assert mf.load_text(out.read_text(), str(out))
    r = CliRunner().invoke(main, ["trace", "cpp", str(good), "--entry", "launch", "-D", STRIDE_D, "--json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)["results"]
    assert {x["kind"] for x in rows if x["status"] == "proved"} >= {"injective", "covers", "vector", "banks"}
    assert all(x["at"].startswith(f"{good}:18: stage argument ") for x in rows)


@pytest.mark.differential
@needs_gxx
def test_cli_build_failure_names_the_first_error_and_its_cuda_construct():
    # (a warp shuffle no longer fails: the prelude declares it, cpp_cuda_only.STUBS)
    src = _cg()
    r = CliRunner().invoke(main, ["trace", "cpp", str(src), "--entry", "launch"])
    assert r.exit_code == 2
    assert f"{src}:10:" in r.output and "cooperative_groups (its header is empty without nvcc)" in r.output
    assert "Traceback" not in r.output


def cpp_units():
    """The translation units each differential test here captures, by test name: conftest.py builds those of the
    selected tests ahead, in parallel (cpp_batch), so that the tests' captures hit the cache."""
    bad, good = _stages()
    return {"test_capture_prints_what_the_fixture_holds": [Unit(PATH, tuple(ENTRIES), cwd=str(SRC.parents[3]))],
            "test_mutant_without_swizzle_is_refuted_at_the_cp_async_writes": [Unit(str(_noswizzle()), (HGEMM,))],
            "test_cli_refutes_a_row_major_stage_at_its_copy_and_writes_the_manifest": [
                Unit(str(bad), ("launch",)), Unit(str(good), ("launch",), defines=(STRIDE_D,))],
            "test_cli_build_failure_names_the_first_error_and_its_cuda_construct": [Unit(str(_cg()), ("launch",))]}
