"""The mutants of make_mutants.py: one dict per mutant.

kernel: a key of make_mutants.KERNELS; name: short id; file: the source file as its loc reads in the capture
(`kernels/<file>.py`, `site-packages/<package path>`);
edits: [(line, old text on that line, new text)], applied to a copy of the file; at_line: the line whose ops
carry the defect in the capture (the op's loc: the first line of the statement; defaults to the first edit's
line); also_at: other lines of the same file where a check may report the same defect (the op that consumes the
defective object: a partition, a fragment, the TMA atom; an int is a line of `file`, a string "file:line");
kind: swizzle | major | copy | smem stage | alignment | thread layout; what: the defect in one sentence;
check: the planned check that should refute it (banks / agrees / compatible / operand / tma / smem struct /
injective / covers).
"""
HOP = "kernels/hopper_dense_gemm.py"
AMP = "kernels/ampere_tensorop_gemm.py"
BW = "kernels/blackwell_dense_gemm.py"
FA80 = "site-packages/flash_attn/cute/flash_fwd.py"
FA90 = "site-packages/flash_attn/cute/flash_fwd_sm90.py"
FA100 = "site-packages/flash_attn/cute/flash_fwd_sm100.py"
QG = "site-packages/quack/gemm_sm90.py"
QR = "site-packages/quack/rmsnorm.py"

