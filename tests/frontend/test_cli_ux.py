"""What users notice at the command line (issue 27): whole claims in ``check`` (and ``-v``), a progress line,
``tma``'s derived descriptor, ``agrees LAYOUT NAME``, ``banks --access`` with synthesize's access forms, and
hints for a pasted ``print(tiled_mma)`` or swizzled ``print_layout``."""
from __future__ import annotations

import json
import re
import time

from click.testing import CliRunner

from cuteverify.frontend.cli.main import main
from cuteverify.frontend.cli.progress import ticker

SM80 = "SM80_16x8x16_F32BF16BF16F32_TN"
TV_A = "((4,8),(2,2,2)):((32,1),(16,8,128))"
LDSM_A = "ldmatrix:A:SM80_16x8x16_F32F16F16F32_TN:2x2x1"

# CuTe C++'s print(tiled_mma) of make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2,_2,_1>>{})
PRINTED_TILED_MMA = """TiledMMA
  ThrLayoutVMNK:  (_32,_2,_2,_1):(_1,_32,_64,_0)
  PermutationMNK: (_,_,_)
MMA_Atom
  ThrID:      _32:_1
  Shape_MNK:  (_16,_8,_16)
  LayoutA_TV: ((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))
  LayoutB_TV: ((_4,_8),(_2,_2)):((_16,_1),(_8,_64))
  LayoutC_TV: ((_4,_8),(_2,_2)):((_32,_1),(_16,_8))
"""
# CuTe C++'s print_layout(composition(Swizzle<2,0,3>{}, Layout<Shape<_4,_8>,Stride<_8,_1>>{}))
PRINTED_SWIZZLED = """Sw<2,0,3> o _0 o (_4,_8):(_8,_1)
       0    1    2    3    4    5    6    7
    +----+----+----+----+----+----+----+----+
 0  |  0 |  1 |  2 |  3 |  4 |  5 |  6 |  7 |
    +----+----+----+----+----+----+----+----+
 1  |  9 |  8 | 11 | 10 | 13 | 12 | 15 | 14 |
    +----+----+----+----+----+----+----+----+
 2  | 18 | 19 | 16 | 17 | 22 | 23 | 20 | 21 |
    +----+----+----+----+----+----+----+----+
 3  | 27 | 26 | 25 | 24 | 31 | 30 | 29 | 28 |
    +----+----+----+----+----+----+----+----+
"""

LONG = ("the accumulator fragment of every one of the four warps lands on its own quarter of the sixty-four by "
        "sixty-four tile and no element is written twice, checked end to end")
MANIFEST = f"""\
version: 1
kernels:
  ux:
    layouts:
      P: "S<3,3,3> o 0 o (8,64):(64,1)"
    claims:
      - bijective: P
        name: {LONG}
      - injective: P
"""


def run(*args, env=None):
    r = CliRunner().invoke(main, list(args), env=env)
    assert "Traceback" not in r.output, r.output
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return r


# ---------------------------------------------------------------------------------------------- check

def _claim_column(output: str) -> str:
    """The claim column's text (rows and their continuation lines, cut at the header's columns), words joined
    by one space."""
    header = output.splitlines()[0]
    start, end = header.index("claim"), header.index("expect")
    words = []
    for line in output.splitlines()[1:]:
        if line.startswith(("ok  ", "FAIL")) or (line.startswith(" " * start) and line[start:start + 1] != " "):
            words += line[start:end].split()
    return " ".join(words)


def test_check_prints_each_claim_whole_on_a_narrow_terminal(tmp_path):
    m = tmp_path / "ux.cute.yaml"
    m.write_text(MANIFEST)
    r = run("check", str(m), env={"COLUMNS": "90"})
    assert r.exit_code == 0, r.output
    assert "..." not in r.output
    assert max(len(line) for line in r.output.splitlines()) <= 90 or LONG not in r.output
    column = _claim_column(r.output)
    assert LONG in column, r.output  # every word, in order: wrapped, never cut
    assert "injective P" in column


def test_check_verbose_says_what_each_kind_means(tmp_path):
    m = tmp_path / "ux.cute.yaml"
    m.write_text(MANIFEST)
    plain = run("check", str(m)).output
    verbose = run("check", str(m), "-v").output
    assert "every element stored exactly once" not in plain
    meaning = [ln.strip() for ln in verbose.splitlines() if re.match(r"\s+(bijective|injective): ", ln)]
    assert len(meaning) == 2 and meaning[0].startswith("bijective: a permutation of [0, size)")
    assert meaning[1].startswith("injective: distinct coordinates reach distinct elements")


def test_progress_ticker_draws_and_erases_on_stderr(capfd):
    with ticker("spec check", enabled=True, delay=0.0, every=0.01):
        time.sleep(0.05)
    err = capfd.readouterr().err
    assert "\rspec check ... 0 s" in err and err.endswith("\r") and err.rstrip("\r").endswith(" ")
    with ticker("spec check", enabled=False, delay=0.0, every=0.01):
        time.sleep(0.02)
    assert capfd.readouterr().err == ""


# ------------------------------------------------------------------------------------------ agrees, tma

