"""A captured CUTLASS C++ launch as a manifest document (issue 29): one :class:`~.document.Doc` per launch an
entry reached, every argument mapped to entries and claims ``at`` the launch (``FILE:LINE: KERNEL argument I
`SOURCE```), or to a note / unknown saying why nothing applies.

Per argument (:mod:`.cpp_read`'s kinds):

* a tiled MMA: ``make_tiled_mma(OP, atom layout, [permutation])`` with ``agrees`` and ``covers`` for A, B, C,
  and the differential ``equal`` of cuteverify's ``thr_layout_vmnk`` and atom TV layouts with the printed ones;
* a tiled copy: ``make_tiled_copy(OP, "TV", "TILER", dtype)`` with ``covers``, and ``equal`` of cuteverify's
  atom value layouts (``layout_src_tv`` / ``dst`` / ``ref``) with the printed ``ValLayoutSrc/Dst/Ref``;
* a copy atom: the same atom differential; where the kernel body tiles it after the MMA
  (``make_tiled_copy_A|B|C(atom, mma)``, :mod:`.cpp_flow`), the entry ``make_tiled_copy_A(OP, mma, dtype)``
  and ``compatible: {copy, tiled_mma, operand}``;
* a static layout the kernel body lays shared memory out with (``make_tensor(make_smem_ptr(...), L)``):
  ``injective``; for each copy the body partitions that tensor with (``partition_S`` / ``partition_D``),
  ``banks`` and ``vector`` of the copy through the layout on that side (the layout is the tensor's own,
  element offsets from its pointer: the swizzle is CuTe C++'s layout swizzle, so any base aligned to the
  access gives the same banks and no ``align`` is stated). A side that is registers (ldmatrix's destination)
  has no smem access;
* a runtime value (a dynamic shape or stride, a scalar, a pointer) and a static layout the body does not lay
  shared memory out with: a note (``n/a``) naming why, its runtime integer leaves as symbols (a layout with
  them also an entry: :mod:`.cpp_gmem`, :mod:`.cpp_symbols`); a value that cannot be read: unknown;
* a tiled copy the body partitions a gmem tensor with (``local_tile`` of ``make_tensor(make_gmem_ptr(...),
  shape, stride)``): ``vector`` over it for every size, or an unknown naming the obligation (:mod:`.cpp_gmem`).

Post-condition: every record of the capture is in exactly one claim's ``at``, note or unknown of its Doc.
"""
from __future__ import annotations

import re

from ...errors import CuteVerifyError
from ...hardware.library import catalog
from .cpp_capture import BUILT
from .cpp_flow import Flow
from .cpp_gmem import emit_gmem, note_runtime
from .cpp_symbols import Symbols
from .cpp_emit_storage import emit_storage
from .cpp_emit_sm90 import emit_sm90, lower_flagged
from .cpp_read import Printed, read_printed, tile_text
from .document import Doc
from .mlir import Loc

__all__ = ["emit_launch", "atom_layout_mnk", "LaunchEmitter", "mem_bytes", "strip_static", "REGISTER_SIDE"]

_LETTER_OPERAND = {"A": "A", "B": "B", "C": "C"}
# the side of a copy atom that is registers: a partition of an smem tensor on that side is no smem access
REGISTER_SIDE = (("_LDSM_", "dst"), ("_STSM_", "src"))
_FLAT = re.compile(r"^\(([^()]*)\):\(([^()]*)\)$")


def _ints(csv: str) -> list:
    return [int(x.strip().lstrip("_")) for x in csv.split(",")]


