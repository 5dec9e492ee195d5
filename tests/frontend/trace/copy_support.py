"""Test support for tests/frontend/trace/test_copy.py: a stand-in for ``atoms_mma.tiled_mma_expr`` while the
branch that writes it (trmma) is not merged, installed only when the real module is absent."""
import importlib
import sys
import types

from cuteverify.errors import CaptureError

_SM80_TYPES = {("f16", "f16", "f32"): "F32F16F16F32", ("bf16", "bf16", "f32"): "F32BF16BF16F32",
               ("f16", "f16", "f16"): "F16F16F16F16"}


def standin_tiled_mma_expr(t):
    """sm80 tiled MMAs only: ``make_tiled_mma(SM80_MxNxK_..._TN, "atom layout", "permutation")``."""
    atom = t.args[0]
    if atom.name != "cute_nvgpu.sm80.mma":
        raise CaptureError(f"{t.text}: the test stand-in maps sm80 MMAs only")
    shape = str(atom.positional[0])
    et = atom.get("elem_type")
    key = tuple(str(x) for x in et) if isinstance(et, tuple) else None
    if key not in _SM80_TYPES:
        raise CaptureError(f"{t.text}: element types {et} not in the stand-in")
    spec = f"SM80_{shape}_{_SM80_TYPES[key]}_TN"
    return f'make_tiled_mma({spec}, "{t.get("atom_layout_MNK")}", "{t.get("permutation_MNK")}")'


def install():
    """Import ``cuteverify.frontend.trace.atoms_mma``, or register the stand-in under that name."""
    try:
        importlib.import_module("cuteverify.frontend.trace.atoms_mma")
        return False
    except ModuleNotFoundError:
        mod = types.ModuleType("cuteverify.frontend.trace.atoms_mma")
        mod.tiled_mma_expr = standin_tiled_mma_expr
        sys.modules["cuteverify.frontend.trace.atoms_mma"] = mod
        return True
