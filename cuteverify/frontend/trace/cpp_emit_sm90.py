"""The Hopper (SM90) part of a captured CUTLASS C++ launch as manifest claims (issue 29), beside
:mod:`.cpp_emit`: GMMA shared-memory layouts, the ``operand`` claims of wgmma descriptors, TMA atoms.

* :func:`flagged_smem_text`: CuTe C++ prints a GMMA smem layout (``tile_to_shape(GMMA::Layout_K_SW128_Atom<T>{},
  ...)``) as ``Sw<3,4,3> o smem_ptr[16b](unset) o L``: the ``smem_ptr_flag_bits<16>`` in the offset slot says
  that ``make_tensor(make_smem_ptr(p), layout)`` moves the swizzle onto the pointer, where it acts on *byte*
  addresses (``pointer_flagged.hpp``; ``as_position_independent_swizzle_tensor`` recasts it ``uint8_t -> T``),
  while ``L`` counts ``16``-bit elements. Its element-domain form is ``S<B, M-k, S> o 0 o L`` for ``2^k``-byte
  elements (the rule of ``types.MemRef.element_layout``), refused when ``M < k`` or the flag's width is not a
  power-of-two number of bytes; the flag's width must be the one the C++ type states.
* ``operand``: for each ``make_fragment_A|B(partition_A|B(sX))`` of the kernel body (:mod:`.cpp_flow_sm90`),
  the tiled MMA argument's operand reads the element-domain layout of ``sX`` through descriptors of its
  declared major (``atoms.operand_desc.prove_operand``), ``at`` the MMA argument;
* ``tma_atom``: for each TMA atom argument the body partitions (``tma_partition(tma_a, ..., sA, gA)``), the atom
  as ``make_tma_atom`` built it on the host: the gmem tensor's layout with its runtime extents and strides as
  symbols (``?tmaA_shape0``: no fact is stated by an ``int``), the smem layout in elements, ``cta_v_map``
  (``make_identity_layout(shape(gmem)).compose(tiler)``, printed by CuTe) and ``gbasis``, the box CuTe C++
  derived (``AuxParams::TmaGmemBasis``: the claim proves cuteverify's box equals it); and ``equal`` of that smem layout
  with stage 0 of the smem tensor the kernel partitions (the layout the TMA writes through and the one the
  kernel reads through), both ``at`` the atom's argument.

Anything the records do not give (a TMA atom whose operands were not printed, a multicast atom) is an unknown
row with the reason. Post-condition: a launch argument this module maps is marked used on the launch.
"""
from __future__ import annotations

import dataclasses
import re

from ...core.layout import Layout
from ...core.notation.parse import parse
from ...core.swizzle import ComposedLayout
from ...errors import CuteVerifyError, Unsupported
from ...hardware.library import catalog
from .cpp_flow_sm90 import TEMPLATE, TMA, Sm90Flow
from .cpp_read import dtype_name, is_dynamic, template_args
from .emit_tma import named_dynamic
from .mlir import Loc

__all__ = ["flagged_smem_text", "tma_smem_text", "lower_flagged", "emit_sm90", "gmem_symbols"]

_FLAGGED = re.compile(r"^Sw<(\d+),(\d+),(\d+)>\s*o\s*smem_ptr\[(\d+)b\]\(unset\)\s*o\s*(.+)$", re.S)
_FLAG_TYPE = re.compile(r"smem_ptr_flag_bits<(\d+)>")
_DYN = re.compile(r"(?<![\w.@?])\d+(?![\w.@<])")


def _strip(text: str) -> str:
    return re.sub(r"(?<![\w])_(\d+)", r"\1", text)


