"""The spec library's self-check cache (issue 30): a success is remembered for the exact YAML bytes and the
exact checker, in one cache file; any change of either, or a corrupt file, means the specs are checked again.
Also: ``spec validate-hw`` reads its input before any self-check, and a simple assumption such as ``S >= 1``
on a concrete layout imports neither sympy nor z3."""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from cuteverify.frontend.cli import spec_cmd
from cuteverify.frontend.cli.main import main
from cuteverify.errors import ContradictoryAssumptions, SpecInconsistent
from cuteverify.hardware.checks import cache as checkcache, selfcheck
from cuteverify.hardware.checks.checkall import check_all
from cuteverify.hardware.library import catalog as L
from cuteverify.hardware.library.lazylib import IndexedLibrary
from cuteverify.symbolic.assumptions import Assumptions
from test_specs import GOOD_SPEC, _write

NAME = "MY_8x8x4_F64_TN"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("CUTEVERIFY_CACHE_DIR", str(d))
    monkeypatch.delenv("CUTEVERIFY_NO_CACHE", raising=False)
    monkeypatch.delenv("CUTEVERIFY_NO_SPEC_CACHE", raising=False)
    return d / checkcache.FILE_NAME


@pytest.fixture
def counted(monkeypatch):
    seen = []
    real = L.self_check

    def check(spec, *a, **k):
        seen.append(spec.name)
        return real(spec, *a, **k)
    monkeypatch.setattr(L, "self_check", check)
    monkeypatch.setattr(selfcheck, "self_check", check)  # `spec check` checks through the module (checkall)
    return seen


def _spec_file(tmp_path, text=GOOD_SPEC):
    return _write(tmp_path, "mine.yaml", text)


def test_a_success_is_remembered_and_trusted_for_the_same_bytes(tmp_path, cache, counted):
    f = _spec_file(tmp_path)
    first = L.load([f], check=True, cached=True)
    assert counted == [NAME] and not first.cached and cache.is_file()
    again = L.load([f], check=True, cached=True)
    assert again.cached and counted == [NAME]  # no second self-check
    lazy = L.load([f], check="lazy", cached=True)
    assert isinstance(lazy, IndexedLibrary) and list(lazy) == list(first) and NAME in lazy
    assert lazy[NAME].data == first[NAME].data and counted == [NAME]


def test_a_changed_byte_of_the_yaml_is_checked_again(tmp_path, cache, counted):
    f = _spec_file(tmp_path)
    L.load([f], check=True, cached=True)
    f.write_text(GOOD_SPEC + "# one more byte\n")
    lib = L.load([f], check=True, cached=True)
    assert not lib.cached and counted == [NAME, NAME]
    # and a broken layout behind a previously cached name is refused, never trusted
    bad = GOOD_SPEC.replace('layout: "((4,8),2):((16,1),8)"', 'layout: "((4,8),2):((16,1),1)"')
    assert bad != GOOD_SPEC
    f.write_text(bad)
    with pytest.raises(Exception, match="MY_8x8x4_F64_TN|disagree|bijection"):
        L.load([f], check=True, cached=True)
    lazy = L.load([f], check="lazy", cached=True)
    with pytest.raises(Exception):
        lazy[NAME]


def test_another_checker_never_trusts_an_old_result(tmp_path, cache, counted, monkeypatch):
    f = _spec_file(tmp_path)
    L.load([f], check=True, cached=True)
    monkeypatch.setattr(checkcache, "checker_hash", lambda: "a-different-checker")
    lib = L.load([f], check=True, cached=True)
    assert not lib.cached and counted == [NAME, NAME]


@pytest.mark.parametrize("module", ["selfcheck.py", "canon.py"])  # hardware/checks/, core/: the whole package
def test_the_checker_hash_covers_the_self_check_source(monkeypatch, module):
    before = checkcache.checker_hash()
    read = Path.read_bytes

    def edited(self):
        data = read(self)
        return data + b"\n# edited\n" if self.name == module else data
    monkeypatch.setattr(Path, "read_bytes", edited)
    checkcache.checker_hash.cache_clear()
    try:
        assert checkcache.checker_hash() != before
    finally:
        monkeypatch.undo()
        checkcache.checker_hash.cache_clear()
    assert checkcache.checker_hash() == before


