"""Tests for the hardware spec library (specs/*.yaml, cuteverify.specs, cuteverify.formula)."""

import json
import time
from pathlib import Path

import pytest

import cuteverify as cv
from cuteverify.errors import EXIT_INPUT, EXIT_REFUTED, CuteVerifyError, exit_code
from cuteverify.hardware.library import formula as F
from cuteverify.hardware.checks import selfcheck
from cuteverify.hardware import specs as S
from cuteverify.hardware.library.intlayout import int_layout

SPEC_DIR = Path(__file__).resolve().parents[2] / "specs"


@pytest.fixture(scope="module")
def lib():
    return S.load()


def _corrupt(tmp_path, file, old, new, count=1):
    text = (SPEC_DIR / file).read_text()
    assert text.count(old) >= count, f"{old!r} not in {file}"
    p = tmp_path / file
    p.write_text(text.replace(old, new, count))
    return p


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


# ------------------------------------------------------------------------------------------ library

REQUIRED = [
    # SM80
    "SM80_16x8x16_F32F16F16F32_TN", "SM80_16x8x16_F16F16F16F16_TN", "SM80_16x8x16_F32BF16BF16F32_TN",
    "SM80_16x8x8_F16F16F16F16_TN", "SM80_16x8x8_F32F16F16F32_TN", "SM80_16x8x4_F32TF32TF32F32_TN",
    "SM80_16x8x8_F32TF32TF32F32_TN", "SM80_16x8x16_S32S8S8S32_TN", "SM80_16x8x16_S32U8U8S32_TN",
    "SM80_16x8x32_S32S8S8S32_TN", "SM80_16x8x32_S32U8S8S32_TN", "SM80_8x8x4_F64F64F64F64_TN",
    # ldmatrix / stmatrix
    "SM75_U32x1_LDSM_N", "SM75_U32x2_LDSM_N", "SM75_U32x4_LDSM_N", "SM75_U16x2_LDSM_T", "SM75_U16x4_LDSM_T",
    "SM75_U16x8_LDSM_T", "SM90_U32x1_STSM_N", "SM90_U32x4_STSM_N", "SM90_U16x8_STSM_T",
    # SM90 wgmma families
    "SM90_64xNx16_F16F16F16_SS", "SM90_64xNx16_F32F16F16_SS", "SM90_64xNx16_F32BF16BF16_SS",
    "SM90_64xNx16_F32F16F16_RS", "SM90_64xNx8_F32TF32TF32_SS_TN", "SM90_64xNx8_F32TF32TF32_RS_TN",
    "SM90_64xNx32_S32S8S8_SS_TN", "SM90_64xNx32_S32S8S8_RS_TN", "SM90_64xNx32_F32E4M3E4M3_SS_TN",
    # smem atoms, swizzle modes
    "GMMA::Layout_K_SW128_Atom<half_t>", "GMMA::Layout_MN_SW64_Atom<float>", "GMMA::Layout_K_INTER_Atom<uint8_t>",
    "CU_TENSOR_MAP_SWIZZLE_128B", "CU_TENSOR_MAP_SWIZZLE_32B",
    # other archs
    "SM70_8x8x4_F32F16F16F32_TN", "SM70_8x8x4_F16F16F16F16_NT", "SM75_16x8x8_F32F16F16F32_TN",
    "SM75_8x8x16_S32S8S8S32_TN", "SM89_16x8x32_F32E4M3E4M3F32_TN", "SM90_16x8x4_F64F64F64F64_TN",
    "SM90_16x8x8_F64F64F64F64_TN", "SM90_16x8x16_F64F64F64F64_TN",
]


def test_required_specs_present(lib):
    missing = [n for n in REQUIRED if n not in lib]
    assert not missing


def test_whole_library_self_checks():
    # A fresh load runs self_check on every spec (every N of every family); do it again explicitly.
    selfcheck.clear_cache()
    lib = S.load(check=False)
    t0 = time.process_time()
    for spec in lib.values():
        S.self_check(spec)
    elapsed = time.process_time() - t0
    print(f"self-check of {len(lib)} specs: {elapsed:.3f}s CPU")


def test_schema_is_valid_2020_12():
    import jsonschema

    schema = json.loads((SPEC_DIR / "schema.json").read_text())
    assert schema["$schema"].endswith("2020-12/schema")
    jsonschema.Draft202012Validator.check_schema(schema)


