"""One of each mechanism (issue 27): one swizzle-mode table whose encodings are CUTLASS's and the driver's,
every former table's users unchanged, and an AST scan of the package for exceptions outside errors.py, Z3 outside
the bridge symbolic/smt.py and private names imported across modules."""
from __future__ import annotations

import ast
import builtins
import importlib.util
import os
import re

import pytest

import cuteverify
from cuteverify.hardware.descriptors import smem
from cuteverify.hardware.library import catalog
from cuteverify.hardware.library import swizzles
from cuteverify.hardware.tma import copy as tma_copy
from cuteverify.hardware.tma import rules as tma_rules
from cuteverify.hardware.tma import tiled as tma_tiled
from cuteverify.synth import space

PKG = os.path.dirname(cuteverify.__file__)
_CUTLASS = importlib.util.find_spec("cutlass_library")
INCLUDE = os.path.join(os.path.dirname(_CUTLASS.origin), "source", "include") if _CUTLASS else ""

# --- facts from the headers (read there, written here) -------------------------------------------------
# cute/arch/copy_sm90_desc.hpp: enum class SmemSwizzleBits { DISABLE = 0, B32 = 1, B64 = 2, B128 = 3 };
#   enum class SmemSwizzleBase { SWIZZLE_BASE_16B = 0, SWIZZLE_BASE_32B = 1, SWIZZLE_BASE_32B_FLIP_8B = 2,
#   SWIZZLE_BASE_64B = 3 }; to_CUtensorMapSwizzle: (DISABLE,16B) -> NONE, (B32,16B) -> 32B, (B64,16B) -> 64B,
#   (B128,16B) -> 128B, (B128,32B) -> 128B_ATOM_32B, (B128,64B) -> 128B_ATOM_64B.
SMEM_SWIZZLE_BITS = {"DISABLE": 0, "B32": 1, "B64": 2, "B128": 3}
SMEM_SWIZZLE_BASE = {"SWIZZLE_BASE_16B": 0, "SWIZZLE_BASE_32B": 1, "SWIZZLE_BASE_32B_FLIP_8B": 2,
                     "SWIZZLE_BASE_64B": 3}
TO_CU_TENSOR_MAP = {("DISABLE", "SWIZZLE_BASE_16B"): "NONE", ("B32", "SWIZZLE_BASE_16B"): "32B",
                    ("B64", "SWIZZLE_BASE_16B"): "64B", ("B128", "SWIZZLE_BASE_16B"): "128B",
                    ("B128", "SWIZZLE_BASE_32B"): "128B_ATOM_32B", ("B128", "SWIZZLE_BASE_64B"): "128B_ATOM_64B"}
# cuda.h (CUDA 13.0): enum CUtensorMapSwizzle_enum { CU_TENSOR_MAP_SWIZZLE_NONE = 0, _32B, _64B, _128B,
#   _128B_ATOM_32B, _128B_ATOM_32B_FLIP_8B, _128B_ATOM_64B } (consecutive values).
CU_TENSOR_MAP_SWIZZLE = {"NONE": 0, "32B": 1, "64B": 2, "128B": 3, "128B_ATOM_32B": 4, "128B_ATOM_32B_FLIP_8B": 5,
                         "128B_ATOM_64B": 6}
# cute/arch/mma_sm90_desc.hpp: enum class LayoutType { INTERLEAVE = 0, B128 = 1, B64 = 2, B32 = 3 };
GMMA_LAYOUT_TYPE = {"INTERLEAVE": 0, "B128": 1, "B64": 2, "B32": 3}
# cute/arch/mma_sm100_desc.hpp: enum class LayoutType { SWIZZLE_NONE = 0, SWIZZLE_128B_BASE32B = 1,
#   SWIZZLE_128B = 2, SWIZZLE_64B = 4, SWIZZLE_32B = 6 };
UMMA_LAYOUT_TYPE = {"SWIZZLE_NONE": 0, "SWIZZLE_128B_BASE32B": 1, "SWIZZLE_128B": 2, "SWIZZLE_64B": 4,
                    "SWIZZLE_32B": 6}
# cute/atom/mma_traits_sm90_gmma.hpp: Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom_Bits compose Swizzle<0..3,4,3>;
# cute/atom/mma_traits_sm100.hpp: Layout_MN_SW128_32B_Atom_Bits composes Swizzle<2,5,2>.
ATOM_SWIZZLE = {"INTER": (0, 4, 3), "SW32": (1, 4, 3), "SW64": (2, 4, 3), "SW128": (3, 4, 3),
                "SW128_32B": (2, 5, 2)}
# the mode each atom's swizzle is, by span (bytes of a swizzle row: 16 << B)
SPAN = {"INTER": 0, "SW32": 32, "SW64": 64, "SW128": 128, "SW128_32B": 128}


