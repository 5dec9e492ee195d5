"""Runtime values and global-memory copies of a captured CUTLASS C++ launch (issue 29), beside :mod:`.cpp_emit`.

* :func:`note_runtime`: a launch argument with runtime leaves (a shape ``(M,N,K)``, a stride ``(ldA,_1)``, a
  gmem layout or tensor) enters the document with those leaves as symbols (:mod:`.cpp_symbols`): a layout as
  an entry, a tuple in its note, never the capture's placeholder integers.
* :func:`emit_gmem`: for each partition of a global-memory tensor by a tiled copy argument in the kernel body
  (``mA = make_tensor(make_gmem_ptr(A), select<0,2>(shape_MNK), dA)``, ``gA = local_tile(mA, cta_tiler,
  cta_coord, Step<_1, X,_1>{})``, ``thr_copy_a.partition_S(gA)``), a ``vector`` claim: each thread's values of
  one copy issue are contiguous in gmem and aligned to the atom's width, for every size. The access is the
  copy's TV layout placed over the CTA tile of ``mA`` (``(BLK_M,BLK_K):(dM,dK)``, runtime strides as symbols),
  its thread mode extended by the copy's tiles inside the CTA tile and by the CTA tiles of the tensor (their
  origins ``t * BLK * d`` must keep the alignment too; a stand-in count of 2 tiles per runtime extent, since only
  the strides decide alignment). Decided when emitted: proved with the facts the source states, the claim is
  written (the checker proves it for every size); proved only with facts no source line states (``8 | ldA``),
  an unknown row naming that obligation (never a proof at the placeholder value); not proved even with them, the
  claim is written and the checker decides it. The base pointer's alignment is no fact of a ``T const*``: the
  claim's ``alignment`` is the width, a precondition its name states (``cudaMalloc`` gives 256 bytes).

Admissibility: the gmem layout's modes are flat (one leaf each), the CTA tiler and the copy's ``Tiler_MN``
static integers of the tensor's rank, each copy tile extent dividing the CTA tile's; anything else is a note
saying what was not read. Post-condition: no claim or note of this module holds a placeholder integer.
"""
from __future__ import annotations

import math
import re

from ...analysis.banks import max_vector_width
from ...algebra import composition
from ...core.layout import Layout
from ...core.notation.parse import parse
from ...errors import CuteVerifyError
from .cpp_symbols import Symbols
from .cpp_text import match_close, split_args

__all__ = ["note_runtime", "gmem_chain", "emit_gmem", "gmem_access"]

_IDENT = r"[A-Za-z_]\w*"
_MAKE = re.compile(rf"(?:Tensor|auto)\s+({_IDENT})\s*=\s*make_tensor\s*\(\s*make_gmem_ptr\s*\(")
_TILE = re.compile(rf"(?:Tensor|auto)\s+({_IDENT})\s*=\s*local_tile\s*\(")
_SELECT = re.compile(rf"^(?:cute::)?select\s*<\s*([\d\s,]+)>\s*\(\s*({_IDENT})\s*\)$")
_STATIC = re.compile(r"^\(?(_\d+(?:,_\d+)*)\)?$")


def note_runtime(launch, r, p) -> None:
    """The note of launch argument ``r`` (printed ``p``, with runtime leaves) on ``launch`` (a
    :class:`.cpp_emit.LaunchEmitter`): its text with the runtime leaves as symbols; a layout also an entry."""
    text = launch.sym.text(r)
    if p.kind == "layout":
        # a tensor (gmem_ptr[16b](..) o L) or a coordinate tensor (ArithTuple(..) o L): its layout L
        lay = text if text.startswith("Sw<") or " o " not in text else text.rpartition(" o ")[2]
        launch.doc.layout(r.source, lay, launch.loc(r))
    launch.doc.note(f"{p.kind} `{r.source}` = {text}", launch.loc(r),
                    "runtime values as symbols (the capture runs the entry with placeholder arguments, so the "
                    "printed integers are not the kernel's); facts: only those the source states"
                    + _facts_text(launch.sym, text))
    launch.used.add(r.index)


def _facts_text(sym: Symbols, text: str) -> str:
    got = sorted({n for n in re.findall(r"\?(\w+)", text) if sym.stated(n) > 1})
    return (" (" + ", ".join(f"{sym.stated(n)} | {n}" for n in got) + ")") if got else " (none)"


def _spec(s: str, a: int, b: int, index: dict):
    """``(param index, modes or None)`` of a shape / stride operand: a parameter or ``select<i,j>(param)``."""
    e = " ".join(s[a:b].split())
    if e in index:
        return index[e], None
    m = _SELECT.match(e)
    if m and m.group(2) in index:
        return index[m.group(2)], [int(x) for x in m.group(1).split(",") if x.strip()]
    return None


