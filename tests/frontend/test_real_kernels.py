"""The real-kernel manifests (examples/fa4_fwd_sm80, fa4_bwd_sm90, dense_gemm_sm90, blackwell_gemm_2cta_sm100)
against CuTe DSL 4.8.1: every ``layouts:`` entry of each manifest equals, as a function on its whole domain, the
object the kernel's source builds with CuTe DSL (the same calls: FlashAttention-4's ``flash_fwd.py`` /
``ampere_helpers.py`` / ``flash_bwd_sm90.py`` with QuACK's helpers, CUTLASS's ``hopper/dense_gemm.py`` with
``hopper_helpers`` and ``blackwell/dense_gemm.py`` with ``blackwell_helpers``), traced on the CPU in one
``@cute.jit`` per architecture (warpgroup ops trace under ``CUTE_DSL_ARCH=sm_90a``, tcgen05 ops under ``sm_100a``).

Compared per entry: a layout (plain or swizzled) at every index; a tiled MMA's ``tv_layout_A/B/C_tiled``; a tiled
copy's ``layout_src_tv_tiled``, ``layout_dst_tv_tiled`` and ``tiler_mn``. Both sides are evaluated here, from
their printed ``shape:stride`` (the DSL's) and their shape and stride (cuteverify's), by a numpy evaluator that
shares no code with the library. Swizzles: cuteverify's act on element offsets; the DSL's GMMA / UMMA atoms
carry the byte swizzle its smem pointers apply, so those are evaluated on byte offsets (``S(2 x) / 2`` for 16-bit
types); FlashAttention-4's SM80 atom is an element swizzle in the DSL too. Every entry of a manifest must have its
DSL counterpart (a new entry without one fails the test). The Blackwell manifest's one entry that is not a kernel
object is built in the DSL from the same definition: make_tmem_copy's (thread, value) -> TMEM address layout
(copy_traits_sm100.hpp's ValID); every tiler and TV layout derived from it is the DSL's own (``make_tmem_copy``).
No manifest claim relates a TMEM layout to the hardware; a test here checks the Blackwell accumulator and its
tcgen05.ld against the TMEM data-path model.

The broken twins (examples/broken/*_broken.cute.yaml): every claim is refuted with a counterexample that names
the thread (for a per-thread access), the element and the cause, and together they make each mistake of
issue 25 (wrong copy tile, wrong atom width, wrong declared major, epilogue stage smaller than its tile)."""
import ast
import json
import os
import re
import subprocess

import numpy as np
import pytest
import yaml

import dsl_oracle

from cuteverify.frontend import manifest
from cuteverify.atoms import TiledCopy, TiledMma
from cuteverify.core.layout import Layout
from cuteverify.core.swizzle import ComposedLayout
from cuteverify.core.tuples import flatten
from cuteverify.hardware.descriptors import tmem
from cuteverify.frontend.manifest.expr import environment

pytestmark = pytest.mark.differential  # compares with an outside oracle (tests/oracles/, recorded evidence)

needs_dsl = pytest.mark.skipif(not dsl_oracle.available(), reason="CuTe DSL not installed")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KERNELS = {"fa4_fwd_sm80": "fa4_fwd_sm80_hdim128", "fa4_bwd_sm90": "fa4_bwd_sm90_hdim128",
           "dense_gemm_sm90": "dense_gemm_sm90_f16", "blackwell_gemm_2cta_sm100": "blackwell_gemm_2cta_sm100_f16"}

