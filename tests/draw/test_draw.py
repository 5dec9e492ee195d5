"""Drawings (issue 7): the SVG's structure (cells, labels, highlights, TV labels), not its bytes; TikZ
documents compile where pdflatex exists; the ``draw`` CLI command."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import click
import pytest
from click.testing import CliRunner

import cuteverify as cv
from cuteverify import draw

NS = "{http://www.w3.org/2000/svg}"


# ------------------------------------------------------------------------------------------ helpers

def _root(text):
    root = ET.fromstring(text)
    assert root.tag == NS + "svg"
    return root


def _classes(el):
    return (el.get("class") or "").split()


def cells(text, panel=None):
    """{(row, col): (labels, group element)} of an SVG drawing (of one MMA panel if named)."""
    root = _root(text)
    scope = root
    if panel is not None:
        scope = next(g for g in root.iter(NS + "g") if "panel" in _classes(g) and g.get("data-name") == panel)
    out = {}
    for g in scope.iter(NS + "g"):
        if "cell" not in _classes(g):
            continue
        t = g.find(NS + "text")
        if t is None:
            labels = ()
        else:
            spans = t.findall(NS + "tspan")
            labels = tuple(s.text for s in spans) if spans else (t.text,)
        key = (int(g.get("data-row")), int(g.get("data-col")))
        assert key not in out
        out[key] = (labels, g)
    return out


def highlights(text):
    return {(int(r.get("data-row")), int(r.get("data-col")))
            for r in _root(text).iter(NS + "rect") if "highlight" in _classes(r)}


def _assert_labels_fit(text):
    """No overlaps: every label's (monospace) width fits in its cell, and cells do not overlap."""
    rects = []
    for (r, c), (labels, g) in cells(text).items():
        rect = g.find(NS + "rect")
        w, h = float(rect.get("width")), float(rect.get("height"))
        rects.append((float(rect.get("x")), float(rect.get("y")), w, h))
        t = g.find(NS + "text")
        if t is None:
            continue
        fs = float(t.get("font-size"))
        assert fs >= 9
        for s in labels:
            assert len(s) * 0.6 * fs <= w - 4, (s, fs, w)
        assert len(labels) * fs * 1.15 <= h, (labels, fs, h)
    xs = sorted({x for x, _, _, _ in rects})
    ys = sorted({y for _, y, _, _ in rects})
    w, h = rects[0][2], rects[0][3]
    assert all(b - a >= w - 1e-6 for a, b in zip(xs, xs[1:]))
    assert all(b - a >= h - 1e-6 for a, b in zip(ys, ys[1:]))


def fmt(v):
    from cuteverify.core.strides import ScaledBasis
    if isinstance(v, ScaledBasis):
        v = v.as_tuple()
    if isinstance(v, tuple):
        return "(" + ",".join(fmt(e) for e in v) + ")"
    return str(v)


# ------------------------------------------------------------------------------------- plain layouts

@pytest.mark.parametrize("text", ["(8,8):(8,1)", "((2,4),(2,4)):((1,16),(2,4))", "(4,6):(1,4)",
                                  "(3,(2,2)):(4,(1,2))"])
def test_grid_cells_match_layout(text):
    L = cv.parse(text)
    M, N = cv.size(L[0]), cv.size(L[1])
    got = cells(draw.svg(L))
    assert len(got) == M * N
    for m in range(M):
        for n in range(N):
            assert got[(m, n)][0] == (str(L(m, n)),)
            assert got[(m, n)][1].get("data-value") == str(L(m, n))


def test_64x64_four_digit_offsets_fit():
    L = cv.parse("(64,64):(64,1)")
    s = draw.svg(L)
    got = cells(s)
    assert len(got) == 4096
    assert got[(63, 63)][0] == ("4095",) and got[(1, 0)][0] == ("64",)
    _assert_labels_fit(s)


def test_8x8_fits_and_cells_square_for_short_labels():
    s = draw.svg("(8,8):(1,8)")
    _assert_labels_fit(s)
    rect = cells(s)[(0, 0)][1].find(NS + "rect")
    assert abs(float(rect.get("width")) - float(rect.get("height"))) <= 4


def test_long_labels_widen_cells():
    narrow = cells(draw.svg("(4,4):(1,4)"))[(0, 0)][1].find(NS + "rect")
    wide_svg = draw.svg(cv.make_identity_layout((16, 16)))
    wide = cells(wide_svg)[(0, 0)][1].find(NS + "rect")
    assert float(wide.get("width")) > float(narrow.get("width"))
    _assert_labels_fit(wide_svg)