def atom_layout_mnk(vmnk: str) -> str:
    """The atom layout ``(M,N,K):(m,n,k)`` of a printed ``ThrLayoutVMNK`` ``(V,M,N,K):(v,m,n,k)``: CuTe builds
    it as the atom's threads ``V:1`` times the atom layout, so the atom strides are the printed ones over ``V``.
    Raises CuteVerifyError when the printed layout is not of that flat form."""
    m = _FLAT.match(vmnk.replace(" ", ""))
    if m is None:
        raise CuteVerifyError(f"ThrLayoutVMNK {vmnk}: only a flat (V,M,N,K):(1,m,n,k) is read")
    shape, stride = _ints(m.group(1)), _ints(m.group(2))
    v = shape[0]
    if v == 1:  # a one-thread atom (UniversalFMA): CuTe prints its thread mode as _1:_0
        stride[0] = 1
    if len(shape) != 4 or stride[0] != 1 or any(s % v for s in stride[1:]):
        raise CuteVerifyError(f"ThrLayoutVMNK {vmnk}: not the atom's V:1 threads times an atom layout")
    return "(" + ",".join(map(str, shape[1:])) + "):(" + ",".join(str(s // v) for s in stride[1:]) + ")"


def mem_bytes(op: str, dtype_bits: int) -> int:
    """Bytes each thread moves contiguously on the memory side of one atom issue (what ``vector`` requires)."""
    if "_LDSM_" in op or "_STSM_" in op:
        return 16
    m = re.search(r"<uint(\d+)_t>", op)
    return int(m.group(1)) // 8 if m else max(1, dtype_bits // 8)


class LaunchEmitter:
    """One launch's records turned into ``doc``'s entries, claims, notes and unknowns (:func:`emit_launch`); the
    type-member emitter (:mod:`.cpp_emit_traits`) extends it."""

    mem_bytes = staticmethod(mem_bytes)

    def __init__(self, doc: Doc, recs, flow: Flow | None, path: str, sm90=None, storage=None, src=None):
        self.doc, self.flow, self.path, self.sm90, self.storage = doc, flow, path, sm90, storage
        self.src = src  # the source text: runtime leaves are named and gmem copies read from it (cpp_gmem)
        self.sym = Symbols(src, int(recs[0].at.rsplit(":", 1)[1]) if recs else 1)
        self.extra = {r.index: r for r in recs if r.index >= BUILT}  # what the capture printed beyond the arguments
        self.recs = sorted((r for r in recs if r.index < BUILT), key=lambda r: r.index)
        self.built_recs = {r.source: r for r in recs if r.index >= BUILT}
        self.entry: dict = {}     # argument index -> entry name
        self.printed: dict = {}   # argument index -> Printed
        self.used: set = set()    # argument indices a claim or note covers
        self.what: dict = {}      # record index -> its location text, when not an argument (cpp_emit_traits)

    def known(self, op, r) -> bool:
        """Is ``op`` in cuteverify's library? If not, the argument is an unknown naming it."""
        try:
            catalog.get(op)
        except CuteVerifyError as e:
            self.doc.unknown(f"argument {r.index} `{r.source}`" if r.index < BUILT else r.source, self.loc(r),
                             f"operation {op}: {e}")
            self.used.add(r.index)
            return False
        return True

    def loc(self, r) -> Loc:
        at, line = r.at.rsplit(":", 1)  # the launch's file: the source, or a user header it includes
        return Loc(at, int(line), None, self.what.get(r.index, f"{r.kernel} argument {r.index} `{r.source}`"))

    def run(self):
        for r in self.recs:
            try:
                self.printed[r.index] = read_printed(r.text, r.type)
            except CuteVerifyError as e:
                self.doc.unknown(f"argument {r.index} `{r.source}`", self.loc(r), str(e))
                self.used.add(r.index)
        lower_flagged(self)
        by = {r.index: r for r in self.recs}
        for kind in ("tiled_mma", "tiled_copy", "copy_atom", "mma_atom", "layout", "tuple", "value", "pointer",
                     "unprintable"):
            for i, p in self.printed.items():
                if p.kind == kind:
                    getattr(self, kind)(by[i], p)
        self.relations(by)
        emit_gmem(self, self.src)
        emit_sm90(self, self.sm90)
        emit_storage(self, self.storage, self.built_recs)
        for r in self.recs:
            if r.index not in self.used:
                self.doc.unknown(f"argument {r.index} `{r.source}`", self.loc(r),
                                 f"a {self.printed[r.index].kind} no check covers")

    # ------------------------------------------------------------------------------------------ objects
    def tiled_mma(self, r, p: Printed):
        loc = self.loc(r)
        try:
            layout = atom_layout_mnk(p.fields["ThrLayoutVMNK"])
        except CuteVerifyError as e:
            self.doc.unknown(f"tiled MMA `{r.source}`", loc, str(e))
            self.used.add(r.index)
            return
        if not self.known(p.op, r):
            return
        perm = tile_text(p.fields["PermutationMNK"])
        args = [p.op, layout] + ([perm] if perm != "[_;_;_]" else [])
        name = self.doc.layout(r.source, f"make_tiled_mma({', '.join(args)})", loc)
        self.entry[r.index] = name
        for kind in ("agrees", "covers"):
            for operand in "ABC":
                self.doc.claim({kind: {"tiled_mma": name, "operand": operand}}, loc)
        self.differential(name, "thr_layout_vmnk", p.fields["ThrLayoutVMNK"], loc, r.source)
        for operand in "ABC":
            self.differential(name, f"atom.tv_layout_{operand}", p.atom[f"Layout{operand}_TV"], loc, r.source)
            if f"Layout{operand}_TV" in p.tiled:
                self.differential(name, f"tv_layout_{operand}_tiled", p.tiled[f"Layout{operand}_TV"], loc, r.source)
        self.used.add(r.index)

    def mma_atom(self, r, p: Printed):
        self.doc.unknown(f"MMA atom `{r.source}`", self.loc(r), "an MMA_Atom passed alone: trace cpp checks "
                         "tiled MMAs (make_tiled_mma) only")
        self.used.add(r.index)

    def tiled_copy(self, r, p: Printed):
        loc = self.loc(r)
        if p.dtype is None:
            self.doc.unknown(f"tiled copy `{r.source}`", loc, f"element type of {r.type} is not mapped")
            self.used.add(r.index)
            return
        if not self.known(p.op, r):
            return
        tv = strip_static(p.fields["TiledLayout_TV"])
        text = f'make_tiled_copy({p.op}, "{tv}", "{tile_text(p.fields["Tiler_MN"])}", {p.dtype})'
        name = self.doc.layout(r.source, text, loc)
        self.entry[r.index] = name
        same = "" if name == r.source else f" (the entry {name}: the same printed tiled copy)"
        self.doc.claim({"covers": {"tiled_copy": name}}, loc, name=f"covers {r.source}{same}")
        self.atom_differential(name, p, loc, r.source)
        self.tiled_differential(name, p, loc, r.source)
        self.used.add(r.index)

    def tiled_differential(self, name, p: Printed, loc, source, whole=False):
        """``equal`` of cuteverify's tiled layouts of the copy ``name`` with CuTe's printed ones (``whole``: also
        its TV layout and tiler modes, for a copy cuteverify built itself)."""
        if whole:
            self.differential(name, "layout_tv_tiled", p.fields["TiledLayout_TV"], loc, source)
            for i, mode in enumerate(tile_text(p.fields["Tiler_MN"])[1:-1].split(";")):
                self.differential(name, f"tiler_mn[{i}]", mode, loc, source)
        for side, attr in (("S", "layout_src_tv_tiled"), ("D", "layout_dst_tv_tiled")):
            if f"Layout{side}_TV" in p.tiled:
                self.differential(name, attr, p.tiled[f"Layout{side}_TV"], loc, source)

    def copy_atom(self, r, p: Printed):
        # an atom alone is checked through the copy the kernel body tiles it into (relations)
        self.entry[r.index] = None

    def atom_differential(self, name, p: Printed, loc, source):
        for side in ("Src", "Dst", "Ref"):
            self.differential(name, f"layout_{side.lower()}_tv", p.atom[f"ValLayout{side}"], loc, source)

    def differential(self, name, attr, printed, loc, source):
        self.doc.claim({"equal": [f"{name}.{attr}", strip_static(printed)]}, loc,
                       name=f"cuteverify's {attr} of {source} equals CuTe C++'s printed one")

    def layout(self, r, p: Printed):
        smem = self.flow.smem.get(r.index) if self.flow else None
        if p.dynamic and smem:  # the capture's value is a placeholder: no fact about the kernel's smem (review)
            self.doc.unknown(f"argument {r.index} `{r.source}`", self.loc(r), f"{self.kernel_name()} lays out "
                             f"{', '.join(smem)} with it, but it holds runtime values ({r.text}: the capture's "
                             "placeholders, not the kernel's): its injectivity and the copies through it are not "
                             "checked")
            self.used.add(r.index)
            return
        if p.dynamic:
            return note_runtime(self, r, p)
        if not smem:
            self.doc.note(f"layout `{r.source}`", self.loc(r), f"{self.kernel_name()} does not lay shared memory "
                          "out with it (no make_tensor(make_smem_ptr(...), it) in its body): nothing to check")
            self.used.add(r.index)
            return
        name = self.doc.layout(r.source, p.text, self.loc(r))
        self.entry[r.index] = name
        self.doc.claim({"injective": name}, self.loc(r), name=f"{r.source}: the smem layout of "
                       f"{', '.join(smem)} in {self.kernel_name()} is injective")
        self.used.add(r.index)

    def value(self, r, p: Printed):
        why = ("a runtime value (the capture calls the entry with value-initialised arguments, or those its call "
               "expression passes, so it is a placeholder)" if p.dynamic or p.kind in ("value",) else "a static shape / tiler: the kernel's "
               "static assertions check it at compile time")
        if p.kind == "pointer":
            why = "a pointer: the capture sees no memory"
        elif p.dynamic and not (p.kind == "value" and re.search(r"float|double|half|bfloat", r.type)):
            return note_runtime(self, r, p)  # a runtime integer leaf: a symbol (cpp_gmem, cpp_symbols)
        self.doc.note(f"{p.kind} `{r.source}` = {p.text}", self.loc(r), why)
        self.used.add(r.index)

    tuple = value
    pointer = value

    def unprintable(self, r, p: Printed):
        self.doc.unknown(f"argument {r.index} `{r.source}`", self.loc(r), f"{r.type}: CuTe has no print for it")
        self.used.add(r.index)

    def kernel_name(self) -> str:
        return self.flow.kernel if self.flow else "the kernel"

    # ---------------------------------------------------------------------------------------- relations
    def relations(self, by):
        f = self.flow
        if f is None:
            return
        built = {}
        for var, (letter, atom_i, mma_i) in f.built.items():
            p, mma = self.printed.get(atom_i), self.entry.get(mma_i)
            if p is None or p.kind != "copy_atom" or mma is None or p.dtype is None:
                continue
            r = by[atom_i]
            if not self.known(p.op, r):
                continue
            loc = self.loc(r)
            name = self.doc.layout(var, f"make_tiled_copy_{letter}({p.op}, {mma}, {p.dtype})", loc)
            built[var] = (name, p)
            used = f.retiled.get(var, letter)  # the fragment the body retiles the copy into, else its own letter
            self.doc.claim({"compatible": {"copy": name, "tiled_mma": mma, "operand": _LETTER_OPERAND[used]}},
                           loc, name=f"{var} = make_tiled_copy_{letter}({r.source}, {by[mma_i].source}) in "
                                     f"{f.kernel} delivers the MMA's {used} fragment"
                                     + (f" (the body retiles it into the {used} fragment)" if used != letter else ""))
            self.atom_differential(name, p, loc, r.source)
            rec = self.built_recs.get(var)
            if rec is not None:  # CuTe C++'s own make_tiled_copy_A|B|C of the same two arguments
                try:
                    self.tiled_differential(name, read_printed(rec.text, rec.type), loc, f"{var} (CuTe's)", True)
                except CuteVerifyError as e:
                    self.doc.unknown(f"{var} as CuTe C++ builds it", loc, str(e))
            self.used.add(atom_i)
        for var, letter, line, stmt in f.crossed:  # one copy's partition read into another's fragment
            if var in built and letter != f.retiled.get(var, f.built[var][0]):
                self.doc.claim({"compatible": {"copy": built[var][0], "tiled_mma": self.entry[f.built[var][2]],
                                               "operand": _LETTER_OPERAND[letter]}}, self.loc(by[f.built[var][1]]),
                               name=f"{var}'s partition of the source feeds the MMA's {letter} fragment "
                                    f"({self.path}:{line}: {stmt})")
        for copy, side, tensor, line, stmt in f.others:
            r = by.get(copy if isinstance(copy, int) else f.built[copy][1])
            if r is not None:
                self.doc.note(stmt, self.loc(r), f"{self.path}:{line}: `{tensor}` is no shared-memory tensor made "
                              "from a launch argument (make_tensor(make_smem_ptr(...), L)): no bank check")
        for copy, side, smem_i, line, stmt in f.accesses:
            if isinstance(copy, int):
                name, p = self.entry.get(copy), self.printed.get(copy)
                r = by.get(copy)
            else:
                name, p = built.get(copy, (None, None))
                r = by.get(f.built[copy][1])
            lay = self.entry.get(smem_i)
            if name is None or p is None or r is None:
                continue
            if lay is None:  # an access no claim decides is an unknown, never dropped (review)
                src = by[smem_i].source if smem_i in by else f"argument {smem_i}"
                self.doc.unknown(stmt, self.loc(r), f"{self.path}:{line}: the smem layout `{src}` is not read as a "
                                 "static layout: banks and vector of this copy through it are not checked")
                continue
            if any(k in p.op and s == side for k, s in REGISTER_SIDE):
                self.doc.note(f"{stmt}", self.loc(r), f"the {side} side of {p.op} is registers: no smem access")
                continue
            body = {"copy": name, "smem": lay, "side": side, "dtype": p.dtype}
            via = f"{self.path}:{line}: {stmt}"
            what = copy if isinstance(copy, str) else r.source
            self.doc.claim({"banks": dict(body)}, self.loc(r),
                           name=f"{what} ({side}) through {by[smem_i].source} has no bank conflict beyond the "
                                f"minimum ({via})")
            bits = int(p.atom["ValueType"].rstrip("b"))
            nbytes = mem_bytes(p.op, bits)
            self.doc.claim({"vector": dict(body, require=nbytes)}, self.loc(r),
                           name=f"{what} ({side}) moves {nbytes}-byte vectors through {by[smem_i].source} ({via})")


def strip_static(text: str) -> str:
    """CuTe C++ text with the static marks dropped (``(_1,_8):(_0,_1)`` -> ``(1,8):(0,1)``)."""
    return re.sub(r"(?<![\w])_(\d+)", r"\1", text)


def emit_launch(doc: Doc, records, flow: Flow | None, path: str, sm90=None, storage=None, src=None) -> Doc:
    """Add the entries, claims, notes and unknowns of one launch's ``records`` (one entry's run) to ``doc``;
    ``sm90``: the kernel body's SM90 relations (:mod:`.cpp_flow_sm90`, :mod:`.cpp_emit_sm90`); ``storage``: its
    :class:`.cpp_storage.StorageFlow` (smem layouts of a storage struct template argument, Blackwell); ``src``:
    the source text (runtime leaves as named symbols, gmem copies: :mod:`.cpp_gmem`)."""
    LaunchEmitter(doc, records, flow, path, sm90, storage, src).run()
    return doc
