"""Sparse wgmma (specs/mma_sm90_sparse.yaml): every CUTLASS struct SM90::GMMA::SPARSE::GMMA_64x<N>x<K>_... of the
shipped traits headers resolves to its family instance, whose A/B/C/E layouts equal that struct's traits (read off
the headers, named layouts expanded); the self-check proved them against the PTX formulas; a wrong layout (one
stride off) is refuted with the thread, value and element."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import cuteverify as cv
from cuteverify.hardware import default_library
from cuteverify.hardware.library.catalog import resolve
from cutlass_text import cpp_layout, same_tv_function

cutlass_library = pytest.importorskip("cutlass_library")
ATOM = Path(cutlass_library.__file__).parent / "source" / "include" / "cute" / "atom"


@pytest.fixture(scope="module")
def lib():
    return default_library()


def _cpp(text: str, named: dict) -> str:
    """A C++ layout type in CuTe notation: ``Layout<Shape<...>, Stride<...>>``, or a named one from ``named``
    (``GMMA::ABLayout<64, 32>``, ``GMMA::CLayout_64x8``)."""
    t = re.sub(r"\s+", "", re.sub(r"//[^\n]*", "", text))
    m = re.fullmatch(r"GMMA::ABLayout<(\d+),(\d+)>", t)
    if m:
        mm, k = int(m.group(1)), int(m.group(2))
        return f"(128,({mm},{k})):(0,(1,{mm}))"
    m = re.fullmatch(r"GMMA::CLayout_64x(\d+)", t)
    if m:
        return f"((4,8,4),(2,2,{int(m.group(1)) // 8})):((128,1,16),(64,8,512))"
    if t in named:
        return named[t]
    return cpp_layout(t)


def _named_layouts() -> dict:
    """GMMA::ALayout_64xK and GMMA::ELayout_64xK as the headers define them."""
    out = {}
    for f in ("mma_traits_sm90_gmma.hpp", "mma_traits_sm90_gmma_sparse.hpp"):
        for m in re.finditer(r"using ([AE]Layout_64x\d+)\s*=\s*(Layout<.*?>);", (ATOM / f).read_text(), re.S):
            out["GMMA::" + m.group(1)] = _cpp(m.group(2), {})
    return out


def _sparse_traits() -> dict:
    """{CUTLASS struct name: {operand: layout}} for every sparse wgmma traits struct."""
    named = _named_layouts()
    out = {}
    for f in ("mma_traits_sm90_gmma_sparse.hpp", "mma_traits_sm90_gmma_sparse_ext.hpp"):
        text = (ATOM / f).read_text()
        for m in re.finditer(r"struct MMA_Traits<(SM90::GMMA::SPARSE::GMMA_64x\d+x\d+_\w+?)<.*?>>\s*\{(.*?)\n\};",
                             text, re.S):
            body = m.group(2)
            out[m.group(1)] = {op: _cpp(re.search(rf"using {op}Layout\s*=\s*([^;]*);", body).group(1), named)
                               for op in "ABCE"}
    return out


@pytest.mark.differential
def test_every_sparse_struct_is_its_family_instance(lib):
    traits = _sparse_traits()
    assert len(traits) == 320 + 736  # base header + _ext
    families = set()
    for name, layouts in sorted(traits.items()):
        spec, params = resolve(name, library=lib)
        families.add(spec.name)
        assert spec.check_params(params) == params
        n, k = map(int, re.search(r"_64x(\d+)x(\d+)_", name).groups())
        assert spec.shape_mnk(**params) == (64, n, k), name
        for op, want in layouts.items():
            mine = spec.layout_text(op, **params)
            assert same_tv_function(mine, want), f"{name} {op}: spec {mine}, CUTLASS {want}"
    assert len(families) == 40
    assert sum(len(lib[f].instances()) for f in families) == len(traits)  # no instance CUTLASS lacks


def test_brief_and_concrete_spellings(lib):
    s, p = resolve("SM90_64x128x32_F32BF16BF16_SS_SPARSE", library=lib)  # the family's own spelling
    assert s.name == "SM90_64xNx32_F32BF16BF16_SS_SPARSE" and p == {"N": 128}
    s, p = resolve("cute::SM90::GMMA::SPARSE::GMMA_64x200x64_F32E4M3E5M2_RS_TN", library=lib)
    assert s.name == "SM90_64xNx64_F32E4M3E5M2_RS_TN_SPARSE" and p == {"N": 200}
    assert s.ptx == "wgmma.mma_async.sp.sync.aligned.m64n{N}k64.f32.e4m3.e5m2"


@pytest.mark.parametrize("name, operand, bad, where, hardware", [
    # A (RS, 16-bit): the K+16 block (stride 1024) written as 512
    ("SM90_64xNx32_F16F16F16_RS_SPARSE", "A", "((4,8,4),(4,2,2)):((256,1,16),(64,8,512))", (0, 8), (0, 16)),
    # E (16-bit): the selector lane pair given stride 1 instead of 0: lane 2 would hold row 1
    ("SM90_64xNx32_F16F16F16_SS_SPARSE", "E", "((2,2,8,4),(16,2)):((1024,1,1,16),(64,8))", (2, 0), (0, 0)),
    # E (8-bit): the K half of lanes 4g+2, 4g+3 (stride 2048) written as 1024
    ("SM90_64xNx64_S32S8S8_SS_TN_SPARSE", "E", "((2,2,8,4),32):((8,1024,1,16),64)", (2, 0), (0, 32)),
])
def test_wrong_layouts_are_refuted_with_thread_value_and_element(lib, name, operand, bad, where, hardware):
    good = lib[name].layout_text(operand, N=64)
    assert cv.agrees(good, name, operand, library=lib, N=64).status == "proved"
    r = cv.agrees(bad, name, operand, library=lib, N=64)
    assert r.status == "refuted"
    c = r.counterexample
    assert (c.thread, c.value) == where and c.detail["hardware"] == hardware
