"""The accesses of a synthesis problem, normalized (docs/model.md section 13).

An access is one way a kernel touches the shared-memory tile ``(MN, K)`` (element index ``m + MN*k``,
colexicographic, the domain of the smem layout). Two sorts:

* thread accesses (a bank model applies): a TV layout ``(thread, value) -> tile index`` over the *whole* tile,
  a vector width (bytes per thread per instruction, fixed, or ``None`` = the widest the layout allows) and
  the phase rule of ``analysis.banks`` (``"ldmatrix"`` or the default). A tiled copy whose tile is smaller
  than the smem tile is repeated over it, each repetition one more instruction (vector index);
* consumers (no thread bank model, legality only): a TMA box (``tma``), a wgmma operand (``gmma``, with its
  major-ness) or a tcgen05.mma operand (``umma``).

Text forms (what ``cuteverify synthesize`` accepts; ``:`` separates fields, layouts keep their own colon):

* ``ldmatrix:<A|B>:<MMA atom>:<M>x<N>x<K>[:x1|x2|x4][:t]`` -- ``make_tiled_copy_A/B`` of
  ``SM75_U32x{1,2,4}_LDSM_N`` (``t``: ``SM75_U16x{2,4,8}_LDSM_T``) over ``make_tiled_mma(atom, (M,N,K))``;
  without ``x..`` the widest of x4, x2, x1 the tiled MMA admits. The smem side is the source. 16-byte rows,
  8-thread phases. E.g. ``ldmatrix:A:SM80_16x8x16_F32F16F16F32_TN:2x2x1``.
* ``stmatrix:<MMA atom>:<M>x<N>x<K>[:x1|x2|x4][:t]`` -- ``make_tiled_copy_C`` of ``SM90_U32x{1,2,4}_STSM_N``
  (``t``: ``SM90_U16x{2,4,8}_STSM_T``) over the tiled MMA's accumulator tile ``(M, N)`` (an epilogue or FA3's
  P written to shared memory); the smem side is the destination. Same phases as ldmatrix.
* ``cp_async:<32|64|128>:thr=<layout>[:val=<layout>]`` -- ``make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS
  <uint{bits}_t>>, thr, val)``; ``val`` defaults to ``(1, bits / element bits)`` (a vector along K). The
  smem side is the destination. E.g. ``cp_async:128:thr=(16,8):(8,1)``.
* ``tv:[<bytes>|auto:]<layout>`` -- a plain TV layout ``(thread, value) -> tile index`` with a fixed vector
  width in bytes, or the widest (``auto``, the default). E.g. ``tv:16:((8,16),8):((64,1),8)``.
* ``tma`` -- a TMA box write (the box CUTLASS derives from the layout, ``hardware.tma_box``).
* ``wgmma:<A|B>[:K|MN]`` / ``umma:<A|B>[:K|MN]`` -- the operand read through a matrix descriptor (default K-major).

Objects are accepted too: a ``TiledCopy`` (smem side: destination for writes, source for reads; the width is
the atom's bits per thread on that side, at most 16 bytes), a TV ``Layout`` (auto width), a pair
``(Layout, bytes)``, or an :class:`Access`. Bad input is a :class:`SynthError` naming the access and the field.
"""
from __future__ import annotations

import re

from ..algebra import composition
from ..atoms import (
    TiledCopy,
    make_tiled_copy_A,
    make_tiled_copy_B,
    make_tiled_copy_C,
    make_tiled_copy_tv,
    make_tiled_mma,
)
from ..core.layout import Layout, make_layout, size
from ..core.notation.interop import as_layout
from ..core.notation.tiles import read_extents
from ..core.swizzle import ComposedLayout
from ..core.tuples import flatten
from ..errors import CuteVerifyError, SynthError
from ..hardware.library.dtypes import dtype_bits

__all__ = ["CONSUMERS", "Access", "access_kind", "natural_role", "normalize_accesses", "parse_access"]

#: consumers a problem may require (``require=[...]``)
CONSUMERS = ("tma", "gmma", "umma")
_DTYPE_CPP = {8: "uint8_t", 16: "half_t", 32: "float"}
#: a CTA's thread limit, and the most (thread, value) entries of one access (enumerated as int64 tables: 2**22
#: is 32 MiB each, 16x the largest tile synthesized)
MAX_THREADS = 1024
MAX_ACCESS_ENTRIES = 1 << 22


