"""``cuteverify trace cpp`` on CUTLASS's Blackwell tutorial ``examples/cute/tutorial/blackwell/01_mma_sm100.cu``,
unmodified, as the nvidia-cutlass wheel ships it (the tests skip without the wheel): the call-form launch
(``cutlass::launch_kernel_on_cluster``), the smem layouts the kernel takes as storage template arguments, the
UMMA tiled MMA, the units of the smem atom's swizzle, and the ``operand`` claims.

The cheap tests read ``cpp/blackwell_01_mma_sm100.records.json``: the records a real host-only capture printed
(its ``generated_by`` says how). The ``differential`` tests build the capture with g++ (about 15-25 s per
translation unit, cached by content; skipped without g++ / the CUTLASS or CUDA headers) and check the source
and a mutant. Expected values come from the source text, the library's hardware byte formula of the SW128 atom,
and an evaluator of printed layouts that shares no code with cuteverify (tests/oracles/strategies.py).
"""
from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from cuteverify.errors import CuteVerifyError
from cuteverify.frontend.cli.main import main
from cuteverify.frontend.trace import cpp_build, cpp_capture, cpp_check, cpp_storage
from cuteverify.frontend.trace.cpp_batch import Unit
from cuteverify.frontend.trace.cpp_capture import Record
from cuteverify.frontend.trace.cpp_emit_storage import element_layout
from cuteverify.frontend.trace.cpp_launch import arch_guards
from cuteverify.hardware.library import catalog
from tests.oracles.strategies import ev, parse_plain, size_of

HERE = Path(__file__).parent / "cpp"
cutlass_library = pytest.importorskip("cutlass_library")
ROOT = Path(cutlass_library.__file__).parent / "source"
SRC = ROOT / "examples" / "cute" / "tutorial" / "blackwell" / "01_mma_sm100.cu"
if not SRC.is_file():
    pytest.skip(f"the nvidia-cutlass wheel has no {SRC}", allow_module_level=True)
PATH = "examples/cute/tutorial/blackwell/01_mma_sm100.cu"
_L = "cute::Layout<cute::tuple<int, int>, cute::tuple<int, cute::C<1>>>"
ENTRY = f"gemm_host_f16xf16_f32_f32_tnt<cute::half_t, {_L}, cute::half_t, {_L}, float, {_L}, float, {_L}, float, float>"
DEFINES = ["CUTLASS_ARCH_MMA_SM100_SUPPORTED=1"]  # what nvcc >= 12.8 defines; the tutorial's code sits under it


def _line(needle: str) -> int:
    lines = [i + 1 for i, ln in enumerate(SRC.read_text().splitlines()) if needle in ln]
    assert len(lines) == 1, needle
    return lines[0]


LAUNCH = _line("cutlass::launch_kernel_on_cluster(params")


def _fixture():
    data = json.loads((HERE / "blackwell_01_mma_sm100.records.json").read_text())
    return [Record(**r) for r in data["records"]], data["info"]


def _rows(records=None, info=None, path=PATH, text=None):
    if records is None:
        records, info = _fixture()
    docs = cpp_check.documents(path, text if text is not None else SRC.read_text(), records, info)
    return cpp_check.run_documents(docs)[0]


def _mutate(records, pred, old, new, field="text"):
    out = []
    for r in records:
        if pred(r):
            assert old in getattr(r, field), (old, getattr(r, field))
            r = Record(**{**r.__dict__, field: getattr(r, field).replace(old, new)})
        out.append(r)
    return out


# ------------------------------------------------------------------------------------ launch and rewrite

def test_cluster_launch_found_with_its_kernel_arguments():
    found = cpp_capture.find_launches(SRC.read_text(), PATH)
    assert len(found) == 1
    la = found[0][0]
    assert la.line == LAUNCH and la.kernel == "kernel_ptr" and la.value == "::cutlass::Status::kSuccess"
    assert la.args == ("mA", "mB", "mC", "mD", "mma_tiler", "tiled_mma", "cluster_shape", "alpha", "beta")


