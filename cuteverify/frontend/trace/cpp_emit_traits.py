"""A launch whose layouts are type members of a kernel template parameter, as manifest claims (issue 29;
FlashAttention-2's ``Kernel_traits``, :mod:`.cpp_traits` reads the functions the kernel calls).

Each type member the capture printed (record ``TRAITS + k``, source ``Kernel_traits::NAME``) is ``at`` the launch
and named ``KERNEL template argument J `Kernel_traits`: NAME``:

* a tiled MMA (``TiledMma``): ``agrees`` / ``covers`` for A, B, C and ``equal`` of cuteverify's tiled layouts
  with CuTe's printed ones (as a tiled MMA launch argument, :mod:`.cpp_emit`);
* a tiled copy (``GmemTiledCopyQKV``): ``covers`` and the atom / tiled ``equal`` claims;
* a static layout an smem tensor of the body is made with (``SmemLayoutQ``): ``injective``; another one: a note;
* a copy atom: checked where the body tiles it after the MMA.

Each relation is ``at`` the body line that states it, named after the type members it relates:

* ``auto c = make_tiled_copy_A|B|C(typename P::Atom{}, mma)``: the entry ``make_tiled_copy_A(OP, mma, dtype)``,
  ``compatible`` with the MMA, the atom ``equal`` claims and ``equal`` of its tiled layouts with CuTe's own
  ``make_tiled_copy_A`` of the same two members (record ``TRAITS_BUILT + k``);
* ``copy.get_thread_slice(t).partition_S|D(sX)`` of an smem tensor: ``banks`` and ``vector`` of the copy through
  the tensor's layout on that side (none when that side of the atom is registers: ldmatrix's destination);
* a partition of any other tensor (a gmem tile, an identity tensor) and ``partition_fragment_A|B(sX)`` (a register
  fragment shaped after ``sX``): notes.

Post-condition: every type-member record of the launch is in a claim's ``at``, a note or an unknown.
"""
from __future__ import annotations

from ...errors import CuteVerifyError
from ...hardware.library import catalog
from .cpp_emit import LaunchEmitter, mem_bytes, REGISTER_SIDE
from .cpp_read import read_printed
from .cpp_traits import TRAITS, TRAITS_BUILT, TraitsFlow
from .document import Doc
from .mlir import Loc

__all__ = ["emit_traits_launch"]


def emit_traits_launch(doc: Doc, records, flow, path: str, sm90, storage, tflow: TraitsFlow, src=None) -> Doc:
    """:func:`.cpp_emit.emit_launch` of ``records`` plus the claims of the type members and relations of
    ``tflow`` (module docstring). Admissibility: ``records`` of one launch and entry, printed by a capture whose
    rewrite used the same ``tflow``. Post-condition: each type-member record is in a claim, note or unknown."""
    la = LaunchEmitter(doc, records, flow, path, sm90, storage, src)
    la.run()
    _Traits(la, tflow).run()
    return doc


