"""A launch's shared-memory layouts taken as template arguments, and its UMMA fragments, as manifest claims
(issue 29; the Blackwell tutorials, :mod:`.cpp_storage` reads the kernel body).

Each storage layout record (``SMEMStorage::ASmemLayout``, printed by the capture as CuTe instantiates it) is read
in the element domain (:func:`element_layout`) and gets

* ``injective`` (the kernel lays an smem tensor out with it);
* for each ``make_fragment_A|B`` / ``partition_A|B`` of that tensor by a slice of a tiled MMA argument (the
  descriptor fragments UMMA reads), ``operand: {tiled_mma, operand, smem, dtype}``, ``at`` the launch and the
  template argument;

and the body's ``make_fragment_C`` (the accumulator in tensor memory) and ``make_tmem_copy`` (a copy built from
that TMEM tensor) are unknowns: the host capture cannot allocate tensor memory, so neither is printed.

Units (NOTES.md pitfall 12, docs/model.md section 10.2): CuTe C++ prints a layout built from a ``UMMA::`` /
``GMMA::`` smem atom (``Layout_K_SW128_Atom<T>``, an ``upcast`` of the byte atom) as ``Sw<3,4,3> o
smem_ptr[16b](unset) o L``: the offset slot ``smem_ptr_flag_bits<16>`` marks a swizzle that ``make_tensor`` moves
onto the smem pointer, where it acts on byte addresses, while ``L`` counts 16-bit elements. The element-domain
layout is ``Sw<B, M - log2(bytes), S> o _0 o L``; a flag whose width is no power-of-two number of bytes, or a
base ``M`` below ``log2(bytes)``, is refused (unknown), never guessed.
"""
from __future__ import annotations

import math
import re

from ...errors import CuteVerifyError
from ...hardware.library import catalog
from .cpp_emit_sm100 import emit_sm100
from .cpp_host_tma import PARTS
from .cpp_read import dtype_name, is_dynamic, template_args
from .cpp_storage import STORAGE, StorageFlow
from .mlir import Loc

__all__ = ["element_layout", "emit_storage"]

# Copy_Traits<SM90_TMA_LOAD, NumBits, AuxTmaParams<gmem basis, box layout const&, Swizzle const&>>
_TMA_TYPE = re.compile(r"Copy_Traits<cute::(SM90_TMA_\w+), .*?AuxTmaParams<.*?, const cute::Layout<(.*?)>&, "
                       r"const cute::(Swizzle<\d+, \d+, \d+>)&>")
_DT_BITS = {"f16": 16, "bf16": 16, "f32": 32, "tf32": 32, "s8": 8, "u8": 8, "e4m3": 8, "e5m2": 8, "f64": 64}
_FLAGGED = re.compile(r"^Sw<(\d+),(\d+),(\d+)>\s*o\s*smem_ptr\[(\d+)b\]\(unset\)\s*o\s*(.+)$")
_PLAIN = re.compile(r"^Sw<(\d+),(\d+),(\d+)>\s*o\s*_?0\s*o\s*(.+)$")


def element_layout(text: str) -> str:
    """The element-domain CuTe text of a printed smem layout: ``Sw<B,M,S> o smem_ptr[Nb](unset) o L`` ->
    ``Sw<B,M-log2(N/8),S> o _0 o L``; a plain layout or ``Sw<..> o _0 o L`` (an element swizzle) as printed.
    Raises CuteVerifyError for a flag width that is not a power-of-two number of bytes or exceeds the swizzle's
    base."""
    t = " ".join(text.split())
    m = _FLAGGED.match(t)
    if m is None:
        if "smem_ptr" in t:
            raise CuteVerifyError(f"an smem layout of a form trace cpp does not read: {t[:80]}")
        return t
    b, base, s, bits = (int(m.group(i)) for i in range(1, 5))
    rest = m.group(5)
    nbytes = bits // 8
    if bits % 8 or nbytes & (nbytes - 1):
        raise CuteVerifyError(f"smem_ptr[{bits}b]: the swizzle acts on bytes, and {bits}-bit elements are no "
                              "power-of-two number of bytes")
    k = nbytes.bit_length() - 1
    if base < k:
        raise CuteVerifyError(f"Sw<{b},{base},{s}> on bytes has no element-domain form for {bits}-bit elements "
                              f"(its base {base} < log2({nbytes}))")
    return f"Sw<{b},{base - k},{s}> o _0 o {rest}"