def test_names_filter_and_aliases(lib):
    wg = lib.names({"kind": "mma", "arch": "sm_90a"})
    assert "SM90_64xNx16_F32F16F16_SS" in wg and all(n.startswith("SM90_64xN") for n in wg)
    assert lib.names("LDSM") == sorted(n for n in lib if "LDSM" in n)
    assert lib.names(lambda s: s.kind == "swizzle") == sorted(
        ["CU_TENSOR_MAP_SWIZZLE_NONE", "CU_TENSOR_MAP_SWIZZLE_32B", "CU_TENSOR_MAP_SWIZZLE_64B",
         "CU_TENSOR_MAP_SWIZZLE_128B"])
    assert lib.get("GMMA::Layout_K_SW128_Atom<bfloat16_t>").name == "GMMA::Layout_K_SW128_Atom<half_t>"
    with pytest.raises(KeyError, match="did you mean") as ei:
        lib.get("SM80_16x8x16")
    assert isinstance(ei.value, CuteVerifyError) and ei.value.kind == "input"


def test_module_level_get_and_names():
    assert S.get("SM80_16x8x16_F32F16F16F32_TN").ptx == "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
    assert "SM75_U32x4_LDSM_N" in S.names("ldsm")


def test_spec_layouts_are_core_layouts(lib):
    s = lib["SM80_16x8x16_F32F16F16F32_TN"]
    A = s.layout("A")
    assert isinstance(A, cv.Layout)
    assert A == cv.parse("((4,8),(2,2,2)):((32,1),(16,8,128))")
    assert s.thr_id() == cv.parse("32:1")
    assert s.shape_mnk() == (16, 8, 16)


def test_family_instantiation(lib):
    s = lib["SM90_64xNx16_F32F16F16_SS"]
    assert s.is_family and s.params["N"] == list(range(8, 257, 8))
    assert s.layout("C", N=64) == cv.parse("((4,8,4),(2,2,8)):((128,1,16),(64,8,512))")
    assert s.layout("B", N=128) == cv.parse("(128,(128,16)):(0,(1,128))")
    assert s.shape_mnk(N=24) == (64, 24, 16)
    sym = s.layout("C")  # symbolic in N
    assert sym.subs(N=256) == cv.parse("((4,8,4),(2,2,32)):((128,1,16),(64,8,512))")
    with pytest.raises(S.SpecError, match="needs parameter N"):
        s.shape_mnk()
    with pytest.raises(S.SpecError, match="range"):
        s.layout("C", N=12)
    ints = lib["SM90_64xNx32_S32S8S8_SS_TN"]
    assert 40 not in ints.params["N"] and 48 in ints.params["N"]


def test_int_evaluation_matches_core(lib):
    """The plain-int tables used for speed agree with the core Layout's own evaluation."""
    for name, op, params in [("SM80_16x8x32_S32S8S8S32_TN", "A", {}), ("SM70_8x8x4_F32F16F16F32_TN", "C", {}),
                             ("SM90_64xNx16_F16F16F16_RS", "C", {"N": 24}), ("SM75_U16x8_LDSM_T", "dst", {})]:
        L = lib[name].layout(op, **params)
        fast = int_layout(L, "t")
        for t in range(cv.size(L.shape[0]) if isinstance(L.shape, tuple) else 1):
            for v in range(len(fast.modes[1])):
                assert fast(t, v) == L(t, v)
    atom = lib["GMMA::Layout_MN_SW64_Atom<half_t>"].layout("layout")
    fast = int_layout(atom, "t")
    assert [fast(r, c) for c in range(8) for r in range(32)] == [atom(r, c) for c in range(8) for r in range(32)]


# --------------------------------------------------------------------------------------------- agrees

def test_agrees_ok_for_cutlass_layouts(lib):
    for name in lib.names({"kind": "mma"}):
        s = lib[name]
        params = s.instances()[-1]
        for op in s.operands:
            r = S.agrees(s.layout(op, **params), name, op, library=lib, **params)
            assert r.proved, str(r)