def test_rewrite_keeps_every_source_line_in_place():
    text = SRC.read_text()
    unit, _ = cpp_capture.rewrite(text, PATH, [ENTRY])
    body = unit.split(f'#line 1 "{PATH}"\n', 1)[1].splitlines()
    src = text.splitlines()
    for n, line in enumerate(src, 1):
        if not LAUNCH <= n <= LAUNCH + 3 and "int main(" not in line:
            assert body[n - 1] == line, n
    # the call is an expression (`cutlass::Status status = ...;` still compiles): a lambda returning success
    assert body[LAUNCH - 1].startswith("  cutlass::Status status = ([&]() {")
    assert body[LAUNCH - 1].endswith("return ::cutlass::Status::kSuccess; }())")
    assert "targ_t<2, SMEMStorage>" in body[LAUNCH - 1] and "targ_t<3, SMEMStorage>" in body[LAUNCH - 1]


def test_storage_flow_follows_the_struct_methods_to_its_template_parameters():
    text = SRC.read_text()
    at = text.index("cutlass::launch_kernel_on_cluster(params")
    flow = cpp_storage.storage_flow(text, "gemm_device", "kernel_ptr", at)
    got = [(t.tensor, t.line, t.targ, t.type_text, t.struct, t.method, t.param, t.param_index) for t in flow.tensors]
    assert got == [("tCsA", _line("Tensor tCsA = shared_storage.tensor_sA();"), 0, "SMEMStorage", "SharedStorage",
                    "tensor_sA", "ASmemLayout", 2),
                   ("tCsB", _line("Tensor tCsB = shared_storage.tensor_sB();"), 0, "SMEMStorage", "SharedStorage",
                    "tensor_sB", "BSmemLayout", 3)]
    frags = {(m, how, op, t) for m, how, op, t, _, _ in flow.fragments}
    assert {(5, "make_fragment", "A", "tCsA"), (5, "make_fragment", "B", "tCsB"), (5, "make_fragment", "C", "tCgC"),
            (5, "partition", "A", "gA")} <= frags
    assert [(v, ln) for v, ln, _ in flow.tmem_copies] == [("tiled_t2r_copy", _line("make_tmem_copy(SM100_TMEM"))]


# ---------------------------------------------------------------------------------------------- units

def _swizzled(text, i):
    """Independent evaluator of ``Sw<B,M,S> o _0 o L`` at index ``i``: CuTe's Swizzle on L's offset."""
    m = re.fullmatch(r"Sw<(\d+),(\d+),(\d+)> o _0 o (.+)", text)
    b, base, s = (int(m.group(k)) for k in (1, 2, 3))
    x = ev(parse_plain(m.group(4)), i)
    mask = ((1 << b) - 1) << (base + s)
    return x ^ ((x & mask) >> s)


def test_element_domain_of_the_umma_atom_matches_the_librarys_byte_formula():
    """The printed ``Sw<3,4,3> o smem_ptr[16b](unset) o L`` acts on bytes: read in elements it is Sw<3,3,3>, and
    each element of the tile lands where the library's SW128 K-major formula for 16-bit elements (the hardware's
    byte pattern, ``(addr ^ (((addr >> 7) & 7) << 4)) // 2`` for the byte address ``addr``) puts it."""
    records, _ = _fixture()
    rec = [r for r in records if r.source == "SMEMStorage::ASmemLayout"][0]
    assert rec.text.startswith("Sw<3,4,3> o smem_ptr[16b](unset) o ") and "smem_ptr_flag_bits<16>" in rec.type
    text = element_layout(rec.text)
    assert text == "Sw<3,3,3> o _0 o ((_128,_16),_1,_4):((_64,_1),_0,_16)"
    spec, _ = catalog.resolve("GMMA::Layout_K_SW128_Atom<half_t>")  # UMMA's K_SW128 atom is GMMA's
    formula = spec.data["offset"]
    plain = parse_plain(text.split(" o ")[2])
    n = size_of(plain)
    assert n == 128 * 16 * 4
    for i in range(n):
        addr = 2 * ev(plain, i)
        assert _swizzled(text, i) == eval(formula, {"addr": addr}), i  # noqa: S307 (library data)


