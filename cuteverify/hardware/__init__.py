"""The hardware spec library (docs/model.md section 6): YAML specs of MMA/copy atoms and shared-memory
atoms, each with a CUTLASS TV layout and an independent PTX formula, their self-check, agreement of user
layouts with them, and the silicon evidence that confirmed them.

May import: ``errors``, ``symbolic``, ``core``, ``algebra``, ``prover``.

Modules: loader (files -> checked YAML), spec (Spec, Library), library (load, default library, resolve),
dtypes, formula, intlayout and tables (both sides as ints), selfcheck, family (a spec family proved once for
all its parameters), agree, evidence; specs re-exports. Descriptors and their legality, each rule a named
``rules.Rule`` decided for every value of the symbolic sizes (docs/model.md section 6.2): tma / tma_rules
(cuTensorMapEncodeTiled), tma_copy / tma_box (CUTLASS's make_tma_copy and where the box lands), tma_im2col,
smem_desc / smem_desc_rules (wgmma and UMMA shared-memory matrix descriptors), umma_idesc (the tcgen05.mma
instruction descriptor), tmem (TMEM data paths, tcgen05.ld/st partitions, allocation), blockscaled
(scale-factor layouts of block-scaled GEMMs).
"""
from ..errors import FormulaError, SpecError, SpecInconsistent, UnknownSpec
from .agree import agrees
from .dtypes import DTYPE_BITS, DTYPE_BYTES, dtype_bits
from .library import default_library, get, load, load_file, names, reload, resolve
from .loader import ENV_VAR, SEARCH_PATH
from .selfcheck import self_check
from .spec import Library, Spec
from . import blockscaled, smem_desc, tma_im2col, tmem, umma_idesc
from .smem_desc import SmemDescriptor
from .tma import TmaDescriptor
from .tma_im2col import TmaIm2colDescriptor
from .tma_copy import from_copy as tma_from_copy

__all__ = ["agrees", "Spec", "Library", "load", "load_file", "default_library", "reload", "get", "names",
           "resolve", "self_check", "dtype_bits", "DTYPE_BITS", "DTYPE_BYTES", "SEARCH_PATH", "ENV_VAR",
           "SpecError", "SpecInconsistent", "UnknownSpec", "FormulaError", "TmaDescriptor", "tma_from_copy",
           "TmaIm2colDescriptor", "SmemDescriptor", "blockscaled", "smem_desc", "tma_im2col", "tmem", "umma_idesc"]
