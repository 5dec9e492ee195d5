"""The HTML report of a ``cuteverify check`` run (``--html report.html``): one self-contained page (inline CSS
and SVG, no scripts, nothing fetched) with a row per claim (where it is written, its verdict against its
``expect``, its time) and, for every refuted claim, the drawing of its layout (``cuteverify.draw``) with the
counterexample's cells outlined (a refuted ``agrees``: its TV layout over the operand's tile, CuTe's column-major
A ``(M,K)``, B ``(N,K)``, C ``(M,N)``, with the counterexample's (thread, value) outlined at the tile cell the
layout gives it and at the cell the hardware holds it in). Each claim has an anchor ``#claim-N`` (N its position in the run) that the
JUnit XML links to. Nothing here decides anything: the page shows the results ``manifest.run`` returned.
"""
from __future__ import annotations

import html
import time

from ... import draw
from ...atoms import TiledMma, make_tiled_mma
from ...core.layout import size
from ...core.notation.parse import anonymous_names
from ...errors import CuteVerifyError
from ...hardware import resolve
from ...hardware.library.spec import OPERAND_MODES, TILED_OPERANDS

__all__ = ["html_report", "anchor", "MAX_DRAWN_CELLS"]

MAX_DRAWN_CELLS = 4096  # larger layouts are described, not drawn: the page must stay readable and small

