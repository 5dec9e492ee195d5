"""CuTe C++ print forms read back into the objects ``trace cpp`` checks (issue 29).

Definitions: :func:`read_printed` turns one launch argument's printed text (``cute::print``) and its C++ type
(``__PRETTY_FUNCTION__`` spelling) into a :class:`Printed`:

* ``layout``: a layout or a swizzled layout (``Sw<3,3,3> o _0 o L``), CuTe text as printed;
* ``tiled_copy``: ``print(TiledCopy)`` (``Tiler_MN``, ``TiledLayout_TV``, then its ``Copy_Atom`` block);
  ``copy_atom``: a ``Copy_Atom`` block alone (``ThrID``, ``ValLayoutSrc/Dst/Ref``, ``ValueType``);
* ``tiled_mma``: ``print(TiledMMA)`` (``ThrLayoutVMNK``, ``PermutationMNK``, then its ``MMA_Atom`` block);
  ``mma_atom``: an ``MMA_Atom`` block alone (``ThrID``, ``Shape_MNK``, ``LayoutA/B/C_TV``);
* the capture's ``TiledLayouts`` block after a tiled MMA / copy (``LayoutA/B/C_TV``, ``LayoutS/D_TV``: CuTe's
  ``get_layout*_TV()``) goes to ``tiled``;
* ``tuple``: an IntTuple (a shape, a stride, a tiler); ``value``: a number; ``pointer``; ``unprintable``.

The atom's operation and element type are not in CuTe's print text: they are read from the C++ type
(``cute::Copy_Atom<cute::SM75_U32x4_LDSM_N, cutlass::half_t>``) and spelled as cuteverify's library names
(:func:`op_name`, :func:`dtype_name`). ``dynamic`` is True when the text holds a runtime integer (CuTe prints a
static integer ``_8`` and a runtime one ``8``): such a value is the capture's placeholder, not the kernel's
(:mod:`.cpp_symbols` makes each such leaf a symbol).

Admissibility: texts CuTe 4.x prints; a block missing a line it always prints is a CaptureError naming it.
Post-condition: ``fields`` hold the printed texts verbatim; ``op`` / ``dtype`` come from the type alone.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...errors import CaptureError

__all__ = ["Printed", "read_printed", "template_args", "op_name", "dtype_name", "tile_text", "is_dynamic"]

_DYNAMIC_INT = re.compile(r"(?<![\w.@])\d+(?![\w.@<])")
_STATIC_INT = re.compile(r"(?<![\w])_(\d+)")
# a static offset only: CuTe prints a runtime one (``Sw<3,3,3> o 0 o L``, the capture's placeholder) without ``_``
_SWIZZLE = re.compile(r"Sw<\d+,\d+,\d+>\s*o\s*_\d+\s*o")
_KEY = re.compile(r"^\s*([A-Za-z_]+):\s*(.*?)\s*$")
_NAMESPACE = re.compile(r"\b(?:cute|cutlass|std)::")
_DTYPES = {"half_t": "f16", "bfloat16_t": "bf16", "float": "f32", "double": "f64", "tfloat32_t": "tf32",
           "int8_t": "s8", "signed char": "s8", "uint8_t": "u8", "unsigned char": "u8", "int": "s32",
           "int32_t": "s32", "uint32_t": "u32", "float_e4m3_t": "e4m3", "float_e5m2_t": "e5m2"}

_BITS = {"float": 32, "double": 64, "half_t": 16, "bfloat16_t": 16, "int": 32, "int32_t": 32, "int64_t": 64,
         "int16_t": 16, "int8_t": 8, "uint8_t": 8, "uint16_t": 16}


@dataclass(frozen=True)
class Printed:
    """One printed launch argument: its kind, the printed fields (``TiledLayout_TV`` -> text), the atom's
    operation name and element type (from the C++ type), the whole text, and whether it holds runtime ints."""

    kind: str
    text: str
    fields: dict = field(default_factory=dict)
    atom: dict = field(default_factory=dict)
    op: str | None = None
    dtype: str | None = None
    dynamic: bool = False
    tiled: dict = field(default_factory=dict)


def is_dynamic(text: str) -> bool:
    """Does CuTe text ``text`` hold a runtime integer (printed without the static ``_``)?"""
    body = _SWIZZLE.sub("", text)
    return bool(_DYNAMIC_INT.search(_STATIC_INT.sub("S", body)))


def template_args(type_text: str, template: str) -> list | None:
    """The top-level template arguments of the first ``template<...>`` in ``type_text`` (namespaces kept), or
    None when ``type_text`` has none."""
    m = re.search(r"(?:^|[\s<,:])" + re.escape(template) + r"<", type_text)
    if m is None:
        return None
    i, depth, args, b = m.end(), 1, [], m.end()
    while i < len(type_text) and depth:
        c = type_text[i]
        if c in "<([":
            depth += 1
        elif c in ">)]":
            depth -= 1
            if depth == 0:
                args.append(type_text[b:i].strip())
        elif c == "," and depth == 1:
            args.append(type_text[b:i].strip())
            b = i + 1
        i += 1
    return args if depth == 0 else None


def op_name(op_type: str) -> str:
    """cuteverify's library name of a CUTLASS operation type: namespaces dropped, and a cp.async /
    UniversalCopy whose source and destination types are equal written with one
    (``SM80_CP_ASYNC_CACHEALWAYS<uint128_t, uint128_t>`` -> ``SM80_CP_ASYNC_CACHEALWAYS<uint128_t>``)."""
    name = _NAMESPACE.sub("", op_type).strip()
    base = name.split("<", 1)[0]
    args = template_args(name, base) if "<" in name else None
    if args and len(args) == 2 and args[0] == args[1]:
        args = args[:1]
    if args and len(args) == 1 and (base.startswith("SM80_CP_ASYNC") or base == "UniversalCopy"):
        # the instruction moves sizeof(T) bytes: cuteverify names it by the unsigned type of that width
        args = [f"uint{_BITS[args[0]]}_t" if args[0] in _BITS else args[0]]
    return f"{base}<{', '.join(args)}>" if args else name


def dtype_name(type_text: str) -> str | None:
    """The manifest dtype of a C++ element type (``cutlass::half_t`` -> ``f16``), None when not mapped."""
    return _DTYPES.get(_NAMESPACE.sub("", type_text).strip())


def tile_text(printed: str) -> str:
    """A printed tiler / permutation (``(_32,_32,_16)``, ``(_16:_1,_64:_1)``, ``(_,_32,_)``) as a manifest tile
    ``[32:1;32:1;16:1]``; a mode printed as a shape ``n`` is the layout ``n:1`` (CuTe's meaning of an integer
    in a tiler)."""
    body = printed.strip()
    if not (body.startswith("(") and body.endswith(")")):
        body = f"({body})"
    body = body[1:-1]
    modes, depth, b = [], 0, 0
    for i, c in enumerate(body + ","):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "," and depth == 0:
            modes.append(body[b:i].strip())
            b = i + 1
    out = []
    for m in modes:
        m = _STATIC_INT.sub(r"\1", m)
        out.append(m if m == "_" or ":" in m else f"{m}:1")
    return "[" + ";".join(out) + "]"


def _block(lines, start, keys, what) -> tuple:
    got, i = {}, start
    while i < len(lines) and len(got) < len(keys):
        m = _KEY.match(lines[i])
        if m is None or m.group(1) not in keys:
            break
        got[m.group(1)] = m.group(2)
        i += 1
    missing = [k for k in keys if k not in got]
    if missing:
        raise CaptureError(f"a printed {what} without its {', '.join(missing)} line(s)")
    return got, i


_COPY_ATOM_KEYS = ("ThrID", "ValLayoutSrc", "ValLayoutDst", "ValLayoutRef", "ValueType")
_MMA_ATOM_KEYS = ("ThrID", "Shape_MNK", "LayoutA_TV", "LayoutB_TV", "LayoutC_TV")


def _copy_atom(lines, i, type_text):
    if i >= len(lines) or lines[i].strip() != "Copy_Atom":
        raise CaptureError("a printed TiledCopy without its Copy_Atom block")
    atom, _ = _block(lines, i + 1, _COPY_ATOM_KEYS, "Copy_Atom")
    args = template_args(type_text, "Copy_Atom")
    if not args or len(args) != 2:
        raise CaptureError(f"cannot read the copy operation and element type from the C++ type {type_text}")
    return atom, op_name(args[0]), dtype_name(args[1])


def _mma_atom(lines, i, type_text):
    if i >= len(lines) or lines[i].strip() != "MMA_Atom":
        raise CaptureError("a printed TiledMMA without its MMA_Atom block")
    atom, _ = _block(lines, i + 1, _MMA_ATOM_KEYS, "MMA_Atom")
    args = template_args(type_text, "MMA_Atom")
    if not args:
        raise CaptureError(f"cannot read the MMA operation from the C++ type {type_text}")
    return atom, op_name(args[0])


def _tiled(lines) -> tuple:
    """The capture's ``TiledLayouts`` block (``LayoutA_TV: ...`` lines) cut off ``lines``: (lines, dict)."""
    heads = [i for i, ln in enumerate(lines) if ln.strip() == "TiledLayouts"]
    if not heads:
        return lines, {}
    got = {}
    for ln in lines[heads[0] + 1:]:
        m = _KEY.match(ln)
        if m is None:
            raise CaptureError(f"a TiledLayouts line that is no `Key: layout`: {ln.strip()[:80]}")
        got[m.group(1)] = m.group(2)
    return lines[:heads[0]], got


