"""Blackwell entries of the spec library (sm100_umma_*.yaml, sm100_tmem.yaml): the layouts equal CUTLASS's traits
as the shipped headers write them (for every TMEM struct; for the UMMA traits' two layout forms), the self-check
proved them against the PTX formulas when the library loaded, a wrong layout is refuted with the lane and
column, and every entry says that no silicon backs it."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import cuteverify as cv
from cuteverify.frontend.cli.main import main
from cuteverify.hardware import default_library
from cuteverify.hardware.library.catalog import resolve
from cutlass_text import cpp_layout, same_tv_function

cutlass_library = pytest.importorskip("cutlass_library")
CUTE = Path(cutlass_library.__file__).parent / "source" / "include" / "cute"


@pytest.fixture(scope="module")
def lib():
    return default_library()


def _tmem_traits() -> dict:
    """CUTLASS's (SrcLayout, DstLayout) of every TMEM copy, STOREs resolved through the LOAD they mirror."""
    text = (CUTE / "atom" / "copy_traits_sm100.hpp").read_text()
    out, refs = {}, {}
    for m in re.finditer(r"struct Copy_Traits<(SM100_TMEM_(?:LOAD|STORE)_\w+)>\s*\{(.*?)\n\};", text, re.S):
        name, body = m.group(1), m.group(2)
        got = {}
        for key in ("SrcLayout", "DstLayout"):
            v = re.search(rf"using {key}\s*=\s*(.*?);", body, re.S).group(1).strip()
            ref = re.match(r"typename Copy_Traits<(\w+)>::(\w+)", v)
            got[key] = ("ref", ref.group(1), ref.group(2)) if ref else cpp_layout(v)
        (refs if any(isinstance(v, tuple) for v in got.values()) else out)[name] = got
    for name, got in refs.items():
        out[name] = {k: out[v[1]][v[2]] if isinstance(v, tuple) else v for k, v in got.items()}
    return out


@pytest.mark.differential
def test_every_tmem_struct_equals_its_family_instance(lib):
    traits = _tmem_traits()
    assert len(traits) == 148
    for name, t in sorted(traits.items()):
        spec, params = resolve(name, library=lib)
        for op, key in (("src", "SrcLayout"), ("dst", "DstLayout")):
            mine = spec.layout_text(op, **params)
            assert same_tv_function(mine, t[key]), f"{name} {op}: spec {mine}, CUTLASS {t[key]}"


@pytest.mark.differential
def test_umma_traits_have_the_two_layout_forms_the_specs_use(lib):
    text = re.sub(r"\s+", "", (CUTE / "atom" / "mma_traits_sm100.hpp").read_text())
    one = {"A": "Layout<Shape<_1,Shape<Int<M>,Int<K>>>,Stride<_0,Stride<_1,Int<M>>>>",
           "B": "Layout<Shape<_1,Shape<Int<N>,Int<K>>>,Stride<_0,Stride<_1,Int<N>>>>",
           "C": "Layout<Shape<_1,Shape<Int<M>,Int<N>>>,Stride<_0,Stride<_1,Int<M>>>>"}
    two = {"A": "Layout<Shape<_2,Shape<Int<M/2>,Int<K>>>,Stride<Int<M/2>,Stride<_1,Int<M>>>>",
           "B": "Layout<Shape<_2,Shape<Int<N/2>,Int<K>>>,Stride<Int<N/2>,Stride<_1,Int<N>>>>",
           "C": "Layout<Shape<_2,Shape<Int<M/2>,Int<N>>>,Stride<Int<M/2>,Stride<_1,Int<M>>>>"}
    for op in "ABC":
        n1, n2 = text.count(f"using{op}Layout={one[op]};"), text.count(f"using{op}Layout={two[op]};")
        assert (n1, n2) == (19, 19), (op, n1, n2)  # 18 SM100 + 1 SM103 traits per CTA count
    umma = [n for n in lib if lib[n].kind == "mma" and lib[n].arch in ("sm_100a", "sm_103a")]
    assert len(umma) == 38  # 36 SM100 + 2 SM103 structs of mma_sm100_umma.hpp
    for n in umma:
        s = lib[n]
        k = s.data["shape_mnk"][2]
        form = two if s.threads == 2 else one
        for op in "ABC":
            want = cpp_layout(re.sub(r"Int<([^<>]+)>", r"\1", form[op].replace("Int<K>", f"_{k}")))
            assert s.data["operands"][op]["layout"] == want, (n, op)


def test_umma_names_and_instances(lib):
    s, p = resolve("SM100_MMA_F16BF16_2x1SM_SS<half_t, half_t, float, 256, 128, UMMA::Major::K, "
                            "UMMA::Major::K>", library=lib)
    assert s.shape_mnk(**p) == (256, 128, 16) and s.threads == 2
    assert len(lib["SM100_MMA_F16BF16_SS"].instances()) == 2 * 32 * 4
    ts = lib["SM100_MMA_F16BF16_TS"]  # CUTLASS: A from TMEM is K-major; M=128 needs N % 16 == 0
    assert {i["a_major"] for i in ts.instances()} == {0}
    assert len(ts.instances()) == (32 + 16) * 2


