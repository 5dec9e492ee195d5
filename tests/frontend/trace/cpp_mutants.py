"""Mutants of CUTLASS's CuTe tutorial kernels for ``cuteverify trace cpp`` (issue 29): each a realistic single
edit a kernel author could make, that g++ (and CuTe's static assertions) accept, applied to a copy of the
nvidia-cutlass wheel's source (``cutlass_library/source/examples/cute/tutorial``; the sources are never committed).

A mutant is ``(name, kernel, file, line, old, new, entry, expect)``: ``old`` occurs on source line ``line`` of
``file`` (relative to the tutorial folder) and is replaced there by ``new`` (one line in, one line out, so every
launch keeps its line); ``entry`` is the ``--entry`` the capture runs (the launch it reaches); ``expect`` is the
set of ``(launch line, claim kind, argument)`` rows the check refutes, nothing else being refuted. On the
unmodified source the same rows (the same kernel, kind and location) are all proved.

``cpp/make_mutants.py`` captures every mutant with g++ and writes the printed records to
``cpp/mutants.records.json``; ``test_cpp_mutants.py`` checks the committed records (fast) and recompiles a few
(``differential``).
"""
from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

TUTORIAL = "examples/cute/tutorial"
H = "cute::half_t"
HGEMM = f"gemm_tn<{H}, {H}>"
SGEMM_NT = "gemm_nt<float, float, float, float, float>"
WG_TN, WG_NT = f"gemm_tn<{H}, {H}, {H}, {H}, {H}>", f"gemm_nt<{H}, {H}, {H}, {H}, {H}>"
TMA_TN, TMA_NT = [f"gemm_{t}<{H}, {H}, {H}, {H}, {H}>(256, 256, 128, {{}}, nullptr, {ld}, nullptr, {ld}, {{}}, "
                  f"nullptr, 256)" for t, ld in (("tn", 128), ("nt", 256))]


def _lay(m, n):
    return f"cute::make_layout(cute::make_shape({m}, {n}), cute::make_stride({n}, cute::Int<1>{{}}))"


_L = "cute::Layout<cute::tuple<int, int>, cute::tuple<int, cute::C<1>>>"
BW01 = f"gemm_host_f16xf16_f32_f32_tnt<{H}, {_L}, {H}, {_L}, float, {_L}, float, {_L}, float, float>"
BW02 = ("gemm_host_f16xf16_f32_f32_tnt((cute::half_t const*)nullptr, " + _lay(512, 256) + ", (cute::half_t const*)"
        "nullptr, " + _lay(1024, 256) + ", (float const*)nullptr, " + _lay(512, 1024) + ", (float*)nullptr, "
        + _lay(512, 1024) + ", 1.0f, 0.0f)")
SM100 = ("CUTLASS_ARCH_MMA_SM100_SUPPORTED=1",)


@dataclass(frozen=True)
class Mutant:
    name: str
    kernel: str          # the kernel (issue 29's list) the mutant counts for
    file: str            # relative to examples/cute/tutorial
    line: int
    old: str
    new: str
    entry: str
    expect: frozenset    # {(launch line, kind, argument name)} refuted
    why: str
    defines: tuple = ()
    existing: str = field(default="")  # the older test that edits the source the same way, if any

    @property
    def path(self) -> str:
        """The source's path relative to the wheel's ``source/`` folder (the path records name)."""
        return f"{TUTORIAL}/{self.file}"


def _m(name, kernel, file, line, old, new, entry, expect, why, **kw):
    return Mutant(name, kernel, file, line, old, new, entry, frozenset(expect), why, **kw)


SG, WG, TMA, B1, B2 = ("sgemm_sm80.cu", "hopper/wgmma_sm90.cu", "hopper/wgmma_tma_sm90.cu",
                       "blackwell/01_mma_sm100.cu", "blackwell/02_mma_tma_sm100.cu")
B3, B4, B5 = ("blackwell/03_mma_tma_multicast_sm100.cu", "blackwell/04_mma_tma_2sm_sm100.cu",
              "blackwell/05_mma_tma_epi_sm100.cu")
