"""Every spec cites where its facts come from: the CUTLASS header (a file that exists in the nvidia-cutlass wheel)
and the PTX ISA section of its independent formula; an MMA spec's citation names its own struct, not the one it
was merged from in the YAML (``<<: *anchor`` copies every key, ``source`` included, unless the entry overrides it).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from cuteverify.hardware import default_library

cutlass_library = pytest.importorskip("cutlass_library")
ROOT = Path(cutlass_library.__file__).parent / "source"

# The spec files whose MMA entries must each cite their own struct (the files this rule was written for; the
# Blackwell files cite a templated struct per family and are held to the header/section rule only).
OWN_NAME_FILES = ("mma_sm70.yaml", "mma_sm75.yaml", "mma_sm80.yaml", "mma_sm89.yaml", "mma_sm90.yaml",
                  "mma_sm90_sparse.yaml", "mma_sm120.yaml")
_HEADER = re.compile(r"\b(include/[\w/]+\.hpp)\b")


def _specs(kinds=("mma", "copy")):
    lib = default_library()
    return [lib[n] for n in lib.names() if lib[n].kind in kinds]


@pytest.mark.differential
def test_every_mma_and_copy_spec_cites_an_existing_cutlass_header():
    bad = []
    for s in _specs():
        headers = _HEADER.findall(s.cutlass_source or "")
        if not headers:
            bad.append(f"{s.name}: no CUTLASS header in source {s.cutlass_source!r}")
        bad += [f"{s.name}: {h} is not in the wheel" for h in headers if not (ROOT / h).is_file()]
    assert not bad, bad[:5]


def test_every_mma_spec_cites_a_ptx_section():
    bad = [s.name for s in _specs(("mma",)) if not re.search(r"PTX ISA \d+(\.\d+)+", s.ptx_section or "")]
    assert not bad, bad[:5]


def test_mma_sources_name_their_own_struct():
    """The data bug this guards: entries merged from another entry cited that entry's struct."""
    bad = []
    for s in _specs(("mma",)):
        if Path(s.file).name not in OWN_NAME_FILES:
            continue
        names = [s.name, *(s.data.get("aliases") or [])]
        if not any(n in (s.cutlass_source or "") for n in names):
            bad.append(f"{s.name}: {s.cutlass_source}")
    assert not bad, f"{len(bad)} sources cite another struct, first: {bad[:3]}"


def _header_text(header: str) -> str:
    """A traits header and the arch header of its operation structs (mma_traits_sm80.hpp + mma_sm80.hpp)."""
    text = (ROOT / header).read_text()
    arch = ROOT / header.replace("atom/mma_traits", "arch/mma")
    return text + arch.read_text() if arch.is_file() else text


@pytest.mark.differential
def test_the_cited_struct_is_in_the_cited_header():
    """The struct (for a wgmma family its CUTLASS spellings, 64xNx16 -> MMA_64x8x16 ...) is in the header cited."""
    bad = []
    for s in _specs(("mma",)):
        if Path(s.file).name not in OWN_NAME_FILES:
            continue
        m = re.search(r"MMA_Traits<([\w:]+)", s.cutlass_source or "")
        header = _HEADER.search(s.cutlass_source or "")
        if not (m and header):
            bad.append(f"{s.name}: no MMA_Traits<...> and header in {s.cutlass_source!r}")
            continue
        stem = m.group(1).split("::")[-1]
        pattern = re.escape(stem).replace("xNx", r"x\d+x").replace("SM90_64x", "(?:SM90_|MMA_)64x")
        if not re.search(pattern, _header_text(header.group(1))):
            bad.append(f"{s.name}: {stem} not in {header.group(1)}")
    assert not bad, bad[:5]
