"""The prover's verbs: injective, surjective, bijective, equal, disjoint, agrees, prove.

Every verb reads CuTe notation (symbols allowed, with ``--assume``), prints the verdict, the counterexample in
the layout's own coordinates, the obligations and the time (``--json`` for machines) and exits with
0 proved / 1 refuted / 2 input error / 3 unknown / 4 internal error. This module imports the prover (and so
sympy); the top-level group loads it only when one of its verbs runs.
"""
from __future__ import annotations

import re
from dataclasses import replace

import click

from cuteverify.algebra.expr import parse_let
from cuteverify.atoms import agrees_tiled
from cuteverify.frontend.checked import checked_agrees, checked_equal
from cuteverify.core.notation.interop import as_layout
from cuteverify.core.notation.parse import anonymous_names, check_assumption_names, parse
from cuteverify.prover import (
    complement_disjoint,
    is_bijective,
    is_injective,
    is_surjective,
    prove,
)
from cuteverify.symbolic import parse_expr

from .common import (assume_option, check_names, fail, guarded, json_option, own_assumptions, parse_params, report,
    shared_assumptions, text_input, verb)
from .tiled_mma_cmd import build as build_tiled_mma


def _number(x, what="N"):
    """A codomain or cotarget: a positive integer, or an integer expression in the symbols (kept as text)."""
    if x is None:
        return None
    s = str(x).strip()
    try:
        v = int(s)
    except ValueError:
        e = parse_expr(s)  # raises ParseError on nonsense
        if getattr(e, "is_number", False) and not getattr(e, "is_Integer", False):
            fail(f"{what} must be an integer size, got {s}")
        if getattr(e, "is_Integer", False) and int(e) <= 0:
            fail(f"{what} must be a positive size, got {s}")
        return s
    if v <= 0:
        fail(f"{what} must be a positive size, got {v}")
    return v


@verb("injective", "Is LAYOUT injective: distinct coordinates of [0, size) map to distinct values?")
@click.argument("layout", callback=text_input)
@assume_option
@json_option
@guarded
def injective_cmd(layout, assume, as_json):
    L = as_layout(layout, "LAYOUT", assume=own_assumptions(assume))
    report(is_injective(L), as_json)


@verb("surjective", "Does LAYOUT reach every value of [0, N) (default N = cosize)?")
@click.argument("layout", callback=text_input)
@click.option("--codomain", metavar="N", help="The codomain size (an integer or an expression in the symbols).")
@assume_option
@json_option
@guarded
def surjective_cmd(layout, codomain, assume, as_json):
    L = as_layout(layout, "LAYOUT", assume=own_assumptions(assume))
    report(is_surjective(L, _number(codomain, "--codomain")), as_json)


@verb("bijective", "Is LAYOUT a bijection onto [0, size)?")
@click.argument("layout", callback=text_input)
@assume_option
@json_option
@guarded
def bijective_cmd(layout, assume, as_json):
    L = as_layout(layout, "LAYOUT", assume=own_assumptions(assume))
    report(is_bijective(L), as_json)


@verb("equal", "Are A and B the same function on [0, size)?")
@click.argument("a", callback=text_input)
@click.argument("b", callback=text_input)
@assume_option
@json_option
@guarded
def equal_cmd(a, b, assume, as_json):
    asm = shared_assumptions(assume)
    A, B = as_layout(a, "A", assume=asm), as_layout(b, "B", assume=asm)
    check_names(asm, (A, B), f"{a} == {b}")
    report(checked_equal(A, B), as_json)


@verb("disjoint", "Do A and complement(A, M) meet only at 0 and together cover [0, M)?")
@click.argument("a", callback=text_input)
@click.option("--cotarget", "-m", metavar="M", help="The cotarget M (default cosize(A)); integer or expression.")
@assume_option
@json_option
@guarded
def disjoint_cmd(a, cotarget, assume, as_json):
    m = _number(cotarget, "--cotarget")
    if cotarget is None:
        A = as_layout(a, "A", assume=own_assumptions(assume))
    else:  # the assumptions may speak of the cotarget's symbols
        asm = shared_assumptions(assume)
        A = as_layout(a, "A", assume=asm)
        check_names(asm, (A, parse_expr(str(m))), a)
    report(complement_disjoint(A, m), as_json)


@verb("agrees", "Does LAYOUT (a TV layout, or an smem atom) agree with the hardware spec NAME?\n\n"
      "Compares at every (thread, value) (or coordinate) with the spec's PTX formula; the counterexample "
      "names the thread, the value and both (row, col) elements. A tiled MMA's TV layout (several atoms) is "
      "checked atom by atom with --atom-layout and/or --permutation (CuTe's make_tiled_mma of NAME).")