OVERLAP = "make_stride(make_stride(Int<8>{}, Int<1>{}), Int<0>{}, Int<16>{}));"
KTILE = ("auto sA_layout = make_layout(make_shape(make_shape(Int<128>{}, make_shape(Int<8>{}, Int<2>{})), Int<1>{}, "
         "Int<4>{}), make_stride(make_stride(Int<8>{}, make_stride(Int<1>{}, Int<1024>{})), Int<0>{}, Int<1024>{}));")


def _storage(tag, kernel, file, line_a, launch):
    """Three storage mutants of a Blackwell tutorial whose ``sA_layout`` / ``sB_layout`` sit on lines ``line_a``,
    ``line_a + 1``: A's and B's rows overlapping, A's k-tiles overlapping (all accepted by make_umma_desc and,
    where the tutorial makes them, by its multicast / 2-SM TMA atoms, which trace cpp leaves unknown)."""
    sa = "auto sA_layout = UMMA::tile_to_mma_shape(UMMA::Layout_K_SW128_Atom<TypeA>{}, mma_shape_A);"
    sb = "auto sB_layout = UMMA::tile_to_mma_shape(UMMA::Layout_K_SW128_Atom<TypeB>{}, mma_shape_B);"
    return [
        _m(f"{tag}_a_overlap", kernel, file, line_a, sa, "auto sA_layout = make_layout(mma_shape_A, " + OVERLAP, BW02,
           {(launch, "injective", "SMEMStorage: ASmemLayout")}, "A by hand, rows 8 apart but 16 wide: rows overlap",
           defines=SM100),
        _m(f"{tag}_b_overlap", kernel, file, line_a + 1, sb, "auto sB_layout = make_layout(mma_shape_B, " + OVERLAP,
           BW02,
           {(launch, "injective", "SMEMStorage: BSmemLayout")}, "B by hand, rows 8 apart but 16 wide: rows overlap",
           defines=SM100),
        _m(f"{tag}_a_ktile_stride", kernel, file, line_a, sa, KTILE, BW02,
           {(launch, "injective", "SMEMStorage: ASmemLayout")},
           "a hand-made interleaved K-major A whose k-tile stride forgets the second core-matrix column",
           defines=SM100),
    ]

