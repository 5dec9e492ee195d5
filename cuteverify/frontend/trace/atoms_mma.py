"""A captured tiled MMA type as a manifest expression (docs/model.md section 10.4): the CuTe DSL's printed
``!cute.tiled_mma<ATOM, atom_layout_MNK = <"L">, permutation_MNK = <"[P]">>`` becomes
``make_tiled_mma(<CUTLASS atom name>, L, [P])``, which cuteverify's atom layer evaluates against its hardware
spec library (the one resolver, ``hardware.library.catalog.resolve``).

Atoms the DSL 4.8.1 prints, and the CUTLASS name each one is:

* ``!cute_nvgpu.sm80.mma<16x8x16, elem_type = (f16, f16, f32)>`` (``mma.sync``):
  ``SM80_16x8x16_F32F16F16F32_TN`` (D, A, B, C types; D is C's type; always TN: mma.sync reads A row-major and
  B column-major, i.e. both K-major; other shapes of SM75/SM80/SM89 likewise by name);
* ``!cute_nvgpu.sm90.mma<64x256x16, ab_major = (k, k), elem_type = (f16, f16, f32), frag_kind = ss>``
  (wgmma): ``SM90_64x256x16_F32F16F16_SS<GMMA::Major::K,GMMA::Major::K>`` (``rs``: ``_RS``; the 8-bit and tf32
  atoms are the K-major-only ``..._TN`` names);
* ``!cute_nvgpu.sm100.mma<256x128x16, num_cta = 2, ab_major = (k, k), elem_type = (f16, f16, f32), frag_kind =
  ss, c_scale_exp = 0>`` (tcgen05 UMMA): the class template ``SM100_MMA_F16BF16_2x1SM_SS<half_t, half_t, float,
  256, 128, UMMA::Major::K, UMMA::Major::K>`` (``num_cta = 1``: no ``_2x1SM``; ``frag_kind = ts``: ``_TS``);
* ``!cute_nvgpu.atom.universal_fma<1x1x1, (f32, f32) -> f32>``: CuTe's ``UniversalFMA<float, float, float,
  float>`` (one thread, one value); the shipped library has no spec of it (it is no hardware instruction), so
  it maps only where a user's spec file (``CUTEVERIFY_SPEC_PATH``) defines that name, else the
  :class:`CaptureError` names it.

Admissibility: anything else (another atom kind, a key the mapping does not know, a scaled ``c_scale_exp``, a
name the spec library lacks) raises :class:`CaptureError` naming the construct, so the emitter records it as
not checked instead of guessing.
"""
from __future__ import annotations

import re

from ...errors import CaptureError, CuteVerifyError
from ...hardware.library.catalog import resolve
from .mlir import Bare, KeyVal, TypeExpr

__all__ = ["MMA_TYPE", "atom_name", "tiled_mma_expr", "operand_name"]

MMA_TYPE = "cute.tiled_mma"
_SHAPE = re.compile(r"^(\d+)x(\d+)x(\d+)$")
#: DSL element type -> the letters of CUTLASS's MMA names (``F32F16F16F32``)
_NAME_TYPE = {"f16": "F16", "bf16": "BF16", "f32": "F32", "tf32": "TF32", "f64": "F64", "i8": "S8", "si8": "S8",
              "ui8": "U8", "u8": "U8", "i32": "S32", "si32": "S32", "i4": "S4", "u4": "U4",
              "f8E4M3FN": "E4M3", "f8E5M2": "E5M2"}
#: DSL element type -> CUTLASS's C++ type (the template arguments of the SM100 class templates)
_CPP_TYPE = {"f16": "half_t", "bf16": "bfloat16_t", "f32": "float", "tf32": "tfloat32_t", "i8": "int8_t",
             "si8": "int8_t", "ui8": "uint8_t", "u8": "uint8_t", "i32": "int32_t", "si32": "int32_t",
             "f8E4M3FN": "float_e4m3_t", "f8E5M2": "float_e5m2_t"}
#: the SM100 UMMA family of an A/B element type
_UMMA_FAMILY = {"f16": "F16BF16", "bf16": "F16BF16", "tf32": "TF32", "i8": "S8", "si8": "S8", "ui8": "S8",
                "u8": "S8", "f8E4M3FN": "F8F6F4", "f8E5M2": "F8F6F4"}
_MAJOR = {"k": "K", "mn": "MN"}
_OPERANDS = {0: "A", 1: "B", 2: "C"}


