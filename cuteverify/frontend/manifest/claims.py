"""The registry of manifest claim kinds: :data:`KINDS`, name -> :class:`~cuteverify.frontend.manifest.kind.ClaimKind`
(its JSON-schema fragment, how it reads its YAML body into evaluated arguments, how it prints, which procedure
decides it). Loading, the schema, the printed claim and running all go through this one table: a new claim kind
is one entry here (its object beside its kin in ``claims_layout`` / ``claims_atoms`` / ``claims_smem``) and one row
of the claim-kind table in docs/model.md section 10 (tests/test_claim_registry.py checks both, and that
``specs/manifest_schema.json``'s claim part is :func:`claim_schema`).

Every verdict is the prover's ``Verdict`` family: the layout claims from ``cuteverify.prover``, ``agrees`` from
``cuteverify.hardware`` (a plain atom) or ``atoms.agrees_tiled`` (a tiled MMA), ``covers`` / ``compatible`` from
``atoms.check``, ``banks`` / ``vector`` from ``analysis.banks``, ``tma`` from ``hardware.tma``, ``operand`` from
``atoms.operand_desc`` (also implied: ``operand.implicit_claims``), ``triton`` from ``triton.prove`` (decided over
F2) and ``smem_optimal`` from ``synth.optimal``. A counterexample names the thread and the element wherever the
procedure finds one.
"""
from __future__ import annotations

from ...errors import NotAdmissibleError
from .claims_atoms import AGREES, COMPATIBLE, COVERS, TRITON
from .claims_layout import BIJECTIVE, DISJOINT, EQUAL, INJECTIVE, PROVE, SURJECTIVE
from .claims_smem import BANKS, SMEM_OPTIMAL, TMA, VECTOR
from .kind import ClaimKind
from .operand import OPERAND

__all__ = ["KINDS", "register", "claim_schema", "claim_text", "decide_args"]

#: the claim kinds, in the order the schema, the docs and error messages list them
KINDS: dict = {k.name: k for k in (BIJECTIVE, INJECTIVE, SURJECTIVE, EQUAL, DISJOINT, AGREES, PROVE, COVERS,
                                   COMPATIBLE, BANKS, VECTOR, TMA, TRITON, SMEM_OPTIMAL, OPERAND)}

# the fields every claim may carry beside its kind
_COMMON = {"name": {"type": "string"}, "expect": {"$ref": "#/$defs/expect"}, "note": {"type": "string"},
           # where the kernel's own source built the objects (``trace manifest`` writes ``file:line: source``)
           "at": {"type": "string"}}


def register(kind: ClaimKind) -> ClaimKind:
    """Add ``kind`` to :data:`KINDS` (after the others), so that manifests may state it: loading validates it
    against ``kind.schema``, reads it with ``kind.read``, prints it with ``kind.text`` and runs ``kind.decide``.

    Admissible: a :class:`ClaimKind` whose name is not a kind yet and not one of the common fields (``name``,
    ``expect``, ``note``, ``at``); anything else raises ``NotAdmissibleError``. Post-condition: ``KINDS[kind.name] is
    kind`` and :func:`claim_schema` lists it."""
    if not isinstance(kind, ClaimKind):
        raise NotAdmissibleError("register", f"a ClaimKind, got {type(kind).__name__}")
    if kind.name in KINDS or kind.name in _COMMON:
        raise NotAdmissibleError("register", f"claim kind {kind.name!r} is taken")
    KINDS[kind.name] = kind
    return kind


def claim_schema() -> dict:
    """The JSON schema of one claim (``$defs/claim`` of the manifest schema), built from :data:`KINDS`: the
    common fields, each kind's fragment, exactly one kind per claim and nothing else."""
    return {"type": "object", "minProperties": 1,
            "properties": {**_COMMON, **{name: k.schema for name, k in KINDS.items()}},
            "oneOf": [{"required": [name]} for name in KINDS], "additionalProperties": False}


def claim_text(kind: str, args: dict) -> str:
    """The claim of kind ``kind`` with arguments ``args`` (as its ``read`` returned them) printed whole: the
    label of a claim without ``name``."""
    return KINDS[kind].text(args)


def decide_args(kind: str, args: dict, assume=None):
    """The verdict of the claim of kind ``kind`` on its evaluated ``args`` under the kernel's assumptions.
    Raises ``CuteVerifyError`` on input that cannot be decided (an unknown kind is ``NotAdmissibleError``)."""
    k = KINDS.get(kind)
    if k is None:
        raise NotAdmissibleError("claim", f"unknown claim kind {kind!r} (one of {', '.join(KINDS)})")
    return k.decide(args, assume)