_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.3em}table{border-collapse:collapse;width:100%}
th,td{border:1px solid #ccc;padding:.3em .5em;text-align:left;vertical-align:top;font-size:.9em}
th{background:#f3f3f3}td.ms{text-align:right;font-variant-numeric:tabular-nums}
tr.ok td.verdict{color:#176317}tr.fail td.verdict{color:#a30000;font-weight:bold}
.status-proved{background:#e9f7e9}.status-refuted{background:#fde8e8}.status-unknown{background:#fff6d6}
.status-error{background:#f3e5f5}code{font-size:.95em}
section.claim{margin:1.2em 0;padding:.6em .9em;border-left:4px solid #a30000;background:#fafafa}
section.claim h2{font-size:1em;margin:.2em 0 .5em}.drawing svg{max-width:100%;height:auto}
p.summary{font-weight:bold}
"""


def anchor(index: int) -> str:
    """The page anchor of the ``index``-th result of a run."""
    return f"claim-{index}"


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def _layout_of(claim):
    """The layout a refuted claim is about (the one its counterexample's coordinates index), as the claim
    carries it, or None."""
    a = claim.args
    ref = a.get("layout") or a.get("a") or a.get("smem")  # banks / vector: the smem tensor's elements
    return None if ref is None or not hasattr(ref, "value") else ref.value


def _drawing(claim, result) -> str:
    """Inline SVG of the claim's layout with the counterexample's cells outlined, or a line saying why not."""
    data = result.get("counterexample") or {}
    if claim.kind == "agrees" and data.get("kind") == "disagree":
        return _agrees_drawing(claim, data)
    L = _layout_of(claim)
    if L is None:
        return "<p>(no single layout to draw for this claim)</p>"
    try:
        if data.get("assignment"):
            L = L.subs(_renamed(data["assignment"], result.get("what") or "", L))
        if not getattr(L, "is_concrete", True):
            return "<p>(a symbolic layout without a concrete counterexample assignment: not drawn)</p>"
        n = draw_size(L)
        if n > MAX_DRAWN_CELLS:
            return f"<p>(the layout has {n} cells, more than the {MAX_DRAWN_CELLS} drawn)</p>"
        cells = [c for c in data.get("coords") or () if isinstance(c, int) and 0 <= c < n]
        svg = draw.svg(L, highlight=cells or None, title=str(L))
    except (CuteVerifyError, TypeError, ValueError) as e:
        return f"<p>(not drawn: {_e(e)})</p>"
    return f'<div class="drawing">{svg}</div>'


# CuTe's TV layouts index the operand's tile column-major: A (M,K), B (N,K), C (M,N); the tiled MMA's modes


def _agrees_drawing(claim, data) -> str:
    """A refuted ``agrees``: with a (thread, value) counterexample, the TV layout over its tile (``draw.svg_tv``)
    with two cells outlined, ``tv(thread, value)`` (where the layout puts that value) and the hardware's index
    for it, each as the tile coordinate ``(i % R, i // R)``; a tile that cannot be drawn (an index outside it,
    an operand that is not an MMA's) falls back to the (thread, value) grid with that one cell outlined. With
    a coordinate counterexample (a shared-memory atom), the layout with that (row, col) cell outlined."""
    try:
        tv, tile = _agrees_objects(claim)
        if not getattr(tv, "is_concrete", True):
            return "<p>(a symbolic layout: not drawn)</p>"
        if "thread" not in data:  # a shared-memory atom: coords is the (row, col) where the offsets differ
            return _svg_or_note(tv, [tuple(data.get("coords") or ())], None)
        t, v = int(data["thread"]), int(data["value"])
        if tile is not None:
            drawn = _tile_drawing(claim, tv, tile, t, v, data.get("hardware_index"))
            if drawn is not None:
                return drawn
        return _svg_or_note(tv, [(t, v)], f"(thread {t}, value {v}) outlined in the layout's (thread, value) grid")
    except (CuteVerifyError, TypeError, ValueError, KeyError) as e:
        return f"<p>(not drawn: {_e(e)})</p>"


def _agrees_objects(claim):
    """(the claim's TV layout, its tile (R, C) or None when unknown) as the claim itself builds them."""
    a, op = claim.args, claim.args.get("operand")
    tm = None
    if a.get("tiled_mma"):
        tm = a["tiled_mma"].value
    elif (a.get("atom_layout") is not None or a.get("permutation") is not None) and op in TILED_OPERANDS:
        alay = a["atom_layout"].value if a.get("atom_layout") else (1, 1, 1)
        perm = a["permutation"].value if a.get("permutation") else None
        tm = make_tiled_mma(a["spec"], alay, perm, **(a.get("params") or {}))
    if isinstance(tm, TiledMma) and op in TILED_OPERANDS:
        tv = a["layout"].value if a.get("layout") else tm.tv_layout_tiled(op)
        i, j = OPERAND_MODES[op]
        return tv, (tm.get_tile_size(i), tm.get_tile_size(j))
    tv = a["layout"].value
    spec, p = resolve(str(a.get("spec", "")), **{k: v for k, v in (a.get("params") or {}).items() if k != "dtype"})
    if spec.kind != "mma" or op not in TILED_OPERANDS:
        return tv, None
    mnk = spec.shape_mnk(**p)
    i, j = OPERAND_MODES[op]
    return tv, (mnk[i], mnk[j])


def _tile_drawing(claim, tv, tile, t, v, hardware_index):
    """The TV layout over ``tile`` with the cells of ``tv(t, v)`` and of the hardware's index outlined, or None
    when it cannot be drawn so."""
    R, C = (int(x) for x in tile)
    if R * C > MAX_DRAWN_CELLS:
        return f"<p>(the {R}x{C} tile has more than the {MAX_DRAWN_CELLS} cells drawn)</p>"
    got = tv((t, v))
    if type(got) is not int or not 0 <= got < R * C:
        return None
    ax0, ax1 = ("mnk"[i] for i in OPERAND_MODES[claim.args["operand"]])
    cells = [(got % R, got // R)]
    said = [f"({ax0}={cells[0][0]}, {ax1}={cells[0][1]}) where the layout puts it"]
    if type(hardware_index) is int and 0 <= hardware_index < R * C:
        cells.append((hardware_index % R, hardware_index // R))
        said.append(f"({ax0}={cells[1][0]}, {ax1}={cells[1][1]}) where the hardware holds it")
    try:
        svg = draw.svg_tv(tv, (R, C), highlight=cells, title=f"{tv} on the {R}x{C} tile")
    except CuteVerifyError:
        return None  # e.g. another (thread, value) outside the tile: the (thread, value) grid is drawn instead
    caption = f"thread {t}, value {v} outlined: " + " and ".join(said)
    return f'<p class="cells">{_e(caption)}</p><div class="drawing">{svg}</div>'


def _svg_or_note(L, highlight, caption):
    n = draw_size(L)
    if n > MAX_DRAWN_CELLS:
        return f"<p>(the layout has {n} cells, more than the {MAX_DRAWN_CELLS} drawn)</p>"
    svg = draw.svg(L, highlight=highlight or None, title=str(L))
    head = f'<p class="cells">{_e(caption)}</p>' if caption else ""
    return f'{head}<div class="drawing">{svg}</div>'


def _renamed(assignment: dict, verdict_text: str, L) -> dict:
    """The counterexample's assignment for ``L``, parsed anew from the same text: its anonymous unknowns (each
    parse numbers its ``?`` afresh) are matched by the order in which the verdict's text shows them."""
    ran = anonymous_names(verdict_text)
    here = anonymous_names(L)
    if not ran or len(ran) != len(here):
        return assignment
    names = dict(zip(ran, here))
    return {names.get(k, k): v for k, v in assignment.items()}


def draw_size(L) -> int:
    """Cells of a concrete layout's drawing (its size)."""
    n = size(L)
    return n if type(n) is int else MAX_DRAWN_CELLS + 1


def _where(r) -> str:
    """A row's place: the kernel's own source line for a traced claim, else the manifest's file:line."""
    if r.get("at"):
        return r["at"]
    return f"{r['file']}:{r['line']}" if r.get("line") else r["file"]


def _row(i, r):
    loc = _where(r)
    cls = "ok" if r["ok"] else "fail"
    status = r["status"] + (f" ({r['error_kind']})" if r.get("error_kind") else "")
    name = f'<a href="#{anchor(i)}">{_e(r["claim"])}</a>' if not r["ok"] else _e(r["claim"])
    return (f'<tr class="{cls} status-{_e(r["status"])}" id="row-{i}"><td>{_e(loc)}</td><td>{_e(r["kernel"])}</td>'
            f'<td><code>{name}</code></td><td>{_e(r["expect"])}</td><td class="verdict">{_e(status)}</td>'
            f'<td class="ms">{r.get("elapsed", 0.0) * 1e3:.1f}</td></tr>')


def _detail(i, claim, r) -> str:
    loc = _where(r)
    parts = [f'<section class="claim" id="{anchor(i)}"><h2>{_e(loc)} [{_e(r["kernel"])}] '
             f'<code>{_e(r["claim"])}</code>: expected {_e(r["expect"])}, got {_e(r["status"])}</h2>']
    parts += [f'<p class="note">note: {_e(n)}</p>' for n in r.get("notes") or ()]
    if r.get("counterexample"):
        parts.append(f'<p class="counterexample">counterexample: <code>{_e(r["counterexample"]["text"])}</code></p>')
    if r.get("reason"):
        parts.append(f'<p class="reason">reason: {_e(r["reason"])}</p>')
    obs = r.get("obligations") or ()
    if obs:
        parts.append("<ul class=\"obligations\">" + "".join(f"<li>{_e(o['text'])}</li>" for o in obs) + "</ul>")
    if r["status"] == "refuted" and claim is not None:
        parts.append(_drawing(claim, r))
    parts.append("</section>")
    return "".join(parts)


def html_report(results: list, claims: list | None = None, elapsed: float | None = None,
                title: str = "cuteverify check") -> str:
    """The page for one run: ``results`` as ``manifest.run`` returns them, ``claims`` the ``Claim`` objects
    they came from (same order; needed for the drawings), ``elapsed`` the run's seconds."""
    claims = list(claims) if claims is not None else [None] * len(results)
    bad = [i for i, r in enumerate(results) if not r["ok"]]
    counts = {}
    for r in results:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    summary = (f"{len(results)} claim(s): {len(results) - len(bad)} as expected, {len(bad)} not; "
               + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
               + (f" ({elapsed:.2f} s)" if elapsed is not None else ""))
    head = (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{_e(title)}</title>"
            f"<style>{_CSS}</style></head><body><h1>{_e(title)}</h1>"
            f"<p class=\"summary\" id=\"summary\">{_e(summary)}</p>"
            f"<p class=\"generated\">generated {_e(time.strftime('%Y-%m-%d %H:%M:%S'))}</p>")
    table = ("<table id=\"claims\"><thead><tr><th>where</th><th>kernel</th><th>claim</th><th>expect</th>"
             "<th>result</th><th>ms</th></tr></thead><tbody>"
             + "".join(_row(i, r) for i, r in enumerate(results)) + "</tbody></table>")
    details = "".join(_detail(i, claims[i], results[i]) for i in bad)
    if details:
        details = "<h1>Claims not as expected</h1>" + details
    return head + table + details + "</body></html>\n"