def test_blackwell_entries_say_they_are_unprobed(lib):
    bw = [lib[n] for n in lib if (lib[n].arch or "").startswith(("sm_100", "sm_103"))]
    assert len(bw) == 58  # 38 UMMA + 20 TMEM copy families
    for s in bw:
        assert s.data["evidence"] == "none, PTX formula only" and not s.silicon_confirmed
        text = s.describe()
        assert "evidence: none, PTX formula only" in text
        assert "cutlass: include/cute/" in text and "ptx section: PTX ISA 9.7.16" in text


def _refuted(v):
    assert v.status == "refuted", v
    return v.counterexample


def test_tmem_wrong_layouts_are_refuted_with_lane_and_column(lib):
    good = "((4,8),(64,2,2)):((64,512),(1,4096,256))"
    assert cv.agrees(good, "SM100_TMEM_LOAD_16dp256b2x", "dst", library=lib).status == "proved"
    c = _refuted(cv.agrees("((4,8),(64,2,2)):((64,512),(1,4096,257))", "SM100_TMEM_LOAD_16dp256b2x", "dst",
                           library=lib))
    assert c.detail["axes"] == ("row", "col")
    lane, col = c.detail["hardware"]
    assert (c.thread, c.value) == (0, 128) and (lane, col) == (0, 256)  # the second repeat starts at bit 256
    c = _refuted(cv.agrees("(32,128):(129,1)", "SM100_TMEM_STORE_32dp32b4x", "src", library=lib))
    assert (c.thread, c.value) == (1, 0) and c.detail["hardware"] == (1, 0)  # lane 1, bit 0
    for name in ("SM100_TMEM_LOAD_16dp64b4x", "SM100_TMEM_LOAD_16dp32b8x_16b", "SM100_TMEM_LOAD_16dp128b1x"):
        spec, p = resolve(name, library=lib)
        good = spec.layout_text("dst", **p)
        assert cv.agrees(good, name, "dst", library=lib).status == "proved"
        bad = re.sub(r":\(\((\d+)", lambda m: f":(({int(m.group(1)) + 1}", good, count=1)  # first stride + 1
        assert bad != good
        assert _refuted(cv.agrees(bad, name, "dst", library=lib)).thread >= 1


@pytest.mark.parametrize("name, operand, good, bad, where", [
    ("SM100_MMA_F16BF16_SS", "C", "(1,(128,64)):(0,(1,128))", "(1,(128,64)):(0,(1,129))", (0, 128)),
    ("SM100_MMA_TF32_2x1SM_SS", "A", "(2,(64,8)):(64,(1,128))", "(2,(64,8)):(32,(1,128))", (1, 0)),
    ("SM100_MMA_S8_2x1SM_TS", "B", "(2,(64,32)):(64,(1,128))", "(2,(64,32)):(64,(1,64))", (0, 64)),
])
def test_umma_wrong_layouts_are_refuted(lib, name, operand, good, bad, where):
    spec = lib[name]
    params = {"SM100_MMA_F16BF16_SS": dict(M=128, N=64, a_major="K", b_major="K"),
              "SM100_MMA_TF32_2x1SM_SS": dict(M=128, N=64, a_major=0, b_major=1),
              "SM100_MMA_S8_2x1SM_TS": dict(M=128, N=128, a_major=0, b_major=0)}[name]
    assert cv.agrees(good, name, operand, library=lib, **params).status == "proved"
    c = _refuted(cv.agrees(bad, name, operand, library=lib, **params))
    assert (c.thread, c.value) == where
    assert spec.tile(operand, **spec.check_params(params))


def test_spec_show_and_drawings_say_no_silicon_backs_blackwell(lib):
    def run(*args):
        return CliRunner().invoke(main, list(args))

    bw = sorted(n for n in lib if (lib[n].arch or "").startswith(("sm_100", "sm_103")))
    for name in bw:
        r = run("spec", "show", name)
        assert r.exit_code == 0 and "evidence: none, PTX formula only" in r.output, (name, r.output)
    for name, params in (("SM100_MMA_F16BF16_SS", ["M=64", "N=8", "a_major=0", "b_major=0"]),
                         ("SM100_MMA_TF32_2x1SM_SS", ["M=128", "N=16", "a_major=0", "b_major=1"])):
        for fmt in ("svg", "tex"):
            r = run("spec", "draw", name, "--format", fmt, *[x for p in params for x in ("-p", p)])
            assert r.exit_code == 0 and "evidence: none, PTX formula only" in r.output, (name, fmt, r.output[:300])
    hopper = run("spec", "draw", "SM80_16x8x8_F16F16F16F16_TN")
    assert hopper.exit_code == 0 and "evidence:" not in hopper.output