MUTANTS = [
    # ---------------------------------------------------------------- sgemm_sm80.cu, gemm_tn<half_t> (HGEMM)
    _m("hgemm_noswizzle", "sgemm_sm80 gemm_tn", SG, 358, "Swizzle<3,3,3>", "Swizzle<0,3,3>", HGEMM,
       {(424, "banks", "copyA"), (424, "banks", "copyB")},
       "no swizzle: a quarter warp's 16-byte cp.async writes of one smem row land 128 bytes apart (8-way)",
       existing="test_cpp.py::test_mutant_without_swizzle_is_refuted_at_the_cp_async_writes"),
    _m("hgemm_swizzle_2bits", "sgemm_sm80 gemm_tn", SG, 358, "Swizzle<3,3,3>", "Swizzle<2,3,3>", HGEMM,
       {(424, "banks", "copyA"), (424, "banks", "copyB")},
       "a 2-bit swizzle over 8-chunk rows: a row's 8 chunks fall on 4 bank groups (2-way)"),
    _m("hgemm_swizzle_shift4", "sgemm_sm80 gemm_tn", SG, 358, "Swizzle<3,3,3>", "Swizzle<3,3,4>", HGEMM,
       {(424, "banks", "copyA"), (424, "banks", "copyB")},
       "the swizzle's shift one too far: chunk bits XOR row bits 1..3, rows 2i and 2i+1 share a pattern (2-way)"),
    _m("hgemm_threads_32x4", "sgemm_sm80 gemm_tn", SG, 369,
       "Layout<Shape<_16,_8>,Stride<_8,_1>>{},  // Thr layout 16x8",
       "Layout<Shape<_32,_4>,Stride<_4,_1>>{},  // Thr layout 16x8", HGEMM, {(424, "banks", "copyA")},
       "copyA's threads 32x4 k-major: a quarter warp writes 4 chunks of 2 rows, which the swizzle maps onto 4 "
       "bank groups (2-way)"),
    _m("hgemm_s2r_tiled_for_b", "sgemm_sm80 gemm_tn", SG, 176, "make_tiled_copy_A(s2r_atom_a, mma)",
       "make_tiled_copy_B(s2r_atom_a, mma)", HGEMM, {(424, "compatible", "s2r_atom_A")},
       "the kernel body tiles A's ldmatrix atom after the MMA's B operand and retiles A's fragment with it"),
    _m("hgemm_s2r_src_of_a", "sgemm_sm80 gemm_tn", SG, 183, "s2r_thr_copy_b.partition_S(sB)",
       "s2r_thr_copy_a.partition_S(sB)", HGEMM, {(424, "compatible", "s2r_atom_A")},
       "the body partitions sB with A's ldmatrix slice and copies it into B's fragment (retiled by B's slice): "
       "A's tiled copy is claimed compatible with the fragment its partition feeds (cpp_flow.Flow.crossed)"),
    # -------------------------------------------------------------- sgemm_sm80.cu, gemm_nt<float> (generic NT)
    _m("sgemm_nt_padded", "sgemm_sm80 gemm_nt", SG, 465, "auto sA = make_layout(make_shape(bM, bK, bP));",
       "auto sA = make_layout(make_shape(bM, bK, bP), make_stride(Int<1>{}, bM+Int<1>{}, (bM+Int<1>{})*bK));",
       SGEMM_NT, {(497, "vector", "copyA"), (497, "banks", "copyA")},
       "gemm_tn's padded m-major smem (stride 129) under gemm_nt's 16-byte cp.async of 4 m-consecutive floats "
       "(`banks`, stated for 16-byte accesses, is refuted with `vector`: they cannot be issued)"),
    _m("sgemm_nt_threads_kmajor", "sgemm_sm80 gemm_nt", SG, 472, "Layout<Shape<_32,_8>>{}, // Thr layout 32x8 m-major",
       "Layout<Shape<_32,_8>,Stride<_8,_1>>{}, // Thr layout 32x8 m-major", SGEMM_NT, {(497, "banks", "copyA")},
       "a k-major thread layout over the m-major sA: a quarter warp writes one 16-byte chunk of 8 columns, "
       "512 bytes apart (8-way)"),
    _m("sgemm_nt_smem_kmajor", "sgemm_sm80 gemm_nt", SG, 466, "auto sB = make_layout(make_shape(bN, bK, bP));",
       "auto sB = make_layout(make_shape(bN, bK, bP), LayoutRight{});", SGEMM_NT,
       {(497, "vector", "copyB"), (497, "banks", "copyB")},
       "a row-major sB (n stride 24) under copyB's 16-byte vectors of 4 n-consecutive floats (`banks` with it)"),
    # --------------------------------------------------------------------------------------- wgmma_sm90.cu
    _m("wg_tn_inter", "wgmma_sm90", WG, 413, "GMMA::Layout_K_SW128_Atom<TA>", "GMMA::Layout_K_INTER_Atom<TA>",
       WG_TN, {(463, "banks", "copyA")},
       "sA unswizzled (a valid GMMA layout): a quarter warp's 8 chunks of one row are 2048 bytes apart (8-way)",
       existing="test_cpp_hopper.py::test_unswizzled_smem_mutant_is_refuted_at_the_cp_async_writes"),
    _m("wg_tn_sw64_b", "wgmma_sm90", WG, 414, "GMMA::Layout_K_SW128_Atom<TB>", "GMMA::Layout_K_SW64_Atom<TB>",
       WG_TN, {(463, "banks", "copyB")},
       "sB with the 64-byte swizzle atom: a 128-byte k-row spans two atoms 8 KiB apart (2-way)"),
    _m("wg_nt_sw64_a", "wgmma_sm90", WG, 321, "GMMA::Layout_MN_SW128_Atom<TA>", "GMMA::Layout_MN_SW64_Atom<TA>",
       WG_NT, {(369, "banks", "copyA")},
       "NT's sA with the 64-byte MN swizzle atom: 64 m-consecutive halves span two atoms (2-way)"),
    _m("wg_tn_threads_32x4", "wgmma_sm90", WG, 418, "Layout<Shape<_16,_8>,Stride<_8,_1>>{}, // Thr layout 16x8",
       "Layout<Shape<_32,_4>,Stride<_4,_1>>{}, // Thr layout 16x8", WG_TN, {(463, "banks", "copyA")},
       "copyA's threads 32x4 k-major: a quarter warp writes 4 chunks of 2 rows of the 128-byte swizzle (2-way)"),
    # ----------------------------------------------------------------------------------- wgmma_tma_sm90.cu
    _m("tma_tn_a_sw64", "wgmma_tma_sm90", TMA, 388, "sA(_,_,0)",
       "tile_to_shape(GMMA::Layout_K_SW64_Atom<TA>{}, make_shape(bM,bK))", TMA_TN, {(414, "equal", "tmaA")},
       "tmaA made for a 64-byte swizzled tile; the kernel partitions the 128-byte swizzled sA with it",
       existing="test_cpp_hopper.py::test_tma_smem_mutant_is_refuted_at_the_tma_atom"),
    _m("tma_tn_b_inter", "wgmma_tma_sm90", TMA, 389, "sB(_,_,0)",
       "tile_to_shape(GMMA::Layout_K_INTER_Atom<TB>{}, make_shape(bN,bK))", TMA_TN, {(414, "equal", "tmaB")},
       "tmaB made for an unswizzled tile; the kernel partitions the 128-byte swizzled sB with it"),
    _m("tma_nt_a_sw64", "wgmma_tma_sm90", TMA, 304, "sA(_,_,0)",
       "tile_to_shape(GMMA::Layout_MN_SW64_Atom<TA>{}, make_shape(bM,bK))", TMA_NT, {(332, "equal", "tmaA")},
       "NT's tmaA made for the 64-byte MN swizzle; the kernel partitions the 128-byte MN swizzled sA"),
    # --------------------------------------------------------------------------------- blackwell/01_mma_sm100.cu
    _m("bw01_a_overlap", "01_mma_sm100", B1, 432,
       "auto sA_layout = UMMA::tile_to_mma_shape(UMMA::Layout_K_SW128_Atom<TypeA>{}, mma_shape_A);",
       "auto sA_layout = make_layout(mma_shape_A, make_stride(make_stride(Int<8>{}, Int<1>{}), Int<0>{}, Int<16>{}));",
       BW01, {(473, "injective", "SMEMStorage: ASmemLayout")},
       "A laid out by hand, rows 8 elements apart but 16 wide: rows overlap (make_umma_desc accepts it)",
       defines=SM100,
       existing="test_cpp_blackwell.py::test_mutant_with_overlapping_rows_is_refuted_at_its_storage_argument"),
    _m("bw01_b_overlap", "01_mma_sm100", B1, 433,
       "auto sB_layout = UMMA::tile_to_mma_shape(UMMA::Layout_K_SW128_Atom<TypeB>{}, mma_shape_B);",
       "auto sB_layout = make_layout(mma_shape_B, make_stride(make_stride(Int<8>{}, Int<1>{}), Int<0>{}, Int<16>{}));",
       BW01, {(473, "injective", "SMEMStorage: BSmemLayout")},
       "B laid out by hand the same way: rows overlap", defines=SM100),
    _m("bw01_a_ktile_stride", "01_mma_sm100", B1, 432,
       "auto sA_layout = UMMA::tile_to_mma_shape(UMMA::Layout_K_SW128_Atom<TypeA>{}, mma_shape_A);",
       "auto sA_layout = make_layout(make_shape(make_shape(Int<128>{}, make_shape(Int<8>{}, Int<2>{})), Int<1>{}, "
       "Int<4>{}), make_stride(make_stride(Int<8>{}, make_stride(Int<1>{}, Int<1024>{})), Int<0>{}, Int<1024>{}));",
       BW01, {(473, "injective", "SMEMStorage: ASmemLayout")},
       "a hand-made interleaved K-major A whose k-tile stride forgets the second core-matrix column: "
       "k-tiles overlap", defines=SM100),
    # ----------------------------------------------------------------------------- blackwell/02_mma_tma_sm100.cu
    _m("bw02_a_sw64", "02_mma_tma_sm100", B2, 494, "    sA_layout,              // Destination SMEM layout",
       "    UMMA::tile_to_mma_shape(UMMA::Layout_K_SW64_Atom<TypeA>{}, mma_shape_A),", BW02,
       {(550, "equal", "tma_atom_A")},
       "tma_atom_A made for the SW64 tiling of A; the storage the MMA reads (and tma_partition writes) is SW128",
       defines=SM100, existing="test_cpp_blackwell.py::test_mutant_tma_made_for_a_sw64_layout_is_refuted_at_its_atom"),
    _m("bw02_b_inter", "02_mma_tma_sm100", B2, 510, "      sB_layout,              // Destination SMEM layout",
       "      UMMA::tile_to_mma_shape(UMMA::Layout_K_INTER_Atom<TypeB>{}, mma_shape_B),", BW02,
       {(550, "equal", "tma_atom_B")},
       "tma_atom_B made for an unswizzled tiling of B; the storage is SW128", defines=SM100),
    _m("bw02_b_overlap", "02_mma_tma_sm100", B2, 472,
       "auto sB_layout = UMMA::tile_to_mma_shape(UMMA::Layout_K_SW128_Atom<TypeB>{}, mma_shape_B);",
       "auto sB_layout = make_layout(mma_shape_B, make_stride(make_stride(Int<8>{}, Int<1>{}), Int<0>{}, Int<16>{}));",
       BW02, {(550, "injective", "SMEMStorage: BSmemLayout")},
       "B laid out by hand with overlapping rows (the TMA atom made for it too)", defines=SM100),
    # ------------------------------------------------------------------ blackwell/03, 04 (multicast, 2-SM), 05
    *_storage("bw03", "03_mma_tma_multicast_sm100", B3, 509, 589),
    *_storage("bw04", "04_mma_tma_2sm_sm100", B4, 511, 596),
    _m("bw05_c_sw64", "05_mma_tma_epi_sm100", B5, 649, "sC_layout,                  // Destination SMEM layout",
       "group<0,2>(tile_to_shape(UMMA::Layout_K_SW64_Atom<TypeC>{}, make_shape(size<0>(epi_tiler), "
       "size<1>(epi_tiler)))),", BW02, {(703, "equal", "tma_atom_C")},
       "the epilogue's tma_atom_C made for a 64-byte swizzled C tile; the kernel loads into the SW128 sC",
       defines=SM100),
    _m("bw05_d_inter", "05_mma_tma_epi_sm100", B5, 664, "sD_layout,                  // Source SMEM layout",
       "group<0,2>(tile_to_shape(UMMA::Layout_K_INTER_Atom<TypeD>{}, make_shape(size<0>(epi_tiler), "
       "size<1>(epi_tiler)))),", BW02, {(703, "equal", "tma_atom_D")},
       "the epilogue's tma_atom_D (a store) made for an unswizzled D tile; the kernel stores from the SW128 sD",
       defines=SM100),
    _m("bw05_a_overlap", "05_mma_tma_epi_sm100", B5, 565,
       "auto sA_layout = UMMA::tile_to_mma_shape(UMMA::Layout_K_SW128_Atom<TypeA>{}, mma_shape_A);",
       "auto sA_layout = make_layout(mma_shape_A, " + OVERLAP, BW02, {(703, "injective", "SMEMStorage: ASmemLayout")},
       "A by hand, rows 8 apart but 16 wide: rows overlap", defines=SM100),
]