def test_element_layout_refuses_what_it_cannot_read():
    assert element_layout("Sw<3,3,3> o _0 o (8,64):(64,1)") == "Sw<3,3,3> o _0 o (8,64):(64,1)"
    for bad in ("Sw<3,4,3> o smem_ptr[12b](unset) o (8,64):(64,1)", "Sw<3,0,3> o smem_ptr[16b](unset) o (8,8):(8,1)",
                "Sw<3,4,3> o smem_ptr[16b](0x10) o (8,64):(64,1)"):
        with pytest.raises(CuteVerifyError):
            element_layout(bad)


# ------------------------------------------------------------------------------------------- documents

def test_launch_every_argument_covered_and_proved():
    rows = _rows()
    claims = [r for r in rows if r["kind"] not in ("note", "unmapped")]
    assert claims and all(r["status"] == "proved" for r in claims), [r for r in claims if r["status"] != "proved"]
    assert {"agrees", "covers", "equal", "injective", "operand"} <= {r["kind"] for r in claims}
    args = {int(m.group(1)) for r in rows for m in [re.search(r" argument (\d+) ", r.get("at") or "")] if m}
    assert args == set(range(9))
    assert all(r["at"].startswith(f"{PATH}:{LAUNCH}: ") for r in rows)
    operand = sorted(r["at"] for r in claims if r["kind"] == "operand")
    assert [a.split(": ", 1)[1].split(" (")[0] for a in operand] == \
        ["kernel_ptr template argument 0 `SMEMStorage`: ASmemLayout", "kernel_ptr template argument 0 `SMEMStorage`: BSmemLayout"]
    # the TMEM accumulator, its allocation and its copy, replayed on the host (cpp_replay): claimed, no unknown
    assert {"tmem_alloc", "tmem_view"} <= {r["kind"] for r in claims}
    assert not [r for r in rows if r["kind"] == "unmapped"]


def _refuted(rows):
    return {(r["kind"], r["at"].split(": ", 1)[1].split(" (")[0]) for r in rows if r["status"] == "refuted"}


A_AT = "kernel_ptr template argument 0 `SMEMStorage`: ASmemLayout"
B_AT = "kernel_ptr template argument 0 `SMEMStorage`: BSmemLayout"


def test_unit_of_the_swizzle_is_load_bearing():
    """Read as an element swizzle (the form CuTe prints for a layout swizzle), the SW128 atom's byte pattern is not
    what the K-major descriptor reads: operand A is refuted, at its template argument, and nothing else."""
    records, info = _fixture()
    pred = lambda r: r.source == "SMEMStorage::ASmemLayout"  # noqa: E731
    flag = "cute::smem_ptr_flag_bits<16>"
    elem = _mutate(_mutate(records, pred, "smem_ptr[16b](unset)", "_0"), pred, flag, "cute::C<0>", field="type")
    assert _refuted(_rows(elem, info)) == {("operand", A_AT)}
    # a flag width that contradicts the MMA's f16 operand: an unknown at operand A, no verdict
    wide = _mutate(_mutate(records, pred, "smem_ptr[16b]", "smem_ptr[32b]"), pred, flag, flag.replace("16", "32"),
                   field="type")
    rows = _rows(wide, info)
    assert not _refuted(rows)
    assert [r["at"] for r in rows if r["kind"] == "operand"] == \
        [r["at"] for r in _rows() if r["kind"] == "operand" and B_AT in r["at"]]
    assert [r for r in rows if r["kind"] == "unmapped" and "flagged for 32-bit" in r["reason"] and A_AT in r["at"]]
    # a print and a type that disagree on the flag: the layout is unknown, nothing is claimed on it
    rows = _rows(_mutate(records, pred, "smem_ptr[16b](unset)", "_0"), info)
    assert not _refuted(rows) and not [r for r in rows if A_AT in (r["at"] or "") and r["kind"] != "unmapped"]


def test_major_swapped_in_the_printed_type_is_refuted_at_the_operand():
    records, info = _fixture()
    rows = _rows(_mutate(records, lambda r: r.source == "tiled_mma", "float, 128, 256, cute::UMMA::Major::K,",
                         "float, 128, 256, cute::UMMA::Major::MN,", field="type"), info)
    assert _refuted(rows) == {("operand", A_AT)}


