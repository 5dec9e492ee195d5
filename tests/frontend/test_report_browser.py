"""``cuteverify check --html`` as a person sees it: the page opened in a real browser (headless Chromium, Debian's
``chromium`` package), its screenshot decoded and checked for the elements the page must show, counted
independently from the page's own markup: one coloured band per claim row of its verdict's colour, one
bar per refuted-claim section, one outlined cell per highlighted counterexample cell. Skipped when no
Chromium is installed (CI installs only the repository).
"""
from __future__ import annotations

import html.parser
import re
import shutil
import struct
import subprocess
import zlib

import numpy as np
import pytest
from click.testing import CliRunner
from cuteverify.frontend.cli.main import main
from test_report import MANIFEST  # the same five claims the HTML report test renders

WIDTH, HEIGHT = 1000, 1600


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


pytestmark = pytest.mark.skipif(_chromium() is None, reason="no headless Chromium installed (Debian package chromium)")


class _Markup(html.parser.HTMLParser):
    """What the page's markup says it shows: row classes, refuted-claim sections, highlight rectangles."""

    def __init__(self):
        super().__init__()
        self.row_status, self.sections, self.highlights, self.highlight_strokes = [], 0, 0, set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "tr" and a.get("id", "").startswith("row-"):
            self.row_status += [c[len("status-"):] for c in classes if c.startswith("status-")]
        if tag == "section" and "claim" in classes:
            self.sections += 1
        if "highlight" in classes:
            self.highlights += 1
            self.highlight_strokes.add(a.get("stroke"))


def _png_rgb(data: bytes) -> np.ndarray:
    """Decode an 8-bit, non-interlaced RGB or RGBA PNG (what Chromium writes) into an (H, W, 3) array."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, head = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = head
    assert depth == 8 and ctype in (2, 6) and interlace == 0, head
    bpp = 3 if ctype == 2 else 4
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), dtype=np.uint8).reshape(h, 1 + w * bpp)
    out = np.zeros((h, w * bpp), dtype=np.uint8)
    prior = np.zeros(w * bpp, dtype=np.int64)
    for y in range(h):
        f, line = raw[y, 0], raw[y, 1:].astype(np.int64)
        if f == 0:
            cur = line
        elif f == 1:  # Sub: a running sum per channel
            cur = np.cumsum(line.reshape(w, bpp), axis=0).reshape(-1) % 256
        elif f == 2:  # Up
            cur = (line + prior) % 256
        else:  # Average, Paeth: sequential along the row
            cur = line.copy()
            for x in range(w * bpp):
                a = cur[x - bpp] if x >= bpp else 0
                b = prior[x]
                if f == 3:
                    cur[x] = (cur[x] + (a + b) // 2) % 256
                else:
                    c = prior[x - bpp] if x >= bpp else 0
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                    cur[x] = (cur[x] + pred) % 256
        out[y] = cur
        prior = cur
    return out.reshape(h, w, bpp)[:, :, :3]


def _hex(colour: str) -> np.ndarray:
    return np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)])


def _mask(img, colour, tol=6):
    return (np.abs(img.astype(np.int64) - _hex(colour)) <= tol).all(axis=2)


def _runs(flags, min_len=1):
    """Maximal runs of True in a 1-d boolean array at least ``min_len`` long."""
    out, start = [], None
    for i, v in enumerate(list(flags) + [False]):
        if v and start is None:
            start = i
        elif not v and start is not None:
            if i - start >= min_len:
                out.append((start, i))
            start = None
    return out


def _components(mask) -> int:
    """4-connected components of a boolean image."""
    seen = np.zeros_like(mask)
    n = 0
    for y, x in zip(*np.nonzero(mask)):
        if seen[y, x]:
            continue
        n += 1
        stack = [(y, x)]
        seen[y, x] = True
        while stack:
            cy, cx = stack.pop()
            for ny, nx in ((cy + 1, cx), (cy - 1, cx), (cy, cx + 1), (cy, cx - 1)):
                if 0 <= ny < mask.shape[0] and 0 <= nx < mask.shape[1] and mask[ny, nx] and not seen[ny, nx]:
                    seen[ny, nx] = True
                    stack.append((ny, nx))
    return n


@pytest.fixture(scope="module")
def shot(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("browser")
    m = tmp / "k.cute.yaml"
    m.write_text(MANIFEST)
    page = tmp / "report.html"
    r = CliRunner().invoke(main, ["check", str(m), "--html", str(page)])
    assert r.exit_code == 1, r.output
    png = tmp / "shot.png"
    base = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            f"--user-data-dir={tmp / 'profile'}", f"--window-size={WIDTH},{HEIGHT}"]
    p = subprocess.run(base + [f"--screenshot={png}", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert png.exists(), p.stderr[-2000:]
    text = page.read_text()
    markup = _Markup()
    markup.feed(text)
    return text, markup, _png_rgb(png.read_bytes())


def _css_colour(text, selector, prop):
    m = re.search(re.escape(selector) + r"\{[^}]*?" + prop + r"(#[0-9a-fA-F]{6})", text)
    assert m, f"{selector} {prop} not in the page's CSS"
    return m.group(1)


def test_screenshot_is_the_page(shot):
    _, _, img = shot
    assert img.shape == (HEIGHT, WIDTH, 3)
    assert (img != 255).any(axis=2).mean() > 0.02, "a blank screenshot"


def test_one_band_per_claim_row_in_its_verdict_colour(shot):
    text, markup, img = shot
    assert len(markup.row_status) == 5
    for status in ("proved", "refuted"):
        colour = _css_colour(text, f".status-{status}", "background:")
        # a table row's background spans most of the page's width (text covers little of it)
        wide = _mask(img, colour).sum(axis=1) > WIDTH // 3
        bands = _runs(wide, min_len=8)
        assert len(bands) == markup.row_status.count(status), (status, bands)


def test_one_bar_per_refuted_claim_section(shot):
    text, markup, img = shot
    colour = _css_colour(text, "section.claim", "border-left:[^;#]*")
    mask = _mask(img, colour)
    # the sections' left border: the leftmost column with that colour, in runs taller than a line of text
    cols = np.nonzero(mask.any(axis=0))[0]
    assert cols.size, "no section bar drawn"
    bars = _runs(mask[:, cols[0] + 1], min_len=60)
    assert markup.sections == 3 and len(bars) == markup.sections, bars


def test_one_outline_per_highlighted_cell(shot):
    _, markup, img = shot
    (stroke,) = markup.highlight_strokes
    assert markup.highlights == 3
    assert _components(_mask(img, stroke, tol=40)) == markup.highlights