def flagged_smem_text(text: str, type_text: str = "") -> str:
    """The element-domain CuTe text of a printed ``Sw<B,M,S> o smem_ptr[Nb](unset) o L`` (module docstring).
    Raises Unsupported when it has no element form, or when ``type_text`` states another flag width."""
    m = _FLAGGED.match(text.strip())
    if m is None:
        raise Unsupported(f"{text[:80]}: not a swizzle o smem_ptr_flag o layout")
    b, base, shift, bits = (int(m.group(i)) for i in range(1, 5))
    t = _FLAG_TYPE.search(type_text)
    if t is not None and int(t.group(1)) != bits:
        raise Unsupported(f"{text[:60]}: printed smem_ptr[{bits}b] but the C++ type says {t.group(0)}")
    nbytes, rem = divmod(bits, 8)
    k = nbytes.bit_length() - 1
    if rem or nbytes != 1 << k:
        raise Unsupported(f"{text[:60]}: {bits}-bit elements are not a power-of-two number of bytes: the byte "
                          "swizzle has no element-domain form")
    if base < k:
        raise Unsupported(f"{text[:60]}: the byte swizzle Sw<{b},{base},{shift}> keeps fewer low bits than one "
                          f"{bits}-bit element: no element-domain form")
    return f"S<{b},{base - k},{shift}> o 0 o {_strip(m.group(5).strip())}"


_SWIZZLED = re.compile(r"^Sw<(\d+),(\d+),(\d+)>\s*o\s*_?0\s*o\s*(.+)$", re.S)


def tma_smem_text(text: str, type_text: str, bits: int) -> str:
    """The element-domain text of the smem layout a C++ TMA atom was built with, for ``bits``-bit elements. A
    slice of a flagged layout (``sA(_,_,0)``) loses the flag (CuTe prints ``Sw<3,4,3> o _0 o L``), but CuTe's TMA
    reads any smem swizzle as byte-address bits (``get_tma_swizzle_bits``: base ``M`` 4, 5 or 6 = 16, 32, 64
    bytes), so the swizzle is lowered by the byte rule; a plain layout is taken as printed."""
    m = _SWIZZLED.match(text.strip())
    if "smem_ptr[" in text:
        return flagged_smem_text(text, type_text)
    if m is None:
        return _strip(text)
    return flagged_smem_text(f"Sw<{m.group(1)},{m.group(2)},{m.group(3)}> o smem_ptr[{bits}b](unset) o {m.group(4)}")


def lower_flagged(launch) -> None:
    """Replace each printed smem_ptr_flag layout of ``launch`` (a :class:`.cpp_emit.LaunchEmitter`) by its
    element-domain form; one without an element form is an unknown of its argument."""
    by = {r.index: r for r in launch.recs}
    for i, p in list(launch.printed.items()):
        if p.kind == "layout" and "smem_ptr[" in p.text:
            try:
                # dynamic as its layout L is: a runtime int there is the capture's placeholder (review)
                launch.printed[i] = dataclasses.replace(p, text=flagged_smem_text(p.text, by[i].type),
                                                        dynamic=is_dynamic(p.text.rsplit(" o ", 1)[-1]))
            except CuteVerifyError as e:
                launch.doc.unknown(f"argument {i} `{by[i].source}`", launch.loc(by[i]), str(e))
                launch.used.add(i)
                del launch.printed[i]


def gmem_symbols(text: str, name: str, stride_div: int = 1) -> str:
    """A printed gmem layout with each runtime integer (printed without CuTe's static ``_``) made a symbol
    ``?{name}_shape{i}`` / ``?{name}_stride{i}``: the capture's values are the entry's, not the kernel's. An
    ``int`` states no fact; ``stride_div`` > 1 gives each stride symbol ``{div=stride_div}`` (the caller states
    why it holds)."""
    out = named_dynamic(_strip(_DYN.sub("?", text)), name)
    if stride_div > 1:
        out = re.sub(rf"(\?{re.escape(name)}_stride\d+)(?![\w{{])", rf"\1{{div={stride_div}}}", out)
    return out


def _operand_source(p, operand: str) -> str | None:
    """Where the printed tiled MMA ``p``'s operand is read from, as its library spec says (``smem_desc``,
    ``registers``, ``tmem``), None when the operation is not in the library (its own unknown says so)."""
    try:
        spec, _ = catalog.resolve(p.op)
    except (CuteVerifyError, AttributeError):
        return None
    return (spec.data.get("operands", {}).get(operand) or {}).get("from") or "registers"


def _stage0(text: str) -> str:
    """Modes 0 and 1 of an element-domain smem layout at stage 0 (``sA(_,_,0)`` of an ``(M,K,PIPE)`` layout)."""
    lay = parse(text, source="smem layout")
    outer = lay.outer if isinstance(lay, ComposedLayout) else lay
    if not isinstance(outer.shape, tuple) or len(outer.shape) < 2:
        raise Unsupported(f"{text}: not an (M,K[,PIPE]) layout")
    two = Layout(tuple(outer.shape[:2]), tuple(outer.stride[:2]))
    return str(ComposedLayout(lay.inner, lay.offset, two) if isinstance(lay, ComposedLayout) else two)