def test_a_lazy_load_remembers_the_name_index_and_still_self_checks(tmp_path, cache, counted):
    f = _spec_file(tmp_path)
    first = L.load([f], check="lazy", cached=True)
    assert not isinstance(first, IndexedLibrary) and not first.cached and counted == []
    again = L.load([f], check="lazy", cached=True)  # parses a file when a name it holds is asked for
    assert isinstance(again, IndexedLibrary) and not again.cached and list(again) == list(first)
    assert again[NAME].data == first.peek(NAME).data and counted == [NAME]  # checked where handed out
    eager = L.load([f], check=True, cached=True)  # an index alone is no success: every spec is checked
    assert not eager.cached and counted == [NAME, NAME]
    assert L.load([f], check=True, cached=True).cached and counted == [NAME, NAME]


def test_an_inconsistent_spec_behind_a_remembered_index_is_refused(tmp_path, cache, counted):
    f = _spec_file(tmp_path, _BAD)
    L.load([f], check="lazy", cached=True)
    lib = L.load([f], check="lazy", cached=True)
    assert isinstance(lib, IndexedLibrary) and NAME in lib
    for _ in range(2):  # refused every time, never handed out unchecked
        with pytest.raises(SpecInconsistent):
            lib[NAME]


@pytest.mark.parametrize("garbage", [b"\x00\xff not json", b"[]", b'{"format": 1, "entries": "x"}',
                                     b'{"format": 999, "entries": []}'])
def test_a_corrupt_cache_file_is_ignored(tmp_path, cache, counted, garbage):
    f = _spec_file(tmp_path)
    cache.parent.mkdir(parents=True)
    cache.write_bytes(garbage)
    lib = L.load([f], check=True, cached=True)
    assert not lib.cached and counted == [NAME]
    assert L.load([f], check=True, cached=True).cached  # rewritten by the success


def test_a_malformed_entry_for_the_right_key_is_a_miss(tmp_path, cache, counted, monkeypatch):
    f = _spec_file(tmp_path)
    monkeypatch.setattr(spec_cmd, "read_sources", lambda *a, **k: L.read_sources([f]))  # this file alone
    key = L.sources_key(L.read_sources([f]))
    checkcache.store(key, {"specs": 1, "index": {"names": {NAME: 7}, "aliases": {}}, "spec_check": {"specs": "x"}})
    lazy = L.load([f], check="lazy", cached=True)  # the index points past the files: not used
    assert not isinstance(lazy, IndexedLibrary)
    r = CliRunner().invoke(main, ["spec", "check", "--json", str(f)])
    d = json.loads(r.output)
    assert r.exit_code == 0 and not d["cached"] and d["specs"] == 1 and counted == [NAME]  # checked for real
    d2 = json.loads(CliRunner().invoke(main, ["spec", "check", "--json", str(f)]).output)
    assert d2["cached"] and d2["specs"] == 1 and d2["families"] == d["families"] and counted == [NAME]


# ------------------------------------------------------------------------------------- validate-hw


@pytest.mark.parametrize("text,want", [("", "no probe records"), ('{"instr": "x", "thread": 0}\n{oops\n', ":2")])
def test_validate_hw_reads_its_input_before_any_self_check(tmp_path, monkeypatch, text, want):
    def boom(spec, *a, **k):
        raise AssertionError("self-check before the input was read")
    monkeypatch.setattr(L, "self_check", boom)
    monkeypatch.setattr(L, "_DEFAULT", [])
    p = tmp_path / "probe.jsonl"
    p.write_text(text)
    r = CliRunner().invoke(main, ["spec", "validate-hw", str(p)])
    assert r.exit_code == 2, r.output
    assert want in r.output and "self-check before" not in r.output


# --------------------------------------------------------------------------------- no sympy for S >= 1

_PROBE = textwrap.dedent("""
    import sys
    from click.testing import CliRunner
    from cuteverify.frontend.cli.main import main
    r = CliRunner().invoke(main, ["check", "--json", sys.argv[1]])
    print(r.exit_code, "sympy.core" in sys.modules, "z3.z3" in sys.modules)
""")


def test_a_simple_assumption_on_a_concrete_layout_imports_no_sympy(tmp_path):
    m = tmp_path / "k.cute.yaml"
    m.write_text('version: 1\nkernels:\n  k:\n    symbols: [S]\n    assume: ["S >= 1", "8 | S", "S != 3"]\n'
                 '    layouts:\n      a: "(4,8):(8,1)"\n    claims:\n      - bijective: a\n')
    env = {**os.environ, "CUTEVERIFY_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", _PROBE, str(m)], capture_output=True, text=True, timeout=120, env=env)
    assert out.stdout.split() == ["0", "False", "False"], out.stdout + out.stderr