# The DSL side: each kernel's objects built as its source builds them, keyed by the manifest entry's name.
# A swizzled layout is sent as [text, unit]: unit is the bytes per element its swizzle is applied in
# (2: the byte swizzle of a GMMA atom for 16-bit types; 1: an element swizzle).
WORKER = r'''
import json, sys
import cutlass, cutlass.cute as cute
import cutlass.utils as utils
import cutlass.utils.hopper_helpers as sm90
from cutlass.cute.nvgpu import CopyUniversalOp, OperandMajorMode, cpasync, warp, warpgroup
from cutlass.utils import LayoutEnum
bf16, f16, f32 = cutlass.BFloat16, cutlass.Float16, cutlass.Float32
K, MN = OperandMajorMode.K, OperandMajorMode.MN
ROW = LayoutEnum.ROW_MAJOR

def atom(op, dtype, bits=None):
    return cute.make_copy_atom(op, dtype) if bits is None else cute.make_copy_atom(op, dtype, num_bits_per_copy=bits)

def fa4_fwd_sm80():
    # ampere_helpers.get_smem_layout_atom(bf16, 128); FlashAttentionForwardBase._setup_attributes; kernel()
    sAtom = cute.make_composed_layout(cute.make_swizzle(3, 3, 3), 0, cute.make_ordered_layout((8, 64), order=(1, 0)))
    sQ = cute.tile_to_shape(sAtom, (128, 128), (0, 1))
    sK = cute.tile_to_shape(sAtom, (64, 128, 1), (0, 1, 2))
    sV = cute.tile_to_shape(sAtom, (64, 128, 1), (0, 1, 2))
    sO = cute.tile_to_shape(sAtom, (128, 128), (0, 1))
    sVt = cute.composition(sV, cute.make_ordered_layout((128, 64, 1), order=(1, 0, 2)))   # transpose_view
    thr = cute.make_ordered_layout((16, 8), order=(1, 0))
    g2s = cute.make_tiled_copy_tv(atom(cpasync.CopyG2SOp(cache_mode=cpasync.LoadCacheMode.GLOBAL), bf16, 128), thr,
                                  cute.make_layout((1, 8)))
    s2g_O = cute.make_tiled_copy_tv(atom(CopyUniversalOp(), bf16, 128), thr, cute.make_layout((1, 8)))
    qk = cute.make_tiled_mma(warp.MmaF16BF16Op(bf16, f32, (16, 8, 16)), (4, 1, 1), permutation_mnk=(64, 16, 16))
    pv = cute.make_tiled_mma(warp.MmaF16BF16Op(bf16, f32, (16, 8, 16)), (4, 1, 1), permutation_mnk=(64, 16, 16))
    ldsm, ldsm_t = (atom(warp.LdMatrix8x8x16bOp(transpose=t, num_matrices=4), bf16) for t in (False, True))
    s2r_Q, s2r_K = cute.make_tiled_copy_A(ldsm, qk), cute.make_tiled_copy_B(ldsm, qk)
    s2r_Vt = cute.make_tiled_copy_B(ldsm_t, pv)
    r2s_O = cute.make_tiled_copy_C(atom(CopyUniversalOp(), bf16, 32), pv)   # utils.get_smem_store_atom, arch < 90
    lay = dict(sAtom=sAtom, sQ=sQ, sK=sK, sV=sV, sVt=sVt, sO=sO, g2s=g2s, s2g_O=s2g_O, qk=qk, pv=pv,
               s2r_Q=s2r_Q, s2r_K=s2r_K, s2r_Vt=s2r_Vt, r2s_O=r2s_O)
    return lay, {n: 1 for n in lay}

def gmma_smem(shape, stage, mms, dtype):
    # quack.sm90_utils.make_smem_layout(dtype, ROW_MAJOR, shape, stage, major_mode_size=mms)
    a = warpgroup.make_smem_layout_atom(sm90.get_smem_layout_atom(ROW, dtype, mms), dtype)
    return cute.tile_to_shape(a, shape + ((stage,) if stage else ()), (0, 1, 2)[:len(shape) + (1 if stage else 0)])

def transpose_view(x):
    # quack.layout_utils.transpose_view
    s = cute.shape(x)
    return cute.composition(x, cute.make_ordered_layout((s[1], s[0], *s[2:]), order=(1, 0, *range(2, len(s)))))

def fa4_bwd_sm90():
    # FlashAttentionBackwardSm90._setup_attributes / _get_tiled_mma / mma(), hdim 128 causal config
    atom_k = warpgroup.make_smem_layout_atom(sm90.get_smem_layout_atom(ROW, bf16, 128), bf16)
    sQ, sdO = gmma_smem((64, 128), 2, 128, bf16), gmma_smem((64, 128), 2, 128, bf16)
    sK, sV = gmma_smem((128, 128), None, 64, bf16), gmma_smem((128, 128), None, 128, bf16)
    sPdS = gmma_smem((64, 128), 2, 64, bf16)
    st0 = lambda x: cute.slice_(x, (None, None, 0))
    SdP = sm90.make_trivial_tiled_mma(bf16, bf16, K, K, f32, atom_layout_mnk=(2, 1, 1), tiler_mn=(64, 64))
    dKV = [sm90.make_trivial_tiled_mma(bf16, bf16, K, MN, f32, atom_layout_mnk=(2, 1, 1), tiler_mn=(64, 128),
                                       a_source=warpgroup.OperandSource.RMEM) for _ in range(2)]
    dQ = sm90.make_trivial_tiled_mma(bf16, bf16, K, MN, f32, atom_layout_mnk=(1, 2, 1), tiler_mn=(64, 64))
    dV_allk = cute.make_tiled_mma(warpgroup.MmaF16BF16Op(bf16, f32, (64, 128, 16), warpgroup.OperandSource.RMEM,
                                                         K, MN), (2, 1, 1), permutation_mnk=(None, None, 64))
    stsm_n, stsm_t = (atom(warp.StMatrix8x8x16bOp(transpose=t, num_matrices=4), bf16) for t in (False, True))
    lay = dict(sAtom=atom_k, sQ=sQ, sdO=sdO, sK=sK, sV=sV, sPdS=sPdS, sQ0=st0(sQ), sdO0=st0(sdO), sdS0=st0(sPdS),
               sQt0=st0(transpose_view(sQ)), sdOt0=st0(transpose_view(sdO)), sdSt0=st0(transpose_view(sPdS)),
               sKt=transpose_view(sK), sQt=transpose_view(sQ), sdOt=transpose_view(sdO), SdP=SdP, dV=dKV[0],
               dK=dKV[1], dQ=dQ, dV_allk=dV_allk,
               ST_regs=cute.make_tiled_copy_C(atom(CopyUniversalOp(), bf16, 16), SdP),
               r2s_dS=cute.make_tiled_copy_C(stsm_t, SdP), r2s_dV=cute.make_tiled_copy_C(stsm_n, dKV[0]),
               r2s_dK=cute.make_tiled_copy_C(stsm_n, dKV[1]))
    return lay, {n: 2 for n in lay}

def dense_gemm_sm90():
    # HopperWgmmaGemmKernel._setup_attributes / _make_smem_layouts / kernel() epilogue, default configuration
    tile = (128, 128, 64)
    cap = utils.get_smem_capacity_in_bytes("sm_90")
    ab_stage = (cap - 1024) // (128 * 64 * 2 + 128 * 64 * 2)
    mma = sm90.make_trivial_tiled_mma(f16, f16, K, K, f32, (1, 1, 1), tiler_mn=(64, 128))
    epi_tile = sm90.compute_tile_shape_or_override(tile, f16, is_cooperative=False)
    sA = sm90.make_smem_layout_a(ROW, tile, f16, ab_stage)
    sB = sm90.make_smem_layout_b(ROW, tile, f16, ab_stage)
    sC = sm90.make_smem_layout_epi(f16, ROW, epi_tile, 4)
    st0 = lambda x: cute.slice_(x, (None, None, 0))
    catom = cute.make_tiled_copy_C_atom(atom(warp.StMatrix8x8x16bOp(False, 4), f16), mma)
    r2s = cute.make_tiled_copy_S(sm90.sm90_get_smem_store_op(ROW, elem_ty_d=f16, elem_ty_acc=f32), catom)
    lay = dict(sAtomAB=warpgroup.make_smem_layout_atom(sm90.get_smem_layout_atom(ROW, f16, 64), f16),
               sAtomC=warpgroup.make_smem_layout_atom(sm90.get_smem_layout_atom(ROW, f16, epi_tile[1]), f16),
               sA=sA, sB=sB, sC=sC, sA0=st0(sA), sB0=st0(sB), sC0=st0(sC), mma=mma, catom=catom, r2s=r2s)
    return lay, {n: 2 for n in lay}

def blackwell_gemm_2cta_sm100():
    # DenseGemmKernel(f32 acc, use_2cta_instrs, (256,128), cluster (2,1), use_tma_store) on f16 A/B/C, A and B
    # K-major, C row-major: _setup_attributes / _compute_stages / kernel() / epilog_*_copy_and_partition
    import cutlass.utils.blackwell_helpers as sm100
    from cutlass.cute.nvgpu import tcgen05
    mma = sm100.make_trivial_tiled_mma(f16, K, K, f32, tcgen05.CtaGroup.TWO, (256, 128))
    mma_tiler, cta_tile = (256, 128, 64), (128, 128, 64)
    epi_tile = sm100.compute_epilogue_tile_shape(cta_tile, True, ROW, f16)
    one = [sm100.make_smem_layout_a(mma, mma_tiler, f16, 1), sm100.make_smem_layout_b(mma, mma_tiler, f16, 1),
           sm100.make_smem_layout_epi(f16, ROW, epi_tile, 1)]
    ab_bytes = cute.size_in_bytes(f16, one[0]) + cute.size_in_bytes(f16, one[1])
    c_bytes, cap = 2 * cute.size_in_bytes(f16, one[2]), utils.get_smem_capacity_in_bytes("sm_100")
    ab_stage = (cap - 2 * (1024 + c_bytes)) // ab_bytes
    c_stage = 2 + (cap - ab_bytes * ab_stage - 2 * (1024 + c_bytes)) // (2 * cute.size_in_bytes(f16, one[2]))
    sA = sm100.make_smem_layout_a(mma, mma_tiler, f16, ab_stage)
    sB = sm100.make_smem_layout_b(mma, mma_tiler, f16, ab_stage)
    sC = sm100.make_smem_layout_epi(f16, ROW, epi_tile, c_stage)
    lay = dict(mma=mma, sA=sA, sB=sB, sC=sC, sA0=cute.slice_(sA, (None, None, None, 0)),
               sB0=cute.slice_(sB, (None, None, None, 0)), sC0=cute.slice_(sC, (None, None, 0)),
               sAtom=tcgen05.make_smem_layout_atom(sm100.get_smem_layout_atom_ab(K, f16, (256, 64)), f16),
               sAtomC=tcgen05.make_smem_layout_atom(sm100.get_smem_layout_atom_epi(ROW, f16, epi_tile), f16))
    acc = mma.make_fragment_C(mma.partition_shape_C(mma_tiler[:2]))
    tAcc = cute.make_tensor(cute.make_ptr(f32, 0, cute.AddressSpace.tmem), acc.layout)
    tAcc_epi = cute.flat_divide(tAcc[((None, None), 0, 0)], epi_tile)
    tAcc_epi0 = tAcc_epi[(None, None, 0, 0)]
    t2r = tcgen05.make_tmem_copy(sm100.get_tmem_load_op(cta_tile, ROW, f16, f32, epi_tile, True), tAcc_epi0)
    # make_tmem_copy's (thread, value) -> TMEM address layout for Ld32x32b x32 on f32: atom_t_layout
    # (32,4):(0, 32 << 16) and coalesce(upcast<32>(ValID (1024,32):(1, 32 << 16))) of copy_traits_sm100.hpp
    addr_tv = cute.make_layout(((32, 4), (32, 32)), stride=((0, 32 << 16), (1, 1 << 16)))
    r2s = cute.make_tiled_copy_D(sm100.get_smem_store_op(ROW, f16, f32, t2r), t2r)
    lay.update(tAcc=acc.layout, tAcc_mn=tAcc[((None, None), 0, 0)].layout, tAcc_epi=tAcc_epi.layout,
               tAcc_epi0=tAcc_epi0.layout, t2r_addr_tv=addr_tv,
               t2r_tv_data=cute.composition(cute.left_inverse(tAcc_epi0.layout), addr_tv),
               t2r_m=t2r.tiler_mn[0], t2r_n=t2r.tiler_mn[1], t2r_tv=t2r.layout_tv_tiled, t2r=t2r, r2s=r2s,
               r2s_128b=cute.make_tiled_copy_D(atom(CopyUniversalOp(), f16, 128), t2r))
    return lay, {n: 2 if n.startswith("s") else 1 for n in lay}

def ser(x, unit):
    if isinstance(x, cute.TiledMma):
        return {"A": str(x.tv_layout_A_tiled), "B": str(x.tv_layout_B_tiled), "C": str(x.tv_layout_C_tiled)}
    if isinstance(x, cute.TiledCopy):
        return {"src": str(x.layout_src_tv_tiled), "dst": str(x.layout_dst_tv_tiled),
                "tiler": [str(t) for t in x.tiler_mn]}
    if isinstance(x, list):  # already [text, unit]
        return x
    return [str(x), unit]

@cute.jit
def run():
    out = {}
    for name in sys.argv[1:]:
        lay, units = globals()[name]()
        out[name] = {n: ser(v, units[n]) for n, v in lay.items()}
    print("RESULT " + json.dumps(out))
run()
'''


