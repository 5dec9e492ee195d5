"""``cuteverify spec check`` also checks the Blackwell modules that are no specs: every TMEM data path at every
N its placement admits, every block-scaled scale-factor atom; a wrong atom makes it fail (exit 1) and names
the instance and the coordinate. The CLI runs against a one-file library (the whole one is covered by
tests/frontend/test_cli.py) so the broken cases stay fast."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cuteverify import hardware
from cuteverify.frontend.cli.main import main
from cuteverify.errors import SpecError
from cuteverify.hardware.checks import blackwell as blackwell_check
from cuteverify.hardware.descriptors import blockscaled, tmem

ROOT = Path(__file__).resolve().parents[2]
_REAL_LOAD = hardware.load


@pytest.fixture
def small_library(monkeypatch):
    """``spec check`` over one shipped file (the module checks do not depend on the specs)."""
    one = str(ROOT / "specs" / "ldmatrix.yaml")
    monkeypatch.setattr(hardware, "load", lambda *a, **k: _REAL_LOAD([one], shipped=False))


def _run(*args):
    return CliRunner().invoke(main, ["spec", "check", *args])


def test_every_admissible_n_of_every_datapath_is_checked():
    # independent of datapath_ns: the N in 1..256 the placement accepts (datapath_address raises otherwise)
    for name in tmem.DATAPATHS:
        admitted = []
        for N in range(1, tmem.N_MAX + 1):
            try:
                tmem.datapath_address(name, 0, 0, N)
            except SpecError:
                continue
            admitted.append(N)
        assert [(name, N) for N in admitted] == [c for c in blackwell_check.datapath_cases() if c[0] == name]
    assert len(blackwell_check.sf_atom_cases()) == 8


def test_spec_check_reports_the_blackwell_modules(small_library):
    r = _run()
    assert r.exit_code == 0, r.output
    assert "168 of 168 TMEM data-path atoms" in r.output and "8 of 8 scale-factor atoms" in r.output
    d = json.loads(_run("--json").output)
    bw = d["blackwell"]
    assert d["ok"] and d["exit_code"] == 0 and bw["ok"]
    assert bw["tmem_datapaths"]["checked"] == len(blackwell_check.datapath_cases()) == bw["tmem_datapaths"]["proved"]
    assert bw["sf_atoms"] == {"checked": 8, "proved": 8, "refuted": [], "unknown": []}


def test_a_wrong_datapath_atom_at_one_n_fails_spec_check(small_library, monkeypatch):
    real = tmem.cutlass_atom

    def wrong(name, N):  # data path A at N = 200 only: column stride 2
        return f"(128,{N}):({1 << 16},2)" if (name, N) == ("A", 200) else real(name, N)

    monkeypatch.setattr(tmem, "cutlass_atom", wrong)
    r = _run()
    assert r.exit_code == 1, r.output
    assert "167 of 168 TMEM data-path atoms" in r.output and "FAILED" in r.output
    assert "data path A (N=200)" in r.output and "D(0, 1)" in r.output
    d = json.loads(_run("--json").output)
    assert d["exit_code"] == 1 and not d["ok"]
    bad = d["blackwell"]["tmem_datapaths"]["refuted"]
    assert [(c["datapath"], c["N"]) for c in bad] == [("A", 200)]


def test_a_wrong_scale_factor_atom_fails_spec_check(small_library, monkeypatch):
    real = blockscaled.sf_atom

    def wrong(arch="sm100", sf_vec=16, major="K"):  # SM103 MN-major, SFVec 32: the K-block stride 1 -> 2
        text = real(arch, sf_vec, major)
        return text.replace("((0,1),", "((0,2),") if (arch, sf_vec, major) == ("sm103", 32, "MN") else text

    monkeypatch.setattr(blockscaled, "sf_atom", wrong)
    monkeypatch.setattr(blackwell_check, "datapath_cases", lambda: [("A", 8)])  # the data paths: elsewhere
    d = json.loads(_run("--json").output)
    assert d["exit_code"] == 1
    bad = d["blackwell"]["sf_atoms"]["refuted"]
    assert [(c["arch"], c["sf_vec"], c["major"]) for c in bad] == [("sm103", 32, "MN")]
    assert "disagree" in bad[0]["reason"] or "byte" in bad[0]["reason"]
