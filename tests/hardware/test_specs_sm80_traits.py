"""SM80 mma.sync entries (specs/mma_sm80.yaml) against CUTLASS's traits as mma_traits_sm80.hpp writes them: every
MMA_Traits<SM80_...> struct the library carries has its A/B/C layouts (inheritance through ``: MMA_Traits<X>``
followed, named layouts SM80_8x8_Row / SM80_16x8_Row expanded), except two texts of CUTLASS that are not valid
TV layouts, which the tests pin down: the s4 m16n8k32 BLayout (not injective: refuted against the PTX fragment
with the thread, value and element) and the b1 m16n8k128 ALayout (stride not congruent with its shape)."""
from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

import cuteverify as cv
from cuteverify.core.notation.parse import parse
from cuteverify.errors import CuteVerifyError
from cuteverify.hardware import default_library
from cuteverify.hardware.library.intlayout import int_layout
from cutlass_text import cpp_layout

pytestmark = pytest.mark.differential  # compares with an outside oracle (tests/oracles/, recorded evidence)

cutlass_library = pytest.importorskip("cutlass_library")
TRAITS = Path(cutlass_library.__file__).parent / "source" / "include" / "cute" / "atom" / "mma_traits_sm80.hpp"

# CUTLASS texts that are not TV layouts of their tile (see the module docstring); the spec carries the layout the
# PTX fragment table gives.
DEFECTS = {("SM80_16x8x32_S32S4S4S32_TN", "B"), ("SM80_16x8x128_S32U1U1S32_TN_XORPOPC", "A")}


@pytest.fixture(scope="module")
def lib():
    return default_library()


def _cpp(text: str) -> str:
    return cpp_layout(text, unwrap=True)


@functools.cache
def _traits() -> dict:
    """{struct: {"A"/"B"/"C": layout text, "base": struct it inherits}} for every MMA_Traits<SM80_...>."""
    text = TRAITS.read_text()
    named = {m.group(1): _cpp(m.group(2))
             for m in re.finditer(r"using (SM80_\w+)\s*=\s*(Layout<.*?>);", text, re.S)}
    out = {}
    for m in re.finditer(r"struct MMA_Traits<(SM80_\w+)>\s*(?::\s*MMA_Traits<(SM80_\w+)>\s*)?\{(.*?)\};", text, re.S):
        entry = {"base": m.group(2)}
        for op in "ABC":
            lm = re.search(rf"using {op}Layout\s*=\s*([^;]*);", m.group(3))
            if lm:
                v = lm.group(1).strip()
                entry[op] = named[v] if v in named else _cpp(v)
        out[m.group(1)] = entry
    return out


def _layout_of(name: str, op: str) -> tuple:
    """(the struct whose text defines operand ``op`` of ``name``, that text)."""
    t = _traits()
    while op not in t[name]:
        name = t[name]["base"]
    return name, t[name][op]


def test_every_sm80_entry_has_cutlass_layouts(lib):
    checked = defects = entries = 0
    for name in sorted(_traits()):
        if name not in lib:
            continue
        spec = lib[name]
        entries += 1
        for op in "ABC":
            owner, text = _layout_of(name, op)
            mine = spec.data["operands"][op]["layout"]
            if (owner, op) in DEFECTS:
                assert mine != text, (name, op)
                defects += 1
                continue
            la, lb = int_layout(parse(mine), "spec"), int_layout(parse(text), "cutlass")
            assert la.modes == lb.modes, f"{name} {op}: spec {mine}, CUTLASS ({owner}) {text}"
            checked += 1
    assert entries >= 60 and defects == 8 + 2  # 8 s4/u4 m16n8k32 structs share the B text, 2 b1 m16n8k128 the A
    assert checked == 3 * entries - defects


def test_cutlass_s4_m16n8k32_b_layout_is_refuted(lib):
    owner, text = _layout_of("SM80_16x8x32_S32U4U4S32_TN", "B")
    assert owner == "SM80_16x8x32_S32S4S4S32_TN" and text == "((4,8),8):((32,1),8)"
    r = cv.agrees(text, "SM80_16x8x32_S32U4U4S32_TN", "B", library=lib)
    assert r.status == "refuted"
    c = r.counterexample  # thread 1 (threadID_in_group 1) starts at k = 4 in CUTLASS's text; PTX: at k = 8
    assert (c.thread, c.value) == (1, 0) and c.detail["hardware"] == (8, 0) and c.detail["user"] == (4, 0)
    assert cv.is_injective(text).status == "refuted"


def test_cutlass_b1_m16n8k128_a_layout_is_not_congruent():
    owner, text = _layout_of("SM80_16x8x128_S32U1U1S32_TN_ANDPOPC", "A")
    assert owner == "SM80_16x8x128_S32U1U1S32_TN_XORPOPC" and text == "((4,8),(32,2)):((512,1),((16,8)))"
    with pytest.raises(CuteVerifyError):
        parse(text)