# Edits CuTe's own static assertions reject (the host build fails with them as its first error): no mutants of
# a kernel that compiles, kept with the assertion g++ printed (``cpp/mutants.records.json``, ``error``).
REJECTED = [
    _m("hgemm_atom_padded", "sgemm_sm80 gemm_tn", SG, 360, "Stride<_8,Stride<_1,_64>>", "Stride<_9,Stride<_1,_72>>",
       HGEMM, (), "a padded swizzle atom (rows 9 elements apart): 16-byte cp.async writes are not 16-byte aligned; "
       "CuTe: `Stride Divisibility Condition`"),
    _m("hgemm_ldsm_transposed", "sgemm_sm80 gemm_tn", SG, 383, "SM75_U32x4_LDSM_N, half_t> s2r_atom_A",
       "SM75_U16x8_LDSM_T, half_t> s2r_atom_A", HGEMM, (),
       "the transposing ldmatrix (for an MN-major operand) over the K-major A; CuTe: `Copy_Traits: src failed to "
       "vectorize into registers`"),
    _m("hgemm_copy_values_m", "sgemm_sm80 gemm_tn", SG, 370,
       "Layout<Shape< _1,_8>>{});               // Val layout  1x8 k-major",
       "Layout<Shape< _8,_1>>{});               // Val layout  1x8 k-major", HGEMM, (),
       "copyA's 8 values along m (the MN-major value layout) over the k-major sA; CuTe: `Copy_Traits: src failed "
       "to vectorize into registers`"),
    _m("wg_tn_copy_values_m", "wgmma_sm90", WG, 419, "Layout<Shape< _1,_8>>{});              // Val layout  1x8",
       "Layout<Shape< _8,_1>>{});              // Val layout  1x8", WG_TN, (),
       "copyA's 8 values along m (NT's value layout) over the K-major sA; CuTe: `Copy_Traits: src failed to "
       "vectorize into registers`"),
    _m("hgemm_atom_kstride32", "sgemm_sm80 gemm_tn", SG, 360, "Stride<_8,Stride<_1,_64>>", "Stride<_8,Stride<_1,_32>>",
       HGEMM, (), "the swizzle atom's k-chunk stride 32 instead of 64 (8 rows x 8 elements = 64): chunks overlap; "
       "CuTe (tile_to_shape): `Non-injective Layout detected in complement`"),
    _m("tma_tn_a_tiler_swapped", "wgmma_tma_sm90", TMA, 388, "make_shape(bM,bK))", "make_shape(bK,bM))", TMA_TN, (),
       "tmaA made with the tiler (bK, bM) over K-major A; CuTe (make_tma_atom): `Could not find a common tile-gmem "
       "vectorization`"),
    _m("bw02_storage_b_as_a", "02_mma_tma_sm100", B2, 479, "decltype(sA_layout), decltype(sB_layout)>;",
       "decltype(sA_layout), decltype(sA_layout)>;", BW02, (),
       "the storage struct declared with A's layout for B (a copy-paste slip); CuTe: a static assertion without "
       "message (CUTE_STATIC_ASSERT_V)", defines=SM100),
]
# Controls: edits that keep the kernel consistent (the tutorial's own commented alternatives, one swizzle changed
# everywhere the layout is used): nothing refuted, no unknown the original does not have.
CONTROLS = [
    _m("ctl_hgemm_ldsm_x2", "sgemm_sm80 gemm_tn", SG, 383, "SM75_U32x4_LDSM_N, half_t> s2r_atom_A",
       "SM75_U32x2_LDSM_N, half_t> s2r_atom_A", HGEMM, (), "the tutorial's commented alternative ldmatrix x2"),
    _m("ctl_hgemm_cacheglobal", "sgemm_sm80 gemm_tn", SG, 368, "SM80_CP_ASYNC_CACHEALWAYS<uint128_t>",
       "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", HGEMM, (), "copyA's cp.async bypassing L1 (cg): the same layouts"),
    _m("ctl_tma_tn_sw64", "wgmma_tma_sm90", TMA, 376, "GMMA::Layout_K_SW128_Atom<TA>", "GMMA::Layout_K_SW64_Atom<TA>",
       TMA_TN, (), "sA with the 64-byte swizzle; tmaA is made from sA(_,_,0), so it writes what wgmma reads"),
    _m("ctl_bw01_sw64", "01_mma_sm100", B1, 432, "UMMA::Layout_K_SW128_Atom<TypeA>", "UMMA::Layout_K_SW64_Atom<TypeA>",
       BW01, (), "A's storage with the 64-byte swizzle (a canonical UMMA layout)", defines=SM100),
    _m("ctl_bw02_sw64", "02_mma_tma_sm100", B2, 471, "UMMA::Layout_K_SW128_Atom<TypeA>",
       "UMMA::Layout_K_SW64_Atom<TypeA>",
       BW02, (), "A's storage and (made from sA_layout) tma_atom_A with the 64-byte swizzle", defines=SM100),
]