# ------------------------------------------------------------------------------ the capture, end to end

needs_gxx = pytest.mark.skipif(cpp_build.toolchain() is None,
                               reason="g++, the CUTLASS headers or CUDA's headers (cuda_runtime_api.h) are missing")


@pytest.mark.differential
@needs_gxx
def test_capture_prints_what_the_fixture_holds_and_the_cli_reports_it(monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)  # the wheel's source/ folder: PATH is the file relative to it
    records, _, info = cpp_capture.capture(PATH, [ENTRY], defines=DEFINES)
    fixture, finfo = _fixture()
    assert [(r.at, r.index, r.source, r.type, r.text) for r in records] == \
        [(r.at, r.index, r.source, r.type, r.text) for r in fixture]
    assert info["entries"] == finfo["entries"]
    out = tmp_path / "bw.yaml"
    res = CliRunner().invoke(main, ["trace", "cpp", PATH, "--entry", ENTRY, "-D", DEFINES[0], "--manifest", str(out)])
    assert res.exit_code == 0, res.output  # every claim proved, the TMEM accumulator and its copy included
    assert "operand" in out.read_text() and "tmem_view" in out.read_text()


def _overlap() -> Path:
    text = SRC.read_text()
    old = "auto sA_layout = UMMA::tile_to_mma_shape(UMMA::Layout_K_SW128_Atom<TypeA>{}, mma_shape_A);"
    assert text.count(old) == 1
    new = ("auto sA_layout = make_layout(mma_shape_A, make_stride(make_stride(Int<8>{}, Int<1>{}), Int<0>{}, "
           "Int<16>{}));")
    mutant = Path(tempfile.gettempdir()) / "cuteverify-trace-cpp" / "bw01_overlap.cu"
    mutant.parent.mkdir(exist_ok=True)
    mutant.write_text(text.replace(old, new))
    return mutant


@pytest.mark.differential
@needs_gxx
def test_mutant_with_overlapping_rows_is_refuted_at_its_storage_argument():
    """An edited copy lays A out by hand, rows 8 elements apart but 16 wide: an unswizzled K-major layout CuTe's
    make_umma_desc accepts (its canonical INTERLEAVE form leaves both byte offsets free) whose rows overlap. The
    injective claim of A's storage layout is refuted at template argument 0 `SMEMStorage` (ASmemLayout), every
    refutation is there, and B's claims still prove. (A swapped major, by contrast, is CuTe's own static assertion
    in make_umma_desc: the host build fails with it as its first error.)"""
    mutant = _overlap()
    records, _, info = cpp_capture.capture(str(mutant), [ENTRY], includes=[str(SRC.parent)], defines=DEFINES)
    sa = [r for r in records if r.source == "SMEMStorage::ASmemLayout"]
    assert [r.text for r in sa] == ["((_128,_16),_1,_4):((_8,_1),_0,_16)"]
    lay = parse_plain(sa[0].text)  # the independent evaluator: two coordinates on one offset
    offsets = [ev(lay, i) for i in range(size_of(lay))]
    assert len(set(offsets)) < len(offsets)
    rows = _rows(records, info, str(mutant), mutant.read_text())
    refuted = _refuted(rows)
    assert ("injective", A_AT) in refuted and all(at == A_AT for _, at in refuted)
    assert all(r["status"] == "proved" for r in rows if B_AT in (r["at"] or "") and r["kind"] != "unmapped")


# ------------------------------------------------------------------ 02_mma_tma_sm100.cu: TMA loads into the same smem

SRC02 = SRC.parent / "02_mma_tma_sm100.cu"
PATH02 = "examples/cute/tutorial/blackwell/02_mma_tma_sm100.cu"


def _lay(m, n):
    return f"cute::make_layout(cute::make_shape({m}, {n}), cute::make_stride({n}, cute::Int<1>{{}}))"


