"""The spec-library cache of `cuteverify check` (cuteverify.manifest_cache): a cached library is the library
the code loads and self-checks (same specs, same layouts), a corrupt cache file is ignored, a changed spec
source is a new key, and only manifests that passed the schema are remembered as valid."""
from __future__ import annotations

import pickle

import pytest

from cuteverify import manifest as mf
from cuteverify import manifest_cache as mc
from cuteverify.hardware import library


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """An empty cache directory and no default library in this process (restored afterwards)."""
    monkeypatch.setenv("CUTEVERIFY_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("CUTEVERIFY_NO_CACHE", raising=False)
    saved = list(library._DEFAULT)
    library._DEFAULT.clear()
    yield tmp_path
    library._DEFAULT[:] = saved


def test_self_check_failure_writes_nothing(fresh, monkeypatch):
    from cuteverify.errors import SpecInconsistent

    def fail(spec):
        raise SpecInconsistent("simulated", spec.file, spec.line, spec.name)
    monkeypatch.setattr(mc, "self_check", fail)
    with pytest.raises(SpecInconsistent):
        mc.default_library()
    assert not list(fresh.glob("library-*")) and not library._DEFAULT


def test_cached_library_equals_the_loaded_one(fresh, monkeypatch):
    checked = []
    monkeypatch.setattr(mc, "self_check", checked.append)  # every spec goes through it before the write
    direct = library.load(check=False)
    first = mc.default_library()  # loads, self-checks, writes the cache
    files = list(fresh.glob("library-*.pickle"))
    assert len(files) == 1 and library.default_library() is first
    assert sorted(s.name for s in checked) == sorted(first)
    library._DEFAULT.clear()
    second = mc.default_library()  # from the cache
    assert second is not first and library.default_library() is second
    assert sorted(second) == sorted(direct) == sorted(first)
    for name in ("SM80_16x8x16_F16F16F16F16_TN", "SM75_U32x4_LDSM_N"):
        for op in ("A", "B", "C") if second[name].kind == "mma" else ("src", "dst"):
            assert str(second[name].layout(op)) == str(direct[name].layout(op))


def test_corrupt_cache_is_ignored(fresh, monkeypatch):
    monkeypatch.setattr(mc, "self_check", lambda spec: None)  # the cache's mechanics, not the self-check
    mc.default_library()
    path = next(fresh.glob("library-*.pickle"))
    path.write_bytes(b"not a pickle")
    library._DEFAULT.clear()
    lib = mc.default_library()
    assert "SM80_16x8x16_F16F16F16F16_TN" in lib
    (path,) = fresh.glob("library-*.pickle")  # rewritten whole (under a new key if the code changed meanwhile)
    assert sorted(pickle.loads(path.read_bytes())) == sorted(lib)


def test_key_follows_the_spec_sources(fresh, monkeypatch, tmp_path_factory):
    k0 = mc.cache_key()
    assert mc.cache_key() == k0
    extra = tmp_path_factory.mktemp("specs")
    monkeypatch.setenv("CUTEVERIFY_SPEC_PATH", str(extra))
    (extra / "x.yaml").write_text("version: 1\nspecs: {}\n")
    k1 = mc.cache_key()
    (extra / "x.yaml").write_text("version: 1\nspecs: {}\n# changed\n")
    assert len({k0, k1, mc.cache_key()}) == 3


def test_only_valid_manifests_are_remembered(fresh):
    good = fresh / "good.cute.yaml"
    good.write_text("version: 1\nkernels:\n  k:\n    claims:\n      - bijective: '4:1'\n")
    bad = fresh / "bad.cute.yaml"
    bad.write_text("version: 1\nkernels:\n  k:\n    claims:\n      - frobnicate: '4:1'\n")
    assert mf.load(good) and not mc.known_valid(mf._schema_text(), bad.read_text())
    assert mc.known_valid(mf._schema_text(), good.read_text())
    for _ in range(2):  # refused every time, never remembered
        with pytest.raises(mf.ManifestError, match="schema"):
            mf.load(bad)
    assert not mc.known_valid(mf._schema_text(), bad.read_text())


def test_no_cache(fresh, monkeypatch):
    monkeypatch.setattr(mc, "self_check", lambda spec: None)
    monkeypatch.setenv("CUTEVERIFY_NO_CACHE", "1")
    assert mc.cache_dir() is None
    assert "SM75_U32x4_LDSM_N" in mc.default_library()
    assert not list(fresh.iterdir())
