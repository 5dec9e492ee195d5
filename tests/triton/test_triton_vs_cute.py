"""The issue's figure: Triton's NVIDIA MMA v2/v3, dot-operand and shared layouts for the common shapes equal
the corresponding CuTe atoms (cuteverify.triton.prove_triton_equals), and every equality is checked from the
refuting side too (a perturbed CuTe layout is refuted with a counterexample that re-evaluates).

Independent oracle: on the small cases the proof is compared with brute force, every thread's elements listed
from CuTe's own layout evaluation (``L((thread, value))``) and from Triton's bases.

Facts used: Triton's Ampere mma warps are numbered row-major (NvidiaMmaEncodingAttr::getWarpOrder, rowMajor
for Ampere), Hopper's column-major; CuTe's tiled MMA numbers them by its atom layout (column-major unless a
stride is given). CUTLASS's SM90 builders tile an MN-major GMMA atom K first (Step<_2,_1,_3>).
"""
from __future__ import annotations

import pytest

from cuteverify.algebra import tile_to_shape
from cuteverify.atoms import make_mma_atom, make_tiled_mma
from cuteverify.core.layout import Layout, size
from cuteverify.core.notation.parse import parse
from cuteverify.core.swizzle import ComposedLayout, Swizzle
from cuteverify.hardware import resolve
from cuteverify.errors import TritonLayoutError
from cuteverify.triton.prove import prove_triton_equals, triton_layout


def mma2(w):
    return f"#ttg.nvidia_mma<{{versionMajor = 2, versionMinor = 0, warpsPerCTA = {list(w)}, instrShape = [16, 8]}}>"


def mma3(n, w=(4, 1), k=16):
    return f"#ttg.nvidia_mma<{{versionMajor = 3, versionMinor = 0, warpsPerCTA = {list(w)}, instrShape = [16, {n}, {k}]}}>"


def dot(parent, idx, kw):
    return f"#ttg.dot_op<{{opIdx = {idx}, parent = {parent}, kWidth = {kw}}}>"


def row_major(w):
    """CuTe's atom layout numbering warps as Triton's Ampere layouts do: (wm, wn, 1):(wn, 1, 0)."""
    return parse(f"({w[0]},{w[1]},1):({w[1]},1,0)")


def tiled(atom, w, m, n, k, rowmajor=True):
    return make_tiled_mma(atom, row_major(w) if rowmajor else (w[0], w[1], 1), (m, n, k))


def brute_ownership(attr, shape, L, tile, transpose=False):
    """Each thread's element set from both sides, by enumeration (CuTe: its own layout evaluated)."""
    _, _, ll = triton_layout(attr, shape)
    lanes, warps, regs = (ll.in_dim_size(d) for d in ("lane", "warp", "register"))
    tri = {}
    for ln in range(lanes):
        for w in range(warps):
            tri[ln + lanes * w] = {ll.apply({"lane": ln, "warp": w, "register": r}) for r in range(regs)}
    T, V = size(L.shape[0]), size(L.shape[1])
    cute = {}
    for t in range(T):
        s = set()
        for v in range(V):
            i = L((t, v))
            m, n = i % tile[0], i // tile[0]
            s.add((n, m) if transpose else (m, n))
        cute[t] = s
    return tri == cute


