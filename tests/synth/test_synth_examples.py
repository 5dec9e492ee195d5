"""Issue 20's figure on real kernels: on the shared-memory tiles of the example kernels (SM80 GEMM, FA2, SM90
GEMM, FA3), the synthesized layout is at least as good as the kernel's own choice on every access (conflict
degree and vector width, each proved by the analyses), and legal for every consumer the kernel needs.

The kernels' layouts and accesses are the ones their manifests (examples/*.cute.yaml) state, rebuilt here with
the algebra and the atom layer. A second, independent bank model (fixed phases, distinct 4-byte words per bank,
written below) re-checks every degree the synthesizer calls conflict-free.
"""
from __future__ import annotations

import pytest

from cuteverify.algebra import composition, tile_to_shape
from cuteverify.atoms import (
    make_tiled_copy_A,
    make_tiled_copy_B,
    make_tiled_copy_C,
    make_tiled_mma,
)
from cuteverify.core.layout import Layout, size
from cuteverify.core.notation.parse import parse
from cuteverify.synth import explain_smem_layout, make_problem, synthesize_smem_layout

BF16, F16 = "bf16", "f16"
SW128_K = "S<3,3,3> o 0 o (8,64):(64,1)"      # GMMA::Layout_K_SW128_Atom for 16-bit elements
SW128_MN = "S<3,3,3> o 0 o (64,8):(1,64)"     # GMMA::Layout_MN_SW128_Atom for 16-bit elements


def _sgemm_sm80():
    # sgemm_sm80 tutorial, half_t TN: sA = tile_to_shape(S<3,3,3> o (8,(8,8)):(8,(1,64)), (128,64,3)), stage 0
    mma = make_tiled_mma("SM80_16x8x16_F16F16F16F16_TN", (2, 2, 1), (32, 32, 16))
    sA = tile_to_shape(parse("S<3,3,3> o 0 o (8,(8,8)):(8,(1,64))"), (128, 64, 3))
    sA0 = composition(sA, Layout((128, 64), (1, 128)))
    return {"name": "sgemm_sm80 sA", "tile": (128, 64), "dtype": F16, "layout": sA0,
                "writes": ["cp_async:128:thr=(16,8):(8,1)"],
                "reads": [make_tiled_copy_A("SM75_U32x4_LDSM_N", mma, F16)], "require": []}


def _fa2_k():
    # FlashAttention-2 fwd, SM80, bf16, d=64: sK = tile_to_shape(Swizzle<3,3,3> o (8,64):(64,1), (64,64)); the
    # gmem->smem copy is 128 threads of 16-byte cp.async ((16,8):(8,1) threads, 8 values); K is the B operand of
    # Q*K^T, read by ldmatrix x4 through TiledMMA<SM80_16x8x16, (4,1,1), Tile<64,16,16>>
    mma = make_tiled_mma("SM80_16x8x16_F32BF16BF16F32_TN", (4, 1, 1), (64, 16, 16))
    return {"name": "fa2 sK", "tile": (64, 64), "dtype": BF16, "layout": tile_to_shape(parse(SW128_K), (64, 64)),
                "writes": ["cp_async:128:thr=(16,8):(8,1)"],
                "reads": [make_tiled_copy_B("SM75_U32x4_LDSM_N", mma, BF16)], "require": []}


def _fa2_q():
    mma = make_tiled_mma("SM80_16x8x16_F32BF16BF16F32_TN", (4, 1, 1), (64, 16, 16))
    return {"name": "fa2 sQ", "tile": (128, 64), "dtype": BF16, "layout": tile_to_shape(parse(SW128_K), (128, 64)),
                "writes": ["cp_async:128:thr=(16,8):(8,1)"],
                "reads": [make_tiled_copy_A("SM75_U32x4_LDSM_N", mma, BF16)], "require": []}


def _sm90_gemm():
    # sm90_wgmma_tma / hopper_gemm_sm90: sA = tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>, (128,64,stages)),
    # written by TMA, read by wgmma through a K-major descriptor
    sA = tile_to_shape(parse(SW128_K), (128, 64, 3))
    return {"name": "sm90 gemm sA", "tile": (128, 64), "dtype": F16, "layout": composition(sA, Layout((128, 64), (1, 128))),
                "writes": ["tma"], "reads": ["wgmma:A:K"], "require": ["tma", "gmma"]}