def test_agrees_counterexample_names_thread_value_and_elements(lib):
    # m16n8k16 A with the two inner value strides swapped: value 1 goes to row 8 instead of column 1.
    r = S.agrees("((4,8),(2,2,2)):((32,1),(8,16,128))", "SM80_16x8x16_F32F16F16F32_TN", "A", library=lib)
    assert r.refuted
    c = r.counterexample
    assert (c.thread, c.value) == (0, 1)
    assert c.user == (8, 0) and c.hardware == (0, 1)
    assert c.axes == ("m", "k")
    assert "thread 0, value 1" in str(r) and "A[m=8, k=0]" in str(r) and "A[m=0, k=1]" in str(r)


def test_agrees_family_and_b_orientation(lib):
    ok = S.agrees(cv.parse("((4,8,4),(2,2,16)):((128,1,16),(64,8,512))"), "SM90_64xNx16_F32F16F16_RS", "C",
                  library=lib, N=128)
    assert ok
    # B as PTX writes it is K x N; a row-major (k-fastest) guess for the SS descriptor view is refused.
    r = S.agrees("(128,(16,64)):(0,(64,1))", "SM90_64xNx16_F32F16F16_SS", "B", library=lib, N=64)
    assert r.refuted and r.counterexample.kind == "disagree"
    r = S.agrees("(128,(64,16)):(0,(16,1))", "SM90_64xNx16_F32F16F16_SS", "B", library=lib, N=64)
    assert r.refuted and r.counterexample.axes == ("k", "n")
    assert r.counterexample.hardware == (0, 1) and r.counterexample.user == (0, 16)
    with pytest.raises(S.SpecError, match="needs parameter N"):
        S.agrees("((4,8,4),(2,2,16)):((128,1,16),(64,8,512))", "SM90_64xNx16_F32F16F16_RS", "C", library=lib)


def test_agrees_shape_mismatch_reason(lib):
    r = S.agrees("(32,(2,2)):(1,(16,8))", "SM80_16x8x16_F32F16F16F32_TN", "A", library=lib)
    assert r.refuted and "value mode" in r.reason
    r = S.agrees("(48,8):(1,64)", "SM80_16x8x16_F32F16F16F32_TN", "C", library=lib)
    assert r.refuted and "thread mode" in r.reason
    # 64 = 2 x 32 threads is a tiled MMA's layout: an input error naming where to check it (issue 15)
    with pytest.raises(S.SpecError, match="tiled MMA"):
        S.agrees("(64,8):(1,64)", "SM80_16x8x16_F32F16F16F32_TN", "C", library=lib)


def test_agrees_copy_atom(lib):
    assert S.agrees("(32,(32,4)):(32,(1,1024))", "SM75_U32x4_LDSM_N", "dst", library=lib)
    r = S.agrees("(32,(32,4)):(32,(1,512))", "SM75_U32x4_LDSM_N", "dst", library=lib)
    assert r.refuted and r.counterexample.value == 32


def test_agrees_smem_atom_element_vs_byte_swizzle(lib):
    good = S.agrees("S<3,3,3> o 0 o (8,64):(64,1)", "GMMA::Layout_K_SW128_Atom<half_t>", library=lib)
    assert good.proved
    bad = S.agrees("S<3,4,3> o 0 o (8,64):(64,1)", "GMMA::Layout_K_SW128_Atom<half_t>", library=lib)
    assert bad.refuted
    c = bad.counterexample
    # row 1 starts at byte 128: the byte swizzle moves it to chunk 1 (byte 144 = element 72); the byte
    # swizzle applied to the element offset 64 leaves it at 64.
    assert c.coords == (1, 0) and c.user_index == 64 and c.hardware_index == 72


# ---------------------------------------------------------------------------- corrupted spec copies

def test_corrupt_swapped_strides_refused(tmp_path):
    p = _corrupt(tmp_path, "mma_sm80.yaml", '"((4,8),(2,2,2)):((32,1),(16,8,128))"',
                 '"((4,8),(2,2,2)):((32,1),(8,16,128))"')
    with pytest.raises(S.SpecError) as ei:
        S.load([p])
    e = ei.value
    assert e.file == str(p) and e.spec == "SM80_16x8x16_F16F16F16F16_TN"
    lines = p.read_text().splitlines()
    assert lines[e.line - 2].strip() == "A:"  # the operand's mapping starts on the line after its key
    assert lines[e.line - 1].strip() == 'layout: "((4,8),(2,2,2)):((32,1),(8,16,128))"'
    assert "thread 0, value 1" in e.reason and "A[m=8, k=0]" in e.reason and "A[m=0, k=1]" in e.reason
    assert e.kind == "refuted" and exit_code(e) == EXIT_REFUTED  # layout and formula disagree


