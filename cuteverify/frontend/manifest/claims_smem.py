"""The claim kinds about shared memory and its copies: ``banks`` / ``vector`` (``analysis.banks``; a copy's
``banks`` with ``gmem`` also counts its global rows: ``analysis.banks.cp_async``), ``tma`` (``hardware.tma``:
a descriptor written out, or derived from a copy) and ``smem_optimal`` (``synth.prove_smem_optimal``). Each is
a :class:`~cuteverify.frontend.manifest.kind.ClaimKind` (``manifest.claims`` registers them).
"""
from __future__ import annotations

from dataclasses import replace

from ...analysis.banks import bank_conflicts, copy_smem_side, max_vector_width, read_tile
from ...analysis.banks.cp_async import copy_cp_async_banks
from ...atoms import TiledCopy, copy_vectorizes
from ...core.swizzle import ComposedLayout, Swizzle
from ...errors import NotAdmissibleError
from ...hardware.library.dtypes import dtype_bits
from ...hardware.tma.copy import from_copy
from ...hardware.tma.tiled import TmaDescriptor
from ...synth import prove_smem_optimal
from .kind import (ENTRY_REF, EXTENTS_ARRAY, LAYOUT_REF, NONEMPTY, POSITIVE, SIDE_REF, ClaimKind, extents_field,
                   Ref, fields, one_of, side_field)
from .operand import read_cta_tiler_field

__all__ = ["BANKS", "VECTOR", "TMA", "SMEM_OPTIMAL"]

TMA_FIELDS = ("dtype", "shape", "stride", "box", "element_strides", "swizzle", "interleave", "l2_promotion",
              "oob_fill", "address", "gmem", "smem", "multicast", "smem_align", "arch", "cta_tiler")


# ------------------------------------------------------------------------------------- banks, vector

def _read_access(k, kind, body, bp):
    body = fields(k, kind, body, bp)
    main = "access" if kind == "banks" else "layout"
    which = one_of(k, body, bp, (main, "copy"), kind)
    out = {"dtype": body.get("dtype"), "elem_bytes": body.get("elem_bytes")}
    if which == "copy":
        out["copy"] = k.obj(body["copy"], bp + ("copy",), TiledCopy)
        out["side"] = side_field(k, body, bp)
    else:
        out[main] = k.ref(body[main], bp + (main,))
    if body.get("tile") is not None:
        if which == "copy":
            raise k.error(f"{kind} of a copy places it by the copy's own tiler: give no tile", bp + ("tile",))
        try:
            out["tile"] = read_tile(body["tile"])
        except NotAdmissibleError as e:
            raise k.error(f"{kind}: {e.condition}", bp + ("tile",)) from None
    if kind == "banks":
        if body.get("smem") is None:
            raise k.error("banks needs smem: the shared-memory layout the access goes through", bp)
        out["smem"] = k.ref(body["smem"], bp + ("smem",))
        out.update(vector=body.get("vector"), phases=body.get("phases"), base=body.get("base", 0),
                   align=body.get("align"))
        if body.get("gmem") is not None:  # a cp.async copy's global side (analysis.cp_async_banks)
            if which != "copy":
                raise k.error("banks: gmem is the global side of a cp.async copy: give copy", bp + ("gmem",))
            out["gmem"] = k.ref(body["gmem"], bp + ("gmem",))
    else:
        out["smem"] = k.ref(body["smem"], bp + ("smem",)) if body.get("smem") is not None else None
        out.update(alignment=body.get("alignment", 16), require=body.get("require"), flat=bool(body.get("flat")),
                   align=body.get("align"))
        if out["require"] is None:
            raise k.error("vector needs require: the vector width in bytes the claim is about", bp)
    return out


def _tile_text(a):
    return f" (tile {'x'.join(map(str, a['tile']))})" if a.get("tile") else ""