# make_tma_atom asserts on an empty gmem tensor: the entry is a call with the tutorial's default problem sizes
ENTRY02 = ("gemm_host_f16xf16_f32_f32_tnt((cute::half_t const*)nullptr, " + _lay(512, 256) + ", (cute::half_t const*)"
           "nullptr, " + _lay(1024, 256) + ", (float const*)nullptr, " + _lay(512, 1024) + ", (float*)nullptr, "
           + _lay(512, 1024) + ", 1.0f, 0.0f)")


def _fixture02():
    data = json.loads((HERE / "blackwell_02_mma_tma_sm100.records.json").read_text())
    return [Record(**r) for r in data["records"]], data["info"]


@pytest.mark.skipif(not SRC02.is_file(), reason="the wheel has no 02_mma_tma_sm100.cu")
def test_tma_tutorial_every_argument_covered_and_its_tma_atoms_checked():
    """The TMA atoms are checked through the host call that made them (``make_tma_atom(SM90_TMA_LOAD{}, mA,
    sA_layout, select<0,2>(mma_tiler))``: its operands printed at the launch): ``tma`` of that gmem tensor (at the
    entry's problem size), smem tile and CTA tiler, and ``equal`` of the smem layout it was made for with the
    storage layout the kernel's ``tma_partition`` writes."""
    records, info = _fixture02()
    assert [(r.index, r.source, r.text) for r in records if r.index >= 4000][:3] == [
        (4000, "tma_atom_A: gmem = mA", "gmem_ptr[16b]((nil)) o (512,256):(256,_1)"),
        (4001, "tma_atom_A: smem = sA_layout", "Sw<3,4,3> o smem_ptr[16b](unset) o ((_128,_16),_1,_4):((_64,_1),_0,_16)"),
        (4002, "tma_atom_A: cta_tiler = select<0,2>(mma_tiler)", "(_128,_64)")]
    rows = _rows(records, info, PATH02, SRC02.read_text())
    claims = [r for r in rows if r["kind"] not in ("note", "unmapped")]
    assert claims and all(r["status"] == "proved" for r in claims)
    count = lambda kind: sum(r["kind"] == kind for r in claims)  # noqa: E731
    assert (count("operand"), count("injective"), count("tma")) == (2, 2, 2)
    args = {int(m.group(1)) for r in rows for m in [re.search(r" argument (\d+) ", r.get("at") or "")] if m}
    assert args == set(range(11))
    tma = {r["at"].split("`")[1] for r in claims if r["kind"] == "tma"}
    assert tma == {"tma_atom_A", "tma_atom_B"}
    written = [r for r in claims if r["kind"] == "equal" and "tma_partition" in r["claim"]]
    assert sorted(r["at"].split("`")[1] for r in written) == ["tma_atom_A", "tma_atom_B"]
    assert not [r for r in rows if r["kind"] == "unmapped" and "TMA" in r["reason"]]


@pytest.mark.skipif(not SRC02.is_file(), reason="the wheel has no 02_mma_tma_sm100.cu")
def test_tma_made_for_another_swizzle_is_refuted_at_its_atom():
    """A TMA atom made for a 64-byte swizzle while the kernel's storage (what the MMA reads) is SW128: the
    smem-layout agreement is refuted at `tma_atom_A`, and so is the descriptor (a 128-byte inner box does not fit a
    64-byte swizzle span); nothing at any other argument."""
    records, info = _fixture02()
    rows = _rows(_mutate(records, lambda r: r.source == "tma_atom_A: smem = sA_layout", "Sw<3,4,3>", "Sw<2,4,3>"),
                 info, PATH02, SRC02.read_text())
    refuted = {(r["kind"], r["at"].split("`")[1]) for r in rows if r["status"] == "refuted"}
    assert ("equal", "tma_atom_A") in refuted and {at for _, at in refuted} == {"tma_atom_A"}


@pytest.mark.differential
@needs_gxx
@pytest.mark.skipif(not SRC02.is_file(), reason="the wheel has no 02_mma_tma_sm100.cu")
def test_tma_tutorial_capture_prints_what_the_fixture_holds(monkeypatch):
    monkeypatch.chdir(ROOT)
    records, _, info = cpp_capture.capture(PATH02, [ENTRY02], defines=DEFINES)
    fixture, finfo = _fixture02()
    assert [(r.at, r.index, r.source, r.type, r.text) for r in records] == \
        [(r.at, r.index, r.source, r.type, r.text) for r in fixture]
    assert info["entries"] == finfo["entries"]


