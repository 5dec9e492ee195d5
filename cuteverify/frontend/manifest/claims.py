"""Claim kinds of kernel manifests: how each reads its YAML body (checked at load, with the node's line), how it
prints, and which procedure decides it (the claim kinds are documented in ``cuteverify.frontend.manifest``).

Every verdict is the prover's ``Verdict`` family: the algebra claims from ``cuteverify.prover``, ``agrees`` from
``cuteverify.hardware`` (a plain atom) or ``atoms.agrees_tiled`` (a tiled MMA), ``covers`` / ``compatible`` from
``atoms.check``, ``banks`` / ``vector`` from ``analysis.banks``, ``tma`` from ``hardware.tma`` /
``hardware.tma_copy``, ``operand`` from ``atoms.operand_desc`` (also implied: :func:`implicit_claims`),
``triton`` from ``triton.prove`` (decided over F2) and ``smem_optimal`` from
``synth.optimal``. A counterexample names the thread and the element wherever the procedure finds one.
"""
from __future__ import annotations

import functools
import re

from ... import prover as P
from ...analysis.banks import bank_conflicts, copy_smem_side, max_vector_width, read_tile
from ...analysis.banks.cp_async import copy_cp_async_banks
from ...atoms import TiledCopy, TiledMma, agrees_tiled, compatible_tv, copy_vectorizes, covers
from ...atoms.operand_desc import prove_operand
from ..checked import checked_agrees, checked_equal
from ...core.layout import size
from ...core.notation.tiles import read_extents
from ...core.tuples import flatten
from ...errors import CuteVerifyError, NotAdmissibleError
from ...hardware.library.spec import OPERAND_MODES
from ...hardware.tma.tiled import TmaDescriptor
from ...hardware.tma.copy import from_copy
from .operand import read_cta_tiler_field, read_operand
from .expr import entry_tiles, environment, evaluate, evaluate_tile, evaluate_value, is_layout, shared_assumptions
from ...synth import prove_smem_optimal
from ...triton import prove_triton_equals

__all__ = ["KINDS", "OPERANDS", "claim_text", "read_args", "verdict_for"]

KINDS = ("bijective", "injective", "surjective", "equal", "disjoint", "agrees", "prove", "covers", "compatible",
         "banks", "vector", "tma", "triton", "smem_optimal", "operand")
OPERANDS = ("A", "B", "C")
TMA_FIELDS = ("dtype", "shape", "stride", "box", "element_strides", "swizzle", "interleave", "l2_promotion",
              "oob_fill", "address", "gmem", "smem", "multicast", "smem_align", "arch", "cta_tiler")


# ------------------------------------------------------------------------------------------ reading

def _one_of(k, body, bp, keys, kind):
    given = [x for x in keys if body.get(x) is not None]
    if len(given) != 1:
        raise k.error(f"{kind} takes exactly one of {', '.join(keys)}"
                      + (f" (got {', '.join(given)})" if given else ""), bp)
    return given[0]


def _operand(k, body, bp, required=True):
    op = body.get("operand")
    if op is None and not required:
        return None
    if op not in OPERANDS:
        raise k.error(f"operand must be one of A, B, C (got {op!r})", bp + ("operand",))
    return op


