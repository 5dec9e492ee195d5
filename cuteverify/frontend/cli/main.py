"""``cuteverify`` command line: a thin front end over the library (docs/model.md section 8 for exit codes).

Exit codes: 0 all claims proved (or the command succeeded); 1 at least one claim refuted; 2 usage or input
error; 3 none refuted but at least one unknown; 4 internal error (a bug: ``--debug`` shows the traceback).

The commands live in one module per group (``prove_cmd``, ``check_cmd``, ``spec_cmd``, ``compute_cmd``,
``draw_cmd``, ``fold_cmd``, ``banks_cmd``), each importing what it uses at module level. The top-level group
imports a module only when one of its commands runs, so ``cuteverify --help`` never loads the prover (and with
it sympy and z3) or the spec library: that keeps start-up near bare Python's.
"""
from __future__ import annotations

import importlib

import click

from .common import DEBUG_KEY, guarded  # noqa: F401 - guarded: the decorator command modules share

# command name -> (module of this package, attribute, one-line summary for the top-level help)
COMMANDS = {
    "injective": ("prove_cmd", "injective_cmd", "Is LAYOUT injective?"),
    "surjective": ("prove_cmd", "surjective_cmd", "Does LAYOUT reach every value of [0, N)?"),
    "bijective": ("prove_cmd", "bijective_cmd", "Is LAYOUT a bijection onto [0, size)?"),
    "equal": ("prove_cmd", "equal_cmd", "Are layouts A and B the same function?"),
    "disjoint": ("prove_cmd", "disjoint_cmd", "Are A and complement(A, M) disjoint and covering?"),
    "agrees": ("prove_cmd", "agrees_cmd", "Does LAYOUT agree with a hardware spec?"),
    "prove": ("prove_cmd", "prove_cmd", "Prove or refute a CLAIM about layouts."),
    "check": ("check_cmd", "check_cmd", "Run the claims of kernel manifests."),
    "spec": ("spec_cmd", "spec_group", "The hardware spec library: list, show, check."),
    "eval": ("compute_cmd", "eval_cmd", "Evaluate LAYOUT at a coordinate, or describe it."),
    "algebra": ("compute_cmd", "algebra_cmd", "Evaluate an algebra EXPRESSION."),
    "draw": ("draw_cmd", "draw", "Draw LAYOUT as SVG or TikZ."),
    "fold": ("fold_cmd", "fold_cmd", "Fold a contraction EINSUM into batched-GEMM layouts."),
    "loops": ("fold_cmd", "loops_cmd", "Canonical form of an affine loop NEST."),
    "banks": ("banks_cmd", "banks_cmd", "Shared-memory bank conflicts of an access."),
    "vector": ("banks_cmd", "vector_cmd", "The widest vector access of LAYOUT."),
    "cp-async-banks": ("cp_async_cmd", "cp_async_banks_cmd", "Passes of a cp.async copy (global rows and banks)."),
    "tma": ("tma_cmd", "tma_cmd", "Is a TMA descriptor legal for every value of the sizes?"),
    "desc": ("desc_cmd", "desc_cmd", "The wgmma / UMMA smem descriptor of a layout, checked and proved."),
    "tiled-mma": ("tiled_mma_cmd", "tiled_mma_cmd", "A tiled MMA's thread layout, tile and TV layouts."),
    "synthesize": ("synth_cmd", "synthesize_cmd", "The proved-best smem layout for a tile and its accesses."),
    "triton": ("triton_cmd", "triton_group", "Triton's TTGIR layouts: show, prove equal to CuTe, list a file's types."),
    "why": ("synth_cmd", "why_cmd", "Why an smem layout conflicts, and the nearest layout that does not."),
    "trace": ("trace_cmd", "trace_group", "A CuTe DSL kernel from its own trace: capture (check, manifest)."),
}


class LazyGroup(click.Group):
    """A click group whose commands are imported on first use; its help lists them from ``COMMANDS``."""

    def list_commands(self, ctx):
        return sorted(set(self.commands) | set(COMMANDS))

    def get_command(self, ctx, name):
        if name not in self.commands and name in COMMANDS:
            module, attr, summary = COMMANDS[name]
            cmd = getattr(importlib.import_module(f".{module}", __package__), attr)
            if cmd.short_help is None:
                cmd.short_help = summary
            self.add_command(cmd, name)
        return self.commands.get(name)

    def format_commands(self, ctx, formatter):
        rows = [(name, self.commands[name].get_short_help_str() if name in self.commands else COMMANDS[name][2])
                for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def _set_debug(ctx, _param, value):
    ctx.meta[DEBUG_KEY] = value
    return value


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="cuteverify")
@click.option("--debug", is_flag=True, expose_value=False, is_eager=True, callback=_set_debug,
              help="Print the traceback of an error (also: CUTEVERIFY_DEBUG=1).")
def main():
    """cuteverify: check and prove CuTe layouts.

    \b
    Prove:   injective, surjective, bijective, equal, disjoint, agrees, prove
    Check:   check MANIFEST... (kernel manifests, -j N, --junit-xml, --json)
    Specs:   spec list | show NAME | check | validate-hw | draw
    Compute: eval, algebra, draw, fold, loops, banks, vector

    \b
    Exit codes: 0 proved / ok, 1 refuted, 2 usage or input error, 3 unknown, 4 internal error.
    """


if __name__ == "__main__":  # pragma: no cover
    main()
