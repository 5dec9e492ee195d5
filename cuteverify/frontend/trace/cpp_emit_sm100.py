"""The Blackwell (SM100) part of a captured CUTLASS C++ launch as manifest claims (issue 29), beside
:mod:`.cpp_emit_storage`: the launch's cluster, multicast and 2-SM TMA atoms, tensor memory. The claim kinds are
``trace check``'s for the same objects in DSL kernels (:mod:`.emit_tma`, :mod:`.emit_smem`, :mod:`.emit_copy`);
the records are :mod:`.cpp_replay`'s.

* **cluster**: the kernel argument whose layout the body indexes by ``block_rank_in_cluster()``
  (``cluster_layout_vmnk = tiled_divide(make_layout(cluster_shape), ...)``) is the launch's cluster
  (``params.cluster_dims``, or the config's cluster attribute): ``equal`` of the two shapes' identity layouts
  (``(4,4,1):(1@0,1@1,1@2)``: the same extent along each cluster dimension), ``at`` that argument;
* **multicast / 2-SM TMA atoms** (``make_tma_atom(SM90_TMA_LOAD_MULTICAST{}, G, S, TILER, N)``,
  ``make_tma_atom_A|B_sm100(SM100_TMA_2SM_LOAD[_MULTICAST]{}, G, S, MMA_TILER, MMA, CLUSTER_VMNK)``): the
  ``tma_atom`` claim as :mod:`.cpp_emit_sm90` writes it for Hopper (gmem with its runtime extents and strides as
  symbols, the smem layout in elements read by the 1-D index of ``cta_v_map``, CuTe's ``cta_v_map`` and box),
  with ``kind`` (``sm_90_multicast``, ``sm_100_2sm``, ``sm_100_2sm_multicast``), ``multicast`` (the count the
  host passed, or CuTe's from the cluster layout) and ``cluster`` (the launch's), so the multicast spans one
  cluster dimension and a 2-SM copy a CTA pair; and ``equal`` of the smem layout it was made for with the
  storage layout the kernel's ``tma_partition`` writes;
* **tensor memory**: ``tmem_alloc`` of the body's ``allocate(COLUMNS, &base)`` (its column count printed;
  ``two_cta`` for ``Allocator2Sm``), ``tmem_view`` of the accumulator (``make_fragment_C``) whose ``.data()`` the
  body sets to that base, and of each TMEM tensor computed from that accumulator, declared after the
  ``.data()`` statement, that a TMEM copy partitions (its printed address is its offset from the accumulator's);
  for each ``make_tmem_copy`` the tiled copy entry ``make_tiled_copy(SM100_TMEM_LOAD_..., TV, TILER, dtype)`` with
  ``covers``, the atom and tiled differentials with CuTe's printed layouts, and the partition differential of
  each ``partition_S`` (cuteverify's ``get_slice(0).partition_S(L)`` of the printed TMEM tensor equals CuTe's
  printed one).

What the records do not give (no cluster printed, a replay that did not compile, a tensor whose base is not the
allocation's) is an unknown with the reason. Post-condition: :func:`emit_sm100` returns what it covered (atom
argument indices, accumulator and copy variables) so that :mod:`.cpp_emit_storage` reports no unknown for them.
"""
from __future__ import annotations

import re

from ...errors import CuteVerifyError
from .cpp_emit_sm90 import gmem_symbols, tma_smem_text
from .cpp_flow_sm90 import TMA
from .cpp_read import dtype_name, read_printed, template_args, tile_text
from .cpp_replay import CLUSTER
from .mlir import Loc

__all__ = ["emit_sm100", "TMA_KINDS", "colmajor"]

#: CuTe's TMA operation -> the tma_atom claim's kind
TMA_KINDS = {"SM90_TMA_LOAD_MULTICAST": "sm_90_multicast", "SM100_TMA_2SM_LOAD": "sm_100_2sm",
             "SM100_TMA_2SM_LOAD_MULTICAST": "sm_100_2sm_multicast"}
_TMEM = re.compile(r"^tmem_\[(\d+)b\]\((0x[0-9a-fA-F.]+)\)\s*o\s*(.+)$", re.S)


def _strip(text: str) -> str:
    return re.sub(r"(?<![\w])_(\d+)", r"\1", text)


def colmajor(shape_text: str) -> str:
    """The compact column-major layout of a printed (possibly nested) shape: ``((128,16),1,4)`` ->
    ``((128,16),1,4):((1,128),2048,2048)``."""
    acc = [1]

    def strides(t):
        out, i = [], 0
        while i < len(t):
            c = t[i]
            if c.isdigit():
                j = i
                while j < len(t) and t[j].isdigit():
                    j += 1
                out.append(str(acc[0]))
                acc[0] *= int(t[i:j])
                i = j
            else:
                out.append(c)
                i += 1
        return "".join(out)
    shape = _strip(shape_text).replace(" ", "")
    return f"{shape}:{strides(shape)}"


