"""The hardware spec library (docs/model.md section 6): YAML specs of MMA/copy atoms and shared-memory
atoms, each with a CUTLASS TV layout and an independent PTX formula, their self-check, agreement of user
layouts with them, and the silicon evidence that confirmed them.

May import: ``errors``, ``symbolic``, ``core``, ``algebra``, ``prover``.

Modules: loader (files -> checked YAML), spec (Spec, Library), library (load, default library, resolve),
dtypes, formula, intlayout and tables (both sides as ints), selfcheck, agree, evidence; specs re-exports.
"""
from ..errors import FormulaError, SpecError, SpecInconsistent, UnknownSpec
from .agree import agrees
from .dtypes import DTYPE_BITS, DTYPE_BYTES, dtype_bits
from .library import default_library, get, load, load_file, names, reload, resolve
from .loader import ENV_VAR, SEARCH_PATH
from .selfcheck import self_check
from .spec import Library, Spec
from .tma import TmaDescriptor
from .tma_copy import from_copy as tma_from_copy

__all__ = ["agrees", "Spec", "Library", "load", "load_file", "default_library", "reload", "get", "names",
           "resolve", "self_check", "dtype_bits", "DTYPE_BITS", "DTYPE_BYTES", "SEARCH_PATH", "ENV_VAR",
           "SpecError", "SpecInconsistent", "UnknownSpec", "FormulaError", "TmaDescriptor", "tma_from_copy"]