def test_agrees_takes_the_spec_positionally():
    r = run("agrees", TV_A, SM80, "--operand", "A")
    assert r.exit_code == 0 and "PROVED" in r.output, r.output
    assert run("agrees", TV_A, "--spec", SM80, "--operand", "A").exit_code == 0  # the option still works
    assert run("agrees", TV_A, SM80, "--spec", SM80, "--operand", "A").exit_code == 0
    both = run("agrees", TV_A, SM80, "--spec", "SM80_16x8x8_F32F16F16F32_TN", "--operand", "A")
    assert both.exit_code == 2 and "two spec names" in both.output
    none = run("agrees", TV_A, "--operand", "A")
    assert none.exit_code == 2 and "give the spec NAME" in none.output


def test_tma_derive_mode_prints_the_descriptor():
    # K-major bf16 128x64 tile under the 128B swizzle: CUTLASS's box is 64 elements (128 bytes) along K by 128
    # rows, the smem buffer 1024-byte aligned (the swizzle's 8 x 128-byte pattern)
    r = run("tma", "--gmem", "(M,K):(K,1)", "--smem", "GMMA::Layout_K_SW128_Atom", "--tile", "(128,64)",
            "--dtype", "bf16", "-a", "K % 8 == 0", "-a", "M <= 65536", "-a", "K <= 65536")
    assert r.exit_code == 0, r.output
    desc = r.output[r.output.index("descriptor (as make_tma_copy derives it"):]
    assert "global dims (K, M)" in desc and "box (64, 128)" in desc and "element strides (1, 1)" in desc
    assert "swizzle 128B" in desc and "smem alignment 1024 bytes" in desc
    plain = run("tma", "--dtype", "bf16", "--shape", "(64,128)", "--box", "(64,128)")
    assert "descriptor (as make_tma_copy" not in plain.output  # given, not derived: nothing to add


# ------------------------------------------------------------------------------------------------ banks

def _words_bank(addr: int) -> int:
    return (addr // 4) % 32


def test_banks_access_takes_the_synthesize_forms():
    row_major = run("banks", "(64,64):(64,1)", "--access", LDSM_A, "--dtype", "bf16", "--json")
    assert row_major.exit_code == 1, row_major.output
    d = json.loads(row_major.output)
    # 128-byte rows without a swizzle: ldmatrix's 8 row addresses of a phase all start in bank 0 (8-way)
    assert d["degree"] == 8 and d["vector_bytes"] == 16
    a, b = d["counterexample"]["byte_addresses"]
    assert a != b and _words_bank(a) == _words_bank(b)
    swizzled = run("banks", "S<3,3,3> o 0 o (64,64):(64,1)", "--access", LDSM_A, "--dtype", "bf16")
    assert swizzled.exit_code == 0 and "1-way" in swizzled.output, swizzled.output
    why = run("why", "(64,64):(64,1)", "-t", "64x64", "-d", "bf16", "-r", LDSM_A)
    assert "8-way conflict" in why.output  # the same form, the same degree, in both verbs
    cp = run("banks", "S<3,3,3> o 0 o (128,64):(64,1)", "--access", "cp_async:128:thr=(16,8):(8,1)", "-d", "bf16")
    assert cp.exit_code == 0 and "1-way" in cp.output, cp.output


def test_banks_access_forms_refuse_what_does_not_apply():
    tiled = run("banks", "(64,64):(64,1)", "--access", LDSM_A, "--tile", "16x64")
    assert tiled.exit_code == 2 and "--tile" in tiled.output
    consumer = run("banks", "S<3,3,3> o 0 o (128,64):(64,1)", "--access", "wgmma:A")
    assert consumer.exit_code == 2 and "cuteverify why" in consumer.output
    bad = run("banks", "(64,64):(64,1)", "--access", "ldmatrix:Z:SM80_16x8x16_F32F16F16F32_TN:2x2x1")
    assert bad.exit_code == 2 and "operand" in bad.output


# ------------------------------------------------------------------------------------------------ hints

def test_pasted_print_tiled_mma_names_the_tiled_mma_verb(tmp_path):
    f = tmp_path / "mma.txt"
    f.write_text(PRINTED_TILED_MMA)
    for arg in (PRINTED_TILED_MMA, "@" + str(f), " ".join(PRINTED_TILED_MMA.split())):
        r = run("bijective", arg)
        assert r.exit_code == 2, r.output
        assert "print(tiled_mma)" in r.output and "cuteverify tiled-mma ATOM --atom-layout \"(2,2,1)\"" in r.output


def test_pasted_swizzled_print_layout_points_at_its_first_line(tmp_path):
    f = tmp_path / "sw.txt"
    f.write_text(PRINTED_SWIZZLED)
    for arg in (PRINTED_SWIZZLED, "@" + str(f)):
        r = run("bijective", arg)
        assert r.exit_code == 2, r.output
        assert "hint: this is print_layout of the swizzled layout" in r.output
        assert '"Sw<2,0,3> o _0 o (_4,_8):(_8,_1)"' in r.output
    # the line the hint names reads as the table's function
    ok = run("eval", "Sw<2,0,3> o _0 o (_4,_8):(_8,_1)", "(1,1)")
    assert ok.exit_code == 0 and re.search(r"value: 8\b", ok.output), ok.output
