"""The CuTe atom layer (docs/model.md section 1, layer 6): MMA and copy atoms built from the spec library,
tiled MMAs and tiled copies, thread partitions and retiling, under CuTe DSL's names and printed forms.

``make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (2,2,1), (32,32,16))`` and
``make_tiled_copy_A("SM75_U32x4_LDSM_N", tiled_mma, "f16")`` compute what CUTLASS's ``mma_atom.hpp`` /
``copy_atom.hpp`` compute, with the project's algebra; ``check`` states their post-conditions (coverage of the
tile, agreement of a copy's register side with an MMA fragment, a copy issued over a tensor as ``cute.copy``
vectorises it); ``operand_desc`` proves a wgmma / UMMA operand's declared major against the smem layout it
reads, block by block, through the descriptor ``make_gmma_desc`` / ``make_umma_desc`` builds.

May import: ``errors``, ``symbolic``, ``core``, ``algebra``, ``prover``, ``hardware``.

Modules: names (CUTLASS names -> specs), mma, copy, partition (slices, local_tile/local_partition,
fragments), check (post-conditions), agree (a tiled MMA's TV layout against the hardware, atom by atom), _util (tilers with ``_``, zip2_by, flat coordinates).
"""
from .agree import agrees_tiled
from .check import compatible_tv, copy_vectorizes, covers
from .copy import (
                   CopyAtom,
                   ThrCopy,
                   TiledCopy,
                   make_copy_atom,
                   make_layout_tv,
                   make_tiled_copy,
                   make_tiled_copy_A,
                   make_tiled_copy_B,
                   make_tiled_copy_C,
                   make_tiled_copy_C_atom,
                   make_tiled_copy_D,
                   make_tiled_copy_S,
                   make_tiled_copy_tv,
)
from .mma import MmaAtom, ThrMma, TiledMma, make_mma_atom, make_tiled_mma
from .partition import Partitioned, fragment_like, local_partition, local_tile

__all__ = [
                   "CopyAtom",
                   "MmaAtom",
                   "Partitioned",
                   "ThrCopy",
                   "ThrMma",
                   "TiledCopy",
                   "TiledMma",
                   "agrees_tiled",
                   "compatible_tv",
                   "copy_vectorizes",
                   "covers",
                   "fragment_like",
                   "local_partition",
                   "local_tile",
                   "make_copy_atom",
                   "make_layout_tv",
                   "make_mma_atom",
                   "make_tiled_copy",
                   "make_tiled_copy_A",
                   "make_tiled_copy_B",
                   "make_tiled_copy_C",
                   "make_tiled_copy_C_atom",
                   "make_tiled_copy_D",
                   "make_tiled_copy_S",
                   "make_tiled_copy_tv",
                   "make_tiled_mma",
]