class _Traits:
    def __init__(self, la: LaunchEmitter, tf: TraitsFlow):
        self.la, self.tf, self.doc = la, tf, la.doc
        self.rec = {r.source: r for r in la.extra.values() if TRAITS <= r.index < TRAITS_BUILT}
        self.cute = {r.source: r for r in la.extra.values() if r.index >= TRAITS_BUILT}
        self.printed: dict = {}   # member -> Printed
        self.entry: dict = {}     # member -> entry name
        self.covered: set = set()

    def who(self, member: str) -> str:
        return f"{self.tf.kernel} template argument {self.tf.targ} `{self.tf.targ_text}`: {member}"

    def body_loc(self, file, line, members, stmt) -> Loc:
        return Loc(file, line, None, f"{self.who(', '.join(members))} ({stmt})")

    def run(self):
        tf, doc = self.tf, self.doc
        smem_members = {m for m, *_ in tf.smem.values()}
        for member in tf.members:
            r = self.rec.get(f"{tf.targ_text}::{member}")
            if r is None:
                continue
            self.la.what[r.index] = self.who(member)
            loc = self.la.loc(r)
            try:
                p = self.printed[member] = read_printed(r.text, r.type)
            except CuteVerifyError as e:
                doc.unknown(f"{tf.targ_text}::{member}", loc, str(e))
                continue
            if p.kind == "tiled_mma":
                self.la.tiled_mma(r, p)
            elif p.kind == "tiled_copy":
                self.la.tiled_copy(r, p)
            elif p.kind == "layout" and not p.dynamic and member in smem_members:
                name = self.entry[member] = doc.layout(member, p.text, loc)
                tensors = ", ".join(t for t, (m, *_) in tf.smem.items() if m == member)
                doc.claim({"injective": name}, loc, name=f"{tf.targ_text}::{member}: the smem layout of {tensors} "
                          f"in {tf.functions[-1][0]} is injective")
            elif p.kind == "copy_atom":
                if not any(b[1] == member for b in tf.built.values()):
                    doc.note(f"{tf.targ_text}::{member}", loc, "a copy atom the functions the kernel calls do not "
                             "tile after the MMA (make_tiled_copy_A|B|C): nothing to check")
            else:
                doc.note(f"{p.kind} {tf.targ_text}::{member} = {p.text[:60]}", loc, "no relation of the kernel's "
                         "functions lays shared memory out with it or copies with it: nothing to check")
            if r.index in self.la.entry and self.la.entry[r.index] is not None:
                self.entry[member] = self.la.entry[r.index]
        self.built()
        self.accesses()

    def built(self):
        tf, doc = self.tf, self.doc
        self.copies: dict = {}  # body variable -> (entry name, Printed)
        for var, (letter, atom, mma_var, file, line, stmt) in sorted(tf.built.items()):
            mma_m = tf.objects[mma_var]
            loc = self.body_loc(file, line, [atom, mma_m], stmt)
            p, mma = self.printed.get(atom), self.entry.get(mma_m)
            if p is None or p.kind != "copy_atom" or mma is None or p.dtype is None:
                doc.unknown(stmt, loc, f"{tf.targ_text}::{atom} is no printed copy atom of a mapped element type, "
                            f"or {tf.targ_text}::{mma_m} no checked tiled MMA")
                continue
            try:
                catalog.get(p.op)
            except CuteVerifyError as e:
                doc.unknown(stmt, loc, f"operation {p.op}: {e}")
                continue
            name = doc.layout(var, f"make_tiled_copy_{letter}({p.op}, {mma}, {p.dtype})", loc)
            self.copies[var] = (name, p)
            doc.claim({"compatible": {"copy": name, "tiled_mma": mma, "operand": letter}}, loc,
                      name=f"{var} = make_tiled_copy_{letter}({tf.targ_text}::{atom}, {tf.targ_text}::{mma_m}) "
                           f"delivers the MMA's {letter} fragment")
            self.la.atom_differential(name, p, loc, f"{tf.targ_text}::{atom}")
            rec = self.cute.get(var)
            if rec is not None:
                try:
                    self.la.tiled_differential(name, read_printed(rec.text, rec.type), loc, f"{var} (CuTe's)", True)
                except CuteVerifyError as e:
                    doc.unknown(f"{var} as CuTe C++ builds it", loc, str(e))

    def accesses(self):
        tf, doc = self.tf, self.doc
        for copy, side, tensor, file, line, stmt in tf.others:
            what = tf.objects.get(copy) or tf.built.get(copy, (None, "?"))[1]
            doc.note(stmt, self.body_loc(file, line, [what], stmt), f"`{tensor}` is no shared-memory tensor made "
                     "from a type member (make_tensor(make_smem_ptr(...), typename P::L{})): no bank check")
        for mma_var, letter, tensor, file, line, stmt in tf.fragments:
            doc.note(stmt, self.body_loc(file, line, [tf.objects.get(mma_var, mma_var)], stmt),
                     f"a register fragment shaped after `{tensor}` (partition_fragment_{letter}): no smem access")
        for copy, side, tensor, file, line, stmt in tf.accesses:
            smem_m = tf.smem[tensor][0]
            if copy in tf.objects:
                cm = tf.objects[copy]
                name, p = self.entry.get(cm), self.printed.get(cm)
            else:
                cm = tf.built[copy][1]
                name, p = self.copies.get(copy, (None, None))
            loc = self.body_loc(file, line, [cm, smem_m], stmt)
            lay = self.entry.get(smem_m)
            if name is None or p is None or lay is None:
                doc.unknown(stmt, loc, f"the copy `{copy}` or the smem layout {tf.targ_text}::{smem_m} has no checked "
                            "entry (see its own row): its banks are not checked")
                continue
            if any(k in p.op and s == side for k, s in REGISTER_SIDE):
                doc.note(stmt, loc, f"the {side} side of {p.op} is registers: no smem access")
                continue
            body = {"copy": name, "smem": lay, "side": side, "dtype": p.dtype}
            nbytes = mem_bytes(p.op, int(p.atom["ValueType"].rstrip("b")))
            doc.claim({"banks": dict(body)}, loc, name=f"{copy} ({side}) through {tf.targ_text}::{smem_m} has no "
                      f"bank conflict beyond the minimum ({file}:{line}: {stmt})")
            doc.claim({"vector": dict(body, require=nbytes)}, loc, name=f"{copy} ({side}) moves {nbytes}-byte vectors "
                      f"through {tf.targ_text}::{smem_m} ({file}:{line}: {stmt})")
