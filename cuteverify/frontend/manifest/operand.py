"""Manifest claims at the joint of a tiled MMA or TMA copy and its shared-memory layout (issue 25): the
``operand`` claim's fields (read at load, decided by ``atoms.operand_desc.prove_operand`` when it runs), the
``operand`` claims a kernel implies by partitioning an smem entry with a descriptor-reading tiled MMA, and the
``tma`` claim's ``cta_tiler`` field. ``manifest.claims`` registers :data:`OPERAND` with the other claim kinds.
"""
from __future__ import annotations

import re

from ...atoms import TiledMma
from ...atoms.operand_desc import declared_major, prove_operand
from ...errors import TmaError
from ...hardware.tma.copy import read_cta_tiler
from .expr import is_layout
from .kind import ENTRY_REF, LAYOUT_REF, NONEMPTY, ClaimKind, Ref, fields

__all__ = ["OPERAND", "implicit_claims", "read_cta_tiler_field", "read_operand"]


def read_cta_tiler_field(k, v, path):
    """``cta_tiler``: ``(128,64)`` / ``128x64`` / ``[128, 64]``, kept as ``(128,64)``."""
    try:
        t = read_cta_tiler(tuple(v) if isinstance(v, list) else v)
    except TmaError as e:
        raise k.error(str(e), path) from None
    return "(" + ",".join(map(str, t)) + ")"


def read_operand(k, body, bp):
    """``operand: {tiled_mma, operand: A | B, smem, dtype?, major?}``: the fields and their references checked
    at load with their line."""
    body = fields(k, "operand", body, bp)
    for f in ("tiled_mma", "operand", "smem"):
        if body.get(f) is None:
            raise k.error(f"operand needs {f}", bp)
    if body["operand"] not in ("A", "B"):
        raise k.error(f"operand: the operand read through a descriptor is A or B (got {body['operand']!r})",
                      bp + ("operand",))
    out = {"tiled_mma": k.obj(body["tiled_mma"], bp + ("tiled_mma",), TiledMma), "operand": body["operand"],
           "smem": k.ref(body["smem"], bp + ("smem",))}
    for f in ("dtype", "major"):
        if body.get(f) is not None:
            out[f] = str(body[f])
    # no descriptor, no major, a tile that does not fit: checked when the claim runs (prove_operand), so the
    # failure is this claim's, with its line, and the other claims of the file still run
    return out


OPERAND = ClaimKind(
    "operand",
    {"type": "object", "additionalProperties": False, "required": ["tiled_mma", "operand", "smem"],
     "description": "Every block of partition_A/B(smem) that the tiled MMA reads is read by the wgmma / UMMA "
                    "shared-memory descriptor of the operand's declared major (per k-block, as make_fragment_A/B "
                    "builds it).",
     "properties": {"tiled_mma": ENTRY_REF, "operand": {"enum": ["A", "B"]}, "smem": LAYOUT_REF, "dtype": NONEMPTY,
                    "major": {"enum": ["K", "MN"],
                              "description": "The operand's major when the atom's name does not declare it (else it "
                                             "must agree)."}}},
    read_operand,
    lambda a: f"operand {a['operand']} of {a['tiled_mma']} reads {a['smem']} through its descriptors"
              + (f" (implicit: {a['implicit']})" if a.get("implicit") else ""),
    lambda a, asm: prove_operand(a["tiled_mma"].value, a["operand"], a["smem"].value, a.get("dtype"),
                                 major=a.get("major"), name=str(a["smem"]), mma_name=str(a["tiled_mma"]),
                                 form=a.get("form")))


_PARTITION = re.compile(r"\s*([A-Za-z_]\w*)\s*\.\s*get_slice\s*\([^()]*\)\s*\.\s*partition(?:_fragment)?_([AB])"
                        r"\s*\(\s*([A-Za-z_]\w*)\s*\)")


def implicit_claims(layouts: dict, env: dict, stated=frozenset()) -> list:
    """The ``operand`` claims a kernel states without writing them: ``(entry, args, name)`` for each entry whose
    text begins ``M.get_slice(t).partition_A(S)`` (``partition_B``, ``partition_fragment_A`` / ``_B``) where
    ``M`` names a tiled MMA entry that reads that operand through a shared-memory descriptor and declares its
    major, and ``S`` names a layout entry: the kernel partitions ``S`` for that descriptor, so the descriptor of
    the declared major must read it (``atoms.operand_desc.prove_operand``). A triple ``(M, operand, S)`` in
    ``stated`` (a written ``operand`` claim, by names) or already implied is skipped."""
    out, seen = [], set(stated)
    for entry, text in layouts.items():
        m = _PARTITION.match(str(text))
        if not m or (m.group(1), m.group(2), m.group(3)) in seen:
            continue
        mma, op, smem = m.groups()
        tm, sv = env.get(mma), env.get(smem)
        if not isinstance(tm, TiledMma) or not is_layout(sv) or tm.operand_source(op) != "smem_desc" \
                or declared_major(tm, op) is None:
            continue
        seen.add((mma, op, smem))
        # the kernel partitions S: read as an (MN, K[, stages]) tile, never as an MMA-partitioned one
        out.append((entry, {"tiled_mma": Ref(mma, tm), "operand": op, "smem": Ref(smem, sv), "implicit": entry,
                            "form": "tile"},
                    f"implicit ({entry}): {smem} is read through {mma}'s operand {op} descriptors"))
    return out
