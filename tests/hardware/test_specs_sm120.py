"""SM120 mma.sync entries of the spec library (specs/mma_sm120.yaml): one spec per CUTLASS specialisation of
mma_sm120.hpp and mma_sm120_sparse.hpp, whose layouts equal CUTLASS's traits as the shipped headers write them, which the self-check proved
against the PTX fragment formulas when the library loaded; a wrong layout (one stride off) is refuted with the
thread, value and element; every entry says that no silicon backs it."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import cuteverify as cv
from cuteverify.errors import SpecError
from cuteverify.hardware import default_library, load
from cuteverify.hardware.library.catalog import resolve
from cutlass_text import cpp_layout, same_tv_function

cutlass_library = pytest.importorskip("cutlass_library")
CUTE = Path(cutlass_library.__file__).parent / "source" / "include" / "cute"
SPECS = Path(__file__).resolve().parents[2] / "specs"


@pytest.fixture(scope="module")
def lib():
    return default_library()


def _traits_body(text: str, head: str) -> str:
    start = text.index(head)
    return text[start:text.index("\n};", start)]


def _layouts(body: str, aliases: dict) -> dict:
    """``using XLayout = ...;`` of a traits body in CuTe notation (a named layout such as SM80_16x8_Row through
    ``aliases``)."""
    out = {}
    for m in re.finditer(r"using (\w+Layout)\s*=\s*([^;]*);", body, re.S):
        v = m.group(2).strip()
        out[m.group(1)] = cpp_layout(v) if v.startswith("Layout<") else aliases[v]
    return out


def _cutlass_layouts() -> dict:
    """The (T, V) layouts CUTLASS's traits give each SM120 struct family, read off the shipped headers."""
    t80 = (CUTE / "atom" / "mma_traits_sm80.hpp").read_text()
    row = cpp_layout(re.search(r"using SM80_16x8_Row\s*=\s*(Layout<.*?>);", t80, re.S).group(1))
    named = {"SM80_16x8_Row": row}
    k32 = _layouts(_traits_body(t80, "struct MMA_Traits<SM80_16x8x32_S32S8S8S32_TN>"), named)
    k32 = {"A": k32["ALayout"], "B": k32["BLayout"], "C": k32["CLayout"]}
    t120 = (CUTE / "atom" / "mma_traits_sm120.hpp").read_text()
    vs = _layouts(_traits_body(t120, "struct MMA_Traits<SM120::BLOCKSCALED::SM120_16x8x32_TN_VS"),
                  {**named, **{f"typename UnderlyingTraits::{k}Layout": k32[k] for k in "ABC"}})
    k64 = _layouts(_traits_body(t120, "struct MMA_Traits<SM120::BLOCKSCALED::SM120_16x8x64_TN_VS"), named)
    assert (vs["ALayout"], vs["BLayout"], vs["CLayout"]) == (k32["A"], k32["B"], k32["C"])
    assert k64["CLayout"] == row
    # mma_traits_sm120.hpp: the dense struct inherits SM80_16x8x32_S32S8S8S32_TN, the VS one its underlying traits
    assert "MMA_Traits<SM120_16x8x32_TN<a_type, b_type, c_type>>\n     : MMA_Traits<SM80_16x8x32_S32S8S8S32_TN>" in t120
    ts = (CUTE / "atom" / "mma_traits_sm120_sparse.hpp").read_text()
    named_sp = {"SM120_16x8_Row": cpp_layout(re.search(r"using SM120_16x8_Row\s*=\s*(Layout<.*?>);", ts, re.S).group(1))}
    sp64 = _layouts(_traits_body(ts, "struct MMA_Traits<SM120::SPARSE::SM120_SPARSE_16x8x64_TN<"), named_sp)
    sp128 = _layouts(_traits_body(ts, "struct MMA_Traits<SM120::BLOCKSCALED::SPARSE::SM120_SPARSE_16x8x128_TN_VS"),
                     named_sp)
    # the sparse VS k64 traits take A/B/C/E from the non-VS struct and SFA/SFB from SM120_16x8x64_TN_VS
    assert "UnderlyingSFTraits = MMA_Traits<SM120::BLOCKSCALED::SM120_16x8x64_TN_VS<" in ts
    sp64 = {"A": sp64["ALayout"], "B": sp64["BLayout"], "C": sp64["CLayout"], "E": sp64["ELayout"]}
    return {"SM120_SPARSE_16x8x64_TN": sp64,
            "SM120_SPARSE_16x8x64_TN_VS": {**sp64, "SFA": k64["SFALayout"], "SFB": k64["SFBLayout"]},
            "SM120_SPARSE_16x8x128_TN_VS": {"A": sp128["ALayout"], "B": sp128["BLayout"], "C": sp128["CLayout"],
                                            "E": sp128["ELayout"], "SFA": sp128["SFALayout"],
                                            "SFB": sp128["SFBLayout"]},
            "SM120_16x8x32_TN": k32,
            "SM120_16x8x32_TN_VS": {**k32, "SFA": vs["SFALayout"], "SFB": vs["SFBLayout"]},
            "SM120_16x8x64_TN_VS": {"A": k64["ALayout"], "B": k64["BLayout"], "C": row, "SFA": k64["SFALayout"],
                                    "SFB": k64["SFBLayout"]}}


