"""Issue 27, "Names": one resolver (``hardware.library.catalog.resolve``), one spec -> Layout door
(``Spec.layout``), one operand map and one ``agrees`` decision, checked against the code before the fold.

The expected data under tests/hardware/data/ was computed by the code before issue 27 (/work/base at commit 33c085f):
``one_resolver_base.json`` is, for every library name and alias, two instances of every family (as CUTLASS
names and as keywords), every eighth CUTLASS header struct, every name the examples' manifests resolve, the
short smem-atom / TMA names and a few refusals, what that code's ``hardware.library.resolve`` and its second
resolver ``atoms.names.resolve_spec(name, "mma" | "copy")`` returned (spec name and parameters, or the
exception's class). ``one_layout_base.json`` is ``str`` of the spec's layout for every spec / operand
(``thr_id``, smem ``layout_bits`` included), symbolic and at a family's first and last instance, on which the
old five spec -> Layout paths all agreed. ``one_tiled_agrees_base.json``: the verdicts of both old tiled-MMA
agreement implementations (``hardware.agrees(..., atom_layout=, tile=)`` and ``atoms.agrees_tiled``) on the
tiled layouts of four tiled MMAs and two perturbations of each; ``one_agrees_base.json``: the verdict of the
first ``agrees`` claim of every example manifest (all 77 were proved).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cuteverify.errors import NotAdmissibleError
from cuteverify.atoms import agrees_tiled, make_tiled_mma
from cuteverify.frontend import manifest as mf
from cuteverify.frontend.cli.main import main
from cuteverify.hardware import agrees
from cuteverify.hardware.library import catalog
from cuteverify.hardware.library.catalog import load, resolve

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def lib():
    """The shipped library without its self-check (which names resolve does not depend on it; test_specs runs
    it)."""
    return load(shipped=True, check=False)


def _outcome(fn):
    try:
        spec, p = fn()
    except Exception as e:  # the class is the expected data: which refusal, not its text
        return ["error", type(e).__name__]
    return [spec.name, {k: p[k] for k in sorted(p)}]


def test_every_name_resolves_as_before_through_the_one_resolver(lib):
    rows = json.loads((DATA / "one_resolver_base.json").read_text())
    assert len(rows) > 1000
    bad = []
    for name, dtype, params, plain, mma, copy in rows:
        got = _outcome(lambda: resolve(name, dtype, lib, **params))
        if got != plain:
            bad.append((name, params, "resolve", plain, got))
        for kind, want in (("mma", mma), ("copy", copy)):  # the atom builders' rules: that kind, all parameters
            got = _outcome(lambda: resolve(name, library=lib, kind=kind, instance=True, **params))
            if got != want:
                bad.append((name, params, kind, want, got))
    assert not bad, f"{len(bad)} differ, first: {bad[:5]}"


def test_get_reads_names_as_the_resolver_does(lib, monkeypatch):
    """``hardware.get`` looked names up exactly (a library name or alias): 2432 of the 3847 names these data
    were drawn from that the resolver reads (``SM100_TMEM_LOAD_16dp128b4x``, ``SM90_64x128x16_F32BF16BF16_SS``,
    ...) were unknown to it."""
    monkeypatch.setattr(catalog, "_DEFAULT", [lib])
    rows = json.loads((DATA / "one_resolver_base.json").read_text())
    named = [(n, r[0]) for n, dtype, params, r, _, _ in rows if not params and dtype is None and r[0] != "error"]
    assert len(named) > 600
    assert [(n, catalog.get(n).name) for n, _ in named] == named


def test_atom_rules_name_what_is_missing(lib):
    with pytest.raises(NotAdmissibleError, match="is a copy spec, not a mma atom"):
        resolve("SM75_U32x4_LDSM_N", library=lib, kind="mma")
    with pytest.raises(NotAdmissibleError, match=r"is a family: give N \(e\.g\. N=8\)"):
        resolve("SM90_64xNx16_F32BF16BF16_SS", library=lib, kind="mma", instance=True)


def test_spec_layout_is_every_old_path(lib):
    rows = json.loads((DATA / "one_layout_base.json").read_text())
    bad = []
    for name, operand, params, want in rows:
        try:
            got = str(lib[name].layout(operand, **params))
        except Exception as e:
            got = "error " + type(e).__name__
        if got != want:
            bad.append((name, operand, params, want, got))
    assert not bad, f"{len(bad)} differ, first: {bad[:5]}"


def test_spec_draw_takes_the_names_spec_show_takes(lib, monkeypatch):
    """``spec draw`` looked names up exactly (``Library.get``) where ``spec show`` resolves them: a CUTLASS
    instance name such as ``SM90_64x128x16_F32BF16BF16_SS`` was unknown to it. Both read the one resolver."""
    monkeypatch.setattr(catalog, "_DEFAULT", [lib])  # the drawing does not depend on the self-check
    r = CliRunner()
    a = r.invoke(main, ["spec", "draw", "SM90_64x128x16_F32BF16BF16_SS", "--format", "svg"])
    b = r.invoke(main, ["spec", "draw", "SM90_64xNx16_F32BF16BF16_SS", "-p", "N=128", "--format", "svg"])
    assert a.exit_code == 0 and b.exit_code == 0, (a.output, b.output)
    assert a.output.replace("SM90_64x128x16_F32BF16BF16_SS", "X") == b.output.replace("SM90_64xNx16_F32BF16BF16_SS",
                                                                                          "X")


def _verdict(fn):
    try:
        v = fn()
    except Exception as e:
        return ["error", type(e).__name__, str(e)]
    return [v.status, str(v.counterexample), v.reason]


def test_one_tiled_agreement_gives_both_old_verdicts():
    rows = json.loads((DATA / "one_tiled_agrees_base.json").read_text())
    assert {r[-1][0] for r in rows} == {"proved", "refuted"}
    for spec, params, al, perm, op, tile, text, plain, tiled in rows:
        tm = make_tiled_mma(spec, tuple(al), tuple(perm) if perm else None, **params)
        assert _verdict(lambda: agrees(text, spec, op, atom_layout=tuple(al), tile=tuple(tile), **params)) == plain
        assert _verdict(lambda: agrees_tiled(text, tm, op)) == tiled


def test_example_agrees_verdicts_unchanged():
    root = Path(__file__).parents[2]
    for file, kernel, index, status, cex in json.loads((DATA / "one_agrees_base.json").read_text()):
        claims = [c for c in mf.load(root / file) if c.kernel == kernel and c.index == index]
        (r,) = mf.run(claims)
        assert (r["status"], r.get("counterexample")) == (status, cex), (file, kernel, index)