#: the kernels per CUTE_DSL_ARCH their ops trace under (warpgroup ops need sm_90a, tcgen05 ops sm_100a)
ARCHS = {"sm_90a": ("fa4_fwd_sm80", "fa4_bwd_sm90", "dense_gemm_sm90"), "sm_100a": ("blackwell_gemm_2cta_sm100",)}


@pytest.fixture(scope="module")
def dsl(tmp_path_factory):
    script = tmp_path_factory.mktemp("real_kernels_dsl") / "worker.py"  # the DSL traces from a source file only
    script.write_text(WORKER)
    out = {}
    for arch, names in ARCHS.items():
        env = dsl_oracle._worker_env()
        env["CUTE_DSL_ARCH"] = arch
        r = subprocess.run([dsl_oracle._python(), "-W", "ignore", str(script), *names], capture_output=True,
                           text=True, env=env, timeout=600, check=False)
        line = next((x for x in r.stdout.splitlines() if x.startswith("RESULT ")), None)
        assert line is not None, r.stderr[-3000:]
        out.update(json.loads(line[len("RESULT "):]))
    return out


# ----------------------------------------------------------------- an evaluator independent of the library

_SWIZZLE = re.compile(r"\s*S<(\d+),(\d+),(\d+)>\s*o\s*(-?\d+)\s*o\s*(.*)\Z", re.S)