def recheck(v, attr, shape, L, tile, transpose=False):
    """The counterexample names a thread and register at which the two sides hold different elements (or a
    thread one side gives an element the other does not): re-evaluated here on CuTe's layout."""
    c = v.counterexample
    assert v.refuted and c is not None and c.kind == "disagree"
    _, _, ll = triton_layout(attr, shape)
    t, r = c.detail["thread"], c.detail["register"]
    lanes = ll.in_dim_size("lane")
    tri = ll.apply({"lane": t % lanes, "warp": t // lanes, "register": r}) if r < ll.in_dim_size("register") \
        else None
    i = L((t, r))
    cute = (i // tile[0], i % tile[0]) if transpose else (i % tile[0], i // tile[0])
    if c.detail["question"] == "exact":
        assert tri == c.detail["triton"] and cute == c.detail["other"] and tri != cute
    else:
        assert tri != cute or tri is None
        held = c.detail["triton"] if "in Triton's layout (register" in c.note else c.detail["other"]
        mine = {ll.apply({"lane": t % lanes, "warp": t // lanes, "register": x}) for x in range(ll.in_dim_size("register"))}
        theirs = set()
        for x in range(size(L.shape[1])):
            j = L((t, x))
            theirs.add((j // tile[0], j % tile[0]) if transpose else (j % tile[0], j // tile[0]))
        assert (held in mine) != (held in theirs)


def _first_leaf(t, new):
    """``t`` (a nested tuple or an int) with its first leaf replaced by ``new``; also the old leaf."""
    if type(t) is not tuple:
        return new, t
    head, old = _first_leaf(t[0], new)
    return (head,) + t[1:], old


def _leaf(shape, stride):
    """The first leaf (size, stride) of a mode."""
    while type(shape) is tuple:
        shape, stride = shape[0], stride[0]
    return shape, stride


def perturbed(L):
    """``L`` with the images of bit 0 of its thread mode and bit 0 of its value mode exchanged (each first leaf
    split into a size-2 leaf and the rest, the same function, before the exchange): still F2-linear, but
    thread 1 now holds what was a value of thread 0 and thread 0 holds thread 1's element."""
    (ts, vs), (td, vd) = L.shape, L.stride
    (s0, d0), (s1, d1) = _leaf(ts, td), _leaf(vs, vd)
    assert d0 != d1

    def put(shape, stride, d_new, s, d):
        if type(shape) is not tuple:
            return ((2, s // 2), (d_new, 2 * d)) if s > 2 else (s, d_new)
        a, b = put(shape[0], stride[0], d_new, s, d)
        return (a,) + shape[1:], (b,) + stride[1:]
    ts2, td2 = put(ts, td, d1, s0, d0)
    vs2, vd2 = put(vs, vd, d0, s1, d1)
    return Layout((ts2, vs2), (td2, vd2))


def refute_perturbed(attr, shape, L, tile, transpose=False):
    bad = perturbed(L)
    v = prove_triton_equals(attr, shape, bad, tile=tile, transpose=transpose)
    recheck(v, attr, shape, bad, tile, transpose)
    return v


MMA2_CASES = [((1, 1), (16, 8)), ((1, 1), (16, 16)), ((2, 2), (32, 16)), ((4, 1), (64, 8)), ((4, 1), (128, 128)),
              ((2, 2), (64, 64)), ((2, 4), (32, 32)), ((2, 4), (128, 128)), ((1, 4), (16, 64)), ((4, 2), (128, 64))]


@pytest.mark.parametrize("w,shape", MMA2_CASES)
def test_mma_v2_accumulator_is_the_sm80_atoms_C(w, shape):
    t = tiled("SM80_16x8x16_F32F16F16F32_TN", w, shape[0], shape[1], 16)
    L = t.tv_layout_C_tiled
    v = prove_triton_equals(mma2(w), shape, t, operand="C")
    assert v.proved, v
    reps_m, reps_n = shape[0] // (16 * w[0]), shape[1] // (8 * w[1])
    e = prove_triton_equals(mma2(w), shape, t, operand="C", exact=True)
    if reps_m == 1 or reps_n == 1:  # repeats along one dim at most: the register order is the atom's too
        assert e.proved and "same function" in v.reason
    else:  # both repeat: CuTe's registers go M first, Triton's N first (its repOrder [1, 0]): ownership only
        recheck(e, mma2(w), shape, L, shape)
        assert "register order differs" in v.reason
    if shape[0] * shape[1] <= 64 * 64:
        assert brute_ownership(mma2(w), shape, L, shape)
    refute_perturbed(mma2(w), shape, L, shape)


@pytest.mark.parametrize("w,shape", [((2, 2), (32, 16)), ((2, 4), (64, 64)), ((4, 2), (128, 64))])
def test_cutes_default_column_major_warps_differ_from_tritons_ampere_order(w, shape):
    t = tiled("SM80_16x8x16_F32F16F16F32_TN", w, shape[0], shape[1], 16, rowmajor=False)
    v = prove_triton_equals(mma2(w), shape, t, operand="C")
    recheck(v, mma2(w), shape, t.tv_layout_C_tiled, shape)
    assert v.counterexample.detail["warp"] >= 1  # warps are numbered differently; lanes agree
    assert not brute_ownership(mma2(w), shape, t.tv_layout_C_tiled, shape)


DOT_ATOMS = [("SM80_16x8x16_F32F16F16F32_TN", 2), ("SM80_16x8x16_F32BF16BF16F32_TN", 2),
             ("SM80_16x8x32_S32S8S8S32_TN", 4), ("SM89_16x8x32_F32E4M3E4M3F32_TN", 4),
             ("SM80_16x8x8_F32TF32TF32F32_TN", 1)]


@pytest.mark.parametrize("atom,kw", DOT_ATOMS)
@pytest.mark.parametrize("w,mn,ks", [((1, 1), (16, 8), 1), ((2, 2), (32, 16), 1), ((4, 1), (64, 64), 2),
                                     ((2, 2), (64, 64), 4)])
def test_dot_operands_are_the_sm80_atoms_A_and_B(atom, kw, w, mn, ks):
    K = make_mma_atom(atom).shape_mnk[2] * ks
    M, N = mn
    t = tiled(atom, w, M, N, K)
    a = dot(mma2(w), 0, kw)
    va = prove_triton_equals(a, (M, K), t, operand="A")
    assert va.proved, va
    b = dot(mma2(w), 1, kw)
    vb = prove_triton_equals(b, (K, N), t, operand="B")  # Triton's B is (k, n); CuTe's (n, k)
    assert vb.proved, vb
    # registers: Triton repeats K first (repOrder), CuTe M (A) / N (B) first: the same function exactly when
    # the operand repeats along one dim at most
    reps_m, reps_n = M // (16 * w[0]), N // (8 * w[1])
    for attr, shp, op, L, tr, reps in ((a, (M, K), "A", t.tv_layout_A_tiled, False, reps_m),
                                       (b, (K, N), "B", t.tv_layout_B_tiled, True, reps_n)):
        e = prove_triton_equals(attr, shp, t, operand=op, exact=True)
        if reps == 1 or ks == 1:
            assert e.proved, e
        else:
            recheck(e, attr, shp, L, (shp[1], shp[0]) if tr else shp, tr)
    if M * K <= 64 * 64:
        assert brute_ownership(a, (M, K), t.tv_layout_A_tiled, (M, K))
        assert brute_ownership(b, (K, N), t.tv_layout_B_tiled, (N, K), transpose=True)
    refute_perturbed(a, (M, K), t.tv_layout_A_tiled, (M, K))
    refute_perturbed(b, (K, N), t.tv_layout_B_tiled, (N, K), transpose=True)


@pytest.mark.parametrize("n", [8, 16, 32, 64, 128, 256])
def test_mma_v3_accumulator_is_the_wgmma_C_atom(n):
    atom = make_mma_atom(f"SM90_64x{n}x16_F32F16F16_SS")
    v = prove_triton_equals(mma3(n), (64, n), atom, operand="C", exact=True)
    assert v.proved, v
    L = atom.tv_layout("C")
    if n <= 64:
        assert brute_ownership(mma3(n), (64, n), L, (64, n))
    refute_perturbed(mma3(n), (64, n), L, (64, n))


@pytest.mark.parametrize("n", [16, 64, 256])
def test_mma_v3_larger_tensors_repeat_the_warpgroup(n):
    # 128 x N with one warpgroup: both repeat M by registers (Triton's register bit 64 along dim0 after the N
    # bits; CuTe's RestM after the atom's values): here the same order, N fits one instruction
    t = make_tiled_mma(f"SM90_64x{n}x16_F32F16F16_SS", (1, 1, 1), (128, n, 16))
    v = prove_triton_equals(mma3(n), (128, n), t, operand="C", exact=True)
    assert v.proved, v
    # 128 x 2N: registers repeat along both dims, in different orders: ownership only
    if n <= 128:
        t2 = make_tiled_mma(f"SM90_64x{n}x16_F32F16F16_SS", (1, 1, 1), (128, 2 * n, 16))
        assert prove_triton_equals(mma3(n), (128, 2 * n), t2, operand="C").proved
        e = prove_triton_equals(mma3(n), (128, 2 * n), t2, operand="C", exact=True)
        recheck(e, mma3(n), (128, 2 * n), t2.tv_layout_C_tiled, (128, 2 * n))


@pytest.mark.parametrize("n,k", [(64, 16), (128, 32)])
def test_mma_v3_register_A_is_the_wgmma_RS_atoms_A(n, k):
    name = f"SM90_64x{n}x16_F32F16F16_RS" if k == 16 else f"SM90_64x{n}x32_F32E4M3E4M3_RS_TN"
    atom = make_mma_atom(name)
    kw = 2 if k == 16 else 4
    a = dot(mma3(n, k=k), 0, kw)
    v = prove_triton_equals(a, (64, k), atom, operand="A", exact=True)
    assert v.proved, v
    assert brute_ownership(a, (64, k), atom.tv_layout("A"), (64, k))
    refute_perturbed(a, (64, k), atom.tv_layout("A"), (64, k))


def nvmma(sw, tr, eb):
    return f"#ttg.nvmma_shared<{{swizzlingByteWidth = {sw}, transposed = {str(tr).lower()}, elementBitWidth = {eb}}}>"


DTYPES = {16: "f16", 8: "e4m3", 32: "f32"}


@pytest.mark.parametrize("sw", [32, 64, 128])
@pytest.mark.parametrize("eb", [16, 8, 32])
@pytest.mark.parametrize("rows,cols_atoms", [(8, 1), (64, 1), (128, 2)])
def test_nvmma_shared_is_the_gmma_K_major_atom_tiled(sw, eb, rows, cols_atoms):
    atom = parse(resolve(f"GMMA_K_SW{sw}", dtype=DTYPES[eb])[0].data["layout"])
    cols = 8 * sw // eb * cols_atoms
    S = tile_to_shape(atom, (rows, cols))  # CuTe: tile_to_shape(GMMA::Layout_K_SW{sw}_Atom<T>, shape)
    v = prove_triton_equals(nvmma(sw, False, eb), (rows, cols), S)
    assert v.proved, v
    _offsets_agree(nvmma(sw, False, eb), (rows, cols), S, True)
    # refuting side: the same tiling under a swizzle shifted by one bit
    bad = _other_swizzle(S)
    r = prove_triton_equals(nvmma(sw, False, eb), (rows, cols), bad)
    _recheck_shared(r, nvmma(sw, False, eb), (rows, cols), bad)


@pytest.mark.parametrize("sw", [32, 64, 128])
@pytest.mark.parametrize("eb", [16, 8])
def test_nvmma_shared_transposed_is_the_gmma_MN_major_atom_tiled_K_first(sw, eb):
    atom = parse(resolve(f"GMMA_MN_SW{sw}", dtype=DTYPES[eb])[0].data["layout"])
    mn = 8 * sw // eb
    shape = (2 * mn, 32)  # (M, K): M contiguous
    S = tile_to_shape(atom, shape, (1, 0))  # CUTLASS's SM90 builders: Step<_2,_1> for MN-major operands
    v = prove_triton_equals(nvmma(sw, True, eb), shape, S)
    assert v.proved, v
    _offsets_agree(nvmma(sw, True, eb), shape, S, True)
    # column-major tiling (M first) is another layout
    r = prove_triton_equals(nvmma(sw, True, eb), shape, tile_to_shape(atom, shape))
    _recheck_shared(r, nvmma(sw, True, eb), shape, tile_to_shape(atom, shape))


def swz(vec, pp, mp, order=(1, 0)):
    return f"#ttg.swizzled_shared<{{vec = {vec}, perPhase = {pp}, maxPhase = {mp}, order = {list(order)}}}>"


def _lg(x):
    return x.bit_length() - 1


@pytest.mark.parametrize("vec,pp,mp,rows,cols", [(8, 1, 8, 64, 64), (4, 2, 4, 32, 32), (8, 2, 4, 64, 64),
                                                 (2, 1, 4, 16, 8), (8, 1, 8, 16, 128)])
def test_swizzled_shared_is_a_cute_swizzle_of_a_row_major_layout(vec, pp, mp, rows, cols):
    # row r's phase (r / perPhase) % maxPhase, times vec, XORs the column: the row bits start at bit
    # log2(cols) + log2(perPhase) of the row-major offset, the column bits XORed at log2(vec)
    sw = Swizzle(_lg(mp), _lg(vec), _lg(cols) + _lg(pp) - _lg(vec))
    S = ComposedLayout(sw, 0, Layout((rows, cols), (cols, 1)))
    v = prove_triton_equals(swz(vec, pp, mp), (rows, cols), S)
    assert v.proved, v
    _offsets_agree(swz(vec, pp, mp), (rows, cols), S, True)
    bad = ComposedLayout(Swizzle(_lg(mp), _lg(vec), sw.shift + 1), 0, Layout((rows, cols), (cols, 1)))
    r = prove_triton_equals(swz(vec, pp, mp), (rows, cols), bad)
    _recheck_shared(r, swz(vec, pp, mp), (rows, cols), bad)


def _other_swizzle(S):
    """The same tiled layout under a swizzle shifted by one more bit (an F2 layout, another function)."""
    sw = S.inner
    return ComposedLayout(Swizzle(max(sw.bits, 1), sw.base, sw.shift + 1), S.offset, S.outer)


def _offsets_agree(attr, shape, S, want):
    """Brute force: Triton's offset -> element against CuTe's element -> offset, every element."""
    _, _, ll = triton_layout(attr, shape)
    got = all(S(ll.apply({"offset": o})) == o for o in range(ll.in_dim_size("offset")))
    assert got == want


def _recheck_shared(v, attr, shape, S):
    c = v.counterexample
    assert v.refuted and c.kind == "disagree", v
    _, _, ll = triton_layout(attr, shape)
    o = c.detail["offset"]
    assert ll.apply({"offset": o}) == c.detail["triton"]
    assert S(c.detail["other"]) == o and S(c.detail["triton"]) != o


def test_shape_and_thread_mismatches_are_input_errors():
    t = tiled("SM80_16x8x16_F32F16F16F32_TN", (2, 2), 32, 16, 16)
    with pytest.raises(TritonLayoutError, match="32x16") as e:
        prove_triton_equals(mma2((2, 2)), (64, 64), t, operand="C")
    assert e.value.kind == "input"
    with pytest.raises(TritonLayoutError, match="thread counts differ: .* 256 threads, .* 128"):
        prove_triton_equals(mma2((4, 2)), (32, 16), t.tv_layout_C_tiled, tile=(32, 16))
    with pytest.raises(TritonLayoutError, match="shared"):
        prove_triton_equals(nvmma(128, False, 16), (8, 64), "#ttg.blocked<{sizePerThread = [1, 1], "
                            "threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>")


def test_triton_against_triton():
    # a linear attribute written with mma v2's bases is that layout; one basis moved is refuted
    lin = ("#ttg.linear<{register = [[0, 1], [8, 0], [0, 8]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], "
           "warp = [], block = []}>")
    assert prove_triton_equals(mma2((1, 1)), (16, 16), lin, exact=True).proved
    moved = lin.replace("[[0, 1], [8, 0], [0, 8]]", "[[0, 1], [0, 8], [8, 0]]")
    assert prove_triton_equals(mma2((1, 1)), (16, 16), moved).proved  # registers permuted: same ownership
    r = prove_triton_equals(mma2((1, 1)), (16, 16), moved, exact=True)
    assert r.refuted and r.counterexample.detail["register"] == 2
    swapped = lin.replace("[[0, 2], [0, 4], [1, 0]", "[[1, 0], [0, 4], [0, 2]")
    r = prove_triton_equals(mma2((1, 1)), (16, 16), swapped)
    assert r.refuted and r.counterexample.detail["lane"] in (1, 4)
    # blocked [1, 2] / [8, 4] on 16x16 owns as mma v2 does (registers in another order); [2, 1] does not
    blk = "#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>"
    assert prove_triton_equals(mma2((1, 1)), (16, 16), blk).proved
    assert prove_triton_equals(mma2((1, 1)), (16, 16), blk, exact=True).refuted
    blk2 = blk.replace("[1, 2]", "[2, 1]")
    assert prove_triton_equals(mma2((1, 1)), (16, 16), blk2).refuted
    for other, want in ((blk, True), (blk2, False)):
        a, b = (triton_layout(x, (16, 16))[2] for x in (mma2((1, 1)), other))
        sets = [{lay.apply({"lane": ln, "register": r}) for r in range(8)} for lay in (a, b) for ln in range(32)]
        assert (sets[:32] == sets[32:]) == want


def test_a_cute_layout_that_is_not_f2_linear_is_compared_by_enumeration():
    mma = mma2((1, 1))
    L = parse("((4,8),(2,2)):((32,1),(16,7))")  # value stride 7 carries into the thread bits: not linear
    for exact in (False, True):
        v = prove_triton_equals(mma, (16, 8), L, exact=exact)
        assert v.refuted and "enumeration" in v.method
        recheck(v, mma, (16, 8), L, (16, 8))
    # padded smem (row pitch 65) is no bijection onto [0, 64*64): refuted at the first row's end
    sh = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>"
    v = prove_triton_equals(sh, (64, 64), "(64,64):(65,1)")
    assert v.refuted and v.counterexample.detail["offset"] == 64 and v.counterexample.detail["triton"] == (1, 0)
    assert parse("(64,64):(65,1)")((1, 0)) == 65
    # a size-1 mode (any stride) has no bit: the layout is still F2-linear and proves
    assert prove_triton_equals(sh, (8, 8), "(8,(8,1)):(8,(1,3))").proved
    with pytest.raises(TritonLayoutError, match="outside"):
        prove_triton_equals(mma, (16, 8), "((4,8),(2,2)):((32,1),(16,200))")


def test_against_hardware_specs():
    # the spec library's PTX-checked layouts, not the atom layer: SM80 C and the wgmma family at N = 128
    assert prove_triton_equals(mma2((1, 1)), (16, 8), resolve("SM80_16x8x16_F32F16F16F32_TN")[0], operand="C",
                               exact=True).proved
    fam = resolve("SM90_64xNx16_F32BF16BF16_SS")[0]
    assert prove_triton_equals(mma3(128), (64, 128), fam, operand="C", params={"N": 128}, exact=True).proved
    # instrShape N = 64 on a 64x128 tensor repeats N by registers after the instruction's: the same function as
    # one N = 128 instruction's accumulator
    assert prove_triton_equals(mma3(64), (64, 128), fam, operand="C", params={"N": 128}, exact=True).proved
    # warps [2, 2] on 64x128 is another layout (two warps along M, rows 32-63 by registers): refuted, re-checked
    # on the spec's own layout
    v = prove_triton_equals(mma3(64, (2, 2)), (64, 128), fam, operand="C", params={"N": 128})
    recheck(v, mma3(64, (2, 2)), (64, 128), fam.layout("C", N=128), (64, 128))
    with pytest.raises(TritonLayoutError, match="operand"):
        prove_triton_equals(mma3(128), (64, 128), fam, params={"N": 128})


def test_multi_cta_shared_layouts_compare_their_block_bits():
    one = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>"
    split = one.replace("}>", ", CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>")
    bcast = one.replace("}>", ", CTAsPerCGA = [2, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0]}>")
    assert prove_triton_equals(split, (64, 64), split).proved
    v = prove_triton_equals(split, (64, 64), bcast)  # same offsets per CTA, other blocks: not the same layout
    assert not v.proved
    with pytest.raises(TritonLayoutError):
        prove_triton_equals(split, (64, 64), "(64,64):(64,1)")


@pytest.mark.parametrize("other,words", [
    ("((4,8),(2,N)):((32,1),(16,8))", "has symbols"),
    ("(6,8):(1,6)", "thread counts differ"),
    ("((4,8),(2,2)):((32,1),(16,^8))", "mix F2 and int"),
    ("((4,8),(2,2)):((32,1),(16,64))", "outside"),
    (42, "got int"),
])
def test_bad_other_sides_are_input_errors(other, words):
    from cuteverify.errors import CuteVerifyError, exit_code
    with pytest.raises(CuteVerifyError, match=words) as e:
        prove_triton_equals(mma2((1, 1)), (16, 8), other)
    assert exit_code(e.value) == 2
