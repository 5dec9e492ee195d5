"""``cuteverify check --html``: one self-contained page per run (every claim, its verdict and time, the drawing
of each refuted layout with the counterexample outlined), linked from the JUnit XML. The page as a browser shows it: tests/test_report_browser.py
(headless Chromium)."""
from __future__ import annotations

import html.parser
import xml.etree.ElementTree as ET

import pytest
from click.testing import CliRunner

from cuteverify.cli.main import main

MANIFEST = """version: 1
kernels:
  k:
    layouts: {A: "(4,4):(1,2)", B: "(4,8):(1,4)", C: "(4,8):(1,5)"}
    claims:
      - injective: A
      - equal: [B, C]
      - bijective: B
      - surjective: {layout: A, codomain: 100}
      - injective: "(2,2):(1,1)"
        expect: refuted
"""


class _Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.rows, self.svgs, self.highlights, self.external = set(), 0, 0, 0, []
        self.texts = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "tr" and a.get("id", "").startswith("row-"):
            self.rows += 1
        if tag == "svg":
            self.svgs += 1
        if "highlight" in (a.get("class") or "").split():
            self.highlights += 1
        for k in ("src", "href"):
            v = a.get(k)
            if v and not v.startswith("#"):
                self.external.append(v)
        if tag in ("script", "link"):
            self.external.append(tag)

    def handle_data(self, data):
        self.texts.append(data)


@pytest.fixture()
def run_report(tmp_path):
    m = tmp_path / "k.cute.yaml"
    m.write_text(MANIFEST)
    out, junit = tmp_path / "report.html", tmp_path / "junit.xml"
    r = CliRunner().invoke(main, ["check", str(m), "--html", str(out), "--junit-xml", str(junit)])
    return r, out, junit


def test_page_has_every_claim_and_a_drawing_per_refutation(run_report):
    r, out, _ = run_report
    assert r.exit_code == 1, r.output
    page = _Page()
    page.feed(out.read_text())
    assert page.rows == 5
    # three unexpected refutations: each has its section and a drawing; the unreachable value has no cell
    # to outline, the collision two cells, the differing coordinate one
    assert {"claim-0", "claim-1", "claim-3"} <= page.ids and "claim-2" not in page.ids
    assert page.svgs == 3 and page.highlights == 3
    text = " ".join(page.texts)
    assert "coordinates 2 (2,0) and 4 (0,1) both map to 2" in text and "value 10 is not reached" in text
    assert "5 claim(s): 2 as expected, 3 not" in text
    assert page.external == [], "the page must be self-contained"


def test_junit_links_to_the_page(run_report):
    _, out, junit = run_report
    root = ET.parse(junit).getroot()
    assert root.find("properties/property").get("value") == "report.html"
    links = [p.get("value") for p in root.iter("property") if p.get("value", "").startswith("report.html#")]
    assert links == [f"report.html#claim-{i}" for i in range(5)]


def test_unwritable_report_is_an_input_error_before_the_run(tmp_path):
    m = tmp_path / "k.cute.yaml"
    m.write_text(MANIFEST)
    r = CliRunner().invoke(main, ["check", str(m), "--html", str(tmp_path / "no" / "r.html")])
    assert r.exit_code == 2 and "cannot write" in r.output
