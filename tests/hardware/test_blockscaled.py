"""Block-scaled scale-factor layouts (cuteverify/hardware/descriptors/blockscaled.py): CUTLASS's SM100 and SM103 atoms and
their ``tile_atom_to_shape_SFA/SFB`` tilings, printed by g++-compiled CUTLASS for sf_vec 16 and 32, equal the
library's layouts and the independent byte formula at every coordinate; a wrong stride is refuted with the
coordinate."""
from __future__ import annotations

import re

import pytest
from sm100_oracle import run_lines

from cuteverify.core.notation.parse import parse
from cuteverify.errors import SpecError
from cuteverify.hardware.descriptors import blockscaled as bs
from cuteverify.hardware.library.intlayout import int_layout

CHUNK = {"sm100": "cutlass::detail::Sm1xxBlockScaledBasicChunk", "sm103": "cutlass::detail::Sm103BlockScaledBasicChunk"}
CONFIG = {"sm100": "cutlass::detail::Sm1xxBlockScaledConfig", "sm103": "cutlass::detail::Sm103BlockScaledConfig"}
# (M, N, K, L): SFA tiles (M, K, L), SFB tiles (N, K, L)
PROBLEMS = [(128, 128, 128, 1), (256, 384, 128, 2), (128, 256, 256, 1)]


def _cute(text):
    return re.sub(r"_(\d+)", r"\1", text.strip())


def _vals(layout):
    return int_layout(parse(layout) if isinstance(layout, str) else layout, "layout").values()


@pytest.fixture(scope="module")
def cpp(tmp_path_factory):
    stmts, keys = [], []
    for arch in bs.ARCHS:
        for v in bs.SF_VECS:
            for major in ("K", "MN"):
                stmts.append(f"  print(typename {CHUNK[arch]}<{v}>::Sf{major}MajorAtom{{}}); printf(\"\\n\");")
                keys.append(("atom", arch, v, major))
            for M, N, K, L in PROBLEMS:
                for which in ("SFA", "SFB"):
                    stmts.append(f"  print({CONFIG[arch]}<{v}>::tile_atom_to_shape_{which}(make_shape({M}, {N}, "
                                 f"{K}, {L}))); printf(\"\\n\");")
                    keys.append((which, arch, v, (M, N, K, L)))
    lines = run_lines(tmp_path_factory.mktemp("sf"), stmts, "blockscaled")
    assert len(lines) == len(keys)
    return list(zip(keys, (_cute(x) for x in lines)))


@pytest.mark.differential
def test_atoms_equal_cutlass_and_the_formula(cpp):
    seen = 0
    for (what, arch, v, major), text in cpp:
        if what != "atom":
            continue
        assert _vals(text) == _vals(bs.sf_atom(arch, v, major)), (arch, v, major, text)
        assert bs.check_sf_atom(arch, v, major).proved
        seen += 1
    assert seen == 8
    assert bs.sf_atom("sm100", 32) == "((32,4),(32,4)):((16,4),(0,1))"


@pytest.mark.differential
def test_tilings_equal_cutlass_and_the_formula(cpp):
    seen = 0
    for (what, arch, v, prob), text in cpp:
        if what == "atom":
            continue
        M, N, K, L = prob
        mn = M if what == "SFA" else N
        if K % (4 * v):
            continue
        mine = bs.sf_layout(arch, v, mn, K, L)
        assert _vals(text) == _vals(mine), (what, arch, v, prob, text, str(mine))
        v_ = bs.check_sf_layout(text, arch, v, mn, K, L)
        assert v_.proved, str(v_)
        seen += 1
    assert seen >= 20


def test_wrong_layouts_are_refuted_with_the_coordinate():
    good = bs.sf_layout("sm100", 16, 256, 128, 2)
    assert str(good) == "(((32,4),2),((16,4),2),(1,2)):(((16,4),1024),((0,1),512),(0,2048))"
    swapped = "(((32,4),2),((16,4),2),(1,2)):(((16,4),512),((0,1),1024),(0,2048))"  # MN blocks before K blocks
    v = bs.check_sf_layout(swapped, "sm100", 16, 256, 128, 2)
    assert v.refuted and v.counterexample.detail["coordinate"] == (128, 0, 0)
    assert v.counterexample.detail["user"] == 512 and v.counterexample.detail["hardware"] == 1024
    # the SM103 K-major atom ((8,4,4),..):((16,128,4),..) is the SM100 one with its row mode split (the same
    # function, 16*(mn % 32) + 4*(mn // 32)): either layout passes for either arch, the formula says so
    assert bs.check_sf_layout(good, "sm103", 16, 256, 128, 2).proved
    # row groups in the wrong order (4*(mn % 32) + 16*(mn // 32)): refuted at row 1
    v = bs.check_sf_layout("(((32,4),2),((16,4),2),(1,2)):(((4,16),1024),((0,1),512),(0,2048))", "sm103", 16, 256,
                           128, 2)
    assert v.refuted and v.counterexample.detail["coordinate"] == (1, 0, 0)
    # sf_vec 16 read as 32: every 16th K element has its own scale factor
    v = bs.check_sf_layout(bs.sf_layout("sm100", 32, 128, 128), "sm100", 16, 128, 128)
    assert v.refuted and v.counterexample.detail["coordinate"] == (0, 16, 0)
    assert bs.check_sf_layout("(128,64):(1,128)", "sm100", 16, 128, 128).counterexample.kind == "mismatch"
    # the same bytes enumerated (k, mn): a mismatch of the modes, not read by its colex index
    v = bs.check_sf_layout("(128,128):(1,128)", "sm100", 16, 128, 128)
    assert v.status == "refuted"
    v = bs.check_sf_layout("(64,256):(1,64)", "sm100", 16, 256, 64)
    assert v.counterexample.kind == "mismatch" and "64 x 256" in str(v.counterexample)
    assert bs.check_sf_layout(bs.sf_layout("sm100", 16, 128, 64), "sm100", 16, 128, 64).proved


def test_bad_arguments_are_input_errors():
    for call in (lambda: bs.sf_atom("sm90"), lambda: bs.sf_atom("sm100", 8), lambda: bs.sf_layout("sm100", 16, 100, 64),
                 lambda: bs.sf_layout("sm100", 32, 128, 64), lambda: bs.sf_atom_offset("sm100", 16, 128, 0),
                 lambda: bs.sf_atom("sm100", 16, "row")):
        with pytest.raises(SpecError):
            call()
