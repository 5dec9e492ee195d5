"""``cuteverify check --html``: one self-contained page per run (every claim, its verdict and time, the drawing
of each refuted layout with the counterexample outlined), linked from the JUnit XML. The page as a browser shows it: tests/frontend/test_report_browser.py
(headless Chromium)."""
from __future__ import annotations

import html.parser
import json
import math
import xml.etree.ElementTree as ET

import pytest
from click.testing import CliRunner

from cuteverify.frontend.cli.main import main

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


# ------------------------------------------------------------------ a refuted agrees, drawn through its TV layout

SPEC = "SM80_16x8x16_F32BF16BF16F32_TN"
# (name, wrong TV layout, the hardware's TV layout as CuTe prints it, rows of the tile: A (M,K) M, B (N,K) N)
TV_CASES = {
    "A": ((((4, 8), (2, 2, 2)), ((32, 1), (16, 128, 8))), (((4, 8), (2, 2, 2)), ((32, 1), (16, 8, 128))), 16),
    "B": ((((4, 8), (2, 2)), ((16, 1), (64, 8))), (((4, 8), (2, 2)), ((16, 1), (8, 64))), 8),
    "tiled": ((((4, 8, 2, 2), ((2, 2, 2), (1, 1))), ((64, 1, 16, 0), ((32, 256, 8), (0, 0)))),
              (((4, 8, 2, 2), ((2, 2, 2), (1, 1))), ((64, 1, 16, 0), ((32, 8, 256), (0, 0)))), 32),
}


def _text(t):
    return "(" + ",".join(_text(x) for x in t) + ")" if isinstance(t, tuple) else str(t)


def _at(shape, stride, i):
    """The layout's value at flat (colexicographic) index ``i`` of one mode: written here, not cuteverify's."""
    if isinstance(shape, int):
        assert 0 <= i < shape
        return i * stride
    out = 0
    for s, d in zip(shape, stride):
        out += _at(s, d, i % _size(s))
        i //= _size(s)
    return out


def _size(s):
    return s if isinstance(s, int) else math.prod(_size(x) for x in s)


def _tv(layout, t, v):
    (shape, stride) = layout
    return _at(shape[0], stride[0], t) + _at(shape[1], stride[1], v)


class _Cells(html.parser.HTMLParser):
    """The outlined (row, col) cells of each claim's section."""

    def __init__(self):
        super().__init__()
        self.section, self.cells = None, {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section":
            self.section = a.get("id")
        if "highlight" in (a.get("class") or "").split():
            self.cells.setdefault(self.section, set()).add((int(a["data-row"]), int(a["data-col"])))


def test_a_refuted_agrees_outlines_the_tile_cells_of_its_thread_and_value(tmp_path):
    lay = lambda x: f'"{_text(x[0])}:{_text(x[1])}"'  # noqa: E731
    m = tmp_path / "k.cute.yaml"
    m.write_text(f"""kernels:
  k:
    layouts:
      badA: {lay(TV_CASES["A"][0])}
      badB: {lay(TV_CASES["B"][0])}
      badT: {lay(TV_CASES["tiled"][0])}
      tm: make_tiled_mma({SPEC}, (2,2,1))
    claims:
      - agrees: {{layout: badA, spec: {SPEC}, operand: A}}
      - agrees: {{layout: badB, spec: {SPEC}, operand: B}}
      - agrees: {{layout: badT, tiled_mma: tm, operand: A}}
""")
    out = tmp_path / "r.html"
    r = CliRunner().invoke(main, ["check", "--json", "--html", str(out), str(m)])
    results = json.loads(r.output)["results"]
    assert [x["status"] for x in results] == ["refuted"] * 3, r.output
    page = _Cells()
    page.feed(out.read_text())
    for i, key in enumerate(("A", "B", "tiled")):
        wrong, hardware, rows = TV_CASES[key]
        t, v = results[i]["counterexample"]["thread"], results[i]["counterexample"]["value"]
        want = {(x % rows, x // rows) for x in (_tv(wrong, t, v), _tv(hardware, t, v))}
        assert len(want) == 2 and page.cells.get(f"claim-{i}") == want, (key, t, v, page.cells.get(f"claim-{i}"))