def read_printed(text: str, type_text: str = "") -> Printed:
    """The :class:`Printed` of one argument's print text ``text`` and C++ type ``type_text``."""
    body = text.strip()
    lines, tiled = _tiled([ln for ln in body.splitlines() if ln.strip()])
    head = lines[0].strip() if lines else ""
    if body == "pointer":
        return Printed("pointer", body)
    if body == "<not printable>" or not body:
        return Printed("unprintable", body)
    if head == "TiledCopy":
        f, i = _block(lines, 1, ("Tiler_MN", "TiledLayout_TV"), "TiledCopy")
        atom, op, dt = _copy_atom(lines, i, type_text)
        return Printed("tiled_copy", body, f, atom, op, dt, tiled=tiled)
    if head == "Copy_Atom":
        atom, op, dt = _copy_atom(lines, 0, type_text)
        return Printed("copy_atom", body, {}, atom, op, dt)
    if head == "TiledMMA":
        f, i = _block(lines, 1, ("ThrLayoutVMNK", "PermutationMNK"), "TiledMMA")
        atom, op = _mma_atom(lines, i, type_text)
        return Printed("tiled_mma", body, f, atom, op, tiled=tiled)
    if head == "MMA_Atom":
        atom, op = _mma_atom(lines, 0, type_text)
        return Printed("mma_atom", body, {}, atom, op)
    if len(lines) != 1:
        raise CaptureError(f"a printed value of {len(lines)} lines that trace cpp does not read: {lines[0][:80]}")
    kind = "layout" if ":" in body else "tuple" if body.startswith("(") or body.startswith("_") else "value"
    return Printed(kind, body, dynamic=is_dynamic(body))
