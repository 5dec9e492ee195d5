"""The operands a TMA copy atom was made from on the host, for ``trace cpp`` (issue 29; CUTLASS's
``examples/cute/tutorial/blackwell/02_mma_tma_sm100.cu``).

A TMA atom passed to a kernel prints only its value layouts; what decides its descriptor is the host call that
made it, ``Copy_Atom tma_atom_A = make_tma_atom(SM90_TMA_LOAD{}, mA, sA_layout, select<0,2>(mma_tiler));``
(``make_tma_copy`` alike): the gmem tensor, the smem layout and the CTA tiler. :func:`host_tma` finds that
statement for each launch argument that names a variable, and :func:`capture_calls` prints its three operands at
the launch (records ``HOST_TMA + 3 k + {0, 1, 2}``, for the atoms ``only`` names, source texts ``ATOM: gmem|smem|cta_tiler = TEXT``).

Admissibility: a plain ``SM90_TMA_LOAD{}`` / ``SM90_TMA_STORE{}`` with four operands (a multicast or 2-SM atom's
descriptor depends on the cluster: not related); the statement is the last ``NAME = make_tma_atom(...)`` / ``make_tma_copy(...)`` before the launch
whose operands are still in scope at the launch (no block closes between the two: the capture must compile);
otherwise the atom is not related (the caller reports it unknown). Post-condition: each listed operand is the
text of the host call that built the atom.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .cpp_launch import strip_comments
from .cpp_text import blank, match_close, split_args

__all__ = ["HostTma", "host_tma", "capture_calls", "HOST_TMA", "PARTS"]

HOST_TMA = 4000  # 3000 + 10 i + k: cpp_flow_sm90's TMA operand records
_PLAIN_OPS = ("SM90_TMA_LOAD{}", "SM90_TMA_STORE{}", "SM90_TMA_LOAD()", "SM90_TMA_STORE()")
PARTS = ("gmem", "smem", "cta_tiler")


@dataclass(frozen=True)
class HostTma:
    """The host call that made launch argument ``arg`` (``atom``): its operation text, gmem, smem and tiler
    texts, and its line."""

    arg: int
    atom: str
    op: str
    gmem: str
    smem: str
    cta_tiler: str
    line: int

    def source(self, part: str) -> str:
        """The record source text of one operand (``tma_atom_A: smem = sA_layout``)."""
        return f"{self.atom}: {part} = {getattr(self, part)}"


def _in_scope(s: str, start: int, end: int) -> bool:
    depth = 0
    for c in s[start:end]:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth < 0:
                return False
    return True


def host_tma(text: str, args, launch_offset: int) -> list:
    """The :class:`HostTma` of each launch argument text in ``args`` made by a host ``make_tma_atom`` /
    ``make_tma_copy`` before ``launch_offset``."""
    s = blank(text)
    out = []
    for i, a in enumerate(args):
        if not re.fullmatch(r"[A-Za-z_]\w*", a):
            continue
        found = None
        for m in re.finditer(rf"\b{re.escape(a)}\s*=\s*(?:cute::)?make_tma_(?:atom|copy)\s*\(", s[:launch_offset]):
            found = m
        if found is None:
            continue
        close = match_close(s, found.end() - 1, "(", ")")
        if close < 0 or close > launch_offset or not _in_scope(s, close, launch_offset):
            continue
        plain = strip_comments(text, s)
        ops = [" ".join(plain[x:y].split()) for x, y in split_args(s, found.end(), close - 1)]
        if len(ops) != 4 or re.sub(r"^(?:cute::)?", "", ops[0]) not in _PLAIN_OPS:
            continue  # a multicast / 2-SM atom: its descriptor depends on the cluster, which the tma claim lacks
        out.append(HostTma(i, a, ops[0], ops[1], ops[2], ops[3], s.count("\n", 0, found.start()) + 1))
    return out


def capture_calls(text: str, args, launch_offset: int, at_c: str, kernel_c: str, cstr, only=()) -> str:
    """The capture's statements printing the operands of each host TMA atom whose launch argument index is in
    ``only`` (the atoms the kernel body writes a storage tensor with: :mod:`.cpp_storage`) (module docstring)."""
    out = ""
    for k, h in enumerate(h for h in host_tma(text, args, launch_offset) if h.arg in set(only)):
        for j, part in enumerate(PARTS):
            out += (f"::cuteverify_capture::one({at_c}, {HOST_TMA + 3 * k + j}, {kernel_c}, {cstr(h.source(part))}, "
                    f"{getattr(h, part)}); ")
    return out
