"""Agreement queries per family (issue 5): a hand-built correct layout agrees; swapped strides, a wrong
swizzle base, element-vs-byte swizzle confusion and an off-by-one stride are each refuted, and the
counterexample names the right thread / value / element (or smem coordinate and offsets)."""

import pytest

import cuteverify as cv
from cuteverify.hardware import specs as S
from cuteverify.hardware.library.intlayout import int_layout


@pytest.fixture(scope="module")
def lib():
    return S.default_library()


def _cex(r):
    assert r.refuted, str(r)
    assert r.counterexample.kind == "disagree", r.reason  # a witness, not a shape mismatch
    return r.counterexample


# ------------------------------------------------------------------------------- mma.sync (SM80)

M16N8K16 = "SM80_16x8x16_F32F16F16F32_TN"


def test_mma_sync_c_correct(lib):
    assert S.agrees("((4,8),(2,2)):((32,1),(16,8))", M16N8K16, "C", library=lib)


@pytest.mark.parametrize("layout,tv,user,hw", [
    ("((4,8),(2,2)):((32,1),(8,16))", (0, 1), (8, 0), (0, 1)),   # value strides swapped
    ("((4,8),(2,2)):((32,1),(16,9))", (0, 2), (9, 0), (8, 0)),   # off-by-one row-block stride
    ("((4,8),(2,2)):((1,4),(16,8))", (1, 0), (1, 0), (0, 2)),    # groupID / threadID_in_group swapped
])
def test_mma_sync_c_wrong(lib, layout, tv, user, hw):
    c = _cex(S.agrees(layout, M16N8K16, "C", library=lib))
    assert (c.thread, c.value) == tv and c.user == user and c.hardware == hw
    assert c.axes == ("m", "n")
    assert f"thread {tv[0]}, value {tv[1]}" in str(c) and f"C[m={hw[0]}, n={hw[1]}]" in str(c)


# ----------------------------------------------------------------------- wgmma accumulator (SM90)

WGMMA = "SM90_64xNx16_F32F16F16_SS"


def test_wgmma_accumulator_correct(lib):
    assert S.agrees("((4,8,4),(2,2,8)):((128,1,16),(64,8,512))", WGMMA, "C", library=lib, N=64)


@pytest.mark.parametrize("layout,tv,user,hw", [
    ("((4,8,4),(2,2,8)):((128,1,8),(64,16,512))", (0, 2), (16, 0), (8, 0)),   # warp / row-half swapped
    ("((4,8,4),(2,2,8)):((128,1,16),(64,8,511))", (0, 4), (63, 7), (0, 8)),   # off-by-one column block
])
def test_wgmma_accumulator_wrong(lib, layout, tv, user, hw):
    c = _cex(S.agrees(layout, WGMMA, "C", library=lib, N=64))
    assert (c.thread, c.value) == tv and c.user == user and c.hardware == hw


# ------------------------------------------------------------------------------------- ldmatrix

def test_ldmatrix_correct_and_wrong(lib):
    assert S.agrees("(32,(32,4)):(32,(1,1024))", "SM75_U32x4_LDSM_N", "dst", library=lib)
    c = _cex(S.agrees("(32,(32,4)):(1024,(1,32))", "SM75_U32x4_LDSM_N", "dst", library=lib))  # swapped
    assert (c.thread, c.value, c.user, c.hardware) == (0, 32, (0, 32), (8, 0))
    c = _cex(S.agrees("(32,(32,4)):(33,(1,1024))", "SM75_U32x4_LDSM_N", "dst", library=lib))  # off by one
    assert (c.thread, c.value, c.user, c.hardware) == (1, 0, (0, 33), (0, 32))
    # the non-transposed layout where .trans is used: value 16 is row 1, not bit 16 of row 0
    c = _cex(S.agrees("(32,(32,4)):(32,(1,1024))", "SM75_U16x8_LDSM_T", "dst", library=lib))
    assert (c.thread, c.value, c.user, c.hardware) == (0, 16, (0, 16), (1, 0))


# --------------------------------------------------------------------------------- GMMA smem atoms

def test_smem_short_names_resolve(lib):
    assert S.resolve("GMMA_K_SW128", "bf16", lib)[0].name == "GMMA::Layout_K_SW128_Atom<half_t>"
    assert S.resolve("GMMA_MN_SW64", "f32", lib)[0].name == "GMMA::Layout_MN_SW64_Atom<float>"
    assert S.resolve("GMMA_K_INTER", "e4m3", lib)[0].name == "GMMA::Layout_K_INTER_Atom<uint8_t>"
    assert S.resolve("TMA_SW128", None, lib)[0].name == "CU_TENSOR_MAP_SWIZZLE_128B"
    with pytest.raises(S.SpecError, match="needs dtype"):
        S.resolve("GMMA_K_SW128", None, lib)
    with pytest.raises(S.SpecError, match="16-bit"):
        S.agrees("S<3,3,3> o 0 o (8,64):(64,1)", "GMMA::Layout_K_SW128_Atom<half_t>", dtype="f32", library=lib)