def test_corrupt_wrong_stride_in_family_refused(tmp_path):
    # wgmma accumulator with the N/8 column-block stride 256 instead of 512: fine for N=8 (one block),
    # wrong from N=16 on.
    p = _corrupt(tmp_path, "mma_sm90.yaml", "((128,1,16),(64,8,512))", "((128,1,16),(64,8,256))")
    with pytest.raises(S.SpecError) as ei:
        S.load([p])
    e = ei.value
    assert e.spec == "SM90_64xNx16_F16F16F16_SS"
    assert "operand C with N=16" in e.reason
    assert "thread 0, value 4" in e.reason and "C[m=0, n=4]" in e.reason and "C[m=0, n=8]" in e.reason


def test_corrupt_thr_id_quad_pair_refused(tmp_path):
    # Volta: logical threads 4..7 are lanes 16..19; mapping them to lanes 4..7 breaks the formulas.
    p = _corrupt(tmp_path, "mma_sm70.yaml", 'thr_id: "(4,2):(1,16)"', 'thr_id: "(4,2):(1,4)"')
    with pytest.raises(S.SpecError) as ei:
        S.load([p])
    assert "thread 4, value 0" in ei.value.reason


def test_corrupt_smem_atom_byte_swizzle_on_elements_refused(tmp_path):
    p = _corrupt(tmp_path, "smem_atoms.yaml", '"S<3,3,3> o 0 o (8,64):(64,1)"', '"S<3,4,3> o 0 o (8,64):(64,1)"')
    with pytest.raises(S.SpecError) as ei:
        S.load([p])
    e = ei.value
    assert e.spec == "GMMA::Layout_K_SW128_Atom<half_t>"
    assert "Swizzle<3,3,3>" in e.reason and "16-bit" in e.reason
    assert p.read_text().splitlines()[e.line - 1].strip().startswith("layout:")


def test_corrupt_smem_offset_formula_refused(tmp_path):
    # A wrong PTX-side formula (row index taken from bit 6 instead of bit 7) disagrees with the layout.
    text = (SPEC_DIR / "smem_atoms.yaml").read_text()
    old = '''      addr: "row*128 + col*2"
    offset: "(addr ^ (((addr >> 7) & 7) << 4)) // 2"'''
    assert old in text
    p = _write(tmp_path, "smem_atoms.yaml", text.replace(old, old.replace(">> 7", ">> 6"), 1))
    with pytest.raises(S.SpecError, match=r"disagree at coordinate \(1, 0\): layout gives 72, formula gives 80"):
        S.load([p])


def test_corrupt_ldmatrix_multiplicity_refused(tmp_path):
    p = _corrupt(tmp_path, "ldmatrix.yaml", "multiplicity: 4", "multiplicity: 2")
    with pytest.raises(S.SpecError, match="value mode has size 128, the hardware holds 64"):
        S.load([p])


def test_corrupt_swizzle_encoding_refused(tmp_path):
    p = _corrupt(tmp_path, "smem_atoms.yaml", "gmma_layout_type: {name: B128, value: 1}",
                 "gmma_layout_type: {name: B128, value: 3}")
    with pytest.raises(S.SpecError, match="gmma_layout_type for a 128B swizzle is 1"):
        S.load([p])


# ------------------------------------------------------------------------------ malformed YAML files

GOOD_SPEC = '''version: 1
helpers:
  groupID: "lane >> 2"
  threadID_in_group: "lane % 4"
specs:
  MY_8x8x4_F64_TN:
    kind: mma
    arch: sm_80
    ptx: "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64"
    dtypes: {a: f64, b: f64, c: f64, d: f64}
    shape_mnk: [8, 8, 4]
    threads: 32
    thr_id: "32:1"
    operands:
      A:
        layout: "((4,8),1):((8,1),0)"
        row: "groupID"
        col: "threadID_in_group"
      B:
        layout: "((4,8),1):((8,1),0)"
        row: "threadID_in_group"
        col: "groupID"
      C:
        layout: "((4,8),2):((16,1),8)"
        row: "groupID"
        col: "threadID_in_group*2 + i"
'''