def gmem_chain(src: str, flow) -> dict:
    """``{tensor: (shape spec, stride spec, tiler param or None, step modes or None, line)}`` of the gmem
    tensors of the kernel body (blanked source ``src``, :class:`.cpp_flow.Flow` ``flow``) and their
    ``local_tile`` tiles (module docstring); a spec is ``(param index, selected modes or None)``."""
    index = {p: i for i, p in enumerate(flow.params) if p}
    start, end = flow.span
    body = src[start:end]
    made, out = {}, {}
    for m in _MAKE.finditer(body):
        open_ = body.find("(", body.find("make_tensor", m.start()))
        close = match_close(body, open_, "(", ")")
        if close < 0:
            continue
        args = split_args(body, open_ + 1, close - 1)
        if len(args) != 3:
            continue
        shape, stride = _spec(body, *args[1], index), _spec(body, *args[2], index)
        if shape is not None and stride is not None:
            made[m.group(1)] = (shape, stride)
            out[m.group(1)] = (shape, stride, None, None, src.count("\n", 0, start + m.start()) + 1)
    for m in _TILE.finditer(body):
        close = match_close(body, m.end() - 1, "(", ")")
        args = split_args(body, m.end(), close - 1) if close > 0 else []
        if len(args) < 3:
            continue
        base, tiler = (" ".join(body[a:b].split()) for a, b in args[:2])
        if base not in made or tiler not in index:
            continue
        step = None
        if len(args) == 4:
            st = re.fullmatch(r"(?:cute::)?Step\s*<(.*)>\s*(?:\{\s*\})?", " ".join(body[slice(*args[3])].split()))
            if st is None:
                continue
            step = [k for k, x in enumerate(st.group(1).split(",")) if x.strip() in ("_1", "Int<1>", "C<1>")]
        out[m.group(1)] = made[base] + (index[tiler], step, src.count("\n", 0, start + m.start()) + 1)
    return out


def _modes(text: str) -> list:
    """Top-level modes of a tuple text ``(a,(b,c),d)``."""
    t = text.strip()
    if not (t.startswith("(") and t.endswith(")")):
        return [t]
    out, depth, b = [], 0, 1
    for i, c in enumerate(t[1:-1] + ",", 1):
        depth += c == "("
        depth -= c == ")"
        if c == "," and depth == 0:
            out.append(t[b:i].strip())
            b = i + 1
    return out


def _pick(modes, sel):
    return modes if sel is None else [modes[k] for k in sel]


