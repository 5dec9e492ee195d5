"""The Blackwell hardware modules that are not specs, checked by ``cuteverify spec check`` after the spec
library's self-check: CUTLASS's TMEM accumulator atoms against the PTX data-path placement
(:func:`.tmem.check_datapath`, every data path A..G and every N of :func:`.tmem.datapath_ns`) and the
block-scaled scale-factor atoms against their offset formula (:func:`.blockscaled.check_sf_atom`, every
arch, SFVec and major). Each check enumerates every coordinate of its instance (plain integer layouts,
stride domain int). No Blackwell GPU was available: evidence none, PTX formula only.
"""
from __future__ import annotations

import time

from ..descriptors import blockscaled, tmem

__all__ = ["check_blackwell", "datapath_cases", "sf_atom_cases"]

EVIDENCE = "none, PTX formula only"


def datapath_cases() -> list:
    """``[(data path, N)]``: every data path with every N it is checked for."""
    return [(name, N) for name in tmem.DATAPATHS for N in tmem.datapath_ns(name)]


def sf_atom_cases() -> list:
    """``[(arch, sf_vec, major)]``: every scale-factor atom CUTLASS defines."""
    return [(a, v, m) for a in blockscaled.ARCHS for v in blockscaled.SF_VECS for m in ("K", "MN")]


def _group(verdicts) -> dict:
    """``{checked, proved, refuted: [{case..., reason}], unknown: [...]}`` of ``[(case, verdict)]``."""
    out = {"checked": len(verdicts), "proved": 0, "refuted": [], "unknown": []}
    for case, v in verdicts:
        if v.proved:
            out["proved"] += 1
        else:
            out["refuted" if v.refuted else "unknown"].append(dict(case, claim=v.claim, reason=v.reason))
    return out


def check_blackwell() -> dict:
    """Every check above: ``{"ok", "elapsed", "evidence", "tmem_datapaths", "sf_atoms"}``, each group as
    ``{checked, proved, refuted, unknown}`` with the failing cases (their claim and the first coordinate where
    CUTLASS's layout and the formula disagree). ``ok`` is False when any check is not proved."""
    t0 = time.perf_counter()
    dps = _group([({"datapath": n, "N": N}, tmem.check_datapath(n, N)) for n, N in datapath_cases()])
    sfs = _group([({"arch": a, "sf_vec": v, "major": m}, blockscaled.check_sf_atom(a, v, m))
                  for a, v, m in sf_atom_cases()])
    ok = all(g["proved"] == g["checked"] for g in (dps, sfs))
    return {"ok": ok, "elapsed": time.perf_counter() - t0, "evidence": EVIDENCE, "tmem_datapaths": dps,
            "sf_atoms": sfs}