def test_user_spec_file_loads(tmp_path):
    lib = S.load([_write(tmp_path, "mine.yaml", GOOD_SPEC)])
    assert list(lib) == ["MY_8x8x4_F64_TN"]


def test_malformed_yaml_syntax_names_file_and_line(tmp_path):
    bad = GOOD_SPEC.replace('    threads: 32\n', '    threads: [32\n')
    p = _write(tmp_path, "bad.yaml", bad)
    with pytest.raises(S.SpecError) as ei:
        S.load([p])
    assert ei.value.file == str(p) and ei.value.line is not None
    assert "YAML error" in ei.value.reason
    assert str(p) in str(ei.value)
    assert ei.value.kind == "input" and exit_code(ei.value) == EXIT_INPUT  # a malformed file, not a refutation


def test_schema_error_names_line(tmp_path):
    p = _write(tmp_path, "bad.yaml", GOOD_SPEC.replace('    thr_id: "32:1"\n', ''))
    with pytest.raises(S.SpecError) as ei:
        S.load([p])
    e = ei.value
    assert "thr_id" in e.reason and e.spec == "MY_8x8x4_F64_TN"
    assert p.read_text().splitlines()[e.line - 1].strip().startswith("MY_8x8x4_F64_TN:")


def test_schema_error_wrong_type_points_at_key(tmp_path):
    p = _write(tmp_path, "bad.yaml", GOOD_SPEC.replace("threads: 32", "threads: many"))
    with pytest.raises(S.SpecError) as ei:
        S.load([p])
    assert p.read_text().splitlines()[ei.value.line - 1].strip() == "threads: many"


def test_bad_formula_token_names_line_and_token(tmp_path):
    p = _write(tmp_path, "bad.yaml", GOOD_SPEC.replace('col: "threadID_in_group*2 + i"', 'col: "lane / 2 + i"'))
    with pytest.raises(S.SpecError) as ei:
        S.load([p])
    e = ei.value
    assert "'/'" in e.reason and "lane / 2 + i" in e.reason
    assert p.read_text().splitlines()[e.line - 1].strip() == 'col: "lane / 2 + i"'


def test_duplicate_key_refused(tmp_path):
    p = _write(tmp_path, "bad.yaml", GOOD_SPEC.replace('    threads: 32\n', '    threads: 32\n    threads: 32\n'))
    with pytest.raises(S.SpecError, match="duplicate key 'threads'") as ei:
        S.load([p])
    assert ei.value.line == 13


def test_duplicate_spec_across_files_refused(tmp_path):
    a = _write(tmp_path, "a.yaml", GOOD_SPEC)
    b = _write(tmp_path, "b.yaml", GOOD_SPEC)
    with pytest.raises(S.SpecError, match="duplicate spec name"):
        S.load([a, b])


def test_inconsistent_user_spec_refused(tmp_path):
    p = _write(tmp_path, "bad.yaml", GOOD_SPEC.replace('layout: "((4,8),2):((16,1),8)"',
                                                       'layout: "((4,8),2):((16,1),1)"'))
    with pytest.raises(S.SpecError, match="operand C"):
        S.load([p])


def test_search_path_env_var(tmp_path, monkeypatch):
    d = tmp_path / "user_specs"
    d.mkdir()
    _write(d, "mine.yaml", GOOD_SPEC)
    monkeypatch.setenv(S.ENV_VAR, str(d))
    lib = S.load()
    assert "MY_8x8x4_F64_TN" in lib and "SM80_16x8x16_F32F16F16F32_TN" in lib


# -------------------------------------------------------------------------------------- formula language

def test_formula_basic_and_helpers():
    h = F.resolve_helpers({"groupID": "lane >> 2", "tig": "lane % 4"}, ["lane", "i"])
    f = F.parse("groupID + 8*((i >> 1) & 1)", ["lane", "i"], h)
    assert f.names == {"lane", "i"}
    fn = f.compile(["lane", "i"])
    assert [fn(l, i) for l in (0, 5) for i in range(4)] == [0, 0, 8, 8, 1, 1, 9, 9]
    g = F.parse("(i*2 + tig) if i % 2 == 0 else (i*2 - 2 + tig)", ["lane", "i"], h)
    assert g(lane=1, i=3) == 5
    assert F.parse("max(i, 3) - min(i, 1) + ~i + (i ^ 5) + (1 << i)", ["i"])(i=2) == 3 - 1 - 3 + 7 + 4
    assert F.parse("1 if 0 <= i < 4 and not i == 2 else 0", ["i"])(i=2) == 0


