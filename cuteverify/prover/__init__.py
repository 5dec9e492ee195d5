"""The prover (``cuteverify.prover``; ``cv.prove`` is the claim function, not this package): exact decision procedures first, Z3 for the rest, witnesses re-checked before they are reported.

``cv.is_injective(L)``, ``cv.is_surjective(L, codomain=None)``, ``cv.is_bijective(L)``, ``cv.are_equal(A, B)``,
``cv.complement_disjoint(A, cotarget)``, ``cv.prove("claim", A=..., assume=[...])``: each returns a ``Verdict``
(``proved`` / ``refuted`` with a counterexample / ``unknown`` with a reason); ``cv.agrees`` (hardware specs) is
``cuteverify.hardware.agrees``.
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