def _enum(text, name):
    """``{member: value}`` of ``enum class name ... { ... }`` in header text (explicit values only)."""
    m = re.search(r"enum\s+class\s+" + name + r"\s*:\s*\w+\s*\{([^}]*)\}", text)
    return {k: int(v) for k, v in re.findall(r"(\w+)\s*=\s*(\d+)", m.group(1))}


@pytest.mark.skipif(not os.path.isdir(INCLUDE), reason="CUTLASS headers not installed")
def test_header_facts_are_the_headers():
    read = lambda p: open(os.path.join(INCLUDE, p)).read()  # noqa: E731
    assert _enum(read("cute/arch/copy_sm90_desc.hpp"), "SmemSwizzleBits") == SMEM_SWIZZLE_BITS
    assert _enum(read("cute/arch/copy_sm90_desc.hpp"), "SmemSwizzleBase") == SMEM_SWIZZLE_BASE
    assert _enum(read("cute/arch/mma_sm90_desc.hpp"), "LayoutType") == GMMA_LAYOUT_TYPE
    assert _enum(read("cute/arch/mma_sm100_desc.hpp"), "LayoutType") == UMMA_LAYOUT_TYPE


def test_table_encodings_are_cutlass_and_the_driver():
    by_name = {m.tma_name: m for m in swizzles.MODES}
    assert {m.tma_name: m.tma for m in swizzles.MODES} == CU_TENSOR_MAP_SWIZZLE
    for (bits, base), tma_name in TO_CU_TENSOR_MAP.items():
        m = by_name[tma_name]
        assert (m.tma_bits, m.tma_base) == (SMEM_SWIZZLE_BITS[bits], SMEM_SWIZZLE_BASE[base]), tma_name
    assert {m.gmma_name: m.gmma for m in swizzles.MODES if m.gmma is not None} == GMMA_LAYOUT_TYPE
    assert {m.umma_name: m.umma for m in swizzles.MODES if m.umma is not None} == UMMA_LAYOUT_TYPE
    for tag, bms in ATOM_SWIZZLE.items():
        m = swizzles.by_atom(tag)
        assert m.byte_swizzle == bms and m.span_bytes == SPAN[tag], tag
        assert m.chunks == (1 << bms[0] if bms[1] == 4 else 8)
    # one row per encoding: the GMMA, UMMA and TMA names of one span are one mode
    for span, gmma, umma, tma in ((0, "INTERLEAVE", "SWIZZLE_NONE", "NONE"), (32, "B32", "SWIZZLE_32B", "32B"),
                                  (64, "B64", "SWIZZLE_64B", "64B"), (128, "B128", "SWIZZLE_128B", "128B")):
        m = swizzles.by_span(span)
        assert (m.gmma_name, m.umma_name, m.tma_name) == (gmma, umma, tma)
        assert swizzles.lookup(f"CU_TENSOR_MAP_SWIZZLE_{tma}") is m
        assert swizzles.lookup(f"GMMA::LayoutType::{gmma}") is m and swizzles.lookup(umma) is m


def test_element_swizzle():
    assert swizzles.by_span(128).element_swizzle(16) == (3, 3, 3)  # S<3,3,3> on half = Swizzle<3,4,3> on bytes
    assert swizzles.by_span(64).element_swizzle(32) == (2, 2, 3)
    assert swizzles.by_span(128).element_swizzle(8) == (3, 4, 3)
    assert swizzles.by_span(128).element_swizzle(4) is None


# --- the former tables' users give what the former tables gave -----------------------------------------

OLD_GMMA_ALIASES = {"NONE": "INTERLEAVE", "INTER": "INTERLEAVE", "SW128": "B128", "SW64": "B64", "SW32": "B32",
                    "128B": "B128", "64B": "B64", "32B": "B32", "INTERLEAVE": "INTERLEAVE", "B128": "B128",
                    "B64": "B64", "B32": "B32", "GMMA::LayoutType::B64": "B64"}
OLD_UMMA_ALIASES = {"NONE": "SWIZZLE_NONE", "INTER": "SWIZZLE_NONE", "INTERLEAVE": "SWIZZLE_NONE",
                    "B128": "SWIZZLE_128B", "SW128": "SWIZZLE_128B", "128B": "SWIZZLE_128B", "B64": "SWIZZLE_64B",
                    "SW64": "SWIZZLE_64B", "64B": "SWIZZLE_64B", "B32": "SWIZZLE_32B", "SW32": "SWIZZLE_32B",
                    "32B": "SWIZZLE_32B", "128B_BASE32B": "SWIZZLE_128B_BASE32B",
                    "B128_BASE32B": "SWIZZLE_128B_BASE32B", "UMMA::LayoutType::SWIZZLE_64B": "SWIZZLE_64B",
                    "swizzle_128b_base32b": "SWIZZLE_128B_BASE32B"}