MUTANTS = [
    dict(kernel="hopper_dense_gemm", name="sA_swizzle", file=HOP, at_line=634,
         edits=[(635, "swizzle=a_smem_layout_staged.inner", "swizzle=cute.make_swizzle(2, 4, 3)")],
         kind="swizzle",
         what="sA is viewed with pointer swizzle S<2,4,3> (64B) while the TMA atom and the wgmma descriptor "
              "are built from the S<3,4,3> (128B) smem layout: TMA writes and wgmma reads a different "
              "arrangement than the tensor the kernel partitions.",
         also_at=[680, 682, 708], check="tma"),
    dict(kernel="hopper_dense_gemm", name="a_major_mn", file=HOP, at_line=319,
         edits=[(322, "self.a_layout.sm90_mma_major_mode(),", "cute.nvgpu.OperandMajorMode.MN,")],
         kind="major",
         what="the tiled MMA reads A as MN-major (ab_major = (mn, k)) while sA is built, loaded by TMA and "
              "laid out K-major: the wgmma descriptor of make_fragment_A walks sA in the wrong order.",
         also_at=[708], check="operand"),
    dict(kernel="hopper_dense_gemm", name="sA_stage_half", file=HOP, at_line=600,
         edits=[(448, "self.a_dtype, cute.cosize(self.a_smem_layout_staged)",
                 "self.a_dtype, cute.cosize(self.a_smem_layout_staged) // 2")],
         kind="smem stage",
         what="the struct field sA holds half the staged A buffer (32 KiB) while the 4-stage sA tensor viewed in "
              "it spans 64 KiB: stages 2-3 of A overlap sB.",
         also_at=[448, 634], check="smem struct"),
    dict(kernel="ampere_tensorop_gemm", name="sA_swizzle", file=AMP,
         edits=[(458, "swizzle=sA_swizzle", "swizzle=cute.make_swizzle(1, 4, 3)")],
         kind="swizzle",
         what="sA is viewed with the swizzle S<1,4,3> instead of S<2,4,3>: the ldmatrix reads of the 64 B "
              "K-major rows (and the cp.async writes) hit the same banks (bank conflicts, no wrong value).",
         also_at=[466, 645], check="banks"),
    dict(kernel="ampere_tensorop_gemm", name="ldsm_A_transposed", file=AMP, at_line=625,
         edits=[(627, "self.a_major_mode != utils.LayoutEnum.ROW_MAJOR, 4",
                 "self.a_major_mode == utils.LayoutEnum.ROW_MAJOR, 4")],
         kind="major",
         what="the smem->register copy of A uses ldmatrix.trans although sA is K-major: each thread receives "
              "the transposed 8x8 blocks, not the A fragment the MMA expects.",
         also_at=[640, 645], check="compatible"),
    dict(kernel="ampere_tensorop_gemm", name="s2r_A_is_copy_B", file=AMP,
         edits=[(640, "cute.make_tiled_copy_A(atom_copy_s2r_A, tiled_mma)",
                 "cute.make_tiled_copy_B(atom_copy_s2r_A, tiled_mma)")],
         kind="copy",
         what="the smem->register copy of A is built with make_tiled_copy_B: its thread-value layout is the "
              "MMA's B operand layout (same 32x16 tile, so the DSL accepts it) and A's fragments get B's values.",
         also_at=[645, 646], check="compatible"),
    dict(kernel="ampere_tensorop_gemm", name="sA_stage_half", file=AMP, at_line=459,
         edits=[(434, "cute.cosize(sA_layout)]", "cute.cosize(sA_layout) // 2]")],
         kind="smem stage",
         what="the struct field a holds half of the staged sA (16 KiB of 32 KiB): field b starts at byte 16384, "
              "inside the sA view, so stages 2-3 of A and sB overlap.",
         also_at=[434, 458], check="smem struct"),
    dict(kernel="blackwell_dense_gemm", name="sA_swizzle", file=BW, at_line=590,
         edits=[(594, "swizzle=a_smem_layout_staged.inner,", "swizzle=cute.make_swizzle(2, 4, 3),")],
         kind="swizzle",
         what="sA is allocated with pointer swizzle S<2,4,3> (64B) while its TMA atom and UMMA descriptor use "
              "the S<3,4,3> (128B) layout from make_smem_layout_a.",
         also_at=[654, 679], check="tma"),
    dict(kernel="blackwell_dense_gemm", name="a_major_mn", file=BW, at_line=367,
         edits=[(369, "self.a_major_mode,", "cute.nvgpu.OperandMajorMode.MN,")],
         kind="major",
         what="the kernel's tiled MMA reads A as MN-major while sA (made by make_smem_layout_a from the "
              "K-major tiled MMA of _setup_attributes) and its TMA load are K-major.",
         also_at=[382, 679], check="operand"),
    dict(kernel="blackwell_dense_gemm", name="r2s_copy_S", file=BW,
         edits=[(931, "cute.make_tiled_copy_D(copy_atom_r2s, tiled_copy_t2r)",
                 "cute.make_tiled_copy_S(copy_atom_r2s, tiled_copy_t2r)")],
         kind="copy",
         what="the register->smem epilogue copy is tiled after the TMEM (source) side of the t2r copy instead of "
              "its register (destination) side: threads store values they do not hold.",
         also_at=[934], check="compatible"),
    dict(kernel="blackwell_dense_gemm", name="ab_mbar_half", file=BW, at_line=524,
         edits=[(516, "cute.struct.MemRange[cutlass.Int64, self.num_ab_stage * 2]",
                 "cute.struct.MemRange[cutlass.Int64, self.num_ab_stage]")],
         kind="smem stage",
         what="the A/B pipeline's mbarrier array holds one barrier per stage instead of a full/empty pair: the "
              "pipeline's empty barriers overlap the accumulator barriers that follow.",
         also_at=[516, 530], check="smem struct"),
    dict(kernel="fa4_fwd_sm80", name="swizzle_bits_minus1", file="site-packages/flash_attn/cute/ampere_helpers.py", at_line=25,
         edits=[(26, "cute.make_swizzle(swizzle_bits, swizzle_base, swizzle_base)",
                 "cute.make_swizzle(swizzle_bits - 1, swizzle_base, swizzle_base)")],
         kind="swizzle",
         what="the Q/K/V smem atom is S<2,3,3> o (8,64):(64,1) instead of S<3,3,3>: the 128 B rows are only "
              "4-way permuted, so ldmatrix (8 rows, same 16 B column) and cp.async hit 2-way bank conflicts.",
         also_at=[FA80 + ":890", FA80 + ":891", FA80 + ":859"], check="banks"),
    dict(kernel="fa4_fwd_sm80", name="Q_copy_B", file=FA80,
         edits=[(885, "utils.make_tiled_copy_A(smem_copy_atom_QK, tiled_mma_qk)",
                 "utils.make_tiled_copy_B(smem_copy_atom_QK, tiled_mma_qk)")],
         kind="copy",
         what="the smem->register copy of Q is make_tiled_copy_B of the QK MMA: its thread-value layout is "
              "K's operand layout, not the A fragment tSrQ it fills.",
         also_at=[890], check="compatible"),
    dict(kernel="fa4_fwd_sm80", name="V_ldsm_not_transposed", file=FA80, at_line=887,
         edits=[(887, "utils.make_tiled_copy_B(smem_copy_atom_V, tiled_mma_pv)",
                 "utils.make_tiled_copy_B(smem_copy_atom_QK, tiled_mma_pv)")],
         kind="major",
         what="V^T is read with the non-transposing ldmatrix atom (the one for Q/K): sV is head-dim-major, so "
              "each thread gets V's values transposed within every 8x8 block.",
         also_at=[892], check="compatible"),
    dict(kernel="fa4_fwd_sm80", name="smem_fields_half", file=FA80, at_line=845,
         edits=[(603, "cute.struct.MemRange[self.dtype, cute.cosize(layout)], 1024]",
                 "cute.struct.MemRange[self.dtype, cute.cosize(layout) // 2], 1024]")],
         kind="smem stage",
         what="each of the sV/sQ/sK struct fields holds half of its tensor (cosize // 2): the views of sV, sQ, "
              "sK overrun into the next field.",
         also_at=[603, 846, 847, 849], check="smem struct"),
    dict(kernel="fa4_fwd_sm90", name="V_major_k", file=FA90, at_line=110,
         edits=[(114, "warpgroup.OperandMajorMode.MN,", "warpgroup.OperandMajorMode.K,")],
         kind="major",
         what="the PV MMA reads V (B operand) as K-major while sV is (tile_n, hdim) row-major, i.e. MN-major "
              "for P@V: the wgmma descriptor of V walks sV transposed.",
         also_at=["site-packages/quack/sm90_utils.py:235"], check="operand"),
    dict(kernel="fa4_fwd_sm90", name="sK_swizzle", file=FA90,
         edits=[(556, "swizzle=sK_layout.inner", "swizzle=cute.make_swizzle(2, 4, 3)")],
         kind="swizzle",
         what="sK is viewed with pointer swizzle S<2,4,3> while its TMA atom and the QK wgmma descriptor use "
              "the S<3,4,3> layout.",
         also_at=[795], check="tma"),
    dict(kernel="fa4_fwd_sm90", name="buffer_align_128", file=FA90, at_line=483,
         edits=[(68, "self.buffer_align_bytes = 1024", "self.buffer_align_bytes = 128")],
         kind="alignment",
         what="sV/sQ/sK fields are aligned to 128 B (sV starts at byte 128) below the 1024 B period of their "
              "128B swizzle: TMA and wgmma see the swizzle pattern at a different phase.",
         also_at=[555, 556, 558], check="smem struct"),
    dict(kernel="quack_gemm_sm90", name="b_major_mn", file=QG, at_line=379,
         edits=[(383, "self.b_layout.sm90_mma_major_mode(),", "cute.nvgpu.OperandMajorMode.MN,")],
         kind="major",
         what="the tiled MMA reads B as MN-major while sB and its TMA load are K-major.",
         also_at=["site-packages/quack/sm90_utils.py:235", 873], check="operand"),
    dict(kernel="quack_gemm_sm90", name="sB_swizzle", file=QG,
         edits=[(997, "swizzle=b_smem_layout.inner", "swizzle=cute.make_swizzle(2, 4, 3)")],
         kind="swizzle",
         what="sB is viewed with pointer swizzle S<2,4,3> while its TMA atom and wgmma descriptor use S<3,4,3>.",
         also_at=["site-packages/quack/gemm_base.py:1031", "site-packages/quack/copy_utils.py:1247", "site-packages/quack/sm90_utils.py:235"], check="tma"),
    dict(kernel="quack_gemm_sm90", name="sB_stage_half", file=QG, at_line=955,
         edits=[(811, "cute.cosize(self.b_smem_layout_staged)],", "cute.cosize(self.b_smem_layout_staged) // 2],")],
         kind="smem stage",
         what="the struct field sB holds half of the staged B buffer: the upper stages of sB run past the field.",
         also_at=[811, 997], check="smem struct"),
    dict(kernel="quack_rmsnorm", name="sX_row_overlap", file=QR, at_line=172,
         edits=[(173, "cute.make_ordered_layout(tiler_mn, order=(1, 0))",
                 "cute.make_layout(tiler_mn, stride=(tiler_mn[1] // 2, 1))")],
         kind="smem size",
         what="sX's row pitch is half a row: the two rows of the CTA tile overlap in smem, so the cp.async "
              "loads of row 1 overwrite half of row 0 (the buffer is not injective).",
         also_at=[207], check="injective"),
    dict(kernel="quack_rmsnorm", name="sX_col_major", file=QR, at_line=172,
         edits=[(173, "cute.make_ordered_layout(tiler_mn, order=(1, 0))",
                 "cute.make_ordered_layout(tiler_mn, order=(0, 1))")],
         kind="major",
         what="sX is column-major while the copy moves 8 contiguous row elements per thread.",
         also_at=[207], check="banks"),
    dict(kernel="quack_rmsnorm", name="copy_vals_along_m", file="site-packages/quack/copy_utils.py", at_line=379,
         edits=[(379, "val_layout = cute.make_layout((1, num_copy_elems))",
                 "val_layout = cute.make_layout((num_copy_elems, 1))")],
         kind="thread layout",
         what="each thread's 8 copied values run down the M mode (rows) instead of along N.",
         check="covers"),
    dict(kernel="quack_rmsnorm", name="threads_half", file="site-packages/quack/copy_utils.py", at_line=375,
         edits=[(376, "(num_threads // threads_per_row, threads_per_row),",
                 "(num_threads // threads_per_row // 2, threads_per_row),")],
         kind="thread layout",
         what="the tiled copy's thread layout has half the rows of the CTA tile: each thread copies two rows "
              "but the row predicate tests only the first.",
         also_at=[380, "site-packages/quack/rmsnorm.py:206", "site-packages/quack/rmsnorm.py:207"], check="covers"),
    dict(kernel="fa4_fwd_sm100", name="V_major_k", file=FA100,
         edits=[(582, "v_major_mode = cute.nvgpu.OperandMajorMode.MN", "v_major_mode = cute.nvgpu.OperandMajorMode.K")],
         kind="major",
         what="V is declared K-major for the PV MMA (and so for its smem layout), while V in gmem is "
              "head-dim contiguous (MN-major for P@V): the TMA load of V must transpose.",
         check="tma"),
    dict(kernel="fa4_fwd_sm100", name="sK_swizzle", file=FA100,
         edits=[(1330, "swizzle=sK_layout.inner", "swizzle=cute.make_swizzle(2, 4, 3)")],
         kind="swizzle",
         what="sK is viewed with pointer swizzle S<2,4,3> while its TMA atom and the UMMA descriptor use the "
              "S<3,4,3> layout from make_smem_layout_b.",
         check="tma"),
    dict(kernel="fa4_fwd_sm100", name="sK_stage_half", file=FA100, at_line=1141,
         edits=[(952, "cute.struct.MemRange[self.k_dtype, sKV_size],", "cute.struct.MemRange[self.k_dtype, sKV_size // 2],")],
         kind="smem stage",
         what="the struct field sK (shared by the K and V stages) holds half of the staged K/V buffer.",
         also_at=[952, 1330], check="smem struct"),
    dict(kernel="fa4_fwd_sm100", name="sO_swizzle", file=FA100, also_at=[3721],
         edits=[(1339, "swizzle=sO_layout.inner", "swizzle=cute.make_swizzle(2, 4, 3)")],
         kind="swizzle",
         what="sO is viewed with pointer swizzle S<2,4,3> while the TMA store of O is built from the S<3,4,3> "
              "epilogue layout.",
         check="tma"),
    dict(kernel="fa4_fwd_sm100", name="sScale_too_small", file=FA100, at_line=1141,
         edits=[(936, "cute.struct.MemRange[Float32, self.s_p_o_stage * self.m_block_size * self.num_stats]",
                 "cute.struct.MemRange[Float32, self.s_p_o_stage * self.m_block_size]")],
         kind="smem stage",
         what="the sScale field omits the num_stats factor: the sScale tensor viewed in it (line 1351) is "
              "num_stats times larger and runs into the scheduler barriers.",
         also_at=[936, 1351], check="smem struct"),
    dict(kernel="quack_rmsnorm", name="sX_align_8", file=QR, at_line=172,
         edits=[(173, "order=(1, 0)), byte_alignment=16", "order=(1, 0)), byte_alignment=8")],
         kind="alignment",
         what="sX is only guaranteed 8 B alignment while the cp.async copies into it move 16 B vectors.",
         also_at=[207], check="vector"),
    dict(kernel="quack_rmsnorm", name="vec_64b", file=QR, at_line=207,
         edits=[(126, "vecsize = math.gcd(self.N, 128 // largest_dtype_width)",
                 "vecsize = math.gcd(self.N, 64 // largest_dtype_width)")],
         kind="vector width",
         what="the row copies move 4 bf16 (64 bit) per thread although rows are contiguous and 16 B aligned: "
              "half the vector width the layouts allow (slow, not wrong).",
         also_at=[206, 126, "site-packages/quack/copy_utils.py:380", "site-packages/quack/copy_utils.py:329"], check="vector"),
    dict(kernel="quack_rmsnorm", name="sX_half_width", file=QR, at_line=172,
         edits=[(173, "cute.make_ordered_layout(tiler_mn, order=(1, 0))",
                 "cute.make_ordered_layout((tiler_mn[0], tiler_mn[1] // 2), order=(1, 0))")],
         kind="smem size",
         what="sX holds half of the CTA tile's columns.",
         also_at=[207], check="covers"),
    dict(kernel="ampere_tensorop_gemm", name="sA_m_major", file=AMP, at_line=206,
         edits=[(208, "self.a_major_mode,", "utils.LayoutEnum.COL_MAJOR,")],
         kind="major",
         what="sA is laid out M-major while gmem A is K-major and its cp.async copy moves 8 K-contiguous elements.",
         also_at=[466, 645], check="vector"),
    dict(kernel="ampere_tensorop_gemm", name="gmem_copy_A_m_major", file=AMP, at_line=243,
         edits=[(244, "atom_async_copy, mA.element_type, self.a_major_mode, ab_copy_bits",
                 "atom_async_copy, mA.element_type, utils.LayoutEnum.COL_MAJOR, ab_copy_bits")],
         kind="major",
         what="the gmem->smem copy of A is built for an M-major A (8 M-contiguous values per thread) while A is K-major.",
         also_at=[465, 466], check="vector"),
    dict(kernel="hopper_dense_gemm", name="r2s_transposed", file=HOP, at_line=931,
         edits=[(932, "self.c_layout,", "utils.LayoutEnum.COL_MAJOR,")],
         kind="major",
         what="the epilogue's register->smem store atom is chosen for an M-major C (stmatrix .trans) while sC "
              "is N-major: each thread's accumulator values land transposed in sC.",
         also_at=[947, 954], check="agrees"),
    dict(kernel="quack_gemm_sm90", name="r2s_transposed", file=QG, at_line=1889,
         edits=[(1890, "d_layout, elem_ty_d=dtype, elem_ty_acc=self.acc_dtype",
                 "LayoutEnum.COL_MAJOR, elem_ty_d=dtype, elem_ty_acc=self.acc_dtype")],
         kind="major",
         what="the epilogue's register->smem store atom is chosen for an M-major D (stmatrix .trans) while sD "
              "is N-major.",
         also_at=[1892, 1895], check="agrees"),
    dict(kernel="fa4_fwd_sm100", name="sO_align_128", file=FA100, at_line=1141,
         edits=[(946, "cute.struct.MemRange[self.o_dtype, sO_size], self.buffer_align_bytes",
                 "cute.struct.MemRange[self.o_dtype, sO_size], 128")],
         kind="alignment",
         what="the sO field is aligned to 128 B instead of 1024 B: it starts at byte 2432 of a 1024-aligned "
              "struct, off the 1024 B period of its 128B swizzle, so the TMA store of O and the smem writes see "
              "the swizzle at a different phase.",
         also_at=[1339, 3721], check="smem struct"),
    dict(kernel="fa4_fwd_sm80", name="swizzle_byte_units", file="site-packages/flash_attn/cute/ampere_helpers.py", at_line=25,
         edits=[(26, "cute.make_swizzle(swizzle_bits, swizzle_base, swizzle_base)", "cute.make_swizzle(swizzle_bits, 4, 3)")],
         kind="swizzle",
         what="the element-domain smem atom gets the byte-domain 128B swizzle S<3,4,3> (NOTES pitfall 12): on "
              "f16 element indices it permutes 32 B units by rows 2 apart, so ldmatrix reads collide in banks.",
         also_at=[FA80 + ":890", FA80 + ":891", FA80 + ":859"], check="banks"),
    dict(kernel="fa4_fwd_sm80", name="sQ_field_of_K", file=FA80, at_line=845,
         edits=[(612, "sQ: sQ_struct", "sQ: sK_struct")],
         kind="smem stage",
         what="the struct's sQ field is declared with K's struct type (64x128, 16 KiB) while sQ is 128x128 "
              "(32 KiB): sQ's view runs over sK.",
         also_at=[846], check="smem struct"),
    dict(kernel="fa4_fwd_sm80", name="sO_unswizzled", file=FA80, at_line=357,
         edits=[(584, "sO_layout_atom = sV_layout_atom", "sO_layout_atom = sV_layout_atom.outer")],
         kind="swizzle",
         what="the O epilogue buffer drops the swizzle of its atom: the MMA-fragment stores of O (8 rows, same "
              "column, 256 B pitch per phase) hit the same banks.",
         also_at=[355, 424, 584], check="banks"),
    dict(kernel="ampere_tensorop_gemm", name="alloc_C_only", file=AMP, at_line=454,
         edits=[(455, "max(SharedStorageAB.size_in_bytes(), SharedStorageC.size_in_bytes()),",
                 "SharedStorageC.size_in_bytes(),")],
         kind="smem size",
         what="the smem allocation is sized for the epilogue's sC (32 KiB) only, not the max with sA+sB "
              "(64 KiB): sB's view runs past the allocation.",
         also_at=[458, 459], check="smem struct"),
    dict(kernel="ampere_tensorop_gemm", name="s2r_B_is_copy_A", file=AMP,
         edits=[(641, "cute.make_tiled_copy_B(atom_copy_s2r_B, tiled_mma)",
                 "cute.make_tiled_copy_A(atom_copy_s2r_B, tiled_mma)")],
         kind="copy",
         what="the smem->register copy of B is built with make_tiled_copy_A: A's thread-value layout fills B's "
              "fragment.",
         also_at=[647, 648], check="compatible"),
    dict(kernel="blackwell_dense_gemm", name="sC_swizzle", file=BW, at_line=582,
         edits=[(586, "swizzle=c_smem_layout_staged.inner,", "swizzle=cute.make_swizzle(1, 4, 3),")],
         kind="swizzle",
         what="the epilogue buffer sC is allocated with pointer swizzle S<1,4,3> while the TMA store of C is "
              "built from the S<2,4,3> epilogue layout.",
         also_at=[934, 989], check="tma"),
    dict(kernel="blackwell_dense_gemm", name="b_major_mn", file=BW, at_line=367,
         edits=[(370, "self.b_major_mode,", "cute.nvgpu.OperandMajorMode.MN,")],
         kind="major",
         what="the kernel's tiled MMA reads B as MN-major while sB and its TMA load are K-major.",
         also_at=[399, 681], check="operand"),
    dict(kernel="quack_rmsnorm", name="threads_col_major", file="site-packages/quack/copy_utils.py", at_line=375,
         edits=[(377, "order=(1, 0),", "order=(0, 1),")],
         kind="thread layout",
         what="the copy's threads are numbered down the 2 rows first: the 8 threads of a 128 B phase touch two "
              "rows 8 KiB apart, the same banks (2-way bank conflicts on the cp.async stores into sX and the "
              "smem reads), and gmem accesses lose coalescing.",
         also_at=[380, "site-packages/quack/rmsnorm.py:206", "site-packages/quack/rmsnorm.py:207"], check="banks"),
    dict(kernel="quack_rmsnorm", name="thr_rows_overlap", file="site-packages/quack/copy_utils.py", at_line=375,
         edits=[(375, "thr_layout = cute.make_ordered_layout(", "thr_layout = cute.make_layout("),
                (377, "order=(1, 0),", "stride=(threads_per_row // 2, 1),")],
         kind="thread layout",
         what="the copy's thread layout strides rows by half a row of threads: threads 32..63 of row 0 and "
              "0..31 of row 1 share indices, so the tiled copy maps two threads to the same elements and "
              "leaves others uncopied.",
         also_at=[380, "site-packages/quack/rmsnorm.py:206", "site-packages/quack/rmsnorm.py:207"], check="covers"),
    dict(kernel="quack_rmsnorm", name="sX_rows_alias", file=QR, at_line=172,
         edits=[(173, "cute.make_ordered_layout(tiler_mn, order=(1, 0))", "cute.make_layout(tiler_mn, stride=(0, 1))")],
         kind="smem size",
         what="sX is given the broadcast layout of the expanded weight (row stride 0): both rows of the CTA "
              "tile land on the same smem row.",
         also_at=[207], check="injective"),
]