def _np_values(shape, stride):
    """Every index of ``shape:stride``, colexicographic: the layout's values as an int64 array."""
    vals = np.zeros(1, dtype=np.int64)
    for s, d in zip(_leaves(shape), _leaves(stride)):
        vals = (vals[None, :] + (np.arange(s, dtype=np.int64) * d)[:, None]).ravel()
    return vals


def _leaves(t):
    return [t] if type(t) is int else [x for c in t for x in _leaves(c)]


def _swizzle(x, b, m, s):
    """``Swizzle<b,m,s>``: the b bits at m + s XORed onto the b bits at m."""
    mask = ((1 << b) - 1) << (m + s)
    return x ^ ((x & mask) >> s)


def _text_values(text, unit=1):
    """The values of a printed ``shape:stride`` (an int ``n`` is ``n:1``), or ``S<b,m,s> o off o shape:stride``
    whose swizzle acts on offsets counted in units of ``unit`` bytes per element."""
    m = _SWIZZLE.match(text)
    if m:
        b, mm, s, off = (int(x) for x in m.groups()[:4])
        return _swizzle((off + _text_values(m.group(5))) * unit, b, mm, s) // unit
    text = text.strip()
    if re.fullmatch(r"\d+", text):
        return np.arange(int(text), dtype=np.int64)
    depth, cut = 0, None
    for i, c in enumerate(text):
        depth += c == "("
        depth -= c == ")"
        if c == ":" and depth == 0:
            cut = i
    shape, stride = ast.literal_eval(text[:cut]), ast.literal_eval(text[cut + 1:])
    return _np_values(shape, stride)