@pytest.mark.parametrize("text,token", [
    ("lane.real", "."), ("lane / 2", "/"), ("lane ** 2", "**"), ("__import__('os')", "__import__"),
    ("open('x')", "open"), ("foo + 1", "foo"), ("1.5", "1.5"), ("lane[0]", "["), ("(lambda: 1)()", "lambda"),
    ("True", "True"), ("'s'", "'s'"), ("min(lane)", "min"), ("[i for i in lane]", "ListComp"),
])
def test_formula_rejects(text, token):
    with pytest.raises(F.FormulaError) as ei:
        F.parse(text, ["lane", "i"])
    assert ei.value.text == text
    assert ei.value.token is not None and token in ei.value.token
    assert repr(text) in str(ei.value)


def test_formula_syntax_error():
    with pytest.raises(F.FormulaError, match="syntax error"):
        F.parse("lane +", ["lane"])


def test_formula_table_is_fast():
    h = F.resolve_helpers({"groupID": "lane >> 2", "tig": "lane % 4"}, ["lane", "i"])
    r = F.parse("16*warp + groupID + 8*((i >> 1) & 1)", ["lane", "warp", "i"], h)
    c = F.parse("tig*2 + (i & 1) + 8*(i >> 2)", ["lane", "warp", "i"], h)
    fn = F.table([r, c], ("lane", "warp"), ("i",))
    rows = [(t % 32, t // 32) for t in range(128)]
    out = fn(rows, [(i,) for i in range(128)])
    assert len(out) == 128 * 128 and out[1] == (0, 1) and out[128] == (0, 2)


# ---------------------------------------------------------------------------------- silicon evidence

EVIDENCE = SPEC_DIR / "evidence" / "sm90"


@pytest.mark.differential
@pytest.mark.skipif(not EVIDENCE.exists(), reason="no silicon evidence in this checkout")
def test_formulas_match_sm90_silicon_evidence(lib):
    """The PTX formulas (hence, through self_check, the CUTLASS layouts) agree with every element the
    H200 probes recorded (specs/evidence/sm90, issue 8): mma.sync, wgmma D and RS A, ldmatrix, stmatrix."""
    from cuteverify.hardware.checks.evidence import validate
    # The wgmma files hold every N (900k records); a spread of N (all A records are N=8) keeps it quick.
    some_n = ("m64n8k", "m64n24k", "m64n136k")
    paths = []
    for file in ("mma_sync.jsonl", "wgmma.jsonl", "wgmma_types.jsonl", "ldmatrix.jsonl", "stmatrix.jsonl"):
        p = EVIDENCE / file
        paths.append(p if p.exists() else EVIDENCE / (file + ".gz"))
    keep = lambda instr: not instr.startswith("wgmma") or any(n in instr for n in some_n)  # noqa: E731
    res = validate([p for p in paths if p.exists()], lib=lib, keep=keep)
    unmatched = res.pop("_unmatched")
    checked = sum(r["records"] for r in res.values())
    bad = [(n, r["first"]) for n, r in res.items() if r["status"] != "confirmed"]
    if checked == 0:
        pytest.skip("evidence files present but empty")
    assert len(res) >= 20, sorted(res)
    assert not bad, f"{len(bad)} specs contradicted by silicon, first: {bad[:3]}"
    print(f"{checked} silicon records agree; no spec for {sorted(unmatched)}")


def test_summary_and_describe_are_what_spec_show_prints(lib):
    s = lib["SM90_64xNx16_F32BF16BF16_SS"]
    c128 = "((4,8,4),(2,2,16)):((128,1,16),(64,8,512))"
    assert s.summary(N=128)["operands"]["C"]["layout"] == c128
    assert s.summary()["operands"]["C"]["layout"] == s.data["operands"]["C"]["layout"]  # a family unsubstituted
    text = s.describe(N=128).splitlines()
    assert text[0] == "name: SM90_64xNx16_F32BF16BF16_SS" and f"  layout: {c128}" in text
    assert text[text.index("C:") + 1] == f"  layout: {c128}"
    atom = lib["GMMA::Layout_K_SW128_Atom<half_t>"].describe().splitlines()
    assert "layout:" in atom and "  swizzle_bytes: S<3,4,3>" in atom
