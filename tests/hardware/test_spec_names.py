"""Name resolution: every CUTLASS struct name of the covered families (generated from the headers shipped in the
nvidia-cutlass wheel) resolves to its spec and family instance; misspellings get close suggestions."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from cuteverify.frontend.cli.main import main
from cuteverify.errors import SpecError, UnknownSpec
from cuteverify.hardware import default_library
from cuteverify.hardware.library.catalog import family_name, resolve

cutlass_library = pytest.importorskip("cutlass_library")
CUTE = Path(cutlass_library.__file__).parent / "source" / "include" / "cute" / "arch"


def _structs(header: str, pattern: str = r"SM\d+_\w+") -> list:
    """Primary struct names of a header (``struct NAME`` not followed by ``<``: specialisations skipped)."""
    text = (CUTE / header).read_text()
    return sorted(set(re.findall(rf"^struct ({pattern})\b(?!\s*<)", text, re.M)))


def _templates(header: str) -> set:
    """The structs of a header that are class templates (``template <...> struct NAME``)."""
    text = (CUTE / header).read_text()
    return set(re.findall(r"^template\s*<[^;{]*?>\s*\nstruct (SM\d+_\w+)\b(?!\s*<)", text, re.M))


def _wgmma_names() -> list:
    """Dense wgmma structs as CUTLASS's traits alias them (SM90::GMMA::MMA_64x128x16_... = SM90_64x128x16_...)."""
    out = []
    for h in ("mma_sm90_gmma.hpp", "mma_sm90_gmma_ext.hpp"):
        out += ["SM90_" + n[len("MMA_"):] for n in _structs(h, r"MMA_64x\d+x\d+_\w+")]
    return sorted(set(out))


def _sparse_wgmma_names() -> list:
    """Sparse wgmma structs with their namespace, as CUTLASS spells them (SM90::GMMA::SPARSE::GMMA_64x8x32_...)."""
    out = []
    for h in ("mma_sm90_gmma_sparse.hpp", "mma_sm90_gmma_sparse_ext.hpp"):
        out += ["SM90::GMMA::SPARSE::" + n for n in _structs(h, r"GMMA_64x\d+x\d+_\w+")]
    return sorted(set(out))


def _sm120_specialisations() -> list:
    out = []
    for h in ("mma_sm120.hpp", "mma_sm120_sparse.hpp"):
        text = (CUTE / h).read_text()
        out += [f"{m.group(1)}<{m.group(2)}>" for m in re.finditer(r"^struct (SM120_\w+)<([^>]*)>", text, re.M)]
    return out


# The headers whose `struct SM..._...` names the test enumerates (every mma and copy header of cute/arch).
HEADERS = sorted(p.name for p in CUTE.glob("mma_sm*.hpp")) + sorted(p.name for p in CUTE.glob("copy_sm*.hpp"))

# Structs the library does not carry, each with why. A struct listed here that starts to resolve makes the test
# fail, so the list stays exact.
NOT_COVERED = [
    # complex f64 (C64 = complex<double>, GC64 = Gaussian complex): the element model has no complex dtype
    (r"^SM80_8x8x4_G?C64", "complex element type"),
    # SM61 dp4a / dp2a: one-thread SIMD dot products, not warp MMA atoms; SM100 FFMA2: a 2-wide SIMD FMA
    (r"^SM61_DP[24]A$", "one-thread SIMD instruction"),
    (r"^SM100_[12]x[12]x1_F32F32F32F32$", "one-thread SIMD instruction"),
    # TMA and bulk copies: descriptor-based, modelled by cuteverify.hardware.tma.tiled / tma_copy, not as TV specs
    (r"^SM90_(TMA|BULK_COPY)_", "TMA: cuteverify.hardware.tma.tiled"),
    (r"^SM100_TMA_2SM_", "TMA: cuteverify.hardware.tma.tiled"),
    # SM100 copies other than TMEM load/store: tcgen05.cp (UTCCP), sub-byte ldmatrix/stmatrix, 256-bit ld/st
    (r"^SM100_UTCCP_", "tcgen05.cp: not yet in the library"),
    (r"^SM100_(SU[46]_DU8x16_x[124]_LDSM_N|U8x(4|8|16)_(LD|ST)SM_T)$", "sub-byte / 8-bit ldmatrix: not yet"),
    (r"^SM100_(LOAD|STORE)_256bit_CACHE_NOALLOCATION$", "plain 256-bit load/store: not yet"),
    # warp shuffles and movmatrix: register permutations with no memory side
    (r"^SM50_Shuffle_", "register shuffle"),
    (r"^SM75_U32x1_MOVM_T$", "movmatrix: not yet"),
    # cp.async zero-fill variants: sm80_copy.yaml carries the plain ones
    (r"^SM80_CP_ASYNC_CACHE(ALWAYS|GLOBAL)_ZFILL$", "cp.async zfill: not yet"),
]