# Blackwell multicast / 2-SM TMA atoms made for another smem layout than the storage they write (strict xfails
# until the capture printed those atoms' operands, cpp_replay; now refuted like 02's single-CTA atom).
MUTANTS += [
    _m("bw03_a_sw64_multicast", "03_mma_tma_multicast_sm100", B3, 531,
       "sA_layout,                       // Destination SMEM layout",
       "UMMA::tile_to_mma_shape(UMMA::Layout_K_SW64_Atom<TypeA>{}, mma_shape_A),", BW02,
       {(589, "equal", "tma_atom_A")},
       "03's multicast tma_atom_A made for the SW64 tiling of A over SW128 storage (02's bw02_a_sw64, multicast)", defines=SM100),
    _m("bw04_a_sw64_2sm", "04_mma_tma_2sm_sm100", B4, 534,
       "sA_layout,                      // Destination SMEM layout",
       "UMMA::tile_to_mma_shape(UMMA::Layout_K_SW64_Atom<TypeA>{}, mma_shape_A),", BW02,
       {(596, "equal", "tma_atom_A")},
       "04's 2-SM tma_atom_A (make_tma_atom_A_sm100) made for the SW64 tiling of A over SW128 storage", defines=SM100),
]

def source_root():
    """The wheel's ``cutlass_library/source`` folder, or None without the nvidia-cutlass wheel."""
    try:
        import cutlass_library
    except ImportError:
        return None
    root = Path(cutlass_library.__file__).parent / "source"
    return root if (root / TUTORIAL).is_dir() else None