def _source(op: str | None, letter: str) -> str | None:
    """Where the MMA ``op``'s operand ``letter`` lives, as its library spec says (``smem_desc``, ``tmem``,
    registers: None), None for an operation not in the library."""
    try:
        spec, _ = catalog.resolve(op)
    except CuteVerifyError:
        return None
    return (spec.data.get("operands", {}).get(letter) or {}).get("from")


def _flag_bits(text: str) -> int | None:
    """The element width an smem layout's offset flag states: ``smem_ptr_flag_bits<16>`` (the C++ type) or
    ``smem_ptr[16b]`` (the printed text); None without one."""
    m = re.search(r"smem_ptr_flag_bits<(\d+)>|smem_ptr\[(\d+)b\]", text)
    if m is None:
        return None
    return int(m.group(1) or m.group(2))


def _operand_dtype(op_type: str, operand: str) -> str | None:
    """The element type of ``operand`` (A / B) of an MMA atom's C++ type: its first / second template argument."""
    args = template_args(op_type, "MMA_Atom")
    inner = template_args(args[0], args[0].split("<", 1)[0].strip()) if args and "<" in args[0] else None
    if not inner or len(inner) < 2:
        return None
    return dtype_name(inner[0 if operand == "A" else 1])


def emit_storage(la, sflow: StorageFlow | None, recs_by_source: dict) -> None:
    """Add the claims / unknowns of the storage layouts and fragments of ``sflow`` to the launch ``la``
    (a :class:`.cpp_emit.LaunchEmitter`: its ``doc``, ``entry``, ``printed``, ``loc``); ``recs_by_source``: the
    launch's records by source text (the storage records among them)."""
    if sflow is None:
        return
    doc = la.doc
    by = {r.index: r for r in la.recs}
    launch_line = int(la.recs[0].at.rsplit(":", 1)[1]) if la.recs else 0
    lay_of: dict = {}   # kernel-body tensor variable -> (entry name, loc, dtype bits)
    done: dict = {}
    for st in sflow.tensors:
        rec = recs_by_source.get(st.source)
        loc = Loc(la.path, st_line(rec, launch_line), None, f"{rec.kernel if rec else sflow.kernel} template argument "
                  f"{st.targ} `{st.type_text}`: {st.param} (`{st.tensor}`, {la.path}:{st.line})")
        if rec is None or rec.index < STORAGE:
            doc.unknown(f"{st.source}", loc, "the capture did not print this storage layout")
            continue
        if st.source in done:
            lay_of[st.tensor] = done[st.source]
            continue
        try:
            text = element_layout(rec.text)
        except CuteVerifyError as e:
            doc.unknown(st.source, loc, str(e))
            done[st.source] = None
            continue
        bits = _flag_bits(rec.text)
        if bits != _flag_bits(rec.type):
            doc.unknown(st.source, loc, f"the printed layout's smem_ptr flag ({bits} bits) and its C++ type's "
                        f"({_flag_bits(rec.type)} bits) disagree: the unit of its swizzle is ambiguous")
            done[st.source] = None
            continue
        name = doc.layout(st.param, text, loc)
        doc.claim({"injective": name}, loc, name=f"{st.source}: the smem layout of `{st.tensor}` in {sflow.kernel} "
                  "is injective")
        done[st.source] = lay_of[st.tensor] = (name, loc, bits)
    handled = emit_sm100(la, sflow, lay_of)  # cluster, multicast / 2-SM TMA atoms, tensor memory
    for mma_i, how, letter, tensor, line, stmt in sflow.fragments:
        mma = la.entry.get(mma_i)
        p = la.printed.get(mma_i)
        where = _source(p.op, letter) if p is not None and p.op else None
        if letter == "C":
            if how == "make_fragment" and mma is not None and where == "tmem" and ("line", line) not in handled:
                doc.unknown(f"{stmt}", la.loc(by[mma_i]), f"{la.path}:{line}: the accumulator in tensor memory "
                            "(make_fragment_C): the host capture allocates no TMEM, so its layout is not printed")
            continue
        got = lay_of.get(tensor)
        if got is None:
            # only a kernel with storage layouts: another's smem tensors are cpp_emit / cpp_emit_sm90's
            if sflow.tensors and mma is not None and how == "make_fragment" and where == "smem_desc":
                doc.unknown(stmt, la.loc(by[mma_i]), f"{la.path}:{line}: `{tensor}` is no smem tensor from a "
                            "captured layout: the descriptor it reads is not checked")
            continue
        if mma is None or p is None or where != "smem_desc":
            continue
        name, loc, bits = got
        body = {"tiled_mma": mma, "operand": letter, "smem": name}
        dt = _operand_dtype(by[mma_i].type, letter)
        if dt is not None and bits is not None and _DT_BITS.get(dt) != bits:
            doc.unknown(stmt, loc, f"{la.path}:{line}: the smem layout is flagged for {bits}-bit elements "
                        f"(smem_ptr_flag_bits<{bits}>) but operand {letter} of {by[mma_i].source} is {dt}: "
                        "the element domain of its swizzle is ambiguous")
            continue
        if dt is not None:
            body["dtype"] = dt
        doc.claim({"operand": body}, loc, name=f"{stmt} ({la.path}:{line}): operand {letter} of "
                  f"{by[mma_i].source} reads {name} through its UMMA descriptors")
    for atom_i, names, line, stmt in sflow.tma_writes:
        r, p = by.get(atom_i), la.printed.get(atom_i)
        if r is None or p is None or p.kind != "copy_atom" or not any(lay_of.get(n) for n in names) or \
                atom_i in handled:
            continue  # an atom writing no storage tensor is cpp_emit_sm90's (its smem from the kernel body)
        la.used.add(atom_i)
        why = _host_tma(la, r, [lay_of[n][0] for n in names if lay_of.get(n)], recs_by_source)
        if why is None:
            continue
        m = _TMA_TYPE.search(r.type)
        what = (f"a TMA copy atom ({m.group(1)}, box {m.group(2)}, smem {m.group(3)})".replace("cute::", "")
                if m else "a TMA copy atom")
        doc.unknown(f"argument {r.index} `{r.source}`", la.loc(r),
                    f"{what} the host builds with make_tma_atom and the kernel writes {', '.join(names) or 'smem'} "
                    f"with ({la.path}:{line}: {stmt}): {why}")
    for var, line, stmt in sflow.tmem_copies:
        if var in handled:
            continue
        doc.unknown(stmt, Loc(la.path, launch_line, None, f"{sflow.kernel} body, {la.path}:{line}"),
                    "a copy the kernel body builds from a tensor-memory tensor (make_tmem_copy): the host capture "
                    "allocates no TMEM, so it is not printed")