def _dtype(a):
    """The claim's element type: ``dtype``, else bf16; with a copy and neither dtype nor elem_bytes, None
    (the copy's own value type)."""
    if a.get("elem_bytes"):
        return None
    return a.get("dtype") or (None if a.get("copy") else "bf16")


def _issued(a, verdict):
    """A banks / vector claim's ``verdict``, unless it was proved about a copy that ``cute.copy`` could not
    issue over its smem layout (``atoms.copy_vectorizes``: each atom register's values consecutive and aligned
    on the smem side): then that refutation. The claim's own refutation comes first (it names the placed
    tile); the issue check is decided for a concrete smem layout only."""
    if verdict.status != "proved" or not a.get("copy") or not a.get("smem"):
        return verdict
    tc, smem = a["copy"].value, a["smem"].value
    if not getattr(smem, "is_concrete", False):
        return verdict
    v = copy_vectorizes(tc, smem, copy_smem_side(tc, a.get("side")))
    return v if v.status == "refuted" else verdict


def _access_tile(a, main):
    """The tile a banks / vector claim's TV layout is placed by: the tile it indexes when it was read off a tiled
    MMA or copy (a stated ``tile`` must be that one), else the stated ``tile``."""
    if a.get("copy"):
        return a.get("tile")
    known, given = a[main].tile, a.get("tile")
    if known is None:
        return given
    known = tuple(known)
    if given is not None and tuple(given) != known:
        raise NotAdmissibleError("banks" if main == "access" else "vector", f"tile {'x'.join(map(str, given))} "
                                 f"is not the {'x'.join(map(str, known))} tile {a[main]} indexes")
    return known


def _access(a, main):
    """The access of a banks / vector claim: the tiled copy itself (placed over the smem layout by its tiler,
    on ``side``, by ``analysis.banks``), or the TV layout given (with ``tile``, placed the same way)."""
    return a["copy"].value if a.get("copy") else a[main].value


def _banks_text(a):
    what = a.get("access") or f"{a['copy']}" + (f" ({a['side']})" if a.get("side") else "")
    return f"conflict-free {what}{_tile_text(a)} through {a['smem']}" + (f" ({a['dtype']})" if a.get("dtype") else "")