OLD_GEOMETRY = {"INTERLEAVE": ((0, 4, 3), 1), "B32": ((1, 4, 3), 2), "B64": ((2, 4, 3), 4), "B128": ((3, 4, 3), 8),
                "SWIZZLE_NONE": ((0, 4, 3), 1), "SWIZZLE_32B": ((1, 4, 3), 2), "SWIZZLE_64B": ((2, 4, 3), 4),
                "SWIZZLE_128B": ((3, 4, 3), 8), "SWIZZLE_128B_BASE32B": ((2, 5, 2), 8)}


def test_descriptor_layout_types_as_before():
    assert smem.GMMA_LAYOUT_TYPES == GMMA_LAYOUT_TYPE and list(smem.GMMA_LAYOUT_TYPES) == list(GMMA_LAYOUT_TYPE)
    assert smem.UMMA_LAYOUT_TYPES == UMMA_LAYOUT_TYPE and list(smem.UMMA_LAYOUT_TYPES) == list(UMMA_LAYOUT_TYPE)
    for name, want in OLD_GMMA_ALIASES.items():
        assert smem.layout_type_name("sm_90", name) == want, name
    for name, want in OLD_UMMA_ALIASES.items():
        assert smem.layout_type_name("sm_100", name) == want, name
    for name, want in OLD_GEOMETRY.items():
        assert smem.swizzle_of_type(name) == want, name
    for bad in ("128B_BASE32B", "SW16", "B256"):
        with pytest.raises(cuteverify.errors.TmaError):
            smem.layout_type_name("sm_90", bad)


def _old_layout_type_of_swizzle(arch, bms):
    b, m, s = bms
    if b == 0:
        return "INTERLEAVE" if arch == "sm_90" else "SWIZZLE_NONE"
    if m == 4 and s == 3 and 1 <= b <= 3:
        return {1: "B32", 2: "B64", 3: "B128"}[b] if arch == "sm_90" else \
            {1: "SWIZZLE_32B", 2: "SWIZZLE_64B", 3: "SWIZZLE_128B"}[b]
    if arch == "sm_100" and (b, m, s) == (2, 5, 2):
        return "SWIZZLE_128B_BASE32B"
    return None


def _old_tma_mode(b, mb, s):
    if b == 0:
        return 0
    if mb == 4 and s == 3 and 1 <= b <= 3:
        return b
    if mb == 5 and b == 2 and s == 2:
        return 4
    if mb == 6 and b == 2:
        return 6
    return None


