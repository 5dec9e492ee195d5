"""cuteverify: an exact model, symbolic algebra and prover for CuTe layouts.

``import cuteverify as cv``; ``cv.parse("(4,8):(1,4)")``; the layout algebra under CuTe's names
(``cv.composition``, ``cv.complement``, ``cv.logical_divide``, ...). The packages, bottom to top (imports
point down only; docs/model.md section 1): ``errors``, ``symbolic``, ``core``, ``algebra``, ``linear``,
``prover``, ``hardware``, ``atoms``, ``analysis``, ``triton`` and ``synth``, then the front ends ``manifest``, ``testing``, ``pytest_plugin``, ``draw``, ``cli``.
"""
from .algebra import *  # noqa: F401,F403
from .core.convention import SIZE1_CONVENTIONS, size1_strides
from .core.notation.interop import as_layout, parse
from .core.layout import (Layout, compact_col_major, compact_row_major, compatible, cosize, crd2crd, crd2idx,
                          depth, idx2crd, image, is_compatible, is_congruent, is_weakly_congruent,
                          make_identity_layout, make_layout, rank, shape, size, slice_and_offset, slice_layout,
                          stride)
from .core.notation.parse import parse_tuple
from .core.strides import ArithTuple, E, ScaledBasis
from .core.swizzle import ComposedLayout, Swizzle, make_swizzle_layout
from .errors import CuteVerifyError, NotAdmissibleError, ParseError, UndecidedError
from .symbolic import Assumptions, Obligation, symbol

from .core.notation.interop import takes_text as _takes_text  # noqa: E402 - the facade's functions take CuTe text too
size, cosize, rank, depth, shape, image = (_takes_text(f) for f in (size, cosize, rank, depth, shape, image))

__version__ = "0.1.0"

# The prover, the spec library and the analyses load on first use so that `import cuteverify` (and the CLI's
# start-up) stays cheap: attribute -> module that defines it ("module:name" where the module calls it otherwise;
# ``agrees`` is the front ends' one, whose shape mismatch is an input error as in the CLI and manifests).
_LAZY = {
    "Verdict": "cuteverify.prover", "Counterexample": "cuteverify.prover", "is_injective": "cuteverify.prover",
    "is_surjective": "cuteverify.prover", "is_bijective": "cuteverify.prover", "are_equal": "cuteverify.prover",
    "complement_disjoint": "cuteverify.prover", "prove": "cuteverify.prover", "agrees": "cuteverify.frontend.checked:checked_agrees",
    "linear_form": "cuteverify.analysis.linear", "completeness_chain": "cuteverify.analysis.linear",
    "specs": "cuteverify.hardware.specs", "draw": "cuteverify.draw", "loops": "cuteverify.analysis.loops",
    "fold": "cuteverify.analysis.fold", "banks": "cuteverify.analysis.banks",
    "prover": "cuteverify.prover", "hardware": "cuteverify.hardware", "analysis": "cuteverify.analysis",
    "TmaDescriptor": "cuteverify.hardware",
    "atoms": "cuteverify.atoms", **dict.fromkeys(
        ("make_mma_atom", "make_tiled_mma", "make_copy_atom", "make_layout_tv", "make_tiled_copy",
         "make_tiled_copy_tv", "make_tiled_copy_A", "make_tiled_copy_B", "make_tiled_copy_C", "make_tiled_copy_S",
         "make_tiled_copy_D", "local_tile", "local_partition", "agrees_tiled", "covers", "compatible_tv"),
        "cuteverify.atoms"),
    "synth": "cuteverify.synth", "synthesize_smem_layout": "cuteverify.synth",
    "explain_smem_layout": "cuteverify.synth", "prove_smem_optimal": "cuteverify.synth",
    "linear": "cuteverify.linear", **dict.fromkeys(
        ("LinearLayout", "to_linear_layout", "from_linear_layout", "equal_function", "same_ownership"),
        "cuteverify.linear"),
    "triton": "cuteverify.triton", "prove_triton_equals": "cuteverify.triton",
}


def __getattr__(name):
    import importlib
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module 'cuteverify' has no attribute {name!r}")
    mod, _, attr = mod.partition(":")
    m = importlib.import_module(mod)
    return m if mod.endswith("." + name) else getattr(m, attr or name)