class _Sm90:
    def __init__(self, launch, sm90: Sm90Flow):
        self.L, self.f = launch, sm90
        self.by = {r.index: r for r in launch.recs}
        self.extra = launch.extra
        self.smem_entries: dict = {}

    def smem_text(self, var):
        """(element-domain text, record) of the smem tensor ``var``, or raises CuteVerifyError."""
        kind, i = self.f.smem[var]
        if kind == "arg":
            p, r = self.L.printed.get(i), self.by.get(i)
            if p is None or p.kind != "layout":
                raise CuteVerifyError(f"`{var}`'s layout (argument {i}) was not read as a layout")
            if p.dynamic:
                raise CuteVerifyError(f"`{var}`'s layout (argument {i}) holds runtime values ({r.text}): the "
                                      "capture's placeholders, not the kernel's")
            return p.text, r
        r = self.extra.get(TEMPLATE + i)
        if r is None:
            raise CuteVerifyError(f"`{var}`'s layout (template parameter {self.f.tparams[i]}) was not printed")
        if is_dynamic(r.text.rsplit(" o ", 1)[-1]):
            raise CuteVerifyError(f"`{var}`'s layout (template parameter {self.f.tparams[i]}) holds runtime values "
                                  f"({r.text}): the kernel default-constructs its type, the capture printed a value")
        text = flagged_smem_text(r.text, r.type) if "smem_ptr[" in r.text else _strip(r.text)
        return text, r

    def smem_entry(self, var, loc):
        kind, i = self.f.smem[var]
        if kind == "arg" and self.L.entry.get(i):  # the argument's own entry (cpp_emit's injective claim)
            return self.L.entry[i]
        if var not in self.smem_entries:
            text, r = self.smem_text(var)
            name = self.L.doc.layout(f"{var}_elem", text, loc)
            self.smem_entries[var] = name
            if self.f.smem[var][0] == "tparam":  # a template argument: its own injectivity, at it
                at = Loc(self.L.path, loc.line, None, f"{r.kernel} template argument {i} `{r.source}`")
                self.L.doc.claim({"injective": name}, at, name=f"{r.source}: the smem layout of {var} in "
                                 f"{self.L.kernel_name()} is injective")
        return self.smem_entries[var]

    def operands(self):
        for mma_i, operand, var, line, stmt in self.f.operands:
            name, r = self.L.entry.get(mma_i), self.by.get(mma_i)
            if r is None:
                continue
            loc = self.L.loc(r)
            if name is None:
                self.L.doc.unknown(f"{stmt}", loc, f"the tiled MMA argument {mma_i} is not mapped: the descriptor "
                                   "read is not checked")
                continue
            src = _operand_source(self.L.printed.get(mma_i), operand)
            if src not in ("smem_desc", None):  # make_fragment of a register operand allocates registers (review)
                self.L.doc.note(stmt, loc, f"{self.L.path}:{line}: operand {operand} of {r.source} is read from {src}, "
                                f"not through descriptors of {var}: no descriptor read to check")
                continue
            try:
                smem = self.smem_entry(var, loc)
            except CuteVerifyError as e:
                self.L.doc.unknown(stmt, loc, str(e))
                continue
            self.L.doc.claim({"operand": {"tiled_mma": name, "operand": operand, "smem": smem}}, loc,
                             name=f"{r.source} reads {operand} from {var} through wgmma descriptors of its declared "
                                  f"major ({self.L.path}:{line}: {stmt})")

    def tma(self):
        for atom_i, var, line, stmt in self.f.tma:
            r, p = self.by.get(atom_i), self.L.printed.get(atom_i)
            if r is None or p is None:
                continue
            loc = self.L.loc(r)
            self.L.used.add(atom_i)
            try:
                self.tma_atom(atom_i, r, p, var, loc, f"{self.L.path}:{line}: {stmt}")
            except CuteVerifyError as e:
                self.L.doc.unknown(f"TMA atom `{r.source}`", loc, str(e))

    def tma_atom(self, atom_i, r, p, var, loc, via):
        parts = [self.extra.get(TMA + 10 * atom_i + k) for k in range(3)]
        if any(x is None for x in parts):
            raise CuteVerifyError("its make_tma_atom(op, gmem, smem, tiler) operands were not printed at the "
                                  "launch (no such statement before it in the host function)")
        op = p.op or ""
        if op.startswith("Copy_Traits<"):  # a TMA atom: Copy_Atom<Copy_Traits<SM90_TMA_LOAD, ...>, T>
            op = (template_args(op, "Copy_Traits") or [op])[0]
        base = op.split("<", 1)[0]
        if base not in ("SM90_TMA_LOAD", "SM90_TMA_STORE"):
            raise CuteVerifyError(f"{op}: only SM90_TMA_LOAD / SM90_TMA_STORE atoms (no multicast) are mapped")
        args = template_args(r.type, "Copy_Atom") or []
        dtype = dtype_name(args[-1]) if args else None
        if dtype is None:
            raise CuteVerifyError(f"the element type of {r.type[:80]} is not mapped")
        g, s, c = parts
        bits = int(p.atom["ValueType"].rstrip("b"))
        div = 128 // bits if bits < 128 and 128 % bits == 0 else 1
        gtext = gmem_symbols(g.text, r.source, div)
        gb = self.extra.get(TMA + 10 * atom_i + 3)
        unit = re.match(r"^\([^:]*\):\(\s*1@(\d+)\s*[,)]", _strip(gb.text).replace(" ", "")) if gb else None
        if unit is not None:  # the gmem mode CuTe's box walks first is the descriptor's contiguous one: its
            # stride is 1 (make_tma_copy_desc asserts it; the descriptor has no stride for it), no multiple of 16 B
            gtext = re.sub(rf"\?{re.escape(r.source)}_stride{unit.group(1)}\{{div=\d+\}}", "1", gtext)
        gmem = self.L.doc.layout(f"g_{r.source}", gtext, loc)
        if "?" in gtext:
            # the descriptor is encoded on the host at run time: CuTe's make_tma_copy_desc asserts every
            # non-unit gmem stride is a multiple of 16 bytes and cuTensorMapEncodeTiled refuses any other, so no
            # launch of this kernel has another; the claim assumes it and says so
            self.L.doc.note(f"runtime extents and strides of `{g.source.split(': ')[1]}`", loc,
                            f"symbols {gtext}: the strides are assumed multiples of 16 bytes ({div} elements), "
                            "as make_tma_copy_desc asserts and cuTensorMapEncodeTiled requires on the host at run "
                            "time (a launch with others never happens): a precondition, not checked here"
                            + (f"; the runtime stride of gmem mode {unit.group(1)}, the one CuTe's box walks first, "
                               "is 1 (make_tma_copy_desc asserts it, the descriptor encodes no stride for it)"
                               if unit is not None and f"_stride{unit.group(1)}" in gmem_symbols(g.text, r.source, div)
                               else ""))
        stext = tma_smem_text(s.text, s.type, int(p.atom["ValueType"].rstrip("b")))
        smem = self.L.doc.layout(f"s_{r.source}", stext, loc)
        cta = self.L.doc.layout(f"cta_v_map_{r.source}", _strip(c.text), loc)
        body = {"op": "load" if "LOAD" in base else "store", "kind": "sm_90", "dtype": dtype, "gmem": gmem,
                "smem": smem, "cta_v_map": cta, "multicast": 1, "arch": "sm_90"}
        if gb is not None:  # CuTe C++'s own box: the claim's differential with cuteverify's
            body["gbasis"] = _strip(gb.text)
        self.L.doc.claim({"tma_atom": body}, loc, name=f"{r.source} = make_tma_atom({base}, {g.source.split(': ')[1]}, "
                         f"{s.source.split(': ')[1]}, {c.source.split(': ')[1]}): the TMA descriptor's rules")
        stage = _stage0(self.smem_text(var)[0])
        self.L.doc.claim({"equal": [smem, stage]}, loc, name=f"{r.source}'s smem layout is stage 0 of {var}, "
                         f"the tensor the kernel partitions with it ({via})")


def emit_sm90(launch, sm90: Sm90Flow | None) -> None:
    """Add the SM90 claims of one launch (module docstring) to its document."""
    if sm90 is None:
        return
    e = _Sm90(launch, sm90)
    e.operands()
    e.tma()