def st_line(rec, launch_line) -> int:
    """The launch line of a record, ``launch_line`` without one."""
    return int(rec.at.rsplit(":", 1)[1]) if rec is not None else launch_line


def _host_tma(la, r, written: list, recs_by_source: dict) -> str | None:
    """The ``tma`` claim of the TMA atom argument ``r`` from the host call that made it (:mod:`.cpp_host_tma`'s
    records), and ``equal`` of the smem layout it was made for with each storage layout entry in ``written`` (the
    smem tensors the kernel's ``tma_partition`` writes with it); None when claimed, else why not."""
    got = {part: next((x for s, x in recs_by_source.items() if s.startswith(f"{r.source}: {part} = ")), None)
           for part in PARTS}
    if any(x is None for x in got.values()):
        return ("its tma claim needs the host call that made it, make_tma_atom(SM90_TMA_LOAD{} or STORE, gmem, smem, "
                "cta_tiler) with its operands in scope at the launch; the capture found none (a multicast or 2-SM "
                "atom is not mapped)")
    g, sm, tl = got["gmem"], got["smem"], got["cta_tiler"]
    gm = re.fullmatch(r"gmem_ptr\[\d+b\]\([^()]*(?:\([^()]*\))?[^()]*\) o (.+)", " ".join(g.text.split()))
    args = template_args(r.type, "Copy_Atom")
    dt = dtype_name(args[1]) if args and len(args) == 2 else None
    if gm is None or dt is None:
        return f"its gmem operand `{g.source}` is no gmem tensor of a mapped element type: {g.text[:60]}"
    if is_dynamic(tl.text) or not re.fullmatch(r"\(_\d+(?:,_\d+)*\)", tl.text.strip()):
        return f"its CTA tiler `{tl.source}` = {tl.text} is no static shape"
    try:
        # make_tma_atom reads any smem swizzle as byte-address bits (get_tma_swizzle_bits: M 4, 5 or 6), also
        # one whose smem_ptr flag a slice dropped (`sA_layout(_,_,0)` prints `Sw<3,4,3> o _0 o L`) (review)
        plain = _PLAIN.match(" ".join(sm.text.split()))
        smem = element_layout(sm.text if plain is None or dt not in _DT_BITS else
                              f"Sw<{plain.group(1)},{plain.group(2)},{plain.group(3)}> o "
                              f"smem_ptr[{_DT_BITS[dt]}b](unset) o {plain.group(4)}")
    except CuteVerifyError as e:
        return f"its smem layout: {e}"
    if _flag_bits(sm.text) != _flag_bits(sm.type):
        return "its smem layout's printed flag and C++ type disagree on the element width"
    ext = [int(x) for x in re.findall(r"\d+", tl.text)]
    shape = smem.rsplit(" o ", 1)[-1].split(":", 1)[0]
    if math.prod(int(x) for x in re.findall(r"\d+", shape)) != math.prod(ext):
        # the 1-D reading below holds for a smem layout of the tile's size (what make_tma_atom requires)
        return f"its smem layout {shape} and CTA tiler {tl.text} differ in size"
    strides, acc = [], 1
    for e in ext:
        strides.append(acc)
        acc *= e
    tiler = f"({','.join(map(str, ext))})"
    doc, loc = la.doc, la.loc(r)
    gname = la.doc.layout(f"{r.source}_gmem", _strip_static(gm.group(1)), loc)
    s0 = doc.layout(f"{r.source}_smem", smem, loc)
    # make_tma_atom reads the smem layout by the 1-D index of the CTA tile (column-major over the tiler):
    # its composition with that tile's layout is the smem tile TMA writes, coordinate by coordinate
    s = doc.layout(f"{r.source}_smem_tile", f"composition({s0}, {tiler}:({','.join(map(str, strides))}))", loc)
    at = "" if not is_dynamic(gm.group(1)) else f" at the gmem size the entry passes ({_strip_static(gm.group(1))})"
    doc.claim({"tma": {"dtype": dt, "gmem": gname, "smem": s, "cta_tiler": tiler, "arch": "sm_100"}}, loc,
              name=f"{r.source} = make_tma_atom({g.source.split(' = ', 1)[1]}, {sm.source.split(' = ', 1)[1]}, "
                   f"{tl.source.split(' = ', 1)[1]}) builds an accepted TMA descriptor{at}")
    for w in written:
        doc.claim({"equal": [s0, w]}, loc, name=f"the smem layout {r.source} was made for is the one the kernel "
                  "writes with it (tma_partition)")
    return None


def _strip_static(text: str) -> str:
    return re.sub(r"(?<![\w])_(\d+)", r"\1", text)
