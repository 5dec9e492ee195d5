"""What `cuteverify check` remembers (cuteverify.frontend.manifest.cache): only manifests that passed the schema are
remembered as valid; the spec library is the process's lazily self-checked default, never written to disk."""
from __future__ import annotations

import pytest

from cuteverify.frontend import manifest as mf
from cuteverify.frontend.manifest import cache as mc
from cuteverify.hardware.library import catalog as library


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """An empty cache directory and no default library in this process (restored afterwards)."""
    monkeypatch.setenv("CUTEVERIFY_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("CUTEVERIFY_NO_CACHE", raising=False)
    saved = list(library._DEFAULT)
    library._DEFAULT.clear()
    yield tmp_path
    library._DEFAULT[:] = saved


def test_the_library_is_the_lazily_checked_default(fresh):
    lib = mc.default_library()
    assert lib is library.default_library() and lib._checker is not None
    assert not list(fresh.glob("library-*"))  # no library is written anywhere


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
    monkeypatch.setenv("CUTEVERIFY_NO_CACHE", "1")
    assert mc.cache_dir() is None
    assert "SM75_U32x4_LDSM_N" in mc.default_library()
    assert not list(fresh.iterdir())