def test_an_entry_written_as_a_call_is_called_as_written():
    unit, _ = cpp_capture.rewrite(SRC.read_text(), PATH, [ENTRY, ENTRY02])
    assert f"case 0: ::cuteverify_capture::call(&{ENTRY}); break;" in unit
    assert f"case 1: {ENTRY02}; break;" in unit


def test_arch_guards_named_for_the_build_error_hint():
    assert arch_guards(SRC.read_text()) == ["CUTLASS_ARCH_MMA_SM100_SUPPORTED"]


@pytest.mark.differential
@needs_gxx
def test_cli_without_the_arch_define_names_it(monkeypatch):
    monkeypatch.chdir(ROOT)
    res = CliRunner().invoke(main, ["trace", "cpp", PATH, "--entry", ENTRY])
    assert res.exit_code == 2, res.output
    assert "define it with -D CUTLASS_ARCH_MMA_SM100_SUPPORTED=1" in res.output


def test_call_launch_forms_and_what_is_no_launch():
    from cuteverify.frontend.trace.cpp_launch import call_launches, kernel_expr
    text = ("template<class... Args> cutlass::Status launch_kernel_on_cluster(Params const& p, void const* k,\n"
            "  Args&&... args);\n"
            "void host() {\n"
            "  auto s = cutlass::launch_kernel_on_cluster(params, (void const*) kptr,\n"
            "                                             a, Layout<Shape<_2,_3>>{}, b);\n"
            "  // cudaLaunchKernelEx(&cfg, commented, x);\n"
            "  cudaError_t e = cudaLaunchKernelEx(&cfg, &kern<T, 4>, x);\n"
            "  obj.launch_kernel_on_cluster(p, k, y);\n"
            "}\n")
    found = call_launches(text, "t.cu", cpp_capture.Launch)
    assert [(la.line, la.kernel, la.args, la.value) for la, _, _ in found] == [
        (4, "kptr", ("a", "Layout<Shape<_2,_3>>{}", "b"), "::cutlass::Status::kSuccess"),
        (7, "kern<T, 4>", ("x",), "cudaSuccess")]
    a, e = found[0][1], found[0][2]
    assert text[a:e].startswith("cutlass::launch_kernel_on_cluster(") and text[a:e].endswith("b)")
    assert kernel_expr("reinterpret_cast<void const*>(&k)") == "k" and kernel_expr("( (void*) kp )") == "kp"


def _sw64() -> Path:
    text = SRC02.read_text()
    old = "    sA_layout,              // Destination SMEM layout"
    assert text.count(old) == 1
    mutant = Path(tempfile.gettempdir()) / "cuteverify-trace-cpp" / "bw02_tma_sw64.cu"
    mutant.parent.mkdir(exist_ok=True)
    mutant.write_text(text.replace(old, "    UMMA::tile_to_mma_shape(UMMA::Layout_K_SW64_Atom<TypeA>{}, mma_shape_A),"))
    return mutant


@pytest.mark.differential
@needs_gxx
@pytest.mark.skipif(not SRC02.is_file(), reason="the wheel has no 02_mma_tma_sm100.cu")
def test_mutant_tma_made_for_a_sw64_layout_is_refuted_at_its_atom():
    """An edited copy makes tma_atom_A for the SW64 K-major tiling of A's tile while the kernel's storage (which
    the MMA's descriptors read, and tma_partition writes) stays SW128: the TMA writes another layout than the one
    the MMA reads. Refuted at `tma_atom_A` (the smem-layout agreement), nothing at any other argument."""
    mutant = _sw64()
    records, _, info = cpp_capture.capture(str(mutant), [ENTRY02], includes=[str(SRC.parent)], defines=DEFINES)
    smem = [r.text for r in records if r.source.startswith("tma_atom_A: smem = ")]
    assert len(smem) == 1 and smem[0].startswith("Sw<2,4,3> o smem_ptr[16b](unset) o ")
    rows = _rows(records, info, str(mutant), mutant.read_text())
    refuted = {(r["kind"], r["at"].split("`")[1]) for r in rows if r["status"] == "refuted"}
    assert ("equal", "tma_atom_A") in refuted and {at for _, at in refuted} == {"tma_atom_A"}


