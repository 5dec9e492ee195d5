"""pytest plugin (entry point ``pytest11: cuteverify``): every ``*.cute.yaml`` kernel manifest that pytest is
asked to collect becomes a file of test items, one per claim (``<file>::<kernel>::<claim>``). A claim passes
when its verdict equals its ``expect`` (default ``proved``); a failure shows the counterexample.

Nothing is collected unless a ``*.cute.yaml`` file lies under the paths pytest collects; disable with
``-p no:cuteverify`` or ``--no-cute-manifests``. cuteverify itself is imported only when a manifest is found.
"""
from __future__ import annotations

import pytest

from ..errors import CuteClaimFailure, ManifestError
from .manifest import load, run_claim

SUFFIX = ".cute.yaml"


def pytest_addoption(parser):
    group = parser.getgroup("cuteverify")
    group.addoption("--no-cute-manifests", action="store_true", default=False,
                    help="do not collect *.cute.yaml kernel manifests as tests")


def pytest_collect_file(file_path, parent):
    if file_path.name.endswith(SUFFIX) and not parent.config.getoption("no_cute_manifests", False):
        return CuteManifestFile.from_parent(parent, path=file_path)
    return None


class CuteManifestFile(pytest.File):
    def collect(self):
        try:
            claims = load(self.path)
        except ManifestError as e:
            raise self.CollectError(str(e)) from None
        seen = {}
        for c in claims:
            base = f"{c.kernel}::{c.label}"
            k = seen.get(base, 0)
            seen[base] = k + 1
            name = base if k == 0 else f"{base}[{k}]"
            yield CuteClaimItem.from_parent(self, name=name, claim=c)


class CuteClaimItem(pytest.Item):
    def __init__(self, *, claim, **kw):
        super().__init__(**kw)
        self.claim = claim
        self.add_marker(pytest.mark.cuteverify)

    def runtest(self):
        r = run_claim(self.claim)
        self.user_properties.append(("status", r["status"]))
        if r["status"] != self.claim.expect:
            raise CuteClaimFailure(self.claim, r)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CuteClaimFailure):
            c, r = excinfo.value.args
            got = r["status"] + (f" ({r['error_kind']} error)" if r.get("error_kind") else "")
            lines = [f"{c.location}: [{c.kernel}] {c.text}", f"  expected {c.expect}, got {got}"]
            if r.get("counterexample"):
                lines.append(f"  counterexample: {r['counterexample']['text']}")
            if r.get("reason"):
                lines.append(f"  reason: {r['reason']}")
            for o in r.get("obligations") or ():
                lines.append(f"  obligation: {o['text']}")
            return "\n".join(lines)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, (self.claim.line or 1) - 1, f"{self.claim.kernel}: {self.claim.label}"


def pytest_configure(config):
    config.addinivalue_line("markers", "cuteverify: a claim from a *.cute.yaml kernel manifest")
