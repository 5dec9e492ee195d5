"""The claim kinds about the atom layer: ``agrees`` (a layout is the hardware's: ``hardware.agrees`` for a plain
atom, ``atoms.agrees_tiled`` atom by atom for a tiled MMA), ``covers`` / ``compatible`` (``atoms.check``) and
``triton`` (``triton.prove_triton_equals``, decided over F2). Each is a
:class:`~cuteverify.frontend.manifest.kind.ClaimKind` (``manifest.claims`` registers them).
"""
from __future__ import annotations

from ...atoms import TiledCopy, TiledMma, agrees_tiled, compatible_tv, covers
from ...core.layout import size
from ...core.notation.tiles import read_extents
from ...core.tuples import flatten
from ...errors import CuteVerifyError
from ...hardware.library.spec import OPERAND_MODES
from ...symbolic.lazy import lazy_module
from ..checked import checked_agrees
from .expr import is_layout
from .kind import (ENTRY_REF, EXTENTS_ARRAY, LAYOUT_REF, NONEMPTY, OPERAND_REF, OPERANDS, POSITIVE, SIDE_REF,
                   ClaimKind, extents_field, fields, one_of, operand_field, side_field)

__all__ = ["AGREES", "COVERS", "COMPATIBLE", "TRITON"]

# loaded by a manifest's first triton claim: importing it (and its check of an installed triton's version)
# is about 25 ms of every `check` otherwise
triton = lazy_module("cuteverify.triton")

# ------------------------------------------------------------------------------------------- agrees

def _read_agrees(k, body, bp):
    body = fields(k, "agrees", body, bp)
    which = one_of(k, body, bp, ("spec", "tiled_mma"), "agrees")
    if which == "tiled_mma":
        out = {"tiled_mma": k.obj(body["tiled_mma"], bp + ("tiled_mma",), TiledMma),
               "operand": operand_field(k, body, bp)}
        out["layout"] = k.ref(body["layout"], bp + ("layout",)) if body.get("layout") is not None else None
        return out
    if body.get("layout") is None:
        raise k.error("agrees with a spec needs layout", bp)
    out = {"layout": k.ref(body["layout"], bp + ("layout",)), "spec": str(body["spec"]),
           "operand": body.get("operand"), "params": dict(body.get("params") or {})}
    for key in ("atom_layout", "permutation"):
        if body.get(key) is not None:
            out[key] = k.value(body[key], bp + (key,))
    if ("atom_layout" in out or "permutation" in out) and out["operand"] not in OPERANDS:
        raise k.error("agrees of a tiled atom (atom_layout / permutation) needs operand A, B or C", bp)
    return out


def _agrees_text(a):
    if a.get("tiled_mma"):
        return f"agrees {a.get('layout') or str(a['tiled_mma']) + '.tv_layout_' + a['operand'] + '_tiled'} ~ " \
               f"tiled MMA {a['tiled_mma']} operand {a['operand']}"
    p = "".join(f", {k}={v}" for k, v in (a.get("params") or {}).items())
    tiled = "".join(f", {k} {a[k]}" for k in ("atom_layout", "permutation") if a.get(k))
    return f"agrees {a['layout']} ~ {a['spec']}" + (f" operand {a['operand']}" if a.get("operand") else "") + \
        tiled + p


def _decide_agrees(a, asm):
    op = a.get("operand")
    if a.get("tiled_mma"):
        tm = a["tiled_mma"].value
        layout = a["layout"].value if a.get("layout") else tm.tv_layout_tiled(op)
        return agrees_tiled(layout, tm, op)
    layout = a["layout"].value
    if a.get("atom_layout") is not None or a.get("permutation") is not None:
        alay = a["atom_layout"].value if a.get("atom_layout") else (1, 1, 1)
        perm = a["permutation"].value if a.get("permutation") else None
        return agrees_tiled(layout, a["spec"], op, atom_layout_mnk=alay, permutation_mnk=perm,
                            **(a.get("params") or {}))
    return checked_agrees(layout, a["spec"], op, **(a.get("params") or {}))