@pytest.mark.parametrize("shape", [(8, 64), (64, 64), (128, 64), (64, 128), (16, 192)])
def test_smem_tiled_atom_agrees(lib, shape):
    atom = lib["GMMA::Layout_K_SW128_Atom<half_t>"].layout("layout")
    assert S.agrees(cv.tile_to_shape(atom, shape), "GMMA_K_SW128", dtype="bf16", library=lib)


def test_smem_tiled_mn_major_agrees(lib):
    atom = lib["GMMA::Layout_MN_SW64_Atom<float>"].layout("layout")
    assert S.agrees(cv.tile_to_shape(atom, (64, 32)), "GMMA_MN_SW64", dtype="f32", library=lib)
    assert S.agrees("S<2,2,3> o 0 o ((16,4),(8,4)):((1,128),(16,512))", "GMMA_MN_SW64", dtype="tf32",
                    library=lib)


@pytest.mark.parametrize("layout,coord,user,want", [
    ("S<3,4,3> o 0 o (128,64):(64,1)", (1, 0), 64, 72),     # byte swizzle applied to element offsets
    ("(128,64):(64,1)", (1, 0), 64, 72),                    # swizzle forgotten
    ("S<3,2,3> o 0 o (128,64):(64,1)", (4, 0), 256, 288),   # wrong swizzle base
    ("S<3,3,3> o 0 o (128,64):(1,128)", (1, 0), 1, 72),     # swapped strides (MN-major, not K-major)
    ("S<3,3,3> o 0 o (128,64):(65,1)", (1, 0), 73, 72),     # off-by-one row stride (padding)
    # (atoms tiled row-major, along K first, agree since issue 15: tests/atoms/test_agree_kernels.py)
])
def test_smem_tiled_wrong(lib, layout, coord, user, want):
    shape = (64, 128) if "((8,8)" in layout else (128, 64)
    lay = cv.parse(layout)
    assert int_layout(lay, "t").mode_size(0) == shape[0]
    c = _cex(S.agrees(lay, "GMMA_K_SW128", dtype="bf16", library=lib))
    assert c.coords == coord and (c.user_index, c.hardware_index) == (user, want)
    assert f"at coordinate {coord}" in str(c)


def test_smem_shape_not_a_multiple(lib):
    r = S.agrees("S<3,3,3> o 0 o (12,64):(64,1)", "GMMA_K_SW128", dtype="bf16", library=lib)
    assert r.refuted and "multiple of the atom" in r.reason


def test_cv_agrees_returns_a_verdict():
    v = cv.agrees("S<3,3,3> o 0 o (128,64):(64,1)", "GMMA_K_SW128", dtype="bf16")
    assert type(v).__name__ == "Verdict" and v.status == "proved"
    v = cv.agrees("S<3,4,3> o 0 o (128,64):(64,1)", "GMMA_K_SW128", dtype="bf16")
    assert v.status == "refuted" and "(1, 0)" in v.counterexample.note


# ----------------------------------------------------------------------------------- TMA swizzle

def test_tma_box_correct(lib):
    assert S.agrees("S<3,3,3> o 0 o (16,64):(64,1)", "TMA_SW128", dtype="bf16", library=lib)
    assert S.agrees("S<3,2,3> o 0 o (16,32):(32,1)", "CU_TENSOR_MAP_SWIZZLE_128B", dtype="f32", library=lib)
    assert S.agrees("S<1,3,3> o 0 o (16,16):(16,1)", "TMA_SW32", dtype="f16", library=lib)
    assert S.agrees("(16,64):(64,1)", "TMA_NONE", dtype="bf16", library=lib)


@pytest.mark.parametrize("layout,dtype,coord,user,want", [
    ("S<3,4,3> o 0 o (16,64):(64,1)", "bf16", (1, 0), 64, 72),   # element-vs-byte confusion
    ("S<2,3,3> o 0 o (16,64):(64,1)", "bf16", (4, 0), 256, 288),  # 64B pattern in a 128B box
    ("S<3,3,3> o 0 o (16,32):(32,1)", "f32", (1, 0), 32, 36),     # 16-bit swizzle base on 32-bit data
    ("S<3,3,3> o 0 o (16,64):(1,16)", "bf16", (1, 0), 1, 72),     # swapped strides
])
def test_tma_box_wrong(lib, layout, dtype, coord, user, want):
    c = _cex(S.agrees(layout, "TMA_SW128", dtype=dtype, library=lib))
    assert c.coords == coord and (c.user_index, c.hardware_index) == (user, want)


def test_tma_box_row_width(lib):
    r = S.agrees("S<3,3,3> o 0 o (16,64):(64,1)", "TMA_SW64", dtype="bf16", library=lib)
    assert r.refuted and "rows of 64 bytes" in r.reason