def read_args(k, kind, body, bp) -> dict:
    """The arguments of one claim, each layout reference checked (``k.ref``: a name or inline text that
    evaluates; ``k.obj``: a name of a tiled MMA / tiled copy entry). Raises ``k.error(...)`` with the path."""
    ref, obj = k.ref, k.obj
    if kind in ("bijective", "injective"):
        return {"layout": ref(body, bp)}
    if kind == "surjective":
        if isinstance(body, dict):
            return {"layout": ref(body["layout"], bp + ("layout",)), "codomain": body.get("codomain")}
        return {"layout": ref(body, bp), "codomain": None}
    if kind == "equal":
        if not isinstance(body, list) or len(body) != 2:
            raise k.error("equal takes a list of two layouts", bp)
        return {"a": ref(body[0], bp + (0,)), "b": ref(body[1], bp + (1,))}
    if kind == "disjoint":
        return {"layout": ref(body["layout"], bp + ("layout",)), "cotarget": body.get("cotarget")}
    if kind == "prove":
        if not isinstance(body, str) or not body.strip():
            raise k.error("prove takes the claim text", bp)
        return {"claim": body}
    if not isinstance(body, dict):
        raise k.error(f"{kind} takes a mapping of fields", bp)
    if kind == "agrees":
        return _read_agrees(k, body, bp)
    if kind == "covers":
        which = _one_of(k, body, bp, ("layout", "tiled_mma", "tiled_copy"), "covers")
        if which == "layout":
            if body.get("tile") is None:
                raise k.error("covers of a TV layout needs tile: the tile's size or shape", bp)
            return {"layout": ref(body["layout"], bp + ("layout",)), "tile": _read_tile(k, body["tile"],
                                                                                          bp + ("tile",))}
        if which == "tiled_mma":
            return {"tiled_mma": obj(body["tiled_mma"], bp + ("tiled_mma",), TiledMma),
                    "operand": _operand(k, body, bp)}
        side = body.get("side")
        if side not in (None, "src", "dst"):
            raise k.error(f"side must be src or dst (got {side!r})", bp + ("side",))
        return {"tiled_copy": obj(body["tiled_copy"], bp + ("tiled_copy",), TiledCopy), "side": side}
    if kind == "compatible":
        return {"copy": obj(body["copy"], bp + ("copy",), TiledCopy),
                "tiled_mma": obj(body["tiled_mma"], bp + ("tiled_mma",), TiledMma), "operand": _operand(k, body, bp)}
    if kind in ("banks", "vector"):
        return _read_access(k, kind, body, bp)
    if kind == "triton":
        return _read_triton(k, body, bp)
    if kind == "smem_optimal":
        return _read_smem_optimal(k, body, bp)
    if kind == "operand":
        return read_operand(k, body, bp)
    return _read_tma(k, body, bp)


def _read_smem_optimal(k, body, bp):
    for f in ("smem", "tile"):
        if body.get(f) is None:
            raise k.error(f"smem_optimal needs {f}", bp)
    out = {"smem": k.ref(body["smem"], bp + ("smem",)), "tile": _extents(k, body["tile"], bp + ("tile",)),
           "dtype": str(body.get("dtype") or "bf16"), "require": [str(x) for x in body.get("require") or []],
           "padding": bool(body.get("padding", False))}
    for role in ("writes", "reads"):
        items = body.get(role) or []
        out[role] = [str(x).strip() for x in items]
    if len(out["tile"]) != 2:
        raise k.error(f"smem_optimal: the tile is (MN, K), got {out['tile']}", bp + ("tile",))
    if not out["writes"] and not out["reads"] and not out["require"]:
        raise k.error("smem_optimal needs at least one access (writes / reads) or requirement", bp)
    # the accesses and the dtype are checked when the claim runs (``prove_smem_optimal``): a bad one is that
    # claim's error, with its line, and the other claims of the file still run
    return out


def _access_item(env, x):
    """An access of ``smem_optimal``: an entry that is a tiled copy, or an access text form."""
    return env[x] if x in env and isinstance(env[x], TiledCopy) else x


def _read_triton(k, body, bp):
    for f in ("attr", "shape"):
        if not body.get(f):
            raise k.error(f"triton needs {f}", bp)
    if not isinstance(body["attr"], str):
        raise k.error("triton: attr is the attribute's TTGIR text", bp + ("attr",))
    which = _one_of(k, body, bp, ("layout", "tiled_mma", "spec"), "triton")
    out = {"attr": body["attr"], "shape": _extents(k, body["shape"], bp + ("shape",)),
           "exact": bool(body.get("exact", False)), "transpose": body.get("transpose")}
    if body.get("tile") is not None:
        out["tile"] = _extents(k, body["tile"], bp + ("tile",))
    if which == "layout":
        out["layout"] = k.ref(body["layout"], bp + ("layout",))
    elif which == "tiled_mma":
        out["tiled_mma"] = k.obj(body["tiled_mma"], bp + ("tiled_mma",), TiledMma)
        out["operand"] = _operand(k, body, bp)
    else:
        out["spec"], out["operand"] = body["spec"], _operand(k, body, bp)
    return out


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
    if isinstance(v, bool) or _tile_value(v) is None:
        raise k.error(f"tile: expected the tile's size (2048) or extents (128x64, (128,64) or [128, 64]), got "
                      f"{v!r}", path)
    t = _tile_value(v)
    return str(t) if type(t) is int else "(" + ",".join(map(str, t)) + ")"