AGREES = ClaimKind(
    "agrees",
    {"type": "object", "additionalProperties": False,
     "properties": {"layout": LAYOUT_REF, "spec": NONEMPTY, "tiled_mma": ENTRY_REF, "operand": NONEMPTY,
                    "params": {"type": "object", "additionalProperties": {"type": "integer"}},
                    "atom_layout": {"$ref": "#/$defs/expr"}, "permutation": {"$ref": "#/$defs/expr"}},
     "oneOf": [{"required": ["layout", "spec"]}, {"required": ["tiled_mma", "operand"]}]},
    _read_agrees, _agrees_text, _decide_agrees)


# ------------------------------------------------------------------------------------------- covers

def _tile_size(v):
    if type(v) is tuple:
        n = 1
        for x in flatten(v):
            n *= x
        return n
    if is_layout(v):
        return size(v)
    return v


def _tile_value(v):
    """A tile as a claim states it: an int (the tile's size), or extents in any form ``core.tiles.read_extents``
    reads (a nested mode such as ``((8,2),64)`` counts by its size); None when ``v`` is neither."""
    if isinstance(v, bool):
        return None
    if type(v) is int or (isinstance(v, str) and v.strip().isdigit()):
        return int(v) if int(v) > 0 else None
    try:
        out = read_extents(v, "tile", symbols=True)
    except CuteVerifyError:
        return None
    out = tuple(_tile_size(m) for m in out)
    return out if all(type(x) is int and x > 0 for x in out) else None


def _read_tile(k, v, path):
    t = _tile_value(v)
    if t is None:
        raise k.error(f"tile: expected the tile's size (2048) or extents (128x64, (128,64) or [128, 64]), got "
                      f"{v!r}", path)
    return t


def _tile_text(t):
    return str(t) if type(t) is int else "(" + ",".join(map(str, t)) + ")"


def _read_covers(k, body, bp):
    body = fields(k, "covers", body, bp)
    which = one_of(k, body, bp, ("layout", "tiled_mma", "tiled_copy"), "covers")
    if which == "layout":
        if body.get("tile") is None:
            raise k.error("covers of a TV layout needs tile: the tile's size or shape", bp)
        return {"layout": k.ref(body["layout"], bp + ("layout",)), "tile": _read_tile(k, body["tile"], bp + ("tile",))}
    if which == "tiled_mma":
        return {"tiled_mma": k.obj(body["tiled_mma"], bp + ("tiled_mma",), TiledMma),
                "operand": operand_field(k, body, bp)}
    side = side_field(k, body, bp)
    return {"tiled_copy": k.obj(body["tiled_copy"], bp + ("tiled_copy",), TiledCopy), "side": side}


def _covers_text(a):
    if a.get("tiled_mma"):
        return f"covers {a['tiled_mma']} operand {a['operand']}"
    if a.get("tiled_copy"):
        return f"covers {a['tiled_copy']}" + (f" ({a['side']})" if a.get("side") else "")
    return f"covers {a['layout']} tile {_tile_text(a['tile'])}"


def _decide_covers(a, asm):
    if a.get("tiled_mma"):
        tm, op = a["tiled_mma"].value, a["operand"]
        i, j = OPERAND_MODES[op]
        return covers(tm.tv_layout_tiled(op), tm.get_tile_size(i) * tm.get_tile_size(j),
                      claim=f"{a['tiled_mma']}.tv_layout_{op}_tiled covers its {tm.get_tile_size(i)}x"
                            f"{tm.get_tile_size(j)} tile once")
    if a.get("tiled_copy"):
        tc = a["tiled_copy"].value
        side = a.get("side") or tc.reg_side
        return covers(tc.layout_tv(side), _tile_size(tuple(size(t) for t in tc.tiler_mn)),
                      claim=f"{a['tiled_copy']} ({side}) covers its tile once")
    return covers(a["layout"].value, a["tile"], indexes=a["layout"].tile)