def operand_name(operand_id) -> str:
    """``A`` / ``B`` / ``C`` for the DSL's ``operand_id`` property (``"0 : i32"``, 0, 1, 2)."""
    text = str(operand_id).split(":")[0].strip()
    if not text.isdigit() or int(text) not in _OPERANDS:
        raise CaptureError(f"operand_id = {operand_id!r}: expected 0 (A), 1 (B) or 2 (C)")
    return _OPERANDS[int(text)]


def _shape(atom: TypeExpr) -> tuple:
    for a in atom.positional:
        m = _SHAPE.match(str(a)) if isinstance(a, Bare) else None
        if m:
            return tuple(int(x) for x in m.groups())
    raise CaptureError(f"{atom.text}: no MxNxK instruction shape")


def _types(atom: TypeExpr) -> tuple:
    t = atom.get("elem_type")
    if not isinstance(t, tuple) or len(t) != 3:
        raise CaptureError(f"{atom.text}: elem_type is not (A, B, accumulator)")
    return tuple(str(x) for x in t)


def _majors(atom: TypeExpr) -> tuple:
    m = atom.get("ab_major")
    if not isinstance(m, tuple) or len(m) != 2 or any(str(x) not in _MAJOR for x in m):
        raise CaptureError(f"{atom.text}: ab_major is not (k|mn, k|mn)")
    return tuple(_MAJOR[str(x)] for x in m)


def _letters(atom, *types) -> str:
    try:
        return "".join(_NAME_TYPE[t] for t in types)
    except KeyError as e:
        raise CaptureError(f"{atom.text}: element type {e.args[0]} has no CUTLASS MMA name here") from None


def _known_keys(atom: TypeExpr, keys: set) -> None:
    extra = [a.key for a in atom.args if isinstance(a, KeyVal) and a.key not in keys]
    if extra:
        raise CaptureError(f"{atom.text}: unknown key(s) {', '.join(extra)} (the mapping knows {sorted(keys)})")


def _resolvable(name: str, atom: TypeExpr) -> str:
    try:
        resolve(name, kind="mma", instance=True)
    except CuteVerifyError as e:
        raise CaptureError(f"{atom.text}: maps to {name}, which the spec library cannot give: {e}") from None
    return name


def _sm80(atom: TypeExpr) -> str:
    _known_keys(atom, {"elem_type"})
    m, n, k = _shape(atom)
    a, b, c = _types(atom)
    return _resolvable(f"SM80_{m}x{n}x{k}_{_letters(atom, c, a, b, c)}_TN", atom)


def _sm90(atom: TypeExpr) -> str:
    _known_keys(atom, {"ab_major", "elem_type", "frag_kind"})
    m, n, k = _shape(atom)
    a, b, c = _types(atom)
    am, bm = _majors(atom)
    frag = str(atom.get("frag_kind", "")).upper()
    if frag not in ("SS", "RS"):
        raise CaptureError(f"{atom.text}: frag_kind {frag.lower() or '(none)'} is neither ss nor rs")
    base = f"SM90_{m}x{n}x{k}_{_letters(atom, c, a, b)}_{frag}"
    try:  # 16-bit inputs: majors are template arguments; tf32 / 8-bit: the K-major-only _TN atoms
        resolve(base, kind="mma", instance=True)
    except CuteVerifyError:
        if (am, bm) != ("K", "K"):
            raise CaptureError(f"{atom.text}: no wgmma atom {base} with majors ({am}, {bm}) in the spec "
                               "library") from None
        return _resolvable(base + "_TN", atom)
    return _resolvable(f"{base}<GMMA::Major::{am},GMMA::Major::{bm}>", atom)


def _sm100(atom: TypeExpr) -> str:
    _known_keys(atom, {"num_cta", "ab_major", "elem_type", "frag_kind", "c_scale_exp"})
    m, n, _ = _shape(atom)
    a, b, c = _types(atom)
    am, bm = _majors(atom)
    scale = str(atom.get("c_scale_exp", "0")).strip()
    if scale != "0":
        raise CaptureError(f"{atom.text}: c_scale_exp = {scale} (a scaled accumulator) is not mapped")
    frag = str(atom.get("frag_kind", "")).upper()
    if frag not in ("SS", "TS"):
        raise CaptureError(f"{atom.text}: frag_kind {frag.lower() or '(none)'} is neither ss nor ts")
    cta = str(atom.get("num_cta", "1")).strip()
    if cta not in ("1", "2"):
        raise CaptureError(f"{atom.text}: num_cta = {cta}, expected 1 or 2")
    if a not in _UMMA_FAMILY or _UMMA_FAMILY.get(b) != _UMMA_FAMILY[a] or c not in _CPP_TYPE:
        raise CaptureError(f"{atom.text}: no UMMA family for element types ({a}, {b}, {c})")
    fam = f"SM100_MMA_{_UMMA_FAMILY[a]}_{'2x1SM_' if cta == '2' else ''}{frag}"
    args = ", ".join([_CPP_TYPE[a], _CPP_TYPE[b], _CPP_TYPE[c], str(m), str(n), f"UMMA::Major::{am}",
                      f"UMMA::Major::{bm}"])
    return _resolvable(f"{fam}<{args}>", atom)