def _cv_values(lay):
    """cuteverify's layout (plain or swizzled on element offsets) at every index, from its fields."""
    if isinstance(lay, ComposedLayout):
        sw = lay.inner
        return _swizzle(lay.offset + _cv_values(lay.outer), sw.bits, sw.base, sw.shift)
    return _np_values(tuple(flatten(lay.shape)), tuple(flatten(lay.stride)))


def _same(label, ours, theirs_text, unit, failures):
    a, b = _cv_values(ours), _text_values(theirs_text, unit)
    if a.shape != b.shape or not np.array_equal(a, b):
        failures.append(f"{label}: {ours} is not CuTe DSL's {theirs_text} (as functions on the whole domain)")


def _manifest_env(name):
    with open(os.path.join(ROOT, "examples", f"{name}.cute.yaml")) as f:
        doc = yaml.safe_load(f)
    k = doc["kernels"][KERNELS[name]]
    symbols = tuple(k["symbols"]) if k.get("symbols") else None
    return environment(tuple(k["layouts"].items()), tuple(k.get("assume") or ()), symbols)


@needs_dsl
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_every_manifest_entry_equals_cute_dsl(dsl, name):
    env, theirs = _manifest_env(name), dsl[name]
    assert set(env) == set(theirs), f"entries without a DSL counterpart: {sorted(set(env) ^ set(theirs))}"
    failures = []
    for n, v in env.items():
        t = theirs[n]
        if isinstance(v, TiledMma):
            for op in "ABC":
                _same(f"{n}.tv_layout_{op}_tiled", v.tv_layout_tiled(op), t[op], 1, failures)
        elif isinstance(v, TiledCopy):
            _same(f"{n}.layout_src_tv_tiled", v.layout_src_tv_tiled, t["src"], 1, failures)
            _same(f"{n}.layout_dst_tv_tiled", v.layout_dst_tv_tiled, t["dst"], 1, failures)
            assert len(v.tiler_mn) == len(t["tiler"]), (n, v.tiler_mn, t["tiler"])
            for i, (a, b) in enumerate(zip(v.tiler_mn, t["tiler"])):
                _same(f"{n}.tiler_mn[{i}]", a, b, 1, failures)
        else:
            _same(n, v, t[0], t[1], failures)
    assert not failures, "\n".join(failures)