def _extents(k, v, path):
    """``128x64`` / ``(128,64)`` / ``128,64`` / ``[128, 64]`` -> ``(128, 64)`` (positive integers; the one extents
    reader, as the CLI and Python), else an error at the node."""
    try:
        return read_extents(v if isinstance(v, (list, int)) else str(v), "tile")
    except CuteVerifyError:
        raise k.error(f"expected extents such as 128x64, (128,64) or [128, 64], got {v!r}", path) from None


def _read_agrees(k, body, bp):
    ref = k.ref
    which = _one_of(k, body, bp, ("spec", "tiled_mma"), "agrees")
    if which == "tiled_mma":
        out = {"tiled_mma": k.obj(body["tiled_mma"], bp + ("tiled_mma",), TiledMma), "operand": _operand(k, body, bp)}
        out["layout"] = ref(body["layout"], bp + ("layout",)) if body.get("layout") is not None else None
        return out
    if body.get("layout") is None:
        raise k.error("agrees with a spec needs layout", bp)
    out = {"layout": ref(body["layout"], bp + ("layout",)), "spec": str(body["spec"]),
           "operand": body.get("operand"), "params": dict(body.get("params") or {})}
    for key in ("atom_layout", "permutation"):
        if body.get(key) is not None:
            out[key] = k.value_text(body[key], bp + (key,))
    if ("atom_layout" in out or "permutation" in out) and out["operand"] not in OPERANDS:
        raise k.error("agrees of a tiled atom (atom_layout / permutation) needs operand A, B or C", bp)
    return out


def _read_access(k, kind, body, bp):
    main = "access" if kind == "banks" else "layout"
    which = _one_of(k, body, bp, (main, "copy"), kind)
    out = {"dtype": body.get("dtype"), "elem_bytes": body.get("elem_bytes")}
    if which == "copy":
        out["copy"] = k.obj(body["copy"], bp + ("copy",), TiledCopy)
        side = body.get("side")
        if side not in (None, "src", "dst"):
            raise k.error(f"side must be src or dst (got {side!r})", bp + ("side",))
        out["side"] = side
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
        out.update(vector=body.get("vector"), phases=body.get("phases"), base=body.get("base", 0))
        if body.get("gmem") is not None:  # a cp.async copy's global side (analysis.cp_async_banks)
            if which != "copy":
                raise k.error("banks: gmem is the global side of a cp.async copy: give copy", bp + ("gmem",))
            out["gmem"] = k.ref(body["gmem"], bp + ("gmem",))
    else:
        out["smem"] = k.ref(body["smem"], bp + ("smem",)) if body.get("smem") is not None else None
        out.update(alignment=body.get("alignment", 16), require=body.get("require"), flat=bool(body.get("flat")))
        if out["require"] is None:
            raise k.error("vector needs require: the vector width in bytes the claim is about", bp)
    return out


def _read_tma(k, body, bp):
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


# ----------------------------------------------------------------------------------------- printing