def _bases(a):
    """The smem layouts a banks / vector claim is decided on: the claim's own; with ``align`` (the byte alignment
    the tensor's base is known to have) below its swizzle's period, one per base ``b`` the alignment allows
    modulo the period, as ``Sw o (off + b/bytes) o L`` (a pointer swizzle acts on absolute addresses, so the
    base is inside the swizzle): ``[(b, layout), ...]``, ``b`` None for the claim's own."""
    smem, align = a["smem"].value if a.get("smem") else None, a.get("align")
    sw = getattr(smem, "inner", None)
    eb = a.get("elem_bytes") or (dtype_bits(a["dtype"]) // 8 if a.get("dtype") else None)
    if not align or not isinstance(sw, Swizzle) or sw.bits == 0 or not eb or type(smem.offset) is not int:
        return [(None, smem)]
    period = eb << (sw.bits + sw.base + sw.shift)
    if align >= period:
        return [(None, smem)]
    if align % eb:
        raise NotAdmissibleError("banks", f"align {align} is not a whole number of {eb}-byte elements")
    return [(b, ComposedLayout(sw, smem.offset + b // eb, smem.outer)) for b in range(0, period, align)]


def _at_every_base(a, decide_one):
    """``decide_one(smem)`` at every base of :func:`_bases`: proved when proved at each; the aligned base's
    refutation when it is refuted there (it holds wherever the buffer lies); unknown, naming the base and its
    counterexample, when it holds at a period-aligned base but not at another base the alignment allows (then
    it depends on where the allocator puts the buffer)."""
    bases = _bases(a)
    if bases[0][0] is None:
        return decide_one(bases[0][1])
    first = None
    for b, smem in bases:
        v = decide_one(smem)
        first = first or v
        if v.status == "refuted" and b == 0:
            return v
        if v.status != "proved":
            period = bases[-1][0] + a["align"]
            return replace(v, status="unknown", counterexample=None, reason=(
                f"holds at a base that is a multiple of {period} bytes (the swizzle's period), but the tensor "
                f"guarantees only align<{a['align']}>: at a base {b} bytes past such a multiple, "
                f"{v.status}: {v.counterexample or v.reason}"))
    return replace(first, method=f"{first.method}; at each of the {len(bases)} bases align<{a['align']}> allows "
                                 "modulo the swizzle's period".lstrip("; "))


def _decide_banks(a, asm):
    return _at_every_base(a, lambda smem: _decide_banks_at(dict(a, smem=Ref(a["smem"].text, smem, a["smem"].tile)), asm))


def _decide_banks_at(a, asm):
    if a.get("gmem"):
        return copy_cp_async_banks(a["copy"].value, a["gmem"].value, a["smem"].value, _dtype(a),
                                   smem_base=a.get("base") or 0)
    ph = a.get("phases")
    ph = int(ph) if isinstance(ph, str) and ph.strip().isdigit() else ph
    v = bank_conflicts(a["smem"].value, _access(a, "access"), dtype=_dtype(a), elem_bytes=a.get("elem_bytes"),
                       vector_bytes=a.get("vector"), phases=ph, base_bytes=a.get("base") or 0,
                       tile=_access_tile(a, "access"), side=a.get("side"))
    return _issued(a, v)


def _vector_text(a):
    what = a.get("layout") or f"{a['copy']}" + (f" ({a['side']})" if a.get("side") else "")
    return f"{a['require']}-byte vectors of {what}{_tile_text(a)}" + (f" through {a['smem']}" if a.get("smem") else "")


def _decide_vector(a, asm):
    if not a.get("smem"):
        return _decide_vector_at(a, asm)
    return _at_every_base(a, lambda smem: _decide_vector_at(dict(a, smem=Ref(a["smem"].text, smem, a["smem"].tile)), asm))


def _decide_vector_at(a, asm):
    smem = a["smem"].value if a.get("smem") else None
    v = max_vector_width(_access(a, "layout"), dtype=_dtype(a), elem_bytes=a.get("elem_bytes"),
                         alignment=a.get("alignment", 16), smem=smem, require=a["require"],
                         tv=False if a.get("flat") else None,
                         tile=_access_tile(a, "layout") if smem is not None else a.get("tile"), side=a.get("side"))
    return _issued(a, v)


_ACCESS_TILE = {"description": "The access's tile shape (16x64, (16,64) or [16, 64]): the TV layout is placed over "
                               "the smem tensor tile by tile, as partition_S/D places a copy.",
                "anyOf": [NONEMPTY, POSITIVE, EXTENTS_ARRAY]}
_WIDTH = {"enum": [1, 2, 4, 8, 16]}
_ALIGN = {"type": "integer", "minimum": 1,
          "description": "The byte alignment the smem tensor's base is known to have: below its swizzle's period, "
                         "the claim is decided at every base that alignment allows."}

BANKS = ClaimKind(
    "banks",
    {"type": "object", "additionalProperties": False, "required": ["smem"],
     "properties": {"smem": LAYOUT_REF, "access": LAYOUT_REF, "copy": ENTRY_REF, "side": SIDE_REF, "dtype": NONEMPTY,
                    "elem_bytes": POSITIVE, "vector": _WIDTH,
                    "phases": {"anyOf": [{"enum": [1, 2, 4, 8]}, {"enum": ["ldmatrix", "stmatrix", "1", "2", "4", "8"]}]},
                    "tile": _ACCESS_TILE, "base": {"type": "integer", "minimum": 0}, "align": _ALIGN,
                    "gmem": {"$ref": "#/$defs/layoutRef",
                             "description": "The global tensor a cp.async copy reads (same shape as smem): its 128-byte "
                                            "rows add passes (analysis.cp_async_banks)."}},
     "oneOf": [{"required": ["access"]}, {"required": ["copy"]}]},
    lambda k, body, bp: _read_access(k, "banks", body, bp), _banks_text, _decide_banks)

VECTOR = ClaimKind(
    "vector",
    {"type": "object", "additionalProperties": False, "required": ["require"],
     "properties": {"layout": LAYOUT_REF, "copy": ENTRY_REF, "side": SIDE_REF, "dtype": NONEMPTY,
                    "elem_bytes": POSITIVE, "smem": LAYOUT_REF, "alignment": POSITIVE, "require": _WIDTH,
                    "tile": _ACCESS_TILE, "flat": {"type": "boolean"}, "align": _ALIGN},
     "oneOf": [{"required": ["layout"]}, {"required": ["copy"]}]},
    lambda k, body, bp: _read_access(k, "vector", body, bp), _vector_text, _decide_vector)


# ------------------------------------------------------------------------------------------------ tma

def _read_tma(k, body, bp):
    body = fields(k, "tma", body, bp)
    if body.get("dtype") is None:
        raise k.error("tma needs dtype", bp)
    out = {f: body.get(f) for f in TMA_FIELDS if body.get(f) is not None}
    derived = "gmem" in out or "smem" in out
    if derived:
        if "gmem" not in out or "smem" not in out:
            raise k.error("tma derived from a copy needs both gmem and smem", bp)
        extra = [f for f in ("shape", "stride", "box", "element_strides", "swizzle", "interleave") if f in out]
        if extra:
            raise k.error(f"tma with gmem and smem derives {', '.join(extra)}: give one or the other", bp)
        out["gmem"] = k.ref(out["gmem"], bp + ("gmem",))
        out["smem"] = k.ref(out["smem"], bp + ("smem",))
        if "cta_tiler" in out:
            out["cta_tiler"] = read_cta_tiler_field(k, out["cta_tiler"], bp + ("cta_tiler",))
    elif "shape" not in out:
        raise k.error("tma needs shape (and stride, box, ...), or gmem and smem", bp)
    else:
        extra = [f for f in ("multicast", "smem_align", "cta_tiler") if f in out]
        if extra:
            raise k.error(f"tma: {', '.join(extra)} belong to a copy (gmem and smem), not to a descriptor", bp)
    for f in ("shape", "stride", "box", "element_strides"):
        if isinstance(out.get(f), list):
            out[f] = "(" + ",".join(str(x) for x in out[f]) + ")"
    return out


def _tma_text(a):
    if a.get("gmem"):
        tile = f" (cta_tiler {a['cta_tiler']})" if a.get("cta_tiler") else ""
        return f"tma {a['dtype']} copy {a['gmem']} -> {a['smem']}{tile}"
    return f"tma {a['dtype']} shape {a['shape']}" + (f" box {a['box']}" if a.get("box") else "")


def _decide_tma(a, asm):
    arch = a.get("arch", "sm_90")
    if a.get("gmem"):
        _, v = from_copy(a["gmem"].value, a["smem"].value, a["dtype"], multicast=a.get("multicast", 1),
                         smem_address_align=a.get("smem_align"), assume=asm, arch=arch, cta_tiler=a.get("cta_tiler"))
        return v
    d = TmaDescriptor(a["dtype"], a["shape"], a.get("stride"), a.get("box"), a.get("element_strides"),
                      interleave=a.get("interleave", "NONE"), swizzle=a.get("swizzle", "NONE"),
                      l2_promotion=a.get("l2_promotion", "NONE"), oob_fill=a.get("oob_fill", "NONE"),
                      address=a.get("address"), assume=asm, arch=arch)
    return d.check()


_TUPLE_TEXT = {"anyOf": [NONEMPTY, {"type": "integer"},
                         {"type": "array", "minItems": 1, "items": {"anyOf": [{"type": "integer"}, NONEMPTY]}}]}
_CODE = {"anyOf": [{"type": "string"}, {"type": "integer"}]}

TMA = ClaimKind(
    "tma",
    {"type": "object", "additionalProperties": False, "required": ["dtype"],
     "properties": {"dtype": NONEMPTY, "shape": _TUPLE_TEXT, "stride": _TUPLE_TEXT, "box": _TUPLE_TEXT,
                    "element_strides": _TUPLE_TEXT, "swizzle": _CODE, "interleave": _CODE, "l2_promotion": _CODE,
                    "oob_fill": _CODE, "address": _CODE, "gmem": LAYOUT_REF, "smem": LAYOUT_REF,
                    "multicast": POSITIVE, "smem_align": POSITIVE, "arch": {"enum": ["sm_90", "sm_100"]},
                    "cta_tiler": {"anyOf": [NONEMPTY, EXTENTS_ARRAY],
                                  "description": "The CTA tile handed to make_tma_copy (CuTe's cta_tiler), a shape "
                                                 "over the gmem modes: (128,64), 128x64 or [128, 64]. The smem tile "
                                                 "(or stage 0 of a staged smem layout) must have this shape."}}},
    _read_tma, _tma_text, _decide_tma)


# --------------------------------------------------------------------------------------- smem_optimal

def _read_smem_optimal(k, body, bp):
    body = fields(k, "smem_optimal", body, bp)
    for f in ("smem", "tile"):
        if body.get(f) is None:
            raise k.error(f"smem_optimal needs {f}", bp)
    out = {"smem": k.ref(body["smem"], bp + ("smem",)), "tile": extents_field(k, body["tile"], bp + ("tile",)),
           "dtype": str(body.get("dtype") or "bf16"), "require": [str(x) for x in body.get("require") or []],
           "padding": bool(body.get("padding", False))}
    for role in ("writes", "reads"):
        # an entry that is a tiled copy is that copy; anything else an access text form (synth.access)
        texts = [str(x).strip() for x in body.get(role) or []]
        out[role] = [k.env[x] if x in k.env and isinstance(k.env[x], TiledCopy) else x for x in texts]
    if len(out["tile"]) != 2:
        raise k.error(f"smem_optimal: the tile is (MN, K), got {out['tile']}", bp + ("tile",))
    if not out["writes"] and not out["reads"] and not out["require"]:
        raise k.error("smem_optimal needs at least one access (writes / reads) or requirement", bp)
    # the accesses and the dtype are checked when the claim runs (``prove_smem_optimal``): a bad one is that
    # claim's error, with its line, and the other claims of the file still run
    return out


_EXTENTS2 = {"type": "array", "minItems": 2, "maxItems": 2, "items": POSITIVE}

SMEM_OPTIMAL = ClaimKind(
    "smem_optimal",
    {"type": "object", "additionalProperties": False, "required": ["smem", "tile"],
     "description": "The kernel's shared-memory layout scores as well as the optimum of cuteverify synthesize's "
                    "searched space for these accesses (conflict degrees, vector widths, TMA box row) and is legal "
                    "for every required consumer.",
     "properties": {"smem": LAYOUT_REF, "tile": {"anyOf": [NONEMPTY, _EXTENTS2]}, "dtype": NONEMPTY,
                    "writes": {"type": "array", "items": NONEMPTY}, "reads": {"type": "array", "items": NONEMPTY},
                    "require": {"type": "array", "items": {"enum": ["tma", "gmma", "umma"]}},
                    "padding": {"type": "boolean"}}},
    _read_smem_optimal,
    lambda a: f"smem_optimal {a['smem']} ({'x'.join(map(str, a['tile']))} {a['dtype']})",
    lambda a, asm: prove_smem_optimal(a["smem"].value, a["tile"], a["dtype"], a["writes"], a["reads"], a["require"],
                                      a["padding"]))