@needs_dsl
def test_the_evaluator_is_not_vacuous(dsl):
    """The comparison sees a wrong stride, a dropped swizzle and the byte/element unit of a swizzle."""
    env = _manifest_env("fa4_bwd_sm90")
    fails = []
    _same("sQ", env["sQ"], dsl["fa4_bwd_sm90"]["sQ"][0], 1, fails)  # the byte swizzle read as an element one
    _same("sQ", env["sQ"].outer, dsl["fa4_bwd_sm90"]["sQ"][0], 2, fails)
    _same("SdP", env["SdP"].tv_layout_C_tiled, dsl["fa4_bwd_sm90"]["dQ"]["C"], 1, fails)
    assert len(fails) == 3, fails


# ------------------------------------------------------------------- the Blackwell epilogue against TMEM

def test_blackwell_accumulator_and_tcgen05_ld_agree_with_the_tmem_data_path():
    """No manifest claim kind relates a TMEM layout to the hardware, so this test does: the manifest's
    accumulator agrees with data path A of the M=256 cta_group::2 UMMA (lane m, column n), and its tcgen05.ld
    copy, iterated over the CTA's four 128x32 epilogue subtiles as the kernel does, delivers to (thread, value)
    the element its TV layout names (``hardware.tmem.check_epilogue``: warp w reads lanes 32w.., 32 columns per
    load). The (thread, value) -> CTA tile index table is evaluated here from the copy's TV layout and tiler;
    the same check refutes the copy with its tile written as the shape (thread (lane, warp) at row
    4*lane + warp, not the lane its warp's load reads)."""
    env = _manifest_env("blackwell_gemm_2cta_sm100")
    t2r = env["t2r"]
    assert tmem.check_accumulator(env["tAcc"], 256, 128, 2).proved

    def cta_tv(tiler):
        tv = _cv_values(t2r.layout_dst_tv_tiled).reshape(32, 128).T          # [thread, value] tile indices
        rows, cols = (_cv_values(t) for t in tiler)
        m, n = rows[tv % len(rows)], cols[tv // len(rows)]
        idx = np.concatenate([m + 128 * (n + 32 * j) for j in range(4)], axis=1)   # the four subtiles
        # (thread, value) -> m + 128 n as a layout: thread (lane, warp), value (column, subtile)
        lay = Layout(((32, 4), (32, 4)), ((1, 32), (128, 4096)))
        assert np.array_equal(_cv_values(lay).reshape(128, 128, order="F"), idx), "not the table"
        return lay

    assert tmem.check_epilogue(env["tAcc"], cta_tv(t2r.tiler_mn), 256, 128, 2, shape="32x32b", R=32).proved
    wrong = tmem.check_epilogue(env["tAcc"], Layout(((32, 4), (32, 4)), ((4, 1), (128, 4096))), 256, 128, 2,
                                shape="32x32b", R=32)
    assert wrong.status == "refuted" and wrong.counterexample.detail["thread"] == 1, wrong
    assert "D(4, 0)" in wrong.counterexample.note and "reads lane 1" in wrong.counterexample.note


# ------------------------------------------------------------------------------------------ the broken twins

def _twin_results(name):
    return manifest.run(manifest.load(os.path.join(ROOT, "examples", "broken", f"{name}_broken.cute.yaml")))


def _names_thread_element_cause(r) -> bool:
    """The refutation names the thread (for a per-thread access), the element and the cause, each in the words
    of its kind (evaluated on the counterexample text and reason, as a user reads them)."""
    cex, why, kind = (r["counterexample"] or {}).get("text", ""), r.get("reason") or "", r["kind"]
    if kind in ("banks", "vector"):  # a copy: the thread, its elements, and the bank or the broken vector
        return bool(re.search(r"threads? \d+", cex) and "element" in cex
                    and ("bank" in cex or "not contiguous" in cex))
    if kind == "operand":  # the block and thread, the element the descriptor misreads, the declared major
        return bool(re.search(r"\(thread \d+\)", cex) and re.search(r"element \(mn=\d+, k=\d+\)", cex)
                    and re.search(r"declared \w+::Major::\w+ but the tile is", why))
    if kind == "tma":  # one thread issues a TMA for the whole tile: the element and CUTLASS's requirement
        return bool(re.search(r"CTA tile element \(\d+,\d+\) lies outside", cex) and "CUTLASS" in cex)
    if kind == "injective":  # two coordinates and the address they share
        return bool(re.search(r"coordinates \d+ .* and \d+ .* both map to \d+", cex))
    if kind == "covers":  # a layout used over a tile it was not built for names both tiles
        return "tile it was built for" in cex and "the claim names the tile" in cex
    if kind == "agrees" and "thread" in cex:  # a tiled MMA: thread, value and both elements
        return bool(re.search(r"thread \d+, value \d+", cex) and "the hardware holds" in cex)
    # an smem layout against its hardware atom: the element and where each side puts it
    return bool(re.search(r"coordinate \(\d+, \d+", cex) and "hardware puts that element" in cex)


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_broken_twin_is_refuted_naming_thread_element_and_cause(name):
    results = _twin_results(name)
    assert results
    for r in results:
        assert r["status"] == "refuted", r
        assert _names_thread_element_cause(r), r


def test_twins_cover_the_issue_mistakes():
    """Each mistake kind of issue 25 is a twin claim of some real kernel (wrong copy tile, wrong atom width,
    wrong declared major, epilogue stage smaller than its tile), and the Blackwell twin breaks each of its
    parts once."""
    names = {n: [r["claim"] for r in _twin_results(n)] for n in KERNELS}
    flat = [x for v in names.values() for x in v]
    for kind in ("wrong copy tile", "wrong atom width", "wrong declared major", "epilogue stage smaller"):
        assert any(x.startswith(kind) for x in flat), kind
    for part in ("the tiled MMA", "the 2-CTA split", "UMMA descriptors", "tcgen05.ld", "the TMEM accumulator",
                 "the epilogue store", "epilogue stage smaller"):
        assert any(part in x for x in names["blackwell_gemm_2cta_sm100"]), part