def _brute(facts):
    """Satisfiable over positive integers? By search to 256: the bounds stay below 41, a symbol's divisors'
    lcm divides 24 and it has at most 4 excluded values, so a satisfiable set has a solution below 41 + 24 * 5."""
    names = sorted({t for _, a, b in facts for t in (a, b) if isinstance(t, str)})
    cands = range(1, 256)

    def holds(kind, a, b, env):
        x, y = (env.get(a, a), env.get(b, b))
        return {"le": x <= y, "lt": x < y, "eq": x == y, "ne": x != y,
                "divides": (y == 0) if x == 0 else y % x == 0}[kind]
    per = []  # the facts are one symbol each: search each symbol alone
    for n in names:
        mine = [f for f in facts if n in f[1:]]
        per.append(any(all(holds(k, a, b, {n: v}) for k, a, b in mine) for v in cands))
    return all(per)


_OPS = {"le": "<=", "lt": "<", "eq": "==", "ne": "!="}


def test_simple_facts_decide_consistency_as_a_search_does():
    rng = random.Random(7)
    for _ in range(300):
        facts, texts = [], []
        for _ in range(rng.randint(1, 4)):
            n, c = rng.choice("ST"), rng.randint(-3, 40)
            kind = rng.choice(["le", "lt", "eq", "ne", "divides"])
            if kind == "divides":
                c = rng.choice([1, 2, 3, 4, 6, 8])
                facts.append(("divides", c, n))
                texts.append(rng.choice([f"{c} | {n}", f"{n} % {c} == 0"]))
            elif rng.random() < 0.5:
                facts.append((kind, n, c))
                texts.append(f"{n} {_OPS[kind]} {c}")
            else:
                facts.append((kind, c, n))
                texts.append(f"{c} {_OPS[kind]} {n}")
        asm = Assumptions(texts)
        full = Assumptions(texts)
        assert sorted(set(map(str, full.conditions))) == list(asm.key()[0])  # the unbuilt facts' texts
        try:
            asm.check_consistent()
            ok = True
        except ContradictoryAssumptions:
            ok = False
        assert ok == _brute(facts), texts


def test_unbuilt_facts_build_to_what_parse_expr_gives():
    asm = Assumptions(["S >= 1", "128 | M", "K % 64 == 0", "N != 3", "-2 < T"])
    assert [str(c) for c in asm.conditions] == ["1 <= S", "128 | M", "64 | K", "N != 3", "-2 < T"]
    assert asm.holds({"S": 1, "M": 256, "K": 64, "N": 4, "T": 1}) and not asm.holds({"S": 1, "M": 100, "K": 64,
                                                                                          "N": 4, "T": 1})
    assert Assumptions(["S >= 1", "8 | S"]).names() == {"S"}


# ------------------------------------------------------------------------- the whole-library check in workers

_BAD = GOOD_SPEC.replace('layout: "((4,8),2):((16,1),8)"', 'layout: "((4,8),2):((16,1),1)"')


@pytest.mark.parametrize("bad_files", [("a",), ("b",), ("a", "b")])
def test_check_all_in_workers_raises_the_first_failure_in_load_order(tmp_path, bad_files):
    paths = []
    for f in ("a", "b", "c"):
        text = (_BAD if f in bad_files else GOOD_SPEC).replace(NAME, f"{f.upper()}_{NAME}")
        paths.append(_write(tmp_path, f"{f}.yaml", text))
    specs = [s for p in paths for s in L.load([p], check=False).values()]
    with pytest.raises(SpecInconsistent) as e:
        check_all(specs, jobs=2)
    assert e.value.spec == f"{bad_files[0].upper()}_{NAME}" and e.value.file.endswith(f"{bad_files[0]}.yaml")
    with pytest.raises(SpecInconsistent) as serial:
        check_all(specs, jobs=1)
    assert str(serial.value) == str(e.value)


def test_check_all_in_workers_passes_what_one_process_passes(tmp_path):
    paths = [_write(tmp_path, f"{f}.yaml", GOOD_SPEC.replace(NAME, f"{f}_{NAME}")) for f in "ab"]
    specs = [s for p in paths for s in L.load([p], check=False).values()]
    assert check_all(specs, jobs=2, side=lambda: "side") == check_all(specs, jobs=1, side=lambda: "side")
