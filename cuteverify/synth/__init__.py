"""Synthesis of shared-memory layouts (docs/model.md section 13): for a tile, an element type and the accesses
that write and read it, the layout of a searched space (swizzle atom, tile order, padding) that every required
consumer accepts, with the fewest bank conflicts and the widest vectors, returned with its proofs and as CuTe
C++ and CuTe DSL code; and, for a user's layout, which accesses conflict and the smallest change that helps.

May import: ``errors``, ``symbolic``, ``core``, ``algebra``, ``linear``, ``prover``, ``hardware``, ``atoms``,
``analysis``.

Modules: access (the accesses and their text forms), space (the searched space), search (scores, legality,
the optimum with pruning by bound), result (``Synthesis``: proofs, optimality, report), codegen (C++ / DSL),
explain (``explain_smem_layout``: why a user's layout conflicts and the nearest change that helps), synthesize
(``synthesize_smem_layout``), optimal (``prove_smem_optimal``: a kernel's own layout against the optimum).
"""
from __future__ import annotations

from .access import CONSUMERS, Access, parse_access
from .explain import Explanation, explain_smem_layout
from .optimal import prove_smem_optimal
from .result import Synthesis
from .search import Problem, make_problem, score_space
from .space import SPACE_TEXT, Candidate, enumerate_space
from .synthesize import synthesize_smem_layout

__all__ = [
    "CONSUMERS",
    "SPACE_TEXT",
    "Access",
    "Candidate",
    "Explanation",
    "Problem",
    "Synthesis",
    "enumerate_space",
    "explain_smem_layout",
    "make_problem",
    "parse_access",
    "prove_smem_optimal",
    "score_space",
    "synthesize_smem_layout",
]
