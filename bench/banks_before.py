"""The bank model as it was before issue 30, for the benches' before/after ratios in one process.

``before()`` swaps, for the duration of a ``with`` block, the vectorised functions of the bank model (layout
tables, degrees, merged phases, vector checks, the synthesis's bijectivity check) for their frozen copies in
``tests/oracles/banks_reference.py`` wherever a module imported them; everything else is today's code.
"""
from __future__ import annotations

import contextlib
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "oracles"))
import banks_reference as ref  # noqa: E402 - the frozen model lives beside the tests that use it as an oracle

from cuteverify.analysis import banks
from cuteverify.analysis.banks import (model as banks_model, place as banks_place, cp_async as cp_async_banks,
    vector_sym)
from cuteverify.synth import explain, search

_OLD = {"layout_values": ref.layout_values_ref, "conflict_degree": ref.degree_ref,
        "_merged_phases": ref.merged_phases_ref,
        "vector_problem": ref.vector_problem_ref, "widest_vector": ref.widest_ref, "_bijective": ref.bijective_ref}
_MODULES = (banks_model, banks, banks_place, cp_async_banks, vector_sym, search, explain)


@contextlib.contextmanager
def before():
    saved = [(m, k, getattr(m, k)) for m in _MODULES for k in _OLD if hasattr(m, k)]
    try:
        for m, k, _ in saved:
            setattr(m, k, _OLD[k])
        yield
    finally:
        for m, k, f in saved:
            setattr(m, k, f)