def _specialisations(headers=("mma_sm120.hpp", "mma_sm120_sparse.hpp")) -> list:
    """Every full or partial specialisation of the SM120 headers, as CUTLASS spells it (VS left as the
    parameter)."""
    out = []
    for h in headers:
        text = (CUTE / "arch" / h).read_text()
        out += [f"{m.group(1)}<{', '.join(a.strip() for a in m.group(2).split(','))}>"
                for m in re.finditer(r"^struct (SM120_\w+)<([^>]*)>", text, re.M)]
    return out


@pytest.mark.differential
def test_every_specialisation_has_its_spec(lib):
    assert len(_specialisations(("mma_sm120.hpp",))) == 77  # 50 f8f6f4 + 25 mxf8f6f4 + 2 mxf4nvf4
    names = _specialisations()
    assert len(names) == 2 * 77 and len(set(names)) == 2 * 77  # and as many sparse ones
    sm120 = sorted(n for n in lib if (lib[n].arch or "").startswith("sm_120"))
    assert sorted(names) == sm120


@pytest.mark.differential
def test_layouts_equal_cutlass_traits(lib):
    want = _cutlass_layouts()
    for n in _specialisations():
        s = lib[n]
        fam = want[n.split("<")[0]]
        assert set(s.operands) == set(fam), n
        for op, text in fam.items():
            assert same_tv_function(s.data["operands"][op]["layout"], text), (n, op, text)


def test_formulas_agree_with_layouts_for_every_instance(lib):
    """What `cuteverify spec check` proves, restated through the public agrees() for each operand and VS."""
    for n in _specialisations():
        s = lib[n]
        for params in s.instances():
            for op in s.operands:
                r = cv.agrees(s.layout_text(op, **params), n, op, library=lib, **params)
                assert r.status == "proved", (n, op, params, r)


def test_dtypes_and_ptx_follow_the_name(lib):
    short = {"float": "f32", "half_t": "f16"}
    for n in _specialisations():
        s = lib[n]
        a, b, c = (x.strip() for x in n[n.index("<") + 1:-1].split(",")[:3])
        a, b = a[len("float_"):-2], b[len("float_"):-2]
        assert (s.data["dtypes"]["a"], s.data["dtypes"]["b"], s.data["dtypes"]["c"]) == (a, b, short[c])
        assert f".{short[c]}.{a}.{b}.{short[c]}" in s.ptx
        assert ("sp::ordered_metadata" in s.ptx) == n.startswith("SM120_SPARSE_")
        if "_VS<" in n:
            sf = n.split(",")[3].strip()[len("float_"):-2]
            assert s.ptx.endswith("." + sf) and "block_scale" in s.ptx