def test_swizzle_to_mode_as_before():
    grid = [(b, m, s) for b in range(4) for m in range(2, 8) for s in range(max(b, 1), 5)]
    for arch in ("sm_90", "sm_100"):
        for bms in grid:
            assert smem.layout_type_of_swizzle(arch, bms) == _old_layout_type_of_swizzle(arch, bms), (arch, bms)
    for bits in (8, 16, 32, 64):
        k = (bits // 8).bit_length() - 1
        for b, m, s in grid:
            if m - k < 0:
                continue
            mode, byte, why = tma_copy.tma_swizzle_mode((b, m - k, s), bits)
            assert byte == (b, m, s) and mode == _old_tma_mode(b, m, s), (bits, b, m, s)
            assert (why is None) == (mode is not None)


def test_tma_enums_as_before():
    assert tma_tiled.SWIZZLES == CU_TENSOR_MAP_SWIZZLE and list(tma_tiled.SWIZZLES) == list(CU_TENSOR_MAP_SWIZZLE)
    assert tma_rules.SWIZZLE_SPAN == {1: 32, 2: 64, 3: 128, 4: 128, 5: 128, 6: 128}
    assert tma_rules._ATOM_SWIZZLES == (4, 5, 6)
    for name, v in CU_TENSOR_MAP_SWIZZLE.items():
        assert tma_tiled.enum_value(tma_tiled.SWIZZLES, "CU_TENSOR_MAP_SWIZZLE_" + name, "swizzle") == v


def test_atom_tags_and_names_as_before():
    assert swizzles.GMMA_ATOM_TAGS == ("INTER", "SW32", "SW64", "SW128")
    assert [swizzles.by_gmma(v).atom for v in range(4)] == ["INTER", "SW128", "SW64", "SW32"]  # bits 62-63
    for tag in swizzles.GMMA_ATOM_TAGS:
        spec, _ = catalog.resolve(f"GMMA_MN_{tag}", dtype="bf16")
        assert spec.name == f"GMMA::Layout_MN_{tag}_Atom<half_t>"
        assert catalog.resolve(f"GMMA::Layout_K_{tag}_Atom<bf16>")[0].data["swizzle"] == tag
    # synthesis searches the eight GMMA atoms of a width, in the former order
    assert [n for n, _, _ in space._gmma_atoms(16)] == [f"{mj}_{t}" for mj in ("K", "MN")
                                                         for t in ("INTER", "SW32", "SW64", "SW128")]


# --- the AST scan ----------------------------------------------------------------------------------------

def _modules():
    out = {}
    for dp, dn, fn in os.walk(PKG):
        dn[:] = [d for d in dn if d != "__pycache__"]
        for f in fn:
            if f.endswith(".py"):
                path = os.path.join(dp, f)
                rel = os.path.relpath(path, os.path.dirname(PKG))[:-3].replace(os.sep, ".")
                out[rel.removesuffix(".__init__")] = path
    return out


def _target(cur, is_pkg, node):
    if not node.level:
        return node.module or ""
    base = cur.split(".")
    base = base[: len(base) - node.level + (1 if is_pkg else 0)]
    return ".".join(base + ([node.module] if node.module else []))


def _scan():
    mods = _modules()
    # warning categories are not errors: they are never raised on purpose
    exc_names = {n for n in dir(builtins) if isinstance(getattr(builtins, n), type)
                 and issubclass(getattr(builtins, n), BaseException) and not issubclass(getattr(builtins, n), Warning)}
    errors_tree = ast.parse(open(mods["cuteverify.errors"]).read())
    exc_names |= {c.name for c in errors_tree.body if isinstance(c, ast.ClassDef)}
    stray, z3_use, private, classes = [], [], [], []
    for name, path in sorted(mods.items()):
        tree = ast.parse(open(path).read())
        is_pkg = path.endswith("__init__.py")
        aliases = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.split(".")[0] == "z3":
                        z3_use.append(f"{path}:{node.lineno}")
                    if a.name in mods:
                        aliases[a.asname or a.name] = a.name
            elif isinstance(node, ast.ImportFrom):
                m = _target(name, is_pkg, node)
                for a in node.names:
                    if (m.split(".")[0] == "z3" or a.name == "z3") and name != "cuteverify.symbolic.smt" \
                            and name != "cuteverify.symbolic.lazy":
                        z3_use.append(f"{path}:{node.lineno} from {m} import {a.name}")
                    if f"{m}.{a.name}" in mods:
                        aliases[a.asname or a.name] = f"{m}.{a.name}"
                    elif m in mods and m != name and a.name.startswith("_") and not a.name.startswith("__"):
                        private.append(f"{path}:{node.lineno} from {m} import {a.name}")
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and name != "cuteverify.errors":
                bases = {(b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "")) for b in node.bases}
                classes.append((f"{path}:{node.lineno} {node.name}", node.name, bases))
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                v = node.value.id
                if v == "z3" and name != "cuteverify.symbolic.smt":
                    z3_use.append(f"{path}:{node.lineno} z3.{node.attr}")
                if v in aliases and aliases[v] != name and node.attr.startswith("_") \
                        and not node.attr.startswith("__"):
                    private.append(f"{path}:{node.lineno} {aliases[v]}.{node.attr}")
    grown = True
    while grown:  # a class derived from a stray exception class is one too
        found = {c for c, _, bases in classes if bases & exc_names}
        grown = bool({n for c, n, _ in classes if c in found} - exc_names)
        exc_names |= {n for c, n, _ in classes if c in found}
    stray = sorted(c for c, _, bases in classes if bases & exc_names)
    return stray, z3_use, private


def test_one_mechanism_scan():
    stray, z3_use, private = _scan()
    assert stray == [], "exception classes outside cuteverify/errors.py"
    assert z3_use == [], "Z3 used outside cuteverify/symbolic/smt.py"
    assert private == [], "private names imported across modules"


def test_errors_importable_from_errors():
    from cuteverify import errors
    for n in ("ManifestError", "YamlRefusal", "LayoutExprError", "ShapeMismatch", "CommandLineError", "FoldError",
              "LoopNestError", "SynthError", "NoLegalLayout", "InternalDisagreement", "UnsupportedAttribute",
              "TritonLayoutError", "CuteManifestError", "CuteClaimFailure", "CaseSplit", "NotLinear"):
        assert issubclass(getattr(errors, n), errors.CuteVerifyError), n
    codes = {"ManifestError": 2, "YamlRefusal": 2, "LayoutExprError": 2, "ShapeMismatch": 2, "CommandLineError": 2,
             "FoldError": 2, "LoopNestError": 2, "SynthError": 2, "NoLegalLayout": 1, "InternalDisagreement": 4,
             "TritonLayoutError": 2, "CuteManifestError": 2, "CuteClaimFailure": 1, "CaseSplit": 3, "NotLinear": 4}
    for n, code in codes.items():
        cls = getattr(errors, n)
        e = cls.__new__(cls)
        assert errors.exit_code(e) == code, n
    assert errors.exit_code(errors.UnsupportedAttribute("#x", 1, "x", supported=("blocked",))) == 2