COVERS = ClaimKind(
    "covers",
    {"type": "object", "additionalProperties": False,
     "properties": {"layout": LAYOUT_REF,
                    "tile": {"description": "The tile the TV layout indexes: its size (2048) or extents (128x64, "
                                            "(128,64), [128, 64]).",
                             "anyOf": [POSITIVE, NONEMPTY, EXTENTS_ARRAY]},
                    "tiled_mma": ENTRY_REF, "operand": OPERAND_REF, "tiled_copy": ENTRY_REF, "side": SIDE_REF},
     "oneOf": [{"required": ["layout", "tile"]}, {"required": ["tiled_mma", "operand"]},
               {"required": ["tiled_copy"]}]},
    _read_covers, _covers_text, _decide_covers)


COMPATIBLE = ClaimKind(
    "compatible",
    {"type": "object", "additionalProperties": False, "required": ["copy", "tiled_mma", "operand"],
     "properties": {"copy": ENTRY_REF, "tiled_mma": ENTRY_REF, "operand": OPERAND_REF}},
    lambda k, body, bp: {"copy": k.obj(fields(k, "compatible", body, bp)["copy"], bp + ("copy",), TiledCopy),
                         "tiled_mma": k.obj(body["tiled_mma"], bp + ("tiled_mma",), TiledMma),
                         "operand": operand_field(k, body, bp)},
    lambda a: f"compatible {a['copy']} ~ {a['tiled_mma']} operand {a['operand']}",
    lambda a, asm: compatible_tv(a["copy"].value, a["tiled_mma"].value, a["operand"]))


# ------------------------------------------------------------------------------------------- triton

def _read_triton(k, body, bp):
    body = fields(k, "triton", body, bp)
    for f in ("attr", "shape"):
        if not body.get(f):
            raise k.error(f"triton needs {f}", bp)
    if not isinstance(body["attr"], str):
        raise k.error("triton: attr is the attribute's TTGIR text", bp + ("attr",))
    which = one_of(k, body, bp, ("layout", "tiled_mma", "spec"), "triton")
    out = {"attr": body["attr"], "shape": extents_field(k, body["shape"], bp + ("shape",)),
           "exact": bool(body.get("exact", False)), "transpose": body.get("transpose")}
    if body.get("tile") is not None:
        out["tile"] = extents_field(k, body["tile"], bp + ("tile",))
    if which == "layout":
        out["layout"] = k.ref(body["layout"], bp + ("layout",))
    elif which == "tiled_mma":
        out["tiled_mma"] = k.obj(body["tiled_mma"], bp + ("tiled_mma",), TiledMma)
        out["operand"] = operand_field(k, body, bp)
    else:
        out["spec"], out["operand"] = body["spec"], operand_field(k, body, bp)
    return out


def _triton_text(a):
    other = a.get("layout") or (f"{a['tiled_mma']}.tv_layout_{a['operand']}_tiled" if a.get("tiled_mma")
                                else f"{a['spec']} operand {a['operand']}")
    return f"triton {a['attr']} on {'x'.join(map(str, a['shape']))} {'==' if a.get('exact') else '~'} {other}"


def _decide_triton(a, asm):
    other = a["layout"].value if a.get("layout") else a["tiled_mma"].value if a.get("tiled_mma") else a["spec"]
    return triton.prove_triton_equals(a["attr"], a["shape"], other, exact=a["exact"], operand=a.get("operand"),
                               tile=a.get("tile"), transpose=a.get("transpose"))


_SHAPE = {"anyOf": [NONEMPTY, EXTENTS_ARRAY]}

TRITON = ClaimKind(
    "triton",
    {"type": "object", "additionalProperties": False, "required": ["attr", "shape"],
     "description": "A Triton layout attribute (TTGIR text) on a tensor shape proved equal to a CuTe TV or smem "
                    "layout, a tiled MMA's operand or an atom: the same elements in every thread (exact: the same "
                    "function).",
     "properties": {"attr": NONEMPTY, "shape": _SHAPE, "layout": LAYOUT_REF, "tile": _SHAPE, "tiled_mma": ENTRY_REF,
                    "spec": NONEMPTY, "operand": OPERAND_REF, "exact": {"type": "boolean"},
                    "transpose": {"type": "boolean"}},
     "oneOf": [{"required": ["layout"]}, {"required": ["tiled_mma"]}, {"required": ["spec"]}]},
    _read_triton, _triton_text, _decide_triton)