_FMA = re.compile(r"^\(\s*(\w+)\s*,\s*(\w+)\s*\)\s*->\s*(\w+)$")


def _universal_fma(atom: TypeExpr) -> str:
    if _shape(atom) != (1, 1, 1):
        raise CaptureError(f"{atom.text}: a universal FMA is 1x1x1")
    sig = [_FMA.match(str(a)) for a in atom.positional if isinstance(a, Bare) and "->" in a]
    if len(sig) != 1 or sig[0] is None:
        raise CaptureError(f"{atom.text}: no '(A, B) -> C' element types")
    a, b, c = sig[0].groups()
    if any(x not in _CPP_TYPE for x in (a, b, c)):
        raise CaptureError(f"{atom.text}: element types ({a}, {b}) -> {c} have no C++ name here")
    name = f"UniversalFMA<{_CPP_TYPE[c]}, {_CPP_TYPE[a]}, {_CPP_TYPE[b]}, {_CPP_TYPE[c]}>"
    try:
        resolve(name, kind="mma", instance=True)
    except CuteVerifyError:
        raise CaptureError(f"{atom.text}: CuTe's {name} (a one-thread scalar FMA, no hardware instruction) has "
                           "no spec in the library (a spec file of that name on CUTEVERIFY_SPEC_PATH maps "
                           "it)") from None
    return name


_ATOMS = {"cute_nvgpu.sm80.mma": _sm80, "cute_nvgpu.sm90.mma": _sm90, "cute_nvgpu.sm100.mma": _sm100,
          "cute_nvgpu.atom.universal_fma": _universal_fma}


def atom_name(atom: TypeExpr) -> str:
    """The CUTLASS name of a captured MMA atom type (module docstring); :class:`CaptureError` naming the atom
    when it has none here."""
    if not isinstance(atom, TypeExpr):
        raise CaptureError(f"{atom!r}: not an MMA atom type")
    fn = _ATOMS.get(atom.name)
    if fn is None:
        raise CaptureError(f"{atom.text}: MMA atom kind {atom.name} is not mapped")
    return fn(atom)


def tiled_mma_expr(t: TypeExpr) -> str:
    """The manifest expression that builds the tiled MMA of the captured type ``t``
    (``!cute.tiled_mma<ATOM, atom_layout_MNK = <"L">, permutation_MNK = <"[P]">>``):
    ``make_tiled_mma(NAME, L, [P])`` (``[P]`` left out when it is ``[_;_;_]``).

    Post-condition: evaluated by the manifest language, it is cuteverify's :class:`~cuteverify.atoms.TiledMma`
    of the same atom (CUTLASS name, module docstring), atom layout and permutation as the DSL's. Raises
    :class:`CaptureError` naming the construct when ``t`` is no tiled MMA or its atom cannot be mapped."""
    if not isinstance(t, TypeExpr) or t.name != MMA_TYPE:
        raise CaptureError(f"{getattr(t, 'text', t)!r} is not a !cute.tiled_mma type")
    atoms = [a for a in t.positional if isinstance(a, TypeExpr)]
    if len(atoms) != 1:
        raise CaptureError(f"{t.text}: expected one MMA atom inside the tiled MMA")
    _known_keys(t, {"atom_layout_MNK", "permutation_MNK"})
    name = atom_name(atoms[0])
    layout = t.get("atom_layout_MNK")
    perm = t.get("permutation_MNK")
    if not isinstance(layout, str) or ":" not in layout:
        raise CaptureError(f"{t.text}: atom_layout_MNK is not a layout")
    if perm is not None and not (isinstance(perm, str) and perm.startswith("[") and perm.endswith("]")):
        raise CaptureError(f"{t.text}: permutation_MNK is not a tile [M;N;K]")
    args = [name, layout]
    if perm is not None and perm.replace(" ", "") != "[_;_;_]":
        args.append(perm)
    return f"make_tiled_mma({', '.join(args)})"