def gmem_access(shape_modes, stride_modes, cta, tv: str, tiler) -> str:
    """The manifest text of the TV layout of one copy over a gmem tensor (module docstring): ``stride_modes`` the
    tensor's per-mode symbolic stride texts (``?ldA``, ``1``), ``shape_modes`` its extents, ``cta`` the CTA
    tile's extents, ``tv`` the copy's static ``TiledLayout_TV`` over its static ``tiler``. Raises
    CuteVerifyError when a mode is not flat or a tile does not divide the one above it."""
    if not (len(stride_modes) == len(cta) == len(tiler) == len(shape_modes)):
        raise CuteVerifyError(f"ranks differ: gmem {len(stride_modes)}, CTA tile {len(cta)}, copy tiler "
                              f"{len(tiler)}")
    if any("(" in x for x in stride_modes + shape_modes):
        raise CuteVerifyError("a gmem mode that is not flat")
    if any(c % t for c, t in zip(cta, tiler)):
        raise CuteVerifyError(f"the copy tiler {tuple(tiler)} does not divide the CTA tile {tuple(cta)}")
    tile = parse(f"({','.join(map(str, tiler))}):({','.join(stride_modes)})", source="gmem tile")
    comp = composition(tile, parse(tv, source="TiledLayout_TV"))
    strides = list(tile.stride)
    ts, td = [comp.shape[0]], [comp.stride[0]]
    for c, t, d in zip(cta, tiler, strides):
        if c // t > 1:  # the copy's tiles inside the CTA tile
            ts.append(c // t)
            td.append(t * d)
    for e, c, d in zip(shape_modes, cta, strides):
        n = 2 if not e.lstrip("-").isdigit() else math.ceil(int(e) / c)
        if n > 1:  # the CTA tiles of the tensor (a stand-in count for a runtime extent: strides decide)
            ts.append(n)
            td.append(c * d)
    lay = Layout((tuple(ts), comp.shape[1]), (tuple(td), comp.stride[1]))
    text = str(lay)
    for m in re.finditer(r"\?(\w+)\{div=(\d+)\}", ",".join(stride_modes)):
        name, div = m.group(1), m.group(2)
        alone = re.search(rf"(?<![\w?*]){re.escape(name)}(?![\w*])", text)
        if alone is not None:
            text = text[:alone.start()] + f"?{name}{{div={div}}}" + text[alone.end():]
        else:
            raise CuteVerifyError(f"{name} is no stride of the access by itself: its fact has no place")
    return text


def _decide(text, dtype, need, eb):
    return max_vector_width(parse(text, source="gmem access"), dtype=dtype, require=need, alignment=need).status


def _obligation(text, dtype, need, eb) -> list | None:
    """The facts ``n | x`` (``n`` the vector's elements, ``x`` each symbol without a stated fact) under which
    ``text`` proves, or None when it does not prove with them."""
    n = need // eb
    bare = re.sub(r"\{[^{}]*\}", "", text)
    names = sorted({m.group(1) for m in re.finditer(r"(?<![\w?])\??([A-Za-z_]\w*)", bare)}
                   - {m.group(1) for m in re.finditer(r"\?(\w+)\{div=", text)})
    if not names or n <= 1:
        return None
    forced = text
    for name in names:
        alone = re.search(rf"(?<![\w?*]){re.escape(name)}(?![\w*{{])", forced)
        if alone is None:
            return None
        forced = forced[:alone.start()] + f"?{name}{{div={n}}}" + forced[alone.end():]
    return [f"{n} | {x}" for x in names] if _decide(forced, dtype, need, eb) == "proved" else None


def emit_gmem(launch, src: str | None) -> None:
    """Add the gmem ``vector`` claims / obligations of ``launch`` (a :class:`.cpp_emit.LaunchEmitter`) whose kernel
    body is in ``src`` (module docstring)."""
    f = launch.flow
    if f is None or not src:
        return
    by = {r.index: r for r in launch.recs}
    chain = gmem_chain(launch.sym.src, f)
    for copy, side, tensor, line, stmt in f.others:
        if not isinstance(copy, int) or tensor not in chain:
            continue
        p, r, name = launch.printed.get(copy), by.get(copy), launch.entry.get(copy)
        if p is None or r is None or name is None or p.kind != "tiled_copy" or p.dtype is None:
            continue
        (sh_i, sh_sel), (st_i, st_sel), tiler_i, step, _ = chain[tensor]
        loc, via = launch.loc(r), f"{launch.path}:{line}: {stmt}"
        try:
            if tiler_i is None:
                raise CuteVerifyError(f"`{tensor}` is no local_tile of a gmem tensor: its CTA tile is not read")
            shape = _pick(_modes(launch.sym.text(by[sh_i])), sh_sel)
            stride = _pick(_modes(launch.sym.text(by[st_i])), st_sel)
            ct = by[tiler_i].text.strip()
            if _STATIC.match(ct.replace(" ", "")) is None:
                raise CuteVerifyError(f"the CTA tiler `{by[tiler_i].source}` = {ct} is not static integers")
            cta = _pick([int(x.lstrip("_")) for x in _modes(ct)], step)
            tl = p.fields["Tiler_MN"].replace(" ", "")
            if _STATIC.match(tl) is None:
                raise CuteVerifyError(f"the copy's Tiler_MN {tl} is not static integers")
            tiler = [int(x.lstrip("_")) for x in _modes(tl)]
            tv = re.sub(r"(?<![\w])_(\d+)", r"\1", p.fields["TiledLayout_TV"])
            text = gmem_access(shape, stride, cta, tv, tiler)
            bits = int(p.atom["ValueType"].rstrip("b"))
            eb = max(1, bits // 8)
            need = launch.mem_bytes(p.op, bits)
            status = _decide(text, p.dtype, need, eb)
            facts = _obligation(text, p.dtype, need, eb) if status != "proved" else None
        except (CuteVerifyError, IndexError, KeyError, ValueError) as e:
            launch.doc.note(stmt, loc, f"{via}: the gmem access is not read ({e}): no vector check")
            continue
        what = f"{r.source} ({side}) over `{tensor}`"
        if facts:
            launch.doc.unknown(f"{need}-byte vectors of {what}", loc,
                               f"{via}: the access {text} moves {need}-byte vectors for every size where "
                               f"{', '.join(facts)} (and the base pointer is {need}-byte aligned); the source "
                               "states no such fact (an `int` has no divisibility): an obligation on the caller, "
                               "not checked here")
            continue
        acc = launch.doc.layout(f"{tensor}_access", text, loc)
        launch.doc.claim({"vector": {"layout": acc, "dtype": p.dtype, "require": need, "alignment": need}}, loc,
                         name=f"{what} moves {need}-byte vectors for every size, given a {need}-byte aligned base "
                              f"pointer (a precondition of the launch) ({via})")
