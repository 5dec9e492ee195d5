"""cuteverify: an exact model, symbolic algebra and prover for CuTe layouts.

``import cuteverify as cv``; ``cv.parse("(4,8):(1,4)")``; the layout algebra under CuTe's names
(``cv.composition``, ``cv.complement``, ``cv.logical_divide``, ...).
"""
from .errors import CuteVerifyError, NotAdmissibleError, Obligation, ParseError, UndecidedError
from .layout import (Layout, compact_col_major, compact_row_major, compatible, cosize, crd2crd, crd2idx, depth,
                     idx2crd, image, is_compatible, is_congruent, is_weakly_congruent, make_identity_layout,
                     make_layout, rank, shape, size, stride)
from .notation import parse, parse_tuple
from .strides import E, ScaledBasis, ArithTuple
from .swizzle import ComposedLayout, Swizzle, make_swizzle_layout
from .algebra import *  # noqa: F401,F403
from .algebra import __all__ as _algebra_all

__version__ = "0.1.0"


def __getattr__(name):
    # Heavy layers load on first use so `import cuteverify` (and the CLI's start-up) stays cheap.
    import importlib
    lazy = {
        "Verdict": "cuteverify.prover", "is_injective": "cuteverify.prover", "is_surjective": "cuteverify.prover",
        "is_bijective": "cuteverify.prover", "are_equal": "cuteverify.prover", "complement_disjoint": "cuteverify.prover",
        "prove": "cuteverify.prover", "agrees": "cuteverify.prover",
        "linear_form": "cuteverify.linear", "completeness_chain": "cuteverify.linear",
        "specs": "cuteverify.specs", "draw": "cuteverify.draw", "loops": "cuteverify.loops",
        "fold": "cuteverify.fold", "banks": "cuteverify.banks",
        "Assumptions": "cuteverify.symbolic", "symbol": "cuteverify.symbolic",
    }
    mod = lazy.get(name)
    if mod is None:
        raise AttributeError(f"module 'cuteverify' has no attribute {name!r}")
    m = importlib.import_module(mod)
    return m if mod.endswith("." + name) else getattr(m, name)
