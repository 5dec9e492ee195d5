"""agrees on the layouts of real kernels (issue 15): staged GMMA smem tiles, FlashAttention-3's V^T tile
(atoms tiled in another order), tiled MMAs with permutation tiles (atoms.agrees_tiled), and a tiled TV layout
given to a plain atom (an input error). Every layout is computed with cuteverify itself; every broken variant
is refuted with a counterexample naming the coordinate / thread and element."""
import pytest

import cuteverify as cv
from cuteverify.atoms import make_tiled_mma
from cuteverify.atoms.agree import agrees_tiled
from cuteverify.errors import NotAdmissibleError, SpecError
from cuteverify.hardware import default_library

TN = "SM80_16x8x16_F32F16F16F32_TN"
PERM = (32, "(8,2,2):(1,16,8)", 16)          # Tile<_32, Layout<Shape<_8,_2,_2>, Stride<_1,_16,_8>>, _16>


def _atom(name):
    return default_library()[name].layout("layout")


K_SW128 = "GMMA::Layout_K_SW128_Atom<half_t>"
MN_SW128 = "GMMA::Layout_MN_SW128_Atom<half_t>"


# ------------------------------------------------------------------------------- staged smem tiles

def test_staged_k_sw128_agrees_stage_by_stage():
    # the SM90 wgmma+TMA tutorial's sA: tile_to_shape(GMMA K_SW128 atom, (128, 64, 3))
    s = cv.tile_to_shape(_atom(K_SW128), (128, 64, 3))
    assert cv.agrees(s, "GMMA_K_SW128", dtype="bf16").status == "proved"
    assert cv.agrees(cv.tile_to_shape(_atom(K_SW128), (64, 128, 4)), "GMMA_K_SW128", dtype="bf16").proved


def test_staged_broken_variants():
    # stage stride 8200: stage 1 starts 8 elements past an atom boundary, so its swizzle XORs other bits
    v = cv.agrees("S<3,3,3> o 0 o ((8,16),64,3):((64,512),1,8200)", "GMMA_K_SW128", dtype="bf16")
    c = v.counterexample
    assert v.status == "refuted" and c.coords == (1, 0, 1) and (c.user_index, c.hardware_index) == (8256, 8272)
    assert "at coordinate (1, 0, 1)" in str(c)
    # stage stride 4096: stage 1 lands on rows 64.. of stage 0
    v = cv.agrees("S<3,3,3> o 0 o ((8,16),64,3):((64,512),1,4096)", "GMMA_K_SW128", dtype="bf16")
    c = v.counterexample
    assert v.status == "refuted" and c.kind == "overlap" and c.coords == (0, 0, 1)
    assert "(64, 0, 0)" in c.note and "4096" in c.note
    # a stage without the swizzle: a plain layout never agrees with the swizzled atom
    v = cv.agrees("((8,16),64,3):((64,512),1,8192)", "GMMA_K_SW128", dtype="bf16")
    assert v.status == "refuted" and v.counterexample.coords == (1, 0, 0)


def test_inter_atoms_need_only_16_byte_alignment():
    atom = _atom("GMMA::Layout_K_INTER_Atom<half_t>")          # (8,8):(8,1), no swizzle
    assert cv.agrees(cv.tile_to_shape(atom, (64, 16, 2)), "GMMA_K_INTER", dtype="bf16").proved
    # stages 8 elements (16 bytes) apart of an unswizzled atom: aligned; 4 elements (8 bytes): not
    assert cv.agrees("((8,8),(8,2),2):((8,64),(1,512),1032)", "GMMA_K_INTER", dtype="bf16").proved
    v = cv.agrees("((8,8),(8,2),2):((8,64),(1,512),1028)", "GMMA_K_INTER", dtype="bf16")
    assert v.status == "refuted" and v.counterexample.kind == "misaligned" and v.counterexample.coords == (0, 0, 1)


# ---------------------------------------------------------------------------- atoms in any order

def test_fa3_vt_layout_agrees():
    # FlashAttention-3's V^T: tile_to_shape(MN_SW128 atom, (128, 128, 2), Step<_2,_1,_3>)
    vt = cv.tile_to_shape(_atom(MN_SW128), (128, 128, 2), order=(1, 0, 2))
    assert cv.agrees(vt, "GMMA_MN_SW128", dtype="bf16").status == "proved"
    assert cv.agrees(cv.tile_to_shape(_atom(MN_SW128), (128, 128, 2)), "GMMA_MN_SW128", dtype="bf16").proved
    # the K-major atom in its place is refuted at the first element that differs
    wrong = cv.tile_to_shape(_atom(K_SW128), (128, 128, 2), order=(1, 0, 2))
    v = cv.agrees(wrong, "GMMA_MN_SW128", dtype="bf16")
    assert v.status == "refuted" and v.counterexample.coords == (1, 0, 0)
    assert (v.counterexample.user_index, v.counterexample.hardware_index) == (72, 1)