@pytest.mark.parametrize("name, operand, params, bad, where, hardware", [
    # A of f8f6f4 k32: the second 16-k half (stride 256) written as 128
    ("SM120_16x8x32_TN<float_e2m1_t, float_e2m1_t, float>", "A", {}, "((4,8),(4,2,2)):((64,1),(16,8,128))",
     (0, 8), (0, 16)),
    # B of mxf4nvf4 k64: the k+32 block (stride 256) written as 128
    ("SM120_16x8x64_TN_VS<float_e2m1_t, float_e2m1_t, float, float_ue4m3_t, VS>", "B", {"VS": 16},
     "((4,8),(8,2)):((64,1),(8,128))", (0, 8), (32, 0)),
    # SFA: the thread-id-a mode given stride 1 instead of 0 (lane 2 then claims row 1; PTX: row 0)
    ("SM120_16x8x32_TN_VS<float_e4m3_t, float_e5m2_t, float, float_ue8m0_t, VS>", "SFA", {"VS": 32},
     "((2,2,8),32):((8,1,1),16)", (2, 0), (0, 0)),
    # SFB: the k stride 8 written as 16
    ("SM120_16x8x64_TN_VS<float_e2m1_t, float_e2m1_t, float, float_ue8m0_t, VS>", "SFB", {"VS": 32},
     "((4,8),64):((0,1),16)", (0, 1), (1, 0)),
])
def test_wrong_layouts_are_refuted_with_thread_value_and_element(lib, name, operand, params, bad, where, hardware):
    good = lib[name].layout_text(operand, **params)
    assert cv.agrees(good, name, operand, library=lib, **params).status == "proved"
    r = cv.agrees(bad, name, operand, library=lib, **params)
    assert r.status == "refuted"
    c = r.counterexample
    assert (c.thread, c.value) == where and c.detail["hardware"] == hardware
    assert f"thread {where[0]}, value {where[1]}" in str(r)


def test_a_corrupted_spec_file_is_refused_at_load(tmp_path):
    text = (SPECS / "mma_sm120.yaml").read_text()
    old = '"((2,2,8),32):((8,0,1),16)"'
    assert text.count(old) == 1
    p = tmp_path / "mma_sm120.yaml"
    p.write_text(text.replace(old, '"((2,2,8),32):((8,0,2),16)"'))
    with pytest.raises(SpecError) as e:
        load([p])
    assert e.value.kind == "refuted" and "SFA" in e.value.reason and "thread 4, value 0" in e.value.reason


def test_entries_say_they_are_unprobed(lib):
    for n in _specialisations():
        s = lib[n]
        assert str(s.data["evidence"]).startswith("none") and not s.silicon_confirmed
        text = s.describe()
        assert "evidence: none" in text and "cutlass: include/cute/atom/mma_traits_sm120" in text
        assert "ptx section: PTX ISA 9.7.14" in text


def test_cutlass_spellings_resolve(lib):
    s, p = resolve("cute::SM120::BLOCKSCALED::SM120_16x8x64_TN_VS<cutlass::float_e2m1_t, "
                            "cutlass::float_e2m1_t, float, cutlass::float_ue4m3_t, 16>", library=lib)
    assert s.name == "SM120_16x8x64_TN_VS<float_e2m1_t, float_e2m1_t, float, float_ue4m3_t, VS>" and p == {"VS": 16}
    s, p = resolve("SM120_16x8x32_TN<float_e4m3_t,float_e5m2_t,half_t>", library=lib)
    assert s.name == "SM120_16x8x32_TN<float_e4m3_t, float_e5m2_t, half_t>" and p == {}
    s, p = resolve("SM120_16x8x32_F16E4M3E5M2F16_TN", library=lib)  # the flat alias
    assert s.name == "SM120_16x8x32_TN<float_e4m3_t, float_e5m2_t, half_t>"
    s, p = resolve("cute::SM120::BLOCKSCALED::SPARSE::SM120_SPARSE_16x8x128_TN_VS<cutlass::float_e2m1_t, "
                            "cutlass::float_e2m1_t, float, cutlass::float_ue8m0_t, 64>", library=lib)
    assert s.name.startswith("SM120_SPARSE_16x8x128_TN_VS<") and p == {"VS": 64}
    s, p = resolve("SM120::SPARSE::SM120_SPARSE_16x8x64_TN<float_e3m2_t, float_e2m3_t, half_t>", library=lib)
    assert s.name == "SM120_SPARSE_16x8x64_TN<float_e3m2_t, float_e2m3_t, half_t>" and "E" in s.operands
    with pytest.raises(SpecError, match="VS=64"):
        resolve("SM120_16x8x32_TN_VS<float_e2m1_t, float_e2m1_t, float, float_ue8m0_t, 64>", library=lib)
