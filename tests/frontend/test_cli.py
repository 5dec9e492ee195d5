"""CLI verbs through click's CliRunner and through the installed ``cuteverify`` console script."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from cuteverify.frontend.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SM80 = "SM80_16x8x16_F32BF16BF16F32_TN"
TV_A = "((4,8),(2,2,2)):((32,1),(16,8,128))"
TV_A_BAD = "((4,8),(2,2,2)):((32,1),(16,8,64))"


def run(*args):
    r = CliRunner().invoke(main, list(args))
    assert "Traceback" not in r.output, r.output
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return r


# --------------------------------------------------------------------------------------------- verbs

@pytest.mark.parametrize("args, code, needle", [
    (["injective", "(4,8):(1,4)"], 0, "PROVED"),
    (["injective", "(4,8):(1,2)"], 1, "counterexample: coordinates 2 (2,0) and 4 (0,1) both map to 2"),
    (["surjective", "(4,8):(1,4)"], 0, "PROVED"),
    (["surjective", "(4,8):(1,5)", "--codomain", "32"], 1, "not reached"),
    (["bijective", "S<3,3,3> o 0 o (8,64):(64,1)"], 0, "PROVED"),
    (["bijective", "(4,8):(2,8)"], 1, "counterexample"),
    (["bijective", "(M,N):(1,M)", "--assume", "M >= 1", "--assume", "N >= 1"], 0, "PROVED"),
    (["equal", "(4,8):(1,4)", "32:1"], 0, "PROVED"),
    (["equal", "(4,8):(1,4)", "(4,8):(8,1)"], 1, "counterexample: at coordinate 1"),
    (["disjoint", "4:2", "--cotarget", "24"], 0, "PROVED"),
    (["agrees", TV_A, "--spec", SM80, "--operand", "A"], 0, "PROVED"),
    (["agrees", TV_A_BAD, "--spec", SM80, "--operand", "A"], 1, "thread 0, value 4"),
    (["prove", "composition(A, B) == C", "--let", "A=(6,2):(8,2)", "--let", "B=(4,3):(3,1)",
      "--let", "C=((2,2),3):((24,2),8)"], 0, "PROVED"),
    (["prove", "injective(A)", "--let", "A=(4,8):(1,2)"], 1, "counterexample"),
])
def test_verbs(args, code, needle):
    r = run(*args)
    assert r.exit_code == code, r.output
    assert needle in r.output
    assert "time:" in r.output
    assert "\x1b[" not in r.output  # no colour when stdout is not a TTY


def test_unknown_exit_code_3():
    # a composition whose right leaves carry in a mode of the left layout has no result (A(2) = 10 while the
    # leaves composed one by one give 2): the claim about it cannot be decided, the prover answers unknown
    r = run("prove", "bijective(composition(A, B))", "--let", "A=(2,2):(1,10)", "--let", "B=(2,2):(1,1)")
    assert r.exit_code == 3, r.output
    assert "UNKNOWN" in r.output and "reason:" in r.output


def test_obligations_are_printed():
    r = run("bijective", "(M,N/8):(1,M)")
    assert r.exit_code == 0
    assert "obligations" in r.output and "8 | N" in r.output


@pytest.mark.parametrize("args", [
    ["injective", "(4,8):(1,2)"],
    ["bijective", "(4,8):(1,4)"],
    ["equal", "(4,8):(1,4)", "(4,8):(8,1)"],
    ["surjective", "(4,8):(1,4)", "--codomain", "64"],
    ["disjoint", "4:2", "--cotarget", "24"],
    ["agrees", TV_A_BAD, "--spec", SM80, "--operand", "A"],
    ["prove", "bijective(A)", "--let", "A=(4,8):(1,4)"],
])
def test_json(args):
    r = run(*args, "--json")
    d = json.loads(r.output)
    assert d["status"] in ("proved", "refuted", "unknown")
    assert d["exit_code"] == r.exit_code
    if d["status"] == "refuted":
        assert d["counterexample"] is not None and d["counterexample"]["text"]


@pytest.mark.parametrize("args", [
    ["injective", "(4,8:(1,2)"],
    ["injective", ""],
    ["surjective", "(4,8):(1,4)", "--codomain", "3+"],
    ["bijective", "(M,N):(1,M)", "--assume", "M >>> 1"],
    ["equal", "(4,8):(1,4)", "(4,8):(1,"],
    ["equal", "(4,8):(1,4"],
    ["disjoint", "4:2", "--cotarget", "%%"],
    ["agrees", "(4,8)x", "--spec", SM80, "--operand", "A"],
    ["agrees", TV_A, "--spec", "NO_SUCH_SPEC", "--operand", "A"],
    ["agrees", TV_A, "--spec", SM80, "--operand", "Z"],
    ["agrees", TV_A, "--spec", SM80, "--operand", "A", "--param", "N"],
    ["prove", "bijective(A", "--let", "A=(4,8):(1,4)"],
    ["prove", "frobnicate(A)", "--let", "A=(4,8):(1,4)"],
    ["prove", "bijective(A)", "--let", "A"],
    ["prove", "bijective(A)", "--let", "A=(4,"],
    ["spec", "show", "NO_SUCH_SPEC"],
    ["check", "does/not/exist.cute.yaml"],
    ["injective"],
    ["nonsense-verb"],
])
def test_bad_input_exit_2(args):
    r = run(*args)
    assert r.exit_code == 2, (args, r.exit_code, r.output)
    assert "Traceback" not in r.output


def test_parse_error_points_at_column():
    r = run("injective", "(4,8):(1,2x)")
    assert r.exit_code == 2
    assert "column" in r.output and "^" in r.output


def test_help_documents_exit_codes():
    for verb in ("injective", "surjective", "bijective", "equal", "disjoint", "agrees", "prove", "check"):
        r = run(verb, "--help")
        assert r.exit_code == 0
        assert "Exit codes" in r.output, verb
    assert "Exit codes" in run("--help").output


def test_eval_and_algebra_still_there():
    assert run("eval", "(4,8):(1,4)", "5").exit_code == 0
    assert run("algebra", "coalesce((2,(1,6)):(1,(6,2)))").exit_code == 0


# ---------------------------------------------------------------------------------------------- spec

def test_spec_list_show_check():
    r = run("spec", "list", "SM80_16x8x16")
    assert r.exit_code == 0 and SM80 in r.output
    r = run("spec", "list", "--kind", "smem_atom", "--json")
    rows = json.loads(r.output)
    assert rows and all(x["kind"] == "smem_atom" for x in rows)
    r = run("spec", "show", SM80)
    assert r.exit_code == 0 and TV_A in r.output
    d = json.loads(run("spec", "show", "SM90_64xNx16_F32BF16BF16_SS", "--param", "N=128", "--json").output)
    assert d["operands"]["C"]["layout"] == "((4,8,4),(2,2,16)):((128,1,16),(64,8,512))"
    r = run("spec", "check")
    assert r.exit_code == 0 and "OK" in r.output
    assert "proved for every parameter value by one symbolic proof per operand" in r.output  # says which


def test_spec_check_reports_a_broken_spec(tmp_path):
    bad = tmp_path / "bad.yaml"
    text = (ROOT / "specs" / "mma_sm80.yaml").read_text()
    # rename the specs (no duplicates) and break one layout
    text = text.replace("SM80_", "MY_SM80_").replace("((4,8),(2,2,2)):((32,1),(16,8,128))",
                                                     "((4,8),(2,2,2)):((32,1),(16,8,64))", 1)
    bad.write_text(text)
    r = run("spec", "check", str(bad))
    assert r.exit_code in (1, 2), r.output
    assert "bad.yaml" in r.output


# -------------------------------------------------------------------------------------------- check

def test_check_examples_pass(tmp_path):
    junit = tmp_path / "out.xml"
    r = run("check", str(EXAMPLES / "fa2_sm80.cute.yaml"), str(EXAMPLES / "hopper_gemm_sm90.cute.yaml"),
            "--junit-xml", str(junit))
    assert r.exit_code == 0, r.output
    assert "as expected, 0 not" in r.output
    import xml.etree.ElementTree as ET
    root = ET.parse(junit).getroot()
    assert int(root[0].get("tests")) > 5 and root[0].get("failures") == "0"


@pytest.mark.parametrize("name", ["fa2_sm80_broken", "hopper_gemm_sm90_broken"])
def test_check_broken_examples_fail(name):
    r = run("check", str(EXAMPLES / "broken" / f"{name}.cute.yaml"))
    assert r.exit_code == 1, r.output
    assert "counterexample:" in r.output


def test_check_json_and_jobs():
    r = run("check", "-j", "2", "--json", *map(str, sorted(EXAMPLES.glob("*.cute.yaml"))))
    d = json.loads(r.output)
    assert d["exit_code"] == r.exit_code == 0
    assert d["results"] and all(x["ok"] for x in d["results"])
    r = run("check", "--json", str(EXAMPLES / "broken" / "fa2_sm80_broken.cute.yaml"))
    d = json.loads(r.output)
    assert d["exit_code"] == 1
    assert any(x["counterexample"] for x in d["results"])


def test_check_bad_manifest_points_at_line_and_column(tmp_path):
    m = tmp_path / "k.cute.yaml"
    m.write_text('kernels:\n  k:\n    layouts:\n      A: "(4,8):(1,4x)"\n    claims:\n      - bijective: A\n')
    r = run("check", str(m))
    assert r.exit_code == 2
    assert f"{m}:4:" in r.output  # line 4
    # column: the quote is at 10, the text starts at 11; the parser points at column 10 of the text ("4x")
    assert f"{m}:4:20" in r.output, r.output


# --------------------------------------------------------------------------------- real subprocess

def _script():
    exe = shutil.which("cuteverify")
    if exe is None:
        pytest.skip("the cuteverify console script is not installed (pip install -e .)")
    return exe


def _sub(*args, timeout=60):
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    p = subprocess.run([_script(), *args], capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)
    assert "Traceback" not in p.stdout + p.stderr, p.stdout + p.stderr
    return p


def test_subprocess_exit_codes():
    assert _sub("--help").returncode == 0
    assert _sub("injective", "(4,8):(1,4)").returncode == 0
    p = _sub("injective", "(4,8):(1,2)", "--json")
    assert p.returncode == 1 and json.loads(p.stdout)["status"] == "refuted"
    p = _sub("bijective", "(4,8:(1,4)")
    assert p.returncode == 2 and "error:" in p.stderr
    p = _sub("prove", "bijective(composition(A, B))", "--let", "A=(2,2):(1,10)", "--let", "B=(2,2):(1,1)")
    assert p.returncode == 3


def test_subprocess_check_examples():
    p = _sub("check", "-j", "2", "examples/fa2_sm80.cute.yaml", "examples/hopper_gemm_sm90.cute.yaml")
    assert p.returncode == 0, p.stdout + p.stderr
    p = _sub("check", *sorted(str(x) for x in (EXAMPLES / "broken").glob("*.cute.yaml")))
    assert p.returncode == 1
    assert "counterexample:" in p.stdout
    assert "\x1b[" not in p.stdout and "\r" not in p.stderr  # not a TTY: no colour, no progress line


# ------------------------------------------------------------------------- errors, exit codes, start-up

def test_error_kinds_map_to_exit_codes():
    # undecided (the assumptions do not settle a question the operation must answer): 3, not an input error
    # (complement((M,N):(N,1)) and composition((M,N):(N,1), (4,8):(8,1)) are decided by case splits since
    # issue 19; the order of the strides 1 and K of complement((M,N):(K,1)) is still asked for)
    r = run("algebra", "complement((M,N):(K,1))", "--json")
    assert r.exit_code == 3, r.output
    assert json.loads(r.stdout)["kind"] == "undecided"
    r = run("algebra", "complement((M,N):(N,1))", "--assume", "N >= 2")
    assert r.exit_code == 0, r.output


def test_internal_error_exit_4_without_traceback(monkeypatch):
    from cuteverify.frontend.cli import prove_cmd

    def broken(*a, **kw):
        raise RuntimeError("simulated prover bug")

    monkeypatch.setattr(prove_cmd, "is_injective", broken)
    monkeypatch.delenv("CUTEVERIFY_DEBUG", raising=False)
    r = run("injective", "(4,8):(1,4)", "--json")
    assert r.exit_code == 4, r.output
    assert "internal error: RuntimeError: simulated prover bug" in r.output
    assert json.loads(r.stdout)["exit_code"] == 4
    r = CliRunner().invoke(main, ["--debug", "injective", "(4,8):(1,4)"])
    assert r.exit_code == 4 and "Traceback" in r.output
    monkeypatch.setenv("CUTEVERIFY_DEBUG", "1")
    r = CliRunner().invoke(main, ["injective", "(4,8):(1,4)"])
    assert r.exit_code == 4 and "Traceback" in r.output


def test_lazy_command_table_matches_the_commands():
    import click

    from cuteverify.frontend.cli.main import COMMANDS
    for name in COMMANDS:
        cmd = main.get_command(None, name)
        assert isinstance(cmd, click.Command) and cmd.name == name, name
    assert set(main.list_commands(None)) == set(COMMANDS)


def test_help_loads_neither_prover_nor_spec_library():
    code = ("import sys\nfrom cuteverify.frontend.cli.main import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n"
            "    pass\nheavy = [m for m in ('cuteverify.prover', 'cuteverify.hardware', 'z3', 'sympy')\n"
            "         if m in sys.modules and type(sys.modules[m]).__name__ == 'module']\nprint(heavy)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().splitlines()[-1] == "[]", p.stdout


def test_shared_assumptions_across_arguments():
    # an assumption may name a symbol of either argument (this crashed with an ImportError before)
    r = run("equal", "(M,4):(1,M)", "(M,4):(1,M)", "--assume", "M >= 1")
    assert r.exit_code == 0, r.output
    r = run("disjoint", "4:2", "--cotarget", "8*K", "--assume", "K >= 1")  # K only in the cotarget
    assert r.exit_code == 0 and "PROVED" in r.output, r.output
    r = run("equal", "(M,4):(1,M)", "(M,4):(1,M)", "--assume", "Q >= 1")  # a name neither argument has
    assert r.exit_code == 2 and "unknown name(s): Q" in r.output


def test_let_errors_point_at_the_item():
    from cuteverify.algebra.expr import parse_let
    from cuteverify.errors import ParseError
    assert parse_let(["A=(4,8):(1,4)", " B =8:1"]) == {"A": "(4,8):(1,4)", "B": "8:1"}
    for bad in ("A", "1x=4:1", "=4:1"):
        with pytest.raises(ParseError):
            parse_let([bad])
    r = run("algebra", "coalesce(A)", "--let", "A")
    assert r.exit_code == 2 and "NAME=LAYOUT" in r.output