#: edits tried and kept out, with why (a mutant must be a defect the DSL accepts)
DISCARDED = [
    dict(name="hopper_dense_gemm__stmatrix_transposed", file=HOP, line=939,
         edit="self.c_layout.is_m_major_c() -> not self.c_layout.is_m_major_c()",
         why="no defect: copy_atom_C only lends its tiling to make_tiled_copy_C_atom / make_tiled_copy_S; the "
             "store atom is copy_atom_r2s, and the tiled copy's TV layout and tiler are the same for .t and .n"),
    dict(name="quack_gemm_sm90__stmatrix_transposed", file=QG, line=1868,
         edit="self.d_layout.is_m_major_c() -> not self.d_layout.is_m_major_c()",
         why="no defect, as for the Hopper GEMM (the C atom only gives the tiling of tiled_copy_C_atom)"),
    dict(name="fa4_fwd_sm80__smem_align_16", file=FA80, line=603, edit="Align[..., 1024] -> Align[..., 16]",
         why="no defect: FA4 sm80 swizzles in the element domain (composed layout, plain pointer); 16 B vectors "
             "at any 16 B-aligned base keep their banks distinct, and there is no TMA"),
    dict(name="fa4_fwd_sm100__buffer_align_128", file=FA100, line=467,
         edit="self.buffer_align_bytes = 1024 -> 128",
         why="undecidable from the capture: every field drops to 128 B alignment, so the allocation itself only "
             "guarantees align<128> and the swizzle phase depends on the compiler's placement (emit_smem: "
             "unknown); replaced by sO_align_128, which keeps the struct 1024-aligned"),
    dict(name="fa4_fwd_sm80__O_copy_A", file=FA80, line=355,
         edit="cute.make_tiled_copy_C(smem_copy_atom_O, tiled_mma) -> cute.make_tiled_copy_A(...)",
         why="no defect for this configuration: with the PV MMA's permutation (64,16,16) the A and C thread-value "
             "layouts are the same function (((4,8,4),((2,2,2),(1,1))) vs ((4,8,4),((2,2),(1,2))), equal strides)"),
    dict(name="fa4_fwd_sm80__qk_permutation_n8", file=FA80, line=592,
         edit="permutation_mnk=(.., 16, 16) -> (.., 8, 16)",
         why="no defect: the K copy is make_tiled_copy_B of the same tiled MMA, so copy and MMA still agree "
             "(only the instruction mix changes)"),
]