def claim_text(kind: str, a: dict) -> str:
    """The claim in one line (the label of a claim without ``name``)."""
    if kind in ("bijective", "injective"):
        return f"{kind} {a['layout']}"
    if kind == "surjective":
        return f"surjective {a['layout']}" + (f" onto [0, {a['codomain']})" if a.get("codomain") is not None else "")
    if kind == "equal":
        return f"equal {a['a']} == {a['b']}"
    if kind == "disjoint":
        return f"disjoint {a['layout']}" + (f" cotarget {a['cotarget']}" if a.get("cotarget") is not None else "")
    if kind == "agrees":
        if a.get("tiled_mma"):
            return f"agrees {a.get('layout') or a['tiled_mma'] + '.tv_layout_' + a['operand'] + '_tiled'} ~ " \
                   f"tiled MMA {a['tiled_mma']} operand {a['operand']}"
        p = "".join(f", {k}={v}" for k, v in (a.get("params") or {}).items())
        tiled = "".join(f", {k} {a[k]}" for k in ("atom_layout", "permutation") if a.get(k))
        return f"agrees {a['layout']} ~ {a['spec']}" + (f" operand {a['operand']}" if a.get("operand") else "") + \
            tiled + p
    if kind == "covers":
        if a.get("tiled_mma"):
            return f"covers {a['tiled_mma']} operand {a['operand']}"
        if a.get("tiled_copy"):
            return f"covers {a['tiled_copy']}" + (f" ({a['side']})" if a.get("side") else "")
        return f"covers {a['layout']} tile {a['tile']}"
    if kind == "compatible":
        return f"compatible {a['copy']} ~ {a['tiled_mma']} operand {a['operand']}"
    if kind == "banks":
        what = a.get("access") or f"{a['copy']}" + (f" ({a['side']})" if a.get("side") else "")
        return f"conflict-free {what}{_tile_text(a)} through {a['smem']}" + (f" ({a['dtype']})" if a.get("dtype") else "")
    if kind == "vector":
        what = a.get("layout") or f"{a['copy']}" + (f" ({a['side']})" if a.get("side") else "")
        return f"{a['require']}-byte vectors of {what}{_tile_text(a)}" + (f" through {a['smem']}" if a.get("smem") else "")
    if kind == "smem_optimal":
        return f"smem_optimal {a['smem']} ({'x'.join(map(str, a['tile']))} {a['dtype']})"
    if kind == "triton":
        other = a.get("layout") or (f"{a['tiled_mma']}.tv_layout_{a['operand']}_tiled" if a.get("tiled_mma")
                                    else f"{a['spec']} operand {a['operand']}")
        return f"triton {a['attr']} on {'x'.join(map(str, a['shape']))} {'==' if a.get('exact') else '~'} {other}"
    if kind == "tma":
        if a.get("gmem"):
            tile = f" (cta_tiler {a['cta_tiler']})" if a.get("cta_tiler") else ""
            return f"tma {a['dtype']} copy {a['gmem']} -> {a['smem']}{tile}"
        return f"tma {a['dtype']} shape {a['shape']}" + (f" box {a['box']}" if a.get("box") else "")
    if kind == "operand":
        return f"operand {a['operand']} of {a['tiled_mma']} reads {a['smem']} through its descriptors" + \
            (f" (implicit: {a['implicit']})" if a.get("implicit") else "")
    return f"prove {a['claim']}"


def _tile_text(a):
    return f" (tile {'x'.join(map(str, a['tile']))})" if a.get("tile") else ""


# ------------------------------------------------------------------------------------------ running

def _num(x):
    if x is None or isinstance(x, int):
        return x
    s = str(x).strip()
    return int(s) if re.fullmatch(r"-?\d+", s) else s


@functools.lru_cache(maxsize=4096)
def _inline(text: str, layouts: tuple, assume: tuple, symbols):
    return evaluate(text, environment(layouts, assume, symbols), shared_assumptions(assume), symbols)


class _Run:
    """One claim's view of its kernel: names to values (evaluated once per kernel and process)."""

    def __init__(self, layouts, assume, symbols):
        self.items = tuple(layouts.items())
        self.assume = tuple(assume)
        self.symbols = tuple(symbols) if symbols is not None else None
        self.env = environment(self.items, self.assume, self.symbols)
        self.asm = shared_assumptions(self.assume)

    def value(self, ref):
        if ref in self.env:
            return self.env[ref]
        if "?" in ref:  # each ? is an unknown of its own: two equal inline texts are two layouts, never one value
            return _inline.__wrapped__(ref, self.items, self.assume, self.symbols)
        return _inline(ref, self.items, self.assume, self.symbols)

    def arg(self, text):
        return self.env[text] if text in self.env else evaluate_value(text, self.env, self.asm, self.symbols)

    def tile_of(self, ref):
        """The tile a layout reference indexes when it is a TV layout of a tiled object (or an entry that is
        one), else None (manifest_expr.evaluate_tile)."""
        tiles = entry_tiles(self.items, self.assume, self.symbols)
        if ref in self.env:
            return tiles.get(ref)
        return evaluate_tile(ref, self.env, self.asm, self.symbols, tiles)[1]

    def lay(self, ref, what="layout"):
        v = self.value(ref)
        if not is_layout(v):
            raise NotAdmissibleError(what, f"{ref} is {type(v).__name__}, not a layout")
        return v