# ----------------------------------------------------------------------- tiled MMA (several atoms)

# SM80 m16n8k16 tiled over 4 warps as 2x2 atoms (AtomLayoutMNK (2,2,1), column-major): thread group
# g = t // 32 is atom (g % 2, g // 2); C tile 32x16 indexed m + 32*n.
TILED_C = "(((4,8),(2,2)),(2,2)):(((64,1),(16,256)),(32,8))"
# A tile 32x16 (m + 32*k): groups with the same m block share A (stride 0 over the N atoms).
TILED_A = "(((4,8),(2,2)),(2,2,2)):(((64,1),(16,0)),(32,8,256))"
# 2x2 atoms, tile 64x32: each thread holds 2x2 repetitions (value = atom value + 4*(r0 + 2*r1)).
TILED_C_REP = "(((4,8),(2,2)),((2,2),(2,2))):(((128,1),(16,512)),((64,8),(32,1024)))"


def test_tiled_mma_correct(lib):
    assert S.agrees(TILED_C, M16N8K16, "C", tile=(32, 16), library=lib)
    assert S.agrees(TILED_C, M16N8K16, "C", atom_layout=(2, 2), library=lib)
    assert S.agrees(TILED_A, M16N8K16, "A", atom_layout=(2, 2, 1), library=lib)
    assert S.agrees(TILED_C_REP, M16N8K16, "C", atom_layout=(2, 2), tile=(64, 32), library=lib)
    assert cv.agrees(TILED_C, M16N8K16, "C", atom_layout=(2, 2)).status == "proved"


def test_tiled_mma_wrong_atom_order(lib):
    # atoms placed row-major (group 1 at the right, not below): group 1 = threads 32..63
    bad = "(((4,8),(2,2)),(2,2)):(((64,1),(256,16)),(32,8))"
    c = _cex(S.agrees(bad, M16N8K16, "C", atom_layout=(2, 2), library=lib))
    assert (c.thread, c.value, c.group, c.atom) == (32, 0, 1, (1, 0))
    assert c.user == (0, 8) and c.hardware == (16, 0)
    assert "atom (1, 0) (thread group 1), thread 32, value 0" in str(c)


def test_tiled_mma_wrong_inside_atom(lib):
    # the per-atom layout with its value strides swapped: caught in atom (0, 0), thread 0, value 1
    bad = "(((4,8),(2,2)),(2,2)):(((64,1),(16,256)),(8,32))"
    c = _cex(S.agrees(bad, M16N8K16, "C", tile=(32, 16), library=lib))
    assert (c.thread, c.value, c.atom) == (0, 1, (0, 0)) and c.user == (8, 0) and c.hardware == (0, 1)
    # A replicated over the N atoms: a non-zero stride there puts group 2 elsewhere
    bad_a = "(((4,8),(2,2)),(2,2,2)):(((64,1),(16,512)),(32,8,256))"
    c = _cex(S.agrees(bad_a, M16N8K16, "A", atom_layout=(2, 2), library=lib))
    assert (c.thread, c.group, c.atom) == (64, 2, (0, 0))


def test_tiled_mma_wrong_repetition_order(lib):
    # repetitions ordered (n, m) instead of (m, n)
    bad = "(((4,8),(2,2)),((2,2),(2,2))):(((128,1),(16,512)),((64,8),(1024,32)))"
    c = _cex(S.agrees(bad, M16N8K16, "C", atom_layout=(2, 2), tile=(64, 32), library=lib))
    assert (c.thread, c.value, c.atom) == (0, 4, (2, 0)) and c.user == (0, 16) and c.hardware == (32, 0)


def test_tiled_mma_shape_reasons(lib):
    r = S.agrees(TILED_C, M16N8K16, "C", atom_layout=(4, 1, 1), tile=(32, 16), library=lib)
    assert r.refuted and "not a multiple of the atom grid" in r.reason
    r = S.agrees(TILED_C, M16N8K16, "C", atom_layout=(2, 1), library=lib)
    assert r.refuted and "thread groups" in r.reason
    r = S.agrees(TILED_C_REP, M16N8K16, "C", atom_layout=(2, 2), library=lib)
    assert r.refuted and "pass tile=" in r.reason


def test_tiled_wgmma_two_warpgroups(lib):
    # two warpgroups stacked along M (atom_layout (2,1)): warpgroup 1 starts at row 64 of a 128xN tile
    good = "(((4,8,4),2),(2,2,2)):(((256,1,16),64),(128,8,1024))"
    assert S.agrees(good, WGMMA, "C", atom_layout=(2, 1), library=lib, N=16)
    bad = "(((4,8,4),2),(2,2,2)):(((256,1,16),16),(128,8,1024))"
    c = _cex(S.agrees(bad, WGMMA, "C", atom_layout=(2, 1), library=lib, N=16))
    assert (c.thread, c.value, c.atom) == (128, 0, (1, 0)) and c.user == (16, 0) and c.hardware == (64, 0)