def _not_covered(name: str):
    return next((why for pat, why in NOT_COVERED if re.search(pat, name)), None)


def _header_names() -> list:
    """(name, header, is_template) for every struct of HEADERS, plus CUTLASS's spellings that the headers
    generate (wgmma aliases, sparse wgmma with namespace, SM120 specialisations)."""
    out = []
    for h in HEADERS:
        tmpl = _templates(h)
        out += [(n, h, n in tmpl) for n in _structs(h)]
    out += [(n, "mma_traits_sm90_gmma*.hpp", False) for n in _wgmma_names()]
    out += [(n, "mma_sm90_gmma_sparse*.hpp", False) for n in _sparse_wgmma_names()]
    out += [(n, "mma_sm120*.hpp", False) for n in _sm120_specialisations()]
    return out


@pytest.mark.differential
def test_header_lists_are_not_empty():
    assert len(_wgmma_names()) == 40 * 8 + 24 * 24 + 16 * 10  # families x N values in gmma.hpp + gmma_ext.hpp (integer: 10 more N)
    assert len(_sparse_wgmma_names()) == 24 * 32 + 16 * 18
    assert len(_structs("copy_sm100.hpp", r"SM100_TMEM_(?:LOAD|STORE)_\w+")) == 148
    assert len(_structs("mma_sm100_umma.hpp", r"SM10[03]_\w+")) == 38
    assert len(_sm120_specialisations()) == 2 * 77
    assert {"SM120_16x8x32_TN", "SM80_CP_ASYNC_CACHEALWAYS"} <= _templates("mma_sm120.hpp") | _templates("copy_sm80.hpp")


def _resolves(name: str, is_template: bool, lib) -> str | None:
    """None when ``name`` resolves (a class template: when the library carries a specialisation of it), else why
    not."""
    if is_template and any(n.startswith(name + "<") for n in lib):
        return None
    try:
        spec, params = resolve(name, library=lib)
    except (UnknownSpec, SpecError) as e:
        return str(e)
    if spec.is_family and set(params) == set(spec.params):
        spec.check_params(params)  # the instance the name denotes is one the self-check proved
    return None


@pytest.mark.differential
def test_every_header_struct_resolves_or_is_listed():
    lib = default_library()
    names = _header_names()
    missing, stale, resolved = [], [], 0
    for n, h, is_template in names:
        why_not = _resolves(n, is_template, lib)
        listed = _not_covered(n)
        if why_not is None:
            resolved += 1
            if listed:
                stale.append(f"{n} ({h}) resolves but is listed as {listed!r}")
        elif not listed:
            missing.append(f"{n} ({h}): {why_not}")
    total = len(names)
    print(f"name resolution: {resolved} of {total} CUTLASS struct names ({100 * resolved / total:.0f}%), "
          f"{total - resolved} listed as not covered")
    assert not missing, f"{len(missing)} names do not resolve, first: {missing[:5]}"
    assert not stale, stale[:5]
    assert all(any(re.search(p, n) for n, _, _ in names) for p, _ in NOT_COVERED)  # no dead entry in the list


def test_concrete_names_fix_family_parameters():
    lib = default_library()
    spec, p = resolve("SM90_64x128x16_F32BF16BF16_SS", library=lib)
    assert spec.name == "SM90_64xNx16_F32BF16BF16_SS" and p == {"N": 128}
    spec, p = resolve("cute::SM90::GMMA::MMA_64x24x32_S32U8S8_RS_TN_SATURATE", library=lib)
    assert spec.name == "SM90_64xNx32_S32U8S8_RS_TN_SATURATE" and p == {"N": 24}
    assert "satfinite" in spec.ptx
    spec, p = resolve("SM100_TMEM_LOAD_16dp256b8x_16b", library=lib)
    assert spec.name == "SM100_TMEM_LOAD_16dp256bRx_16b" and p == {"R": 8}
    spec, p = resolve("SM100_MMA_F16BF16_SS<bfloat16_t, bfloat16_t, float, 128, 256, UMMA::Major::K, "
                               "UMMA::Major::MN>", library=lib)
    assert spec.name == "SM100_MMA_F16BF16_SS" and p == {"M": 128, "N": 256, "a_major": 0, "b_major": 1}
    assert family_name("SM90_16x8x4_F64F64F64F64_TN") == ("SM90_16x8x4_F64F64F64F64_TN", {})
    spec, p = resolve("SM90_64x128x16_F32BF16BF16_RS", library=lib)
    assert spec.name == "SM90_64xNx16_F32BF16BF16_RS" and p == {"N": 128}
    spec, p = resolve("SM90_64x136x32_F32E4M3E5M2_SS_TN", library=lib)  # fp8, an N of gmma_ext.hpp
    assert spec.name == "SM90_64xNx32_F32E4M3E5M2_SS_TN" and p == {"N": 136}
    spec, p = resolve("SM90::GMMA::SPARSE::GMMA_64x256x32_F32F16F16_RS", library=lib)
    assert spec.name == "SM90_64xNx32_F32F16F16_RS_SPARSE" and p == {"N": 256} and ".sp." in spec.ptx
    spec, p = resolve("SM90_SPARSE_64x96x64_S32S8S8_SS_TN_SATURATE", library=lib)  # the alias form
    assert spec.name == "SM90_64xNx64_S32S8S8_SS_TN_SATURATE_SPARSE" and p == {"N": 96}
    spec, p = resolve("SM120_16x8x32_TN_VS<float_e4m3_t, float_e2m1_t, float, float_ue8m0_t, 32>",
                               library=lib)
    assert spec.name.startswith("SM120_16x8x32_TN_VS<float_e4m3_t, float_e2m1_t,") and p == {"VS": 32}