LATER = ("03_mma_tma_multicast_sm100.cu", "04_mma_tma_2sm_sm100.cu", "05_mma_tma_epi_sm100.cu")


@pytest.mark.differential
@needs_gxx
@pytest.mark.parametrize("name, tma_checked", [("03_mma_tma_multicast_sm100.cu", ()),
                                               ("04_mma_tma_2sm_sm100.cu", ()),
                                               ("05_mma_tma_epi_sm100.cu", ("tma_atom_C", "tma_atom_D"))])
def test_later_tutorials_capture_and_prove(name, tma_checked):
    """03 (multicast TMA), 04 (2-SM UMMA, 2-SM TMA) and 05 (TMA epilogue), unmodified, with 02's entry call: every
    claim proved, nothing unknown: the multicast / 2-SM TMA atoms are tma_atom claims over the launch's cluster
    (test_cpp_blackwell_sm100.py), 05's epilogue TMA atoms (plain load / store of C and D) tma claims."""
    src = SRC.parent / name
    if not src.is_file():
        pytest.skip(f"the wheel has no {name}")
    records, _, info = cpp_capture.capture(str(src), [ENTRY02], defines=DEFINES)
    rows = _rows(records, info, str(src), src.read_text())
    claims = [r for r in rows if r["kind"] not in ("note", "unmapped")]
    assert claims and all(r["status"] == "proved" for r in claims), [r for r in claims if r["status"] != "proved"]
    assert sum(r["kind"] == "operand" for r in claims) == 2
    assert {r["at"].split("`")[1] for r in claims if r["kind"] == "tma"} == set(tma_checked)
    assert {r["at"].split("`")[1] for r in claims if r["kind"] == "tma_atom"} == {"tma_atom_A", "tma_atom_B"}
    assert not [r for r in rows if r["kind"] == "unmapped"]


@pytest.mark.skipif(not SRC02.is_file(), reason="the wheel has no 02_mma_tma_sm100.cu")
def test_host_tma_with_a_tiler_of_another_size_is_not_claimed():
    records, info = _fixture02()
    rows = _rows(_mutate(records, lambda r: r.source.startswith("tma_atom_A: cta_tiler = "), "(_128,_64)", "(_128,_32)"),
                 info, PATH02, SRC02.read_text())
    assert not [r for r in rows if r["status"] == "refuted"]
    assert not [r for r in rows if r["kind"] == "tma" and "tma_atom_A" in r["at"]]
    assert [r for r in rows if r["kind"] == "unmapped" and "tma_atom_A" in r["at"] and "differ in size" in r["reason"]]


def cpp_units():
    """The translation units each differential test here captures, by test name (built ahead: conftest.py)."""
    d, inc = tuple(DEFINES), (str(SRC.parent),)
    units = {"test_capture_prints_what_the_fixture_holds_and_the_cli_reports_it": [
                 Unit(PATH, (ENTRY,), defines=d, cwd=str(ROOT))],
             "test_mutant_with_overlapping_rows_is_refuted_at_its_storage_argument": [
                 Unit(str(_overlap()), (ENTRY,), includes=inc, defines=d)],
             "test_cli_without_the_arch_define_names_it": [Unit(PATH, (ENTRY,), cwd=str(ROOT))],
             "test_later_tutorials_capture_and_prove": [
                 Unit(str(SRC.parent / n), (ENTRY02,), defines=d) for n in LATER if (SRC.parent / n).is_file()]}
    if SRC02.is_file():
        units["test_tma_tutorial_capture_prints_what_the_fixture_holds"] = [Unit(PATH02, (ENTRY02,), defines=d,
                                                                                 cwd=str(ROOT))]
        units["test_mutant_tma_made_for_a_sw64_layout_is_refuted_at_its_atom"] = [
            Unit(str(_sw64()), (ENTRY02,), includes=inc, defines=d)]
    return units