def _tile_size(v):
    if type(v) is tuple:
        n = 1
        for x in flatten(v):
            n *= x
        return n
    if is_layout(v):
        return size(v)
    return v


def verdict_for(kind: str, args: dict, layouts: dict, assume=(), symbols=None):
    """Run one claim; returns a Verdict. Raises CuteVerifyError (ParseError...) on bad input."""
    r = _Run(layouts, assume, symbols)
    asm, lay = r.asm, r.lay
    if kind == "bijective":
        return P.is_bijective(lay(args["layout"]), assume=asm)
    if kind == "injective":
        return P.is_injective(lay(args["layout"]), assume=asm)
    if kind == "surjective":
        return P.is_surjective(lay(args["layout"]), _num(args.get("codomain")), assume=asm)
    if kind == "equal":
        return checked_equal(lay(args["a"]), lay(args["b"]), assume=asm)
    if kind == "disjoint":
        return P.complement_disjoint(lay(args["layout"]), _num(args.get("cotarget")), assume=asm)
    if kind == "agrees":
        return _agrees(r, args)
    if kind == "prove":
        text = args["claim"]
        words = set(re.findall(r"[A-Za-z_]\w*", text))
        bindings = {n: v for n, v in r.env.items() if n in words and is_layout(v)}
        return P.prove(text, assume=asm, **bindings)
    if kind == "covers":
        if args.get("tiled_mma"):
            tm, op = r.value(args["tiled_mma"]), args["operand"]
            i, j = OPERAND_MODES[op]
            return covers(tm.tv_layout_tiled(op), tm.get_tile_size(i) * tm.get_tile_size(j),
                          claim=f"{args['tiled_mma']}.tv_layout_{op}_tiled covers its {tm.get_tile_size(i)}x"
                                f"{tm.get_tile_size(j)} tile once")
        if args.get("tiled_copy"):
            tc = r.value(args["tiled_copy"])
            side = args.get("side") or tc.reg_side
            return covers(tc.layout_tv(side), _tile_size(tuple(size(t) for t in tc.tiler_mn)),
                          claim=f"{args['tiled_copy']} ({side}) covers its tile once")
        tile = _tile_value(args["tile"])
        if tile is None:
            raise NotAdmissibleError("covers", f"the tile {args['tile']!r} is neither a size nor extents")
        return covers(lay(args["layout"]), tile, indexes=r.tile_of(args["layout"]))
    if kind == "compatible":
        return compatible_tv(r.value(args["copy"]), r.value(args["tiled_mma"]), args["operand"])
    if kind == "banks" and args.get("gmem"):
        return copy_cp_async_banks(r.value(args["copy"]), lay(args["gmem"]), lay(args["smem"]), _dtype(args),
                                   smem_base=args.get("base") or 0)
    if kind == "banks":
        ph = args.get("phases")
        ph = int(ph) if isinstance(ph, str) and ph.strip().isdigit() else ph
        v = bank_conflicts(lay(args["smem"]), _access(r, args, "access"), dtype=_dtype(args),
                           elem_bytes=args.get("elem_bytes"), vector_bytes=args.get("vector"), phases=ph,
                           base_bytes=args.get("base") or 0, tile=_access_tile(r, args, "access"),
                           side=args.get("side"))
        return _issued(r, args, v)
    if kind == "vector":
        smem = lay(args["smem"]) if args.get("smem") else None
        v = max_vector_width(_access(r, args, "layout"), dtype=_dtype(args), elem_bytes=args.get("elem_bytes"),
                             alignment=args.get("alignment", 16), smem=smem, require=args["require"],
                             tv=False if args.get("flat") else None,
                             tile=_access_tile(r, args, "layout") if smem is not None else args.get("tile"),
                             side=args.get("side"))
        return _issued(r, args, v)
    if kind == "tma":
        return _tma(r, args)
    if kind == "operand":
        return prove_operand(r.value(args["tiled_mma"]), args["operand"], lay(args["smem"]), args.get("dtype"),
                             major=args.get("major"), name=args["smem"], mma_name=args["tiled_mma"],
                             form=args.get("form"))
    if kind == "smem_optimal":
        return prove_smem_optimal(lay(args["smem"]), args["tile"], args["dtype"],
                                  [_access_item(r.env, x) for x in args["writes"]],
                                  [_access_item(r.env, x) for x in args["reads"]], args["require"], args["padding"])
    if kind == "triton":
        other = (r.lay(args["layout"]) if args.get("layout") else r.value(args["tiled_mma"]) if args.get("tiled_mma")
                 else args["spec"])
        return prove_triton_equals(args["attr"], args["shape"], other, exact=args["exact"],
                                   operand=args.get("operand"), tile=args.get("tile"), transpose=args.get("transpose"))
    raise NotAdmissibleError("claim", f"unknown claim kind {kind!r} (one of {', '.join(KINDS)})")