def test_k_atoms_tiled_row_major_agree():
    # atoms along K first (tile_to_shape with order (1, 0)); before issue 15 this was refuted
    assert cv.agrees("S<3,3,3> o 0 o ((8,8),(64,2)):((64,1024),(1,512))", "GMMA_K_SW128", dtype="bf16").proved
    assert cv.agrees(cv.tile_to_shape(_atom(K_SW128), (64, 128), order=(1, 0)), "GMMA_K_SW128",
                     dtype="bf16").proved


# --------------------------------------------------------------------------------- tiled MMAs

def test_tiled_tv_layout_to_a_plain_atom_is_an_input_error():
    tm = make_tiled_mma(TN, (2, 2, 1), PERM)
    with pytest.raises(SpecError, match=r"128 threads = 4 x the atom's 32.*agrees_tiled") as e:
        cv.agrees(tm.tv_layout_C_tiled, TN, "C")
    assert e.value.kind == "input"
    # the atom's own layout still agrees, and a wrong thread count is still a mismatch
    assert cv.agrees(make_tiled_mma(TN).tv_layout_C_tiled, TN, "C").proved
    with pytest.raises(cv.CuteVerifyError, match="cannot be compared") as e:  # an input error in the API too
        cv.agrees("((4,6),(2,2)):((64,1),(32,8))", TN, "C")
    assert e.value.kind == "input"


@pytest.mark.parametrize("operand", "ABC")
def test_permutation_tile_agrees(operand):
    tm = make_tiled_mma(TN, (2, 2, 1), PERM)
    assert agrees_tiled(tm.tv_layout_tiled(operand), tm, operand).status == "proved"
    v = agrees_tiled(tm.tv_layout_tiled(operand), TN, operand, atom_layout_mnk=(2, 2, 1), permutation_mnk=PERM)
    assert v.proved


def test_permutation_forgotten_is_refuted():
    tp = make_tiled_mma(TN, (2, 2, 1), PERM)
    plain = make_tiled_mma(TN, (2, 2, 1), (32, 32, 16))
    v = agrees_tiled(plain.tv_layout_B_tiled, tp, "B")
    c = v.counterexample
    assert v.status == "refuted" and (c.thread, c.value) == (0, 4)
    assert c.user == (0, 16) and c.hardware == (0, 8) and c.axes == ("k", "n")
    assert "thread 0, value 4" in str(v) and "B[k=0, n=8]" in str(v)


def test_wrong_atom_layout_is_refuted():
    good = make_tiled_mma(TN, (2, 2, 1), (32, 32, 16))
    bad = make_tiled_mma(TN, (1, 4, 1), (32, 32, 16))
    v = agrees_tiled(bad.tv_layout_C_tiled, good, "C")
    c = v.counterexample
    # (1,4,1) puts the second atom along N where (2,2,1) puts it along M: thread 0's value 4 is elsewhere
    assert v.status == "refuted" and (c.thread, c.value) == (0, 4) and c.user == (16, 0) and c.hardware == (0, 16)
    # shapes that cannot agree: 64 threads (two atoms) against 128
    with pytest.raises(NotAdmissibleError, match="64 threads") as e:
        agrees_tiled(make_tiled_mma(TN, (2, 1, 1)).tv_layout_A_tiled, good, "A")
    assert e.value.kind == "input"


def test_wgmma_two_warpgroups_and_fa2_tiles():
    wg = make_tiled_mma("SM90_64x64x16_F32BF16BF16_SS", (2, 1, 1))
    assert agrees_tiled(wg.tv_layout_C_tiled, wg, "C").proved
    # FlashAttention-2 forward: SM80 16x8x16 over (4,1,1) warps, tile (64, 16, 16)
    fa2 = make_tiled_mma(TN, (4, 1, 1), (64, 16, 16))
    for op in "ABC":
        assert agrees_tiled(fa2.tv_layout_tiled(op), fa2, op).proved
    # swapping two value strides of C inside each atom is refuted at thread 0, value 1
    bad = cv.parse("((4,8,4),((2,2),2)):((128,1,16),((8,64),512))")
    good_c = fa2.tv_layout_C_tiled
    assert cv.size(bad) == cv.size(good_c)
    c = agrees_tiled(bad, fa2, "C").counterexample
    assert (c.thread, c.value) == (0, 1) and c.hardware == (0, 1)
