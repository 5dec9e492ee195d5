"""The claim kinds about where a traced kernel puts its buffers (``cuteverify trace``; decided by
``analysis.smem_placement``): ``smem_struct`` (a shared-memory struct's fields pairwise disjoint inside the
allocation), ``smem_view`` (a tensor built in a field stays inside it), ``smem_swizzle_base`` (a pointer-swizzled
tensor's base is a multiple of the swizzle's period), ``tmem_alloc`` (a ``tcgen05.alloc`` column count is legal
and the CTA's allocations fit its 512 columns) and ``tmem_view`` (a TMEM tensor lies in the allocated columns).
Importing this module registers them (``manifest.claims.register``).
"""
from __future__ import annotations

from ...analysis.smem_placement import (Field, fields_disjoint, swizzle_base, tmem_alloc, tmem_view,
                                        view_in_field)
from ...core.notation.parse import read_swizzle
from ...errors import CuteVerifyError
from .claims import register
from .kind import LAYOUT_REF, NONEMPTY, POSITIVE, ClaimKind, fields

__all__ = ["SMEM_STRUCT", "SMEM_VIEW", "SMEM_SWIZZLE_BASE", "TMEM_ALLOC", "TMEM_VIEW"]

_FIELD = {"type": "string", "pattern": r"^.+:\d+:\d+$", "description": "name:bytes:offset (smem.struct_fields)"}
_COUNT = {"type": "integer", "minimum": 0}
_BITS = {"type": "integer", "minimum": 1, "description": "bits of one element"}


def _required(k, kind, body, bp, names):
    body = fields(k, kind, body, bp)
    missing = [n for n in names if body.get(n) is None]
    if missing:
        raise k.error(f"{kind} needs {', '.join(missing)}", bp)
    return body


def _int(k, body, bp, name, low=0):
    v = body.get(name)
    if not isinstance(v, int) or isinstance(v, bool) or v < low:
        raise k.error(f"{name} must be an integer >= {low} (got {v!r})", bp + (name,))
    return v


def _field(k, text, path):
    try:
        return Field.read(text)
    except (ValueError, TypeError):
        raise k.error(f"a field is name:bytes:offset (got {text!r})", path) from None


def _read_struct(k, body, bp):
    body = _required(k, "smem_struct", body, bp, ("fields",))
    if not isinstance(body["fields"], list):
        raise k.error("smem_struct fields is a list of name:bytes:offset", bp + ("fields",))
    out = {"fields": [_field(k, f, bp + ("fields", i)) for i, f in enumerate(body["fields"])]}
    out["bytes"] = _int(k, body, bp, "bytes") if body.get("bytes") is not None else None
    return out


def _read_view(k, body, bp):
    body = _required(k, "smem_view", body, bp, ("layout", "elem_bits", "offset", "field"))
    return {"layout": k.ref(body["layout"], bp + ("layout",)), "elem_bits": _int(k, body, bp, "elem_bits", 1),
            "offset": _int(k, body, bp, "offset"), "field": _field(k, body["field"], bp + ("field",))}


def _read_base(k, body, bp):
    body = _required(k, "smem_swizzle_base", body, bp, ("swizzle", "offset", "align"))
    try:
        sw = read_swizzle(str(body["swizzle"]))
    except CuteVerifyError as e:
        raise k.error(f"smem_swizzle_base swizzle: {e}", bp + ("swizzle",)) from None
    if sw is None:
        raise k.error(f"smem_swizzle_base swizzle is S<B,M,S> (got {body['swizzle']!r})", bp + ("swizzle",))
    return {"swizzle": sw, "offset": _int(k, body, bp, "offset"), "align": _int(k, body, bp, "align", 1),
            "placed": _int(k, body, bp, "placed") if body.get("placed") is not None else None}


def _read_alloc(k, body, bp):
    body = _required(k, "tmem_alloc", body, bp, ("columns",))
    others = body.get("others") or []
    if not isinstance(others, list) or not all(isinstance(c, int) and c >= 0 for c in others):
        raise k.error("tmem_alloc others is a list of column counts", bp + ("others",))
    return {"columns": _int(k, body, bp, "columns"), "others": list(others), "two_cta": bool(body.get("two_cta"))}


