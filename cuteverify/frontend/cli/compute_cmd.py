"""``cuteverify eval`` and ``cuteverify algebra``: compute with layouts (no prover involved)."""
from __future__ import annotations

import re

import click

from cuteverify.algebra.expr import evaluate, parse_let
from cuteverify.atoms import local_tile
from cuteverify.core.convention import SIZE1_CONVENTIONS, size1_strides
from cuteverify.core.layout import cosize, depth, is_weakly_congruent, rank, shape, size
from cuteverify.core.notation.interop import as_layout
from cuteverify.core.notation.parse import parse_tuple, unknowns_note

from .common import assume_option, emit, fail, guarded, json_option, show, text_input

# a concrete layout's values are listed up to this size; beyond it the list is noise on a terminal
_MAX_VALUES = 4096


@click.command("eval")
@click.argument("layout", callback=text_input)
@click.argument("coord", required=False)
@assume_option
@json_option
@guarded
def eval_cmd(layout, coord, assume, as_json):
    """Evaluate LAYOUT at COORD (an integer or a coordinate such as (1,(0,2))); without COORD, print
    its size, cosize and values."""
    L = as_layout(layout, "LAYOUT", assume=list(assume) or None)
    if coord is None:
        info = {"layout": str(L), "size": show(size(L)), "rank": rank(L), "depth": depth(L)}
        if L.is_concrete:
            info["cosize"] = show(cosize(L))
            if size(L) <= _MAX_VALUES:
                info["values"] = [show(v) for v in L.values()]
        emit(_noted(info, str(L)), as_json)
        return
    c = parse_tuple(coord, source="COORD")
    if not is_weakly_congruent(c, L.shape if not hasattr(L, "outer") else L.outer.shape):
        fail(f"COORD {coord} does not fit the shape {show(shape(L))} (an index, or a coordinate of that profile)")
    n = size(L)
    if type(c) is int and type(n) is int and not 0 <= c < n:
        fail(f"COORD {c} is outside [0, {n}), the layout's domain")
    value = show(L(c))
    emit(_noted({"layout": str(L), "coord": coord, "value": value}, str(L), str(value)), as_json)


def _noted(info: dict, *texts) -> dict:
    """``info`` with the note that the anonymous unknowns (CuTe DSL's ``?``) it shows are independent."""
    note = unknowns_note(*texts)
    return dict(info, note=note) if note else info


@click.command("algebra")
@click.argument("expression", callback=text_input)
@click.option("--let", "lets", multiple=True, metavar="NAME=LAYOUT", help="Bind a name: --let A='(4,8):(1,4)' (or A=@FILE).", callback=text_input)
@click.option("--symbols", "-s", "symbols", multiple=True, metavar="NAMES",
              help="Declare names as symbols (comma-separated, repeatable), e.g. -s M,N for the bare expression 'M*N'.")
@click.option("--size1-strides", "size1", type=click.Choice(SIZE1_CONVENTIONS), default="dsl", show_default=True,
              help="Strides of the size-1 modes the operations make: dsl (CuTe DSL 4.8.1's, complement(3:1, 3) is "
                   "1:0) or keep (CuTe IR's, 1:3). The same function either way.")
@assume_option
@json_option
@guarded
def algebra_cmd(expression, lets, symbols, size1, assume, as_json):
    """Evaluate an algebra EXPRESSION, e.g. "composition((6,2):(8,2), (4,3):(3,1))"; operations take mode=
    (e.g. "coalesce(A, mode=1)"); local_tile(A, (16,64), (1,1)) and slices A[None, 0] too."""
    bindings = parse_let(lets)
    _refuse_unbound(expression, bindings, symbols, assume)
    with size1_strides(size1):
        r = evaluate(expression, bindings, assume=assume and list(assume) or None,
                     functions={"local_tile": local_tile})
    out = {"expression": expression, "result": show(r)}
    obs = getattr(r, "obligations", ())
    if obs:
        out["obligations"] = [str(o) for o in obs]
    notes = [str(n) for n in getattr(r, "notes", ())]
    note = unknowns_note(out["result"], *out.get("obligations", ()))
    if notes or note:
        out["notes"] = notes + ([note] if note else [])
    emit(out, as_json)


_NAME = re.compile(r"[A-Za-z_]\w*")


def _refuse_unbound(expression, bindings, symbols, assume):
    """An expression that is nothing but names and arithmetic (no call, no layout) reads its names as symbols;
    a name that no ``--let`` binds, no ``--symbols`` declares and no assumption mentions is most likely a layout
    the user forgot to bind (``cuteverify algebra A``): an input error, not the symbol ``A`` echoed back."""
    s = expression.strip()
    if ":" in s or s.startswith(("(", "<", "S<", "Sw<")) or re.match(r"[A-Za-z_]\w*\s*\(", s):
        return
    declared = set(bindings) | {n.strip() for item in symbols for n in item.split(",") if n.strip()} | {"_", "None"}
    for a in assume:
        declared |= set(_NAME.findall(a))
    for m in _NAME.finditer(s):
        if m.group() not in declared:
            n = m.group()
            fail(f"unbound name {n} at column {m.start() + 1} of EXPRESSION: bind it with --let {n}=LAYOUT, or "
                 f"declare it a symbol with -s {n}")


def register(group):
    """Add ``eval`` and ``algebra`` to a click group."""
    group.add_command(eval_cmd)
    group.add_command(algebra_cmd)