class Access:
    """One normalized access. ``name``: its text; ``role``: ``"write"`` / ``"read"``; ``kind``: ``"threads"``
    or a consumer (``"tma"``, ``"gmma"``, ``"umma"``). Thread accesses: ``tv`` (over the whole tile),
    ``vector_bytes`` (None: widest), ``phases`` (None or ``"ldmatrix"``). Consumers: ``major`` (``"K"``,
    ``"MN"`` or None) and ``operand``."""

    __slots__ = ("kind", "major", "name", "operand", "phases", "role", "tv", "vector_bytes")

    def __init__(self, name, role, kind, tv=None, vector_bytes=None, phases=None, major=None, operand=None):
        self.name, self.role, self.kind = name, role, kind
        self.tv, self.vector_bytes, self.phases = tv, vector_bytes, phases
        self.major, self.operand = major, operand

    @property
    def threads(self):
        return self.kind == "threads"

    def __repr__(self):
        return f"Access({self.role} {self.name})"


def _fail(name, field, why):
    raise SynthError(f"access {name!r}: {field}: {why}")


def _layout_text(name, field, text):
    try:
        return as_layout(text, f"{field} of access {name!r}")
    except CuteVerifyError as e:
        _fail(name, field, str(e))


def _fields(rest):
    """Split ``a:b:key=(4,8):(8,1):key2=...`` into positional fields and keyed ones (a keyed layout absorbs
    the following fields up to the next ``key=``, so its own colon stays)."""
    pos, keyed, cur = [], {}, None
    for tok in _split_colons(rest) if rest else []:
        m = re.fullmatch(r"([a-z_]+)=(.*)", tok.strip())
        if m:
            cur = m.group(1)
            keyed[cur] = m.group(2)
        elif cur is not None:
            keyed[cur] += ":" + tok
        else:
            pos.append(tok.strip())
    return pos, keyed


def _split_colons(text):
    """``text`` split at the colons outside ``<...>`` (a CUTLASS name keeps ``GMMA::Major::K``) and outside
    ``::`` pairs."""
    out, cur, depth, i = [], [], 0, 0
    while i < len(text):
        ch = text[i]
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        if ch == ":" and depth == 0 and not text.startswith("::", i):
            out.append("".join(cur))
            cur = []
        elif ch == ":" and text.startswith("::", i):
            cur.append("::")
            i += 1
        else:
            cur.append(ch)
        i += 1
    out.append("".join(cur))
    return out


def _warps(name, text):
    try:  # the one extents reader: 2x2x1, (2,2,1)
        warps = read_extents(text, "atom layout")
    except CuteVerifyError:
        warps = ()
    if len(warps) not in (2, 3):
        _fail(name, "atom layout", f"{text!r} is not <M>x<N>x<K> (e.g. 2x2x1)")
    return warps


#: each text form's kind and the role it plays on the smem tile when none is given (a copy's smem side)
_KINDS = {"tma": "tma", "wgmma": "gmma", "gmma": "gmma", "umma": "umma", "tcgen05": "umma", "ldmatrix": "ldmatrix",
          "stmatrix": "stmatrix", "cp_async": "cp_async", "cpasync": "cp_async", "tv": "tv"}
_WRITES = ("tma", "stmatrix", "cp_async")


def access_kind(text):
    """The kind of access a text form names (``ldmatrix``, ``stmatrix``, ``cp_async``, ``tv``, ``tma``, ``gmma``,
    ``umma``), or None when ``text`` starts with no access kind (a bare layout, for instance).

    Admissible: any value (a non-string names no kind). Post-condition: :func:`parse_access` reads ``text`` as
    an access exactly when this is not None."""
    if not isinstance(text, str):
        return None
    head = text.strip().partition(":")[0].lower().replace("-", "_").replace(".", "_")
    return _KINDS.get(head)


def natural_role(kind):
    """``"write"`` for the kinds that fill the smem tile (``cp_async``, ``stmatrix``, ``tma``), else ``"read"``:
    the role :func:`parse_access` takes when the caller states none (``cuteverify banks --access``)."""
    return "write" if kind in _WRITES else "read"


