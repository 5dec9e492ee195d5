"""The prover (``cuteverify.prover``; ``cv.prove`` is the claim function, not this package): exact decision procedures first, Z3 for the rest, witnesses re-checked before they are reported.

``cv.is_injective(L)``, ``cv.is_surjective(L, codomain=None)``, ``cv.is_bijective(L)``, ``cv.are_equal(A, B)``,
``cv.complement_disjoint(A, cotarget)``, ``cv.prove("claim", A=..., assume=[...])``: each returns a ``Verdict``
(``proved`` / ``refuted`` with a counterexample / ``unknown`` with a reason); ``cv.agrees`` (hardware specs) is
``cuteverify.hardware.agrees``.

Modules: ``pipeline`` (the stages every query runs), ``queries`` (the five queries and the public functions),
``claims`` (claim text), ``forms`` (layouts split by stride domain), ``exact`` / ``f2`` / ``intlin`` (exact
procedures for concrete layouts), ``structural`` (proofs for symbolic layouts), ``z3query`` (Z3 encodings),
``recheck`` (witnesses re-checked), ``tables`` (value tables and budgets), ``composed`` (general composed
layouts: value tables within budget, reduction to one layout past it), ``verdict`` (the answers).

May import: ``cuteverify.errors``, ``cuteverify.symbolic``, ``cuteverify.core``, ``cuteverify.algebra``
(docs/model.md section 1).
"""
from .claims import prove
from .queries import (
           are_equal,
           complement_disjoint,
           is_bijective,
           is_injective,
           is_surjective,
)
from .verdict import Counterexample, Verdict

__all__ = ["Verdict", "Counterexample", "is_injective", "is_surjective", "is_bijective", "are_equal",
           "complement_disjoint", "prove"]

