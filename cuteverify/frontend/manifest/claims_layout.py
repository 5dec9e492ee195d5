"""The claim kinds about layouts themselves, decided by ``cuteverify.prover``: ``bijective``, ``injective``,
``surjective``, ``equal``, ``disjoint`` and ``prove`` (a claim in the prover's text with the kernel's layouts
bound by name). Each is a :class:`~cuteverify.frontend.manifest.kind.ClaimKind` (``manifest.claims`` registers
them).
"""
from __future__ import annotations

import re

from ... import prover as P
from ..checked import checked_equal
from .expr import is_layout
from .kind import LAYOUT_REF, ClaimKind, number

__all__ = ["BIJECTIVE", "INJECTIVE", "SURJECTIVE", "EQUAL", "DISJOINT", "PROVE"]

_COUNT = {"$ref": "#/$defs/intOrExpr"}


def _one_layout(kind, procedure):
    # the procedure looked up when the claim runs: tests replace the prover's functions
    return ClaimKind(kind, LAYOUT_REF, lambda k, body, bp: {"layout": k.ref(body, bp)},
                     lambda a: f"{kind} {a['layout']}",
                     lambda a, asm: getattr(P, procedure)(a["layout"].value, assume=asm))


BIJECTIVE = _one_layout("bijective", "is_bijective")
INJECTIVE = _one_layout("injective", "is_injective")


def _read_surjective(k, body, bp):
    if isinstance(body, dict):
        return {"layout": k.ref(body["layout"], bp + ("layout",)), "codomain": body.get("codomain")}
    return {"layout": k.ref(body, bp), "codomain": None}


SURJECTIVE = ClaimKind(
    "surjective",
    {"anyOf": [LAYOUT_REF, {"type": "object", "required": ["layout"], "additionalProperties": False,
                            "properties": {"layout": LAYOUT_REF, "codomain": _COUNT}}]},
    _read_surjective,
    lambda a: f"surjective {a['layout']}" + (f" onto [0, {a['codomain']})" if a.get("codomain") is not None else ""),
    lambda a, asm: P.is_surjective(a["layout"].value, number(a.get("codomain")), assume=asm))


def _read_equal(k, body, bp):
    if not isinstance(body, list) or len(body) != 2:
        raise k.error("equal takes a list of two layouts", bp)
    return {"a": k.ref(body[0], bp + (0,)), "b": k.ref(body[1], bp + (1,))}


EQUAL = ClaimKind(
    "equal", {"type": "array", "items": LAYOUT_REF, "minItems": 2, "maxItems": 2}, _read_equal,
    lambda a: f"equal {a['a']} == {a['b']}",
    lambda a, asm: checked_equal(a["a"].value, a["b"].value, assume=asm))

DISJOINT = ClaimKind(
    "disjoint",
    {"type": "object", "required": ["layout"], "additionalProperties": False,
     "properties": {"layout": LAYOUT_REF, "cotarget": _COUNT}},
    lambda k, body, bp: {"layout": k.ref(body["layout"], bp + ("layout",)), "cotarget": body.get("cotarget")},
    lambda a: f"disjoint {a['layout']}" + (f" cotarget {a['cotarget']}" if a.get("cotarget") is not None else ""),
    lambda a, asm: P.complement_disjoint(a["layout"].value, number(a.get("cotarget")), assume=asm))


def _read_prove(k, body, bp):
    if not isinstance(body, str) or not body.strip():
        raise k.error("prove takes the claim text", bp)
    words = set(re.findall(r"[A-Za-z_]\w*", body))
    # the kernel's layouts the claim names, bound by value (the prover reads only the claim's own text)
    return {"claim": body, "bindings": {n: v for n, v in k.env.items() if n in words and is_layout(v)}}


PROVE = ClaimKind("prove", {"type": "string", "minLength": 1}, _read_prove, lambda a: f"prove {a['claim']}",
                  lambda a, asm: P.prove(a["claim"], assume=asm, **a["bindings"]))
