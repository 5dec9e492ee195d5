"""The hardware spec library (docs/model.md section 6): YAML specs of MMA/copy atoms and shared-memory
atoms, each with a CUTLASS TV layout and an independent PTX formula, their self-check, agreement of user
layouts with them, and the silicon evidence that confirmed them.

May import: ``errors``, ``symbolic``, ``core``, ``algebra``, ``prover``.

Wings: ``library/`` (spec files, ``Spec`` and ``Library``, loading and resolving names, formulas, dtypes, both
sides as int tables), ``checks/`` (self-check and its cache, family proofs, named ``rules.Rule``s decided for
every value of the symbolic sizes, agreement of a user's layout, silicon evidence), ``tma/`` (the rules of
cuTensorMapEncodeTiled / Im2col, CUTLASS's make_tma_copy and where the box lands) and ``descriptors/`` (wgmma
and UMMA shared-memory matrix descriptors, the tcgen05.mma instruction descriptor, TMEM, block-scaled
scale-factor layouts); ``specs`` re-exports the public names.
"""
from ..errors import FormulaError, SpecError, SpecInconsistent, UnknownSpec
from .checks.agree import agrees
from .library.dtypes import DTYPE_BITS, DTYPE_BYTES, dtype_bits
from .library.catalog import default_library, get, load, load_file, names, reload, resolve
from .library.loader import ENV_VAR, SEARCH_PATH
from .checks.selfcheck import self_check
from .library.spec import Library, Spec
from .descriptors import blockscaled, smem as smem_desc, tmem, umma_idesc
from .tma import im2col as tma_im2col
from .descriptors.smem import SmemDescriptor
from .tma.tiled import TmaDescriptor
from .tma.im2col import TmaIm2colDescriptor
from .tma.copy import from_copy as tma_from_copy

__all__ = ["agrees", "Spec", "Library", "load", "load_file", "default_library", "reload", "get", "names",
           "resolve", "self_check", "dtype_bits", "DTYPE_BITS", "DTYPE_BYTES", "SEARCH_PATH", "ENV_VAR",
           "SpecError", "SpecInconsistent", "UnknownSpec", "FormulaError", "TmaDescriptor", "tma_from_copy",
           "TmaIm2colDescriptor", "SmemDescriptor", "blockscaled", "smem_desc", "tma_im2col", "tmem", "umma_idesc"]