def test_rank1_strip_and_wrapping():
    got = cells(draw.svg("16:3"))
    assert set(got) == {(0, c) for c in range(16)}
    assert [got[(0, c)][0][0] for c in range(16)] == [str(3 * c) for c in range(16)]
    # long strips wrap at a sub-mode boundary: (4,8) cells per row, 8 rows
    L = cv.parse("((4,8,8)):((2,8,64))")
    got = cells(draw.svg(L))
    assert len(got) == 256 and max(c for _, c in got) == 31
    vals = L.values()
    assert all(got[(i // 32, i % 32)][0] == (str(vals[i]),) for i in range(256))
    # a long single mode with no sub-modes wraps and may leave the last row partial
    got = cells(draw.svg("100:1"))
    assert len(got) == 100 and all(lab == (str(int(g.get("data-index"))),) for lab, g in got.values())


def test_rank3_columns_continue():
    L = cv.parse("(2,3,4):(1,2,6)")
    got = cells(draw.svg(L))
    assert len(got) == 24
    for m in range(2):
        for j in range(3):
            for k in range(4):
                assert got[(m, j + 3 * k)][0] == (str(L(m, j, k)),)


def test_hierarchical_boundaries():
    root = _root(draw.svg("((2,4),(2,4)):((1,16),(2,4))"))
    lines = [ln for ln in root.iter(NS + "line") if "boundary" in _classes(ln)]
    horiz = [ln for ln in lines if ln.get("y1") == ln.get("y2")]
    vert = [ln for ln in lines if ln.get("x1") == ln.get("x2")]
    assert len(horiz) == 3 and len(vert) == 3        # every 2 rows / columns inside 8
    plain = _root(draw.svg("(8,8):(1,8)"))
    assert not [ln for ln in plain.iter(NS + "line") if "boundary" in _classes(ln)]
    # deeper nesting: thicker lines at the outer sub-mode boundary
    root = _root(draw.svg("((2,2,2),2):((1,2,4),8)"))
    ws = {int(float(ln.get("y1"))): float(ln.get("stroke-width")) for ln in root.iter(NS + "line")
          if "boundary" in _classes(ln) and ln.get("y1") == ln.get("y2")}
    assert len(ws) == 3 and len(set(ws.values())) == 2


def test_coordinate_stride_labels():
    L = cv.make_identity_layout((4, (2, 3)))
    got = cells(draw.svg(L))
    assert len(got) == 24
    assert got[(1, 3)][0] == ("(1,(1,1))",) and got[(0, 0)][0] == ("(0,(0,0))",)
    flat = cv.make_identity_layout((4, (2, 3)), hierarchical=False)
    assert cells(draw.svg(flat))[(1, 3)][0] == ("(1,3)",)
    L2 = cv.parse("(4,8):(1@1,1@0)")
    got = cells(draw.svg(L2))
    assert got[(2, 5)][0] == ("(5,2)",)


def test_swizzled_composed_layout():
    C = cv.parse("S<3,3,3> o 0 o (8,64):(64,1)")
    got = cells(draw.svg(C))
    assert len(got) == 512
    for m in range(8):
        for n in range(0, 64, 7):
            assert got[(m, n)][0] == (str(C(m, n)),)
    assert got[(1, 0)][0] != ("64",) or C(1, 0) == 64


def test_highlight_forms():
    L = cv.parse("(8,8):(8,1)")
    assert highlights(draw.svg(L, highlight=[(1, 2), (5, 7)])) == {(1, 2), (5, 7)}
    assert highlights(draw.svg(L, highlight=[10])) == {(2, 1)}          # integral coordinate, colex
    assert highlights(draw.svg(L, highlight=(3, 4))) == {(3, 4)}        # a single pair
    H = cv.parse("((2,4),8):((1,2),8)")
    assert highlights(draw.svg(H, highlight=[((1, 2), 3)])) == {(5, 3)}  # hierarchical coordinate
    assert highlights(draw.svg(L)) == set()
    with pytest.raises(ValueError):
        draw.svg(L, highlight=[(8, 0)])
    with pytest.raises(ValueError):
        draw.svg(L, highlight=[64])


def test_title_and_symbolic():
    s = draw.svg("(4,4):(4,1)", title="my <title>")
    assert any(t.text == "my <title>" for t in _root(s).iter(NS + "text"))
    s = draw.svg("(4,4):(4,1)", title="")
    assert not [t for t in _root(s).iter(NS + "text") if "title" in _classes(t)]
    with pytest.raises(ValueError, match="symbolic"):
        draw.svg(cv.parse("(M,4):(1,M)"))


def test_repr_svg():
    L = cv.parse("(4,2):(2,1)")
    assert len(cells(draw.svg(L))) == 8


class _FakeFormatter:
    def __init__(self):
        self.printers = {}

    def for_type(self, cls, fn):
        self.printers[cls] = fn


class _FakeIPython:
    """The part of IPython's InteractiveShell an extension touches: ``display_formatter.formatters``."""

    def __init__(self):
        self.display_formatter = type("DF", (), {})()
        self.display_formatter.formatters = {"image/svg+xml": _FakeFormatter(), "text/plain": _FakeFormatter()}


def test_ipython_extension_registers_svg_formatter():
    ip = _FakeIPython()
    draw.load_ipython_extension(ip)
    printers = ip.display_formatter.formatters["image/svg+xml"].printers
    assert set(printers) == {cv.Layout, type(cv.parse("S<3,3,3> o 0 o (8,64):(64,1)"))}
    assert not ip.display_formatter.formatters["text/plain"].printers
    L = cv.parse("(4,2):(2,1)")
    assert printers[cv.Layout](L) == draw.svg(L)
    C = cv.parse("S<1,1,1> o 0 o (4,4):(4,1)")
    assert len(cells(printers[type(C)](C))) == 16
    # what cannot be drawn falls back to the text form (None), it never raises into the notebook
    assert printers[cv.Layout](cv.parse("(M,4):(1,M)")) is None
    assert printers[cv.Layout](cv.Layout(1 << 17, 1)) is None


# ------------------------------------------------------------------------------------- TV layouts

SM80_A = "((4,8),(2,2,2)):((32,1),(16,8,128))"
SM80_B = "((4,8),(2,2)):((16,1),(8,64))"
SM80_C = "((4,8),(2,2)):((32,1),(16,8))"


def test_tv_labels():
    L = cv.parse(SM80_C)
    got = cells(draw.svg_tv(L, tile=(16, 8)))
    assert len(got) == 128
    for t in range(32):
        for v in range(4):
            idx = L(t, v)
            labels, g = got[(idx % 16, idx // 16)]
            assert labels == (f"T{t}", f"V{v}")
            assert g.get("data-thread") == str(t)
            assert g.find(NS + "rect").get("fill") == draw.thread_color(t)
    assert got[(0, 0)][0] == ("T0", "V0") and got[(8, 0)][0] == ("T0", "V2")


def test_tv_blank_and_duplicate_cells():
    s = draw.svg_tv("(4,2):(1,2)", tile=(4, 4))
    got = cells(s)
    assert len(got) == 16
    empty = {k for k, (lab, g) in got.items() if "empty" in _classes(g)}
    assert empty == {(r, c) for r in range(4) for c in range(4)} - {(0, 0), (1, 0), (2, 0), (3, 0), (0, 1), (1, 1)}
    assert all(got[k][0] == () for k in empty)
    dups = {k for k, (lab, g) in got.items() if "dup" in _classes(g)}
    assert dups == {(2, 0), (3, 0)}
    assert set(got[(2, 0)][1].get("data-hits").split()) == {"T2V0", "T0V1"}
    with pytest.raises(ValueError, match="outside"):
        draw.svg_tv("(4,2):(1,4)", tile=(2, 2))
    with pytest.raises(ValueError):
        draw.svg_tv("(4,2):(1,4)")


def test_tv_highlight_and_thr_id():
    s = draw.svg_tv(SM80_C, tile=(16, 8), highlight=[(3, 4), 17], thr_id="(4,8):(1,4)")
    assert highlights(s) == {(3, 4), (1, 1)}
    got = cells(s)
    # thr_id relabels thread t as thr_id(t)
    L, T = cv.parse(SM80_C), cv.parse("(4,8):(1,4)")
    idx = L(5, 0)
    assert got[(idx % 16, idx // 16)][0][0] == f"T{T(5)}"


def test_thread_palette():
    warp = [draw.thread_color(t) for t in range(32)]
    assert len(set(warp)) == 32
    group = [draw.thread_color(t) for t in range(128)]
    assert len(set(group)) == 128
    assert draw.thread_color(0) != draw.thread_color(32)
    for c in group:                      # light enough for black labels
        r, g, b = (int(c[i:i + 2], 16) for i in (1, 3, 5))
        assert 0.2126 * r + 0.7152 * g + 0.0722 * b > 120


def test_mma_panels():
    M, N, K = 16, 8, 16
    s = draw.svg_mma(SM80_A, SM80_B, SM80_C, (M, N, K), title="SM80_16x8x16")
    A, B, C = cv.parse(SM80_A), cv.parse(SM80_B), cv.parse(SM80_C)
    ga, gb, gc = cells(s, "A"), cells(s, "B"), cells(s, "C")
    assert (len(ga), len(gb), len(gc)) == (M * K, K * N, M * N)
    assert max(r for r, _ in gb) == K - 1 and max(c for _, c in gb) == N - 1    # B drawn K x N
    for t in range(32):
        for v in range(8):
            i = A(t, v)
            assert ga[(i % M, i // M)][0] == (f"T{t}", f"V{v}")
        for v in range(4):
            i = B(t, v)
            assert gb[(i // N, i % N)][0] == (f"T{t}", f"V{v}")     # index n + N*k at row k, col n
            i = C(t, v)
            assert gc[(i % M, i // M)][0] == (f"T{t}", f"V{v}")
    # CUTLASS's picture: T0 holds B (k=0,1; n=0) and A (m=0; k=0,1)
    assert gb[(1, 0)][0] == ("T0", "V1") and ga[(0, 1)][0] == ("T0", "V1")
    s = draw.svg_mma(SM80_A, SM80_B, SM80_C, (M, N, K), highlight={"B": [(2, 3)]})
    assert highlights(s) == {(2, 3)}


# ------------------------------------------------------------------------------------------- banks

def test_banks():
    C = cv.parse("S<3,3,3> o 0 o (8,64):(64,1)")
    s = draw.svg_banks(C, elem_bytes=2)
    got = cells(s)
    assert len(got) == 512
    for (m, n), (labels, g) in got.items():
        off = C(m, n)
        bank = (off * 2 // 4) % 32
        assert labels == (str(off), f"b{bank}")
        assert g.get("data-bank") == str(bank)
        assert g.find(NS + "rect").get("fill") == draw.bank_color(bank)
    # the 128B swizzle spreads each column of 8 rows over 8 different 16-byte chunks
    for n in range(0, 64, 8):
        assert len({got[(m, n)][1].get("data-bank") for m in range(8)}) == 8
    s4 = draw.svg_banks("(32,32):(32,1)", elem_bytes=4, show_bank=False, highlight=[(0, 0)])
    got = cells(s4)
    assert got[(1, 0)][0] == ("32",) and got[(1, 0)][1].get("data-bank") == "0"
    assert highlights(s4) == {(0, 0)}
    assert len({draw.bank_color(b) for b in range(32)}) == 32
    _assert_labels_fit(s)


# -------------------------------------------------------------------------------------------- TikZ

def _tikz_nodes(tex):
    return re.findall(r"\\node\[[^\]]*\] at \([^)]*\) \{([^{}]*)\};", tex)


def _balanced(tex):
    depth = 0
    for i, ch in enumerate(tex):
        if ch == "{" and tex[i - 1] != "\\":
            depth += 1
        elif ch == "}" and tex[i - 1] != "\\":
            depth -= 1
        assert depth >= 0
    return depth == 0


def test_tikz_structure():
    L = cv.parse("((2,4),(2,4)):((1,16),(2,4))")
    tex = draw.tikz(L, highlight=[(0, 0)], title="a_b #1")
    assert tex.startswith("% generated") and "\\documentclass[tikz,border=2pt]{standalone}" in tex
    assert tex.count("\\begin{tikzpicture}") == 1 and tex.rstrip().endswith("\\end{document}")
    nodes = _tikz_nodes(tex)
    for v in L.values():
        assert str(v) in nodes
    assert "a\\_b \\#1" in nodes
    assert _balanced(tex)
    tv = draw.tikz_tv(SM80_C, (16, 8))
    nodes = _tikz_nodes(tv)
    assert nodes.count("T0") == 4 and "V3" in nodes and _balanced(tv)
    mma = draw.tikz_mma(SM80_A, SM80_B, SM80_C, (16, 8, 16))
    assert _tikz_nodes(mma).count("T31") == 16 and _balanced(mma)
    banks = draw.tikz(cv.parse("S<3,3,3> o 0 o (8,64):(64,1)"), banks=True)
    assert "b31" in _tikz_nodes(banks) and _balanced(banks)


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed (TikZ not compiled)")
@pytest.mark.parametrize("which", ["plain", "tv", "mma", "banks"])
def test_tikz_compiles(tmp_path, which):
    doc = {
        "plain": lambda: draw.tikz("((2,4),(2,4)):((1,16),(2,4))", highlight=[(1, 1)], title="L_0 {x} #1 50%"),
        "tv": lambda: draw.tikz_tv("(4,2):(1,2)", (4, 4)),
        "mma": lambda: draw.tikz_mma(SM80_A, SM80_B, SM80_C, (16, 8, 16), title="SM80_16x8x16"),
        "banks": lambda: draw.tikz_banks("S<3,3,3> o 0 o (8,64):(64,1)", 2),
    }[which]()
    (tmp_path / "d.tex").write_text(doc)
    r = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "d.tex"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-3000:]
    assert (tmp_path / "d.pdf").exists()


# --------------------------------------------------------------------------------------------- CLI

@pytest.fixture
def cli():
    from cuteverify.frontend.cli.main import guarded  # noqa: F401  (the command uses it)
    from cuteverify.frontend.cli import draw_cmd

    @click.group()
    def group():
        pass

    draw_cmd.register(group)
    runner = CliRunner()
    return lambda *args: runner.invoke(group, list(args))


def test_cli_draw_svg(cli, tmp_path):
    out = tmp_path / "L.svg"
    r = cli("draw", "(8,8):(8,1)", "-o", str(out), "--highlight", "1,2;5,7")
    assert r.exit_code == 0, r.output
    s = out.read_text()
    assert len(cells(s)) == 64 and highlights(s) == {(1, 2), (5, 7)}
    r = cli("draw", "(4,4):(1,4)")                      # stdout
    assert r.exit_code == 0 and len(cells(r.output)) == 16


def test_cli_draw_tv_banks_tex(cli, tmp_path):
    r = cli("draw", SM80_C, "--tile", "16x8", "-o", str(tmp_path / "tv.svg"))
    assert r.exit_code == 0, r.output
    got = cells((tmp_path / "tv.svg").read_text())
    assert got[(0, 0)][0] == ("T0", "V0") and len(got) == 128
    r = cli("draw", "S<3,3,3> o 0 o (8,64):(64,1)", "--banks", "--elem-bytes", "4", "-o", str(tmp_path / "b.svg"))
    assert r.exit_code == 0, r.output
    got = cells((tmp_path / "b.svg").read_text())
    assert got[(0, 1)][1].get("data-bank") == "1"
    r = cli("draw", SM80_C, "--tile", "16x8", "-o", str(tmp_path / "tv.tex"))
    assert r.exit_code == 0
    assert "\\documentclass[tikz" in (tmp_path / "tv.tex").read_text()


@pytest.mark.parametrize("args", [
    ("draw", "(8,8:(8,1)"),                                  # parse error
    ("draw", "(8,8):(8,1)", "--highlight", "9,9"),           # outside the grid
    ("draw", "(8,8):(8,1)", "--highlight", "1,"),            # malformed
    ("draw", "(8,8):(8,1)", "--tile", "16by8"),
    ("draw", "(4,2):(1,4)", "--tile", "2x2"),                # TV index outside the tile
    ("draw", "(8,8):(8,1)", "-o", "out.png"),
    ("draw", "(M,8):(1,M)"),                                 # symbolic
    ("draw", "(8,8):(8,1)", "--tile", "8x8", "--banks"),
])
def test_cli_input_errors(cli, args):
    r = cli(*args)
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output


def test_cli_spec_draw(cli, tmp_path):
    specs = pytest.importorskip("cuteverify.hardware.specs")
    try:
        names = specs.names()
    except Exception as e:  # pragma: no cover - another engineer's library failing to load
        pytest.skip(f"spec library does not load: {e}")
    name = "SM80_16x8x16_F16F16F16F16_TN"
    if name not in names:
        pytest.skip(f"{name} not in the spec library")
    out = tmp_path / "mma.svg"
    r = cli("spec", "draw", name, "-o", str(out))
    assert r.exit_code == 0, r.output
    s = out.read_text()
    assert (len(cells(s, "A")), len(cells(s, "B")), len(cells(s, "C"))) == (256, 128, 128)
    assert cli("spec", "draw", "no-such-spec").exit_code == 2
    smem = [n for n in names if n.startswith("GMMA::Layout_K_SW128_Atom<half_t>")]
    if smem:
        r = cli("spec", "draw", smem[0], "-o", str(tmp_path / "smem.svg"))
        assert r.exit_code == 0, r.output
        assert len(cells((tmp_path / "smem.svg").read_text())) == 512