def parse_access(text, role, tile, dtype):
    """The :class:`Access` a text form names (module docstring), over ``tile`` (MN, K) of ``dtype``."""
    if not isinstance(text, str) or not text.strip():
        raise SynthError(f"access {text!r}: expected a text form such as 'cp_async:128:thr=(16,8):(8,1)'")
    name = text.strip()
    head, _, rest = name.partition(":")
    kind = access_kind(name)  # the one reader of the head: banks --access asks it too
    if kind == "tma":
        if rest:
            _fail(name, "tma", f"takes no fields (the box is the one CUTLASS derives), got {rest!r}")
        return Access(name, role, "tma")
    if kind in ("gmma", "umma"):
        pos, _ = _fields(rest)
        op = (pos[0].upper() if pos else "A")
        if op not in ("A", "B"):
            _fail(name, "operand", f"{op!r}: A or B")
        major = pos[1].upper() if len(pos) > 1 else "K"
        if major not in ("K", "MN"):
            _fail(name, "major", f"{pos[1]!r}: K or MN")
        return Access(name, role, kind, major=major, operand=op)
    if kind == "ldmatrix":
        return _ldmatrix(name, role, rest, tile, dtype)
    if kind == "stmatrix":
        return _stmatrix(name, role, rest, tile, dtype)
    if kind == "cp_async":
        return _cp_async(name, role, rest, tile, dtype)
    if kind == "tv":
        width, lay = None, rest
        first, sep, more = rest.partition(":")
        if sep and (first.strip().isdigit() or first.strip().lower() == "auto"):
            width = None if first.strip().lower() == "auto" else int(first)
            lay = more
        if not lay.strip():
            _fail(name, "layout", "missing (tv:[<bytes>:]<layout>)")
        L = _layout_text(name, "layout", lay)
        return _threads(name, role, L, width, None, tile)
    raise SynthError(f"access {name!r}: unknown kind {head.strip()!r} (ldmatrix, stmatrix, cp_async, tv, tma, wgmma, "
                     "umma)")


def _ldmatrix(name, role, rest, tile, dtype):
    pos, _ = _fields(rest)
    if len(pos) < 3:
        _fail(name, "fields", "expected ldmatrix:<A|B>:<MMA atom>:<M>x<N>x<K>[:x1|x2|x4][:t]")
    op = pos[0].upper()
    if op not in ("A", "B"):
        _fail(name, "operand", f"{pos[0]!r}: A or B")
    make = make_tiled_copy_A if op == "A" else make_tiled_copy_B
    return _matrix_copy(name, role, pos[1:], tile, dtype, make, ("SM75_U16x{}_LDSM_T", "SM75_U32x{}_LDSM_N"),
                        "no ldmatrix atom fits the tiled MMA")


def _stmatrix(name, role, rest, tile, dtype):
    pos, _ = _fields(rest)
    if len(pos) < 2:
        _fail(name, "fields", "expected stmatrix:<MMA atom>:<M>x<N>x<K>[:x1|x2|x4][:t]")
    return _matrix_copy(name, role, pos, tile, dtype, make_tiled_copy_C, ("SM90_U16x{}_STSM_T", "SM90_U32x{}_STSM_N"),
                        "no stmatrix atom fits the tiled MMA's accumulator")


def _matrix_copy(name, role, pos, tile, dtype, make, names, none_fits):
    """ldmatrix / stmatrix: ``pos`` = atom, warps, options (``x1|x2|x4``, ``t``); the copy ``make`` builds over
    the tiled MMA with the widest atom of ``names`` (transposed, plain) that fits, or the one asked for."""
    atom, warps = pos[0], _warps(name, pos[1])
    count, trans = None, False
    for p in pos[2:]:
        if p.lower() in ("x1", "x2", "x4"):
            count = int(p[1])
        elif p.lower() in ("t", "trans"):
            trans = True
        else:
            _fail(name, "option", f"{p!r}: x1, x2, x4 or t")
    try:
        mma = make_tiled_mma(atom, warps)
    except CuteVerifyError as e:
        _fail(name, "MMA", str(e))
    last = None
    for n in ((count,) if count else (4, 2, 1)):
        cname = names[0].format(2 * n) if trans else names[1].format(n)
        try:
            tc = make(cname, mma, dtype)
            break
        except CuteVerifyError as e:
            last = e
    else:
        _fail(name, "copy atom", f"{none_fits} ({last})")
    return _from_tiled_copy(name, role, tc, tile, dtype)