def mutated_text(m: Mutant, root: Path) -> str:
    """The edited source: ``m.old`` replaced by ``m.new`` on line ``m.line`` (asserting it is there, once)."""
    lines = (root / m.path).read_text().splitlines(keepends=True)
    assert lines[m.line - 1].count(m.old) == 1, (m.name, m.line, lines[m.line - 1])
    lines[m.line - 1] = lines[m.line - 1].replace(m.old, m.new)
    return "".join(lines)


def workdir(m: Mutant) -> Path:
    """A fixed folder per mutant (the unit names its file: the content-hash cache hits on the next build); the
    edited copy sits at ``m.path`` under it, so records name the same ``FILE:LINE`` as the original's."""
    return Path(tempfile.gettempdir()) / "cuteverify-trace-cpp" / "mutants" / m.name


def write_copy(m: Mutant, root: Path) -> Path:
    """Write the edited copy under :func:`workdir` and return it."""
    out = workdir(m) / m.path
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(mutated_text(m, root))
    return out


def launch_line(row) -> int:
    """The launch line of a result row (``FILE:LINE: KERNEL ...``), 0 when the row names none."""
    at = (row.get("at") or "").split(": ", 1)[0]
    tail = at.rsplit(":", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def argument(row) -> str:
    """The argument a result row is at: the backquoted source text, then ``: NAME`` of a storage template
    argument (``template argument 0 `SMEMStorage`: ASmemLayout`` -> ``SMEMStorage: ASmemLayout``)."""
    at = row.get("at") or ""
    if "`" not in at:
        return ""
    name = at.split("`")[1]
    rest = at.split("`", 2)[2]
    if rest.startswith(": "):
        name += ": " + rest[2:].split(" ", 1)[0]
    return name


def refuted(rows) -> set:
    """``{(launch line, kind, argument)}`` of the refuted rows."""
    return {(launch_line(r), r["kind"], argument(r)) for r in rows if r["status"] == "refuted"}


FIXTURES = {SG: "sgemm_sm80", WG: "wgmma_sm90", TMA: "wgmma_tma_sm90", B1: "blackwell_01_mma_sm100",
            B2: "blackwell_02_mma_tma_sm100"}  # the committed captures of the unmodified sources (test_cpp*.py)
KEY = ("at", "index", "entry")


def original(m: Mutant, here: Path, data: dict) -> tuple:
    """``(records, info)`` of the unmodified source of ``m`` (dicts, as stored), its entry's only: the fixture of
    test_cpp*.py, else (03-05) ``data["originals"]`` of ``mutants.records.json``."""
    if m.file in FIXTURES:
        base = json.loads((here / f"{FIXTURES[m.file]}.records.json").read_text())
    else:
        base = data["originals"][m.path]
    recs = [r for r in base["records"] if r["entry"] == m.entry]
    return recs, {"entries": {m.entry: base["info"]["entries"][m.entry]}}


def delta(records: list, base: list) -> dict:
    """A mutant's records stored against the original's: ``{"changed": {position: record}}`` when both print the
    same arguments in the same order (``KEY``), else ``{"records": records}``."""
    if len(records) != len(base) or any([r[k] for k in KEY] != [b[k] for k in KEY] for r, b in zip(records, base)):
        return {"records": records}
    return {"changed": {str(i): r for i, (r, b) in enumerate(zip(records, base)) if r != b}}


def undelta(stored: dict, base: list) -> list:
    """The records :func:`delta` stored (inverse of it)."""
    if "records" in stored:
        return stored["records"]
    return [stored["changed"].get(str(i), b) for i, b in enumerate(base)]