def _ints(text: str) -> list | None:
    body = _strip(text).strip()
    m = re.fullmatch(r"\((\d+(?:,\d+)*)\)", body.replace(" ", ""))
    return [int(x) for x in m.group(1).split(",")] if m else None


def _identity(ext: list) -> str:
    return "(" + ",".join(map(str, ext)) + "):(" + ",".join(f"1@{i}" for i in range(len(ext))) + ")"


class _Sm100:
    def __init__(self, la, sflow, lay_of):
        self.la, self.sflow, self.lay_of = la, sflow, lay_of
        self.plan = getattr(sflow, "replay", None)
        self.by = {r.index: r for r in la.recs}
        self.extra = la.extra
        self.handled: set = set()
        self.launch_line = int(la.recs[0].at.rsplit(":", 1)[1]) if la.recs else 0
        rec = self.extra.get(CLUSTER)
        self.cluster = _ints(rec.text) if rec is not None else None

    def err(self) -> str:
        """Why the capture printed none of cpp_replay's objects, when it says (its build without them)."""
        e = getattr(self.sflow, "replay_error", None)  # one line: the manifest's header comments quote it
        return f" (the capture's Blackwell prints did not compile: {' '.join(e.split())})" if e else ""

    def body_loc(self, line, stmt=""):
        return Loc(self.la.path, self.launch_line, None, f"{self.sflow.kernel} body, {self.la.path}:{line}"
                   + (f": {stmt}" if stmt else ""))

    # --------------------------------------------------------------------------------------------- cluster
    def cluster_arg(self):
        ci = self.plan.cluster_param if self.plan else None
        r = self.by.get(ci) if ci is not None else None
        if r is None:
            return
        loc = self.la.loc(r)
        ext = _ints(r.text)
        rec = self.extra.get(CLUSTER)
        if ext is None or self.cluster is None:
            why = ("the launch's cluster is not printed" + ("" if self.err() else " (a `<<<...>>>` launch states none)")
                   if rec is None else
                   f"the cluster {rec.text} / argument {r.text} is no flat shape of integers")
            self.la.doc.unknown(f"argument {ci} `{r.source}` as the launch's cluster", loc, why + self.err())
            return
        a = self.la.doc.layout(f"{r.source}_cluster", _identity(ext), loc)
        b = self.la.doc.layout("launch_cluster", _identity(self.cluster), loc)
        cfg = rec.source.split(": ", 1)[1]
        self.la.doc.claim({"equal": [a, b]}, loc, name=f"{r.source} (the shape the kernel indexes "
                          f"block_rank_in_cluster() by) is the launch's cluster {_strip(rec.text)} (of `{cfg}`)")

    # ----------------------------------------------------------------------------------------- TMA atoms
    def tma_atom(self, atom_i, r, p, written: list, via: str) -> bool:
        """The tma_atom claim of a multicast / 2-SM atom argument (module docstring); False for another atom."""
        parts = [self.extra.get(TMA + 10 * atom_i + k) for k in range(5)]
        op = p.op or ""
        if op.startswith("Copy_Traits<"):
            op = (template_args(op, "Copy_Traits") or [op])[0]
        base = op.split("<", 1)[0].split("::")[-1]
        if base not in TMA_KINDS:
            return False
        loc = self.la.loc(r)
        self.handled.add(atom_i)
        self.la.used.add(atom_i)
        missing = [k for k, x in zip(("gmem", "smem", "cta_v_map", "gbasis", "multicast"), parts) if x is None]
        if missing or self.cluster is None:
            why = (f"its host call's {', '.join(missing)} were not printed (make_tma_atom(OP, G, S, TILER, N) or "
                   "make_tma_atom_A|B_sm100(OP, G, S, MMA_TILER, MMA, CLUSTER_VMNK) before the launch, operands in "
                   "scope)" if missing else "the launch's cluster is not printed: the multicast is not checked "
                   "against one")
            self.la.doc.unknown(f"argument {atom_i} `{r.source}`", loc, f"a {base} atom: {why}{self.err()}")
            return True
        try:
            self._tma_claims(atom_i, r, p, base, parts, written, loc, via)
        except CuteVerifyError as e:
            self.la.doc.unknown(f"argument {atom_i} `{r.source}`", loc, f"a {base} atom: {e}")
        return True

    def _tma_claims(self, atom_i, r, p, base, parts, written, loc, via):
        g, s, c, gb, mc = parts
        args = template_args(r.type, "Copy_Atom") or []
        dtype = dtype_name(args[-1]) if args else None
        if dtype is None:
            raise CuteVerifyError(f"the element type of {r.type[:80]} is not mapped")
        bits = int(p.atom["ValueType"].rstrip("b"))
        div = 128 // bits if bits < 128 and 128 % bits == 0 else 1
        gtext = gmem_symbols(g.text, r.source, div)
        doc = self.la.doc
        gmem = doc.layout(f"g_{r.source}", gtext, loc)
        if "?" in gtext:
            doc.note(f"runtime extents and strides of `{g.source.split(': ', 1)[1]}`", loc,
                     f"symbols {gtext}: the strides are assumed multiples of 16 bytes ({div} elements), as "
                     "make_tma_copy_desc asserts and cuTensorMapEncodeTiled requires on the host at run time: a "
                     "precondition, not checked here")
        cta_text = _strip(c.text)
        s0 = doc.layout(f"s_{r.source}", tma_smem_text(s.text, s.type, bits), loc)
        # CuTe's TMA reads the smem layout by the 1-D index of cta_v_map's domain (construct_tma_gbasis composes
        # cta_v_map with the smem layout's right inverse): the smem tile is that composition, mode by mode
        shape = cta_text.split(":", 1)[0]
        smem = doc.layout(f"s_{r.source}_tile", f"composition({s0}, {colmajor(shape)})", loc)
        cta = doc.layout(f"cta_v_map_{r.source}", cta_text, loc)
        n = 1 if base == "SM100_TMA_2SM_LOAD" else _ints(f"({_strip(mc.text)})")
        if n is None:
            raise CuteVerifyError(f"its multicast count `{mc.source.split(': ', 1)[1]}` = {mc.text} is no integer")
        n = n if isinstance(n, int) else n[0]
        body = {"op": "load", "kind": TMA_KINDS[base], "dtype": dtype, "gmem": gmem, "smem": smem,
                "cta_v_map": cta, "multicast": n, "arch": "sm_100", "cluster": list(self.cluster),
                "gbasis": _strip(gb.text)}
        doc.claim({"tma_atom": body}, loc, name=f"{r.source} ({base}, multicast {n} over the launch's cluster "
                  f"{tuple(self.cluster)}): the TMA descriptor's rules, CuTe's box, the cluster's CTAs")
        for w in written:
            doc.claim({"equal": [s0, w]}, loc, name=f"the smem layout {r.source} was made for is the one the "
                      f"kernel writes with it ({via})")

    # -------------------------------------------------------------------------------------- tensor memory
    def tmem(self):
        plan = self.plan
        if plan is None:
            return
        recs = {it.index: self.extra.get(it.index) for it in plan.items}
        for v, line, stmt, why in plan.skipped:
            self.la.doc.unknown(stmt, self.body_loc(line), f"`{v}` is not replayed on the host: {why}")
        if plan.items and all(x is None for x in recs.values()):
            for it in plan.items:
                if it.kind in ("acc", "tmem_copy"):
                    self.handled |= {it.name, ("line", it.line)}
                    self.la.doc.unknown(it.stmt, self.body_loc(it.line), "the host capture did not print it"
                                        + self.err())
            return
        columns = self.alloc(recs)
        layouts = {}
        for it in plan.items:
            if it.kind in ("acc", "tmem_tensor", "tmem_part") and recs[it.index] is not None:
                m = _TMEM.match(" ".join(recs[it.index].text.split()))
                layouts[it.name] = (m, it)
        for it in plan.items:
            if it.kind in ("acc", "tmem_tensor"):
                self.handled |= {it.name, ("line", it.line)}
                self.view(it, layouts.get(it.name), columns)
        for it in plan.items:
            if it.kind == "tmem_copy":
                self.handled.add(it.name)
                self.copy(it, recs[it.index], layouts)

    def alloc(self, recs):
        cols = next((it for it in self.plan.items if it.kind == "tmem_columns"), None)
        if cols is None:
            return None
        loc = self.body_loc(cols.line, cols.stmt)
        rec = recs.get(cols.index)
        if rec is None or not rec.text.strip().isdigit():
            self.la.doc.unknown(cols.stmt, loc, f"its column count {cols.name} was not printed as an integer")
            return None
        n = int(rec.text.strip())
        alloc = next((recs.get(it.index) for it in self.plan.items if it.kind == "tmem_allocator"), None)
        body = {"columns": n}
        if alloc is not None and "Allocator2Sm" in alloc.type:
            body["two_cta"] = True
        self.la.doc.claim({"tmem_alloc": body}, loc, name=f"{cols.stmt}: {n} columns"
                          + (" (the CTA pair's allocator)" if body.get("two_cta") else ""))
        return n

    def view(self, it, got, columns):
        loc = self.body_loc(it.line, it.stmt)
        m = got[0] if got else None
        if m is None:
            self.la.doc.unknown(it.stmt, loc, "the host capture did not print it as a TMEM tensor")
            return
        placed = {v: ln for v, (base, ln) in self.plan.placed.items() if base == self.plan.alloc_base}
        acc = next((a for a in self.plan.items if a.kind == "acc" and a.name in placed), None)
        addr = int(m.group(2).replace(".", ""), 16)
        if columns is None or acc is None or (it.kind == "acc" and it.name != acc.name) or \
                (it.kind != "acc" and (it.of != acc.name or it.since <= placed[acc.name])):
            self.la.doc.unknown(it.stmt, loc, "its base is not placed in the allocation (no `.data() = base` of "
                                "the accumulator it is computed from, with base the address allocate(COLUMNS, "
                                "&base) writes, before it)" if columns is not None else
                                "no tcgen05.alloc with a printed column count")
            return
        bits = int(m.group(1))
        if (addr * 32) % bits:
            self.la.doc.unknown(it.stmt, loc, f"its address {m.group(2)} is not whole {bits}-bit elements")
            return
        name = self.la.doc.layout(f"{it.name}_tmem", _strip(m.group(3)), loc)
        self.la.doc.claim({"tmem_view": {"layout": name, "elem_bits": bits, "offset": addr * 32 // bits,
                                         "columns": columns}}, loc,
                          name=f"`{it.name}` lies in the {columns} allocated columns (its base the allocation's: "
                               f"{self.la.path}:{placed[acc.name]})")

    def copy(self, it, rec, layouts):
        loc = self.body_loc(it.line, it.stmt)
        if rec is None:
            self.la.doc.unknown(it.stmt, loc, "the host capture did not print this TMEM copy")
            return
        try:
            p = read_printed(rec.text, rec.type)
        except CuteVerifyError as e:
            self.la.doc.unknown(it.stmt, loc, str(e))
            return
        op = (p.op or "").split("::")[-1]
        if p.kind != "tiled_copy" or p.dtype is None or not op.startswith("SM100_TMEM_"):
            self.la.doc.unknown(it.stmt, loc, f"{rec.type[:80]}: not a TMEM tiled copy of a mapped element type")
            return
        text = (f'make_tiled_copy({op}, "{_strip(p.fields["TiledLayout_TV"])}", '
                f'"{tile_text(p.fields["Tiler_MN"])}", {p.dtype})')
        name = self.la.doc.layout(it.name, text, loc)
        self.la.doc.claim({"covers": {"tiled_copy": name}}, loc)
        self.la.atom_differential(name, p, loc, it.name)
        self.la.tiled_differential(name, p, loc, it.name)
        for part in self.plan.items:
            if part.kind != "tmem_part" or part.by != it.name:
                continue
            src, out = layouts.get(part.of), layouts.get(part.name)
            ploc = self.body_loc(part.line, part.stmt)
            if not src or not out or src[0] is None or out[0] is None:
                self.la.doc.unknown(part.stmt, ploc, f"`{part.of}` or its partition was not printed")
                continue
            lhs = self.la.doc.layout(f"{part.name}_in", _strip(src[0].group(3)), ploc)
            a = self.la.doc.layout(f"{part.name}_cv", f"{name}.get_slice(0).partition_S({lhs}).layout", ploc)
            b = self.la.doc.layout(f"{part.name}_cute", _strip(out[0].group(3)), ploc)
            self.la.doc.claim({"equal": [a, b]}, ploc, name=f"cuteverify's partition_S of `{part.of}` by "
                              f"{it.name} (thread 0) is CuTe's `{part.name}`")


def emit_sm100(la, sflow, lay_of: dict) -> set:
    """Add the SM100 claims of one launch (module docstring) to its document; ``lay_of``: the storage tensors'
    entries (tensor variable -> (entry, loc, bits) or None) of :func:`.cpp_emit_storage.emit_storage`. Returns
    what it covered: TMA atom argument indices, TMEM variables, and ``("line", N)`` for each accumulator
    statement's body line."""
    if sflow is None:
        return set()
    e = _Sm100(la, sflow, lay_of)
    e.cluster_arg()
    for atom_i, names, line, stmt in sflow.tma_writes:
        r, p = e.by.get(atom_i), la.printed.get(atom_i)
        written = [lay_of[n][0] for n in names if lay_of.get(n)]
        if r is None or p is None or p.kind != "copy_atom" or not written:
            continue
        e.tma_atom(atom_i, r, p, written, f"{la.path}:{line}: {stmt}")
    e.tmem()
    return e.handled