def _fa3_p():
    # FA3 fwd SM90 (MmaPV-in-smem configuration): sP = tile_to_shape(K SW128 atom, (128,128)), written by
    # stmatrix through make_tiled_copy_C(SM90_U32x4_STSM_N, tiled_mma_qk), read by wgmma as the A operand
    qk = make_tiled_mma("SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::K,GMMA::Major::K>", (2, 1, 1))
    return {"name": "fa3 sP", "tile": (128, 128), "dtype": BF16, "layout": tile_to_shape(parse(SW128_K), (128, 128)),
                "writes": [make_tiled_copy_C("SM90_U32x4_STSM_N", qk, BF16)], "reads": ["wgmma:A:K"], "require": ["gmma"]}


def _fa3_vt():
    # FA3's V^T: tile_to_shape(GMMA::Layout_MN_SW128_Atom<bf16>, (128,128)), TMA-written, read by wgmma as an
    # MN-major B operand
    return {"name": "fa3 sVt", "tile": (128, 128), "dtype": BF16, "layout": tile_to_shape(parse(SW128_MN), (128, 128)),
                "writes": ["tma"], "reads": ["wgmma:B:MN"], "require": ["tma", "gmma"]}


KERNELS = [_sgemm_sm80, _fa2_k, _fa2_q, _sm90_gemm, _fa3_p, _fa3_vt]


def _naive_degree(smem, tv, elem_bytes, vector_bytes):
    """Conflict degree by the plain rule: 32 banks of 4 bytes, a phase of 32 / 16 / 8 lanes for accesses of
    <= 4 / 8 / 16 bytes, a vector of ``vector_bytes`` per thread per instruction, distinct words per bank."""
    n_thr, n_val = size(tv.shape[0]), size(tv.shape[1])
    per = max(1, vector_bytes // elem_bytes)
    lanes = 32 if vector_bytes <= 4 else 16 if vector_bytes == 8 else 8
    worst = 1
    for w in range(0, n_thr, 32):
        for inst in range(n_val // per):
            for p in range(w, min(w + 32, n_thr), lanes):
                banks = {}
                for t in range(p, min(p + lanes, n_thr)):
                    for j in range(per):
                        addr = smem(tv(t, inst * per + j)) * elem_bytes
                        banks.setdefault((addr // 4) % 32, set()).add(addr // 4)
                worst = max(worst, max(len(s) for s in banks.values()))
    return worst


@pytest.mark.parametrize("make", KERNELS, ids=lambda f: f.__name__.strip("_"))
def test_synthesized_at_least_as_good_as_the_kernel(make):
    k = make()
    ex = explain_smem_layout(k["layout"], k["tile"], dtype=k["dtype"], writes=k["writes"], reads=k["reads"],
                             require=k["require"])
    for name, v in ex.consumers:
        assert v.proved, f"{k['name']}: the kernel's own layout should be legal for {name}: {v}"
    syn = synthesize_smem_layout(tile=k["tile"], dtype=k["dtype"], writes=k["writes"], reads=k["reads"],
                                 require=k["require"])
    assert syn.optimal_within_space().proved
    assert syn.proofs["bijective"].proved
    for name, v in syn.proofs["consumers"]:
        assert v.proved, f"{k['name']}: synthesized layout not legal for {name}"
    assert len(syn.degrees) == len(ex.accesses)
    for acc, d, w in zip(ex.accesses, syn.degrees, syn.widths):
        assert d <= acc.degree, f"{k['name']} {acc.name}: synthesized {d}-way, kernel {acc.degree}-way"
        assert w >= acc.vector.width, f"{k['name']} {acc.name}: synthesized {w} B, kernel {acc.vector.width} B"


@pytest.mark.parametrize("make", KERNELS[:3], ids=lambda f: f.__name__.strip("_"))
def test_conflict_free_answers_recheck_with_a_naive_bank_model(make):
    k = make()
    syn = synthesize_smem_layout(tile=k["tile"], dtype=k["dtype"], writes=k["writes"], reads=k["reads"],
                                 require=k["require"])
    prob = make_problem(k["tile"], k["dtype"], k["writes"], k["reads"], k["require"])
    eb = prob.bits // 8
    threads = [a for a in prob.accesses if a.threads]
    assert threads and len(threads) == len(syn.degrees)
    for a, d, w in zip(threads, syn.degrees, syn.widths):
        assert d == 1, f"{k['name']} {a.name}: the kernels' accesses all have a conflict-free layout"
        assert _naive_degree(syn.layout, a.tv, eb, w) == 1, (k["name"], a.name, str(syn.layout))
        # and the kernel's own (conflict-free) layouts agree with the naive model too
        assert _naive_degree(k["layout"], a.tv, eb, w) == 1, (k["name"], a.name)