@click.argument("layout", callback=text_input)
@click.argument("name", required=False)
@click.option("--spec", "spec_name", metavar="NAME", help="The spec NAME as an option (instead of the argument).")
@click.option("--operand", metavar="A|B|C", help="The operand (A, B, C; src/dst for copy atoms; none for smem atoms).")
@click.option("--param", "params", multiple=True, metavar="NAME=INT", help="A family parameter, e.g. N=128.")
@click.option("--dtype", default=None, metavar="TYPE", help="Element type (bf16, f32, ...) for smem atoms, TMA "
              "swizzles and copy atoms given in elements.")
@click.option("--atom-layout", default=None, metavar="LAYOUT",
              help="LAYOUT is a tiled MMA's TV layout: the atoms over (M,N,K), \"(2,2,1)\" or a layout.")
@click.option("--permutation", default=None, metavar="TILE",
              help="The tiled MMA's permutation tile, \"(32,32,16)\" or \"(32,(8,2,2):(1,16,8),16)\".")
@assume_option
@json_option
@guarded
def agrees_cmd(layout, name, spec_name, operand, params, dtype, atom_layout, permutation, assume, as_json):
    spec_name = _spec_name(name, spec_name)
    L = as_layout(layout, "LAYOUT", assume=own_assumptions(assume))
    if atom_layout is not None or permutation is not None:
        report(_agrees_tiled(L, spec_name, operand, params, dtype, atom_layout, permutation), as_json)
    p = parse_params(params)
    if "dtype" in p:
        fail("dtype is not a family parameter: give it as --dtype TYPE")
    if dtype is not None:
        p["dtype"] = dtype
    report(checked_agrees(L, spec_name, operand, **p), as_json)


def _spec_name(name, option):
    """The spec NAME, given as the argument (``agrees LAYOUT NAME``) or as ``--spec NAME``, not both."""
    if name is not None and option is not None and name != option:
        fail(f"two spec names: NAME {name!r} and --spec {option!r}; give one")
    if name is None and option is None:
        fail("give the spec NAME: `cuteverify agrees LAYOUT NAME` (see `cuteverify spec list`)")
    return name if name is not None else option


def _agrees_tiled(L, spec_name, operand, params, dtype, atom_layout, permutation):
    """``atoms.agrees_tiled`` of LAYOUT against make_tiled_mma(NAME, --atom-layout, --permutation); a layout
    whose shape cannot be the tiled MMA's is an input error, as for the plain-atom check."""
    if dtype is not None:
        fail("--dtype does not apply to a tiled MMA (its TV layouts index elements of the operand tiles)")
    if operand not in ("A", "B", "C"):
        fail(f"a tiled MMA's operand is A, B or C: give --operand (got {operand!r})")
    # a layout whose shape cannot be the tiled MMA's is a NotAdmissibleError of agrees_tiled: an input error
    return agrees_tiled(L, build_tiled_mma(spec_name, atom_layout, permutation, params), operand)


@verb("prove", "Prove or refute CLAIM, e.g. \"bijective(composition(A, B))\" or "
      "\"composition(A, B) == C\".\n\nPredicates: injective, surjective, bijective, disjoint, equal; terms are "
      "algebra operations, layouts, integers and names bound with --let.")
@click.argument("claim", callback=text_input)
@click.option("--let", "lets", multiple=True, metavar="NAME=LAYOUT", help="Bind a name: --let A='(4,8):(1,4)' (or A=@FILE).", callback=text_input)
@assume_option
@json_option
@guarded
def prove_cmd(claim, lets, assume, as_json):
    asm = shared_assumptions(assume)
    bindings = {k: parse(v, asm, source=f"--let {k}") for k, v in parse_let(lets).items()}
    if asm is not None:  # assumptions must speak of the claim's symbols (a typo would assume nothing)
        check_assumption_names(asm, set(re.findall(r"[A-Za-z_]\w*", claim)) |
                               {s.name for b in bindings.values() for s in b.free_symbols()}, claim)
    v = prove(claim, assume=list(assume) or None, **bindings)
    dynamic = {k: b for k, b in bindings.items() if anonymous_names(b)}
    if dynamic:  # the claim names them; the verdict says which unknowns each ? became
        v = replace(v, claim=v.claim + " where " + ", ".join(f"{k} = {b}" for k, b in dynamic.items()))
    report(v, as_json)


COMMANDS = (injective_cmd, surjective_cmd, bijective_cmd, equal_cmd, disjoint_cmd, agrees_cmd, prove_cmd)


def register(group):
    """Add the prover's verbs to a click group."""
    for cmd in COMMANDS:
        group.add_command(cmd)