def _dtype(args):
    """The claim's element type: ``dtype``, else bf16; with a copy and neither dtype nor elem_bytes, None
    (the copy's own value type)."""
    if args.get("elem_bytes"):
        return None
    return args.get("dtype") or (None if args.get("copy") else "bf16")


def _issued(r, args, verdict):
    """A banks / vector claim's ``verdict``, unless it was proved about a copy that ``cute.copy`` could not
    issue over its smem layout (``atoms.copy_vectorizes``: each atom register's values consecutive and aligned
    on the smem side): then that refutation. The claim's own refutation comes first (it names the placed
    tile); the issue check is decided for a concrete smem layout only."""
    if verdict.status != "proved" or not args.get("copy") or not args.get("smem"):
        return verdict
    tc, smem = r.value(args["copy"]), r.lay(args["smem"])
    if not getattr(smem, "is_concrete", False):
        return verdict
    v = copy_vectorizes(tc, smem, copy_smem_side(tc, args.get("side")))
    return v if v.status == "refuted" else verdict


def _access_tile(r, args, main):
    """The tile a banks / vector claim's TV layout is placed by: the tile it indexes when it was read off a tiled
    MMA or copy (a stated ``tile`` must be that one), else the stated ``tile``."""
    if args.get("copy"):
        return args.get("tile")
    known, given = r.tile_of(args[main]), args.get("tile")
    if known is None:
        return given
    known = tuple(known)
    if given is not None and tuple(given) != known:
        raise NotAdmissibleError("banks" if main == "access" else "vector", f"tile {'x'.join(map(str, given))} "
                                 f"is not the {'x'.join(map(str, known))} tile {args[main]} indexes")
    return known


def _access(r, args, main):
    """The access of a banks / vector claim: the tiled copy itself (placed over the smem layout by its tiler,
    on ``side``, by ``analysis.banks``), or the TV layout given (with ``tile``, placed the same way)."""
    if not args.get("copy"):
        return r.lay(args[main])
    return r.value(args["copy"])


def _agrees(r, args):
    op = args.get("operand")
    if args.get("tiled_mma"):
        tm = r.value(args["tiled_mma"])
        layout = r.lay(args["layout"]) if args.get("layout") else tm.tv_layout_tiled(op)
        return agrees_tiled(layout, tm, op)
    layout = r.lay(args["layout"])
    if args.get("atom_layout") is not None or args.get("permutation") is not None:
        alay = r.arg(args["atom_layout"]) if args.get("atom_layout") else (1, 1, 1)
        perm = r.arg(args["permutation"]) if args.get("permutation") else None
        return agrees_tiled(layout, args["spec"], op, atom_layout_mnk=alay, permutation_mnk=perm,
                            **(args.get("params") or {}))
    return checked_agrees(layout, args["spec"], op, **(args.get("params") or {}))


def _tma(r, a):
    arch = a.get("arch", "sm_90")
    if a.get("gmem"):
        _, v = from_copy(r.lay(a["gmem"]), r.lay(a["smem"]), a["dtype"], multicast=a.get("multicast", 1),
                         smem_address_align=a.get("smem_align"), assume=r.asm, arch=arch,
                         cta_tiler=a.get("cta_tiler"))
        return v
    d = TmaDescriptor(a["dtype"], a["shape"], a.get("stride"), a.get("box"), a.get("element_strides"),
                      interleave=a.get("interleave", "NONE"), swizzle=a.get("swizzle", "NONE"),
                      l2_promotion=a.get("l2_promotion", "NONE"), oob_fill=a.get("oob_fill", "NONE"),
                      address=a.get("address"), assume=r.asm, arch=arch)
    return d.check()