def test_out_of_range_instances_are_refused():
    lib = default_library()
    with pytest.raises(SpecError, match="N=7"):
        resolve("SM90_64x7x16_F32BF16BF16_SS", library=lib)
    with pytest.raises(SpecError, match="R=256"):
        resolve("SM100_TMEM_LOAD_16dp256b256x", library=lib)
    with pytest.raises(SpecError, match="constraint"):  # CUTLASS: M=128 from TMEM needs N % 16 == 0
        resolve("SM100_MMA_F16BF16_TS<half_t, half_t, float, 128, 24, UMMA::Major::K, UMMA::Major::K>",
                         library=lib)


@pytest.mark.parametrize("typo, want", [
    ("SM90_64x128x16_F32BF16BF16_SSS", "SM90_64xNx16_F32BF16BF16_SS"),
    ("SM75_16x8x8_F16F16F16F16_TN", "SM80_16x8x8_F16F16F16F16_TN"),  # no SM75 f16-accumulator struct exists
    ("SM100_MMA_F16BF6_SS", "SM100_MMA_F16BF16_SS"),
    ("SM100_TMEM_LAOD_32dp32b4x", "SM100_TMEM_LOAD_32dp32bRx"),
    ("SM90::GMMA::SPARSE::GMMA_64x64x32_F16F16F16_SSS", "SM90_64xNx32_F16F16F16_SS_SPARSE"),
    ("SM120_16x8x32_TN<float_e2m1_t, float_e3m2_t, flaot>", "SM120_16x8x32_TN<float_e2m1_t, float_e3m2_t, float>"),
    ("SM80_16x8x32_S32S4S4S32_TN_SATURATED", "SM80_16x8x32_S32S4S4S32_TN_SATURATE"),
])
def test_misspellings_get_close_suggestions(typo, want):
    with pytest.raises(UnknownSpec) as e:
        resolve(typo, library=default_library())
    assert want in str(e.value).split("did you mean", 1)[1]


# ------------------------------------------------------------------------------------ the command line

def _cli(*args):
    return CliRunner().invoke(main, list(args))


def test_cli_list_filters_by_arch_and_kind():
    lib = default_library()
    r = _cli("spec", "list", "--arch", "sm_90", "--kind", "mma", "--json")
    assert r.exit_code == 0, r.output
    got = {row["name"] for row in json.loads(r.output)}
    want = {n for n in lib if lib[n].kind == "mma" and lib[n].arch in ("sm_90", "sm_90a")}
    assert got == want and "SM90_64xNx32_F16F16F16_SS_SPARSE" in got and "SM90_U32x4_STSM_N" not in got
    r = _cli("spec", "list", "--arch", "sm_120a", "--json")
    assert len(json.loads(r.output)) == 2 * 77


def test_cli_show_prints_the_sources_and_takes_enum_params_by_name():
    r = _cli("spec", "show", "SM90_64x128x32_F32E4M3E4M3_RS_TN")
    assert r.exit_code == 0, r.output
    assert "cutlass: include/cute/atom/mma_traits_sm90_gmma.hpp MMA_Traits<SM90_64xNx32_F32E4M3E4M3_RS_TN>" in r.output
    assert "ptx section: PTX ISA 9.7.15.5.1" in r.output
    assert "((4,8,4),(2,2,16)):((128,1,16),(64,8,512))" in r.output  # the name fixes N=128: C has 16 column blocks
    r = _cli("spec", "show", "SM100_MMA_F16BF16_SS", "--param", "M=128", "--param", "N=256", "--param", "a_major=K",
             "--param", "b_major=UMMA::Major::MN", "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["operands"]["B"]["layout"] == "(1,(256,16)):(0,(1,256))"
    for bad, msg in (("b_major=XY", "one of ['K', 'MN']"), ("N=MN", "expected an integer"), ("Q=1", "no parameter"),
                     ("N=7", "not in the family's range"), ("a_major=1.5", "an integer or an enum name")):
        r = _cli("spec", "show", "SM100_MMA_F16BF16_SS", "--param", bad)
        assert r.exit_code == 2 and msg in r.output, (bad, r.output)