def _cp_async(name, role, rest, tile, dtype):
    pos, keyed = _fields(rest)
    if not pos or pos[0] not in ("32", "64", "128"):
        _fail(name, "bits", f"{pos[0] if pos else 'missing'}: 32, 64 or 128 (cp_async:<bits>:thr=<layout>)")
    bits = int(pos[0])
    eb = dtype_bits(dtype)
    if bits % eb:
        _fail(name, "bits", f"{bits} bits are not a whole number of {eb}-bit elements")
    if "thr" not in keyed:
        _fail(name, "thr", "missing (e.g. thr=(16,8):(8,1))")
    unknown = set(keyed) - {"thr", "val"}
    if unknown:
        _fail(name, min(unknown), "unknown field (thr, val)")
    thr = _layout_text(name, "thr", keyed["thr"])
    val = _layout_text(name, "val", keyed["val"]) if "val" in keyed else Layout((1, bits // eb))
    try:
        tc = make_tiled_copy_tv(f"SM80_CP_ASYNC_CACHEALWAYS<uint{bits}_t>", thr, val, dtype)
    except CuteVerifyError as e:
        _fail(name, "tiled copy", str(e))
    return _from_tiled_copy(name, role, tc, tile, dtype)


def _scale(stride, k):
    if isinstance(stride, tuple):
        return tuple(_scale(s, k) for s in stride)
    return stride * k


def _from_tiled_copy(name, role, tc, tile, dtype):
    side = "dst" if role == "write" else "src"
    tv = tc.layout_tv(side)
    bl = tc.bit_layout_dst if side == "dst" else tc.bit_layout_src
    per = size(bl.shape[1]) if isinstance(bl.shape, tuple) and len(bl.shape) > 1 else 1
    width = min(16, max(dtype_bits(dtype), per) // 8)
    ptx = (getattr(tc.spec, "ptx", "") or "").lower() if tc.spec is not None else ""
    phases = "ldmatrix" if ptx.startswith(("ldmatrix", "stmatrix")) else None
    tm, tk = (size(t) for t in tc.tiler_mn[:2]) if len(tc.tiler_mn) >= 2 else (None, None)
    if tm is None:
        _fail(name, "tiled copy", f"a rank-2 tile (MN, K) is needed, the copy's tiler is {tc.tiler_mn}")
    M = tile[0]
    t0, t1 = tc.tiler_mn[0], tc.tiler_mn[1]
    place = Layout((t0.shape, t1.shape), (t0.stride, _scale(t1.stride, M)))
    return _threads(name, role, composition(place, tv), width, phases, tile, (tm, tk))


def _threads(name, role, tv, width, phases, tile, block=None):
    if isinstance(tv, ComposedLayout) or not isinstance(tv, Layout):
        _fail(name, "layout", f"a TV layout (thread, value) -> tile index is needed, got {tv}")
    if not getattr(tv, "is_concrete", True) or any(type(x) is not int for x in flatten((tv.shape, tv.stride))):
        _fail(name, "layout", f"{tv}: a concrete layout with integer shapes and strides (tile indices m + MN*k) is "
                              "needed")
    if not (isinstance(tv.shape, tuple) and len(tv.shape) == 2):
        tv = make_layout(tv, Layout(1, 0))
    M, K = tile
    n = M * K
    if block is not None:
        bm, bk = block
        if M % bm or K % bk:
            _fail(name, "tile", f"the access covers a {bm}x{bk} tile, which does not divide the {M}x{K} smem tile")
        if (bm, bk) != (M, K):
            reps = Layout((M // bm, K // bk), (bm, M * bk))
            tv = make_layout(tv[0], make_layout(tv[1], reps))
    if width is not None and (width not in (1, 2, 4, 8, 16)):
        _fail(name, "width", f"{width} bytes: a power of two up to 16")
    nt = size(tv.shape[0])
    if nt > MAX_THREADS:
        _fail(name, "layout", f"{nt} threads: a CTA has at most {MAX_THREADS}")
    if size(tv) > MAX_ACCESS_ENTRIES:
        _fail(name, "layout", f"{size(tv)} (thread, value) entries, past the limit of {MAX_ACCESS_ENTRIES} (2**22)")
    vals = tv.values()
    if len(vals) and (min(vals) < 0 or max(vals) >= n):
        _fail(name, "layout", f"reaches tile index {max(vals)}, outside the {M}x{K} tile ({n} elements)")
    return Access(name, role, "threads", tv=tv, vector_bytes=width, phases=phases)


def normalize_accesses(writes, reads, tile, dtype):
    """``[Access]`` for the problem's writes then reads (each a text form or an object, module docstring)."""
    out = []
    for role, items in (("write", writes), ("read", reads)):
        if items is None:
            continue
        if isinstance(items, (str, Access, TiledCopy, Layout)):
            items = [items]
        if not isinstance(items, (list, tuple)):
            raise SynthError(f"{role}s: a list of accesses (text forms, TiledCopy objects, TV layouts), got {items!r}")
        for x in items:
            out.append(_one(x, role, tile, dtype))
    return out


def _one(x, role, tile, dtype):
    if isinstance(x, Access):
        return x
    if isinstance(x, str):
        return parse_access(x, role, tile, dtype)
    if isinstance(x, TiledCopy):
        return _from_tiled_copy(repr(x), role, x, tile, dtype)
    if isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], Layout):
        return _threads(str(x[0]), role, x[0], x[1], None, tile)
    if isinstance(x, Layout):
        return _threads(str(x), role, x, None, None, tile)
    raise SynthError(f"access {x!r}: expected a text form, a TiledCopy, a TV Layout or (Layout, bytes)")