def _read_tmem_view(k, body, bp):
    body = _required(k, "tmem_view", body, bp, ("layout", "elem_bits", "columns"))
    return {"layout": k.ref(body["layout"], bp + ("layout",)), "elem_bits": _int(k, body, bp, "elem_bits", 1),
            "offset": _int(k, body, bp, "offset") if body.get("offset") is not None else 0,
            "columns": _int(k, body, bp, "columns", 1)}


SMEM_STRUCT = register(ClaimKind(
    "smem_struct",
    {"type": "object", "additionalProperties": False, "required": ["fields"],
     "description": "A shared-memory struct's fields (smem.struct_fields) pairwise disjoint, size-0 fields "
                    "ignored, inside the allocation's bytes.",
     "properties": {"fields": {"type": "array", "items": _FIELD}, "bytes": _COUNT}},
    _read_struct,
    lambda a: f"smem struct {', '.join(map(str, a['fields']))} disjoint"
              + (f" in {a['bytes']} bytes" if a.get("bytes") is not None else ""),
    lambda a, asm: fields_disjoint(a["fields"], a.get("bytes"))))

SMEM_VIEW = register(ClaimKind(
    "smem_view",
    {"type": "object", "additionalProperties": False, "required": ["layout", "elem_bits", "offset", "field"],
     "description": "A tensor (element-domain layout, elements of elem_bits bits, built at byte offset of the "
                    "allocation) inside its struct field.",
     "properties": {"layout": LAYOUT_REF, "elem_bits": _BITS, "offset": _COUNT, "field": _FIELD}},
    _read_view,
    lambda a: f"smem view {a['layout']} ({a['elem_bits']}-bit) at byte {a['offset']} inside {a['field']}",
    lambda a, asm: view_in_field(a["layout"].value, a["elem_bits"], a["offset"], a["field"])))

SMEM_SWIZZLE_BASE = register(ClaimKind(
    "smem_swizzle_base",
    {"type": "object", "additionalProperties": False, "required": ["swizzle", "offset", "align"],
     "description": "The base of a tensor with a pointer (byte) swizzle, at byte offset of an allocation aligned "
                    "to align bytes, is a multiple of the swizzle's period.",
     "properties": {"swizzle": NONEMPTY, "offset": _COUNT, "align": POSITIVE,
                    "placed": {"type": "integer", "minimum": 0,
                               "description": "Where a model of the DSL's allocator puts the base (said in an "
                                              "unknown's reason, never used to decide)."}}},
    _read_base,
    lambda a: f"{a['swizzle']} tensor base (byte {a['offset']}, align<{a['align']}>) period-aligned",
    lambda a, asm: swizzle_base(a["offset"], a["align"], a["swizzle"], a.get("placed"))))

TMEM_ALLOC = register(ClaimKind(
    "tmem_alloc",
    {"type": "object", "additionalProperties": False, "required": ["columns"],
     "description": "A tcgen05.alloc column count: a power of two in [32, 512], with the CTA's other "
                    "allocations at most 512 columns.",
     "properties": {"columns": _COUNT, "others": {"type": "array", "items": _COUNT}, "two_cta": {"type": "boolean"}}},
    _read_alloc,
    lambda a: f"tmem alloc {a['columns']} columns" + (" (2-CTA)" if a.get("two_cta") else "")
              + (f" beside {a['others']}" if a.get("others") else ""),
    lambda a, asm: tmem_alloc(a["columns"], a.get("others") or ())))

TMEM_VIEW = register(ClaimKind(
    "tmem_view",
    {"type": "object", "additionalProperties": False, "required": ["layout", "elem_bits", "columns"],
     "description": "A TMEM tensor (layout in elements of elem_bits bits, at element offset from the "
                    "allocation's base) inside 128 lanes and the allocated columns.",
     "properties": {"layout": LAYOUT_REF, "elem_bits": _BITS, "offset": _COUNT, "columns": POSITIVE}},
    _read_tmem_view,
    lambda a: f"tmem tensor {a['layout']} ({a['elem_bits']}-bit) at {a['offset']} inside {a['columns']} columns",
    lambda a, asm: tmem_view(a["layout"].value, a["elem_bits"], a["offset"], a["columns"])))
