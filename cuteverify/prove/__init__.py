"""The prover: exact decision procedures first, Z3 for the rest, witnesses re-checked before they are reported.

``cv.is_injective(L)``, ``cv.is_surjective(L, codomain=None)``, ``cv.is_bijective(L)``, ``cv.are_equal(A, B)``,
``cv.complement_disjoint(A, cotarget)``, ``cv.prove("claim", A=..., assume=[...])``, ``cv.agrees(...)``: each
returns a ``Verdict`` (``proved`` / ``refuted`` with a counterexample / ``unknown`` with a reason).
"""
from .claims import agrees, prove
from .queries import are_equal, complement_disjoint, is_bijective, is_injective, is_surjective
from .verdict import Counterexample, Verdict

__all__ = ["Verdict", "Counterexample", "is_injective", "is_surjective", "is_bijective", "are_equal",
           "complement_disjoint", "prove", "agrees"]


# ``cv.prove`` resolves to this package once it is imported (Python binds a submodule on its parent, and
# cuteverify's lazy ``__getattr__`` returns the module for a name equal to the module's last component).
# Make the package callable so ``cv.prove("claim", ...)`` works either way.
import sys as _sys
import types as _types


class _CallableModule(_types.ModuleType):
    def __call__(self, claim, assume=None, **bindings):
        return prove(claim, assume=assume, **bindings)


_sys.modules[__name__].__class__ = _CallableModule
