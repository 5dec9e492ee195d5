"""What a Hopper (SM90) CUTLASS C++ kernel body does with its launch arguments, read from its own source
(issue 29), beside :mod:`.cpp_flow`'s SM80 idioms.

The Hopper tutorials (``examples/cute/tutorial/hopper/wgmma_sm90.cu``, ``wgmma_tma_sm90.cu``) state these
relations in the kernel body:

* ``Tensor sA = make_tensor(make_smem_ptr(...), SmemLayoutA{})``: shared memory laid out by a layout given by
  its *type*: the kernel parameter of that type (``ASmemLayout sA_layout``), else the kernel's template
  parameter of that name, whose value the launch site names in the kernel's template arguments
  (``&gemm_device<..., decltype(sA), ...>``): :func:`template_prints` has the capture print it;
* ``Tensor sA_ = as_position_independent_swizzle_tensor(sA)``: the same elements through the same addresses
  (the pointer's byte swizzle recast to elements), so a copy partitioning ``sA_`` accesses ``sA``;
* ``ThrMMA thr = mma.get_slice(...)``, ``tCsA = thr.partition_A(sA)``, ``tCrA = thr.make_fragment_A(tCsA)``:
  the GMMA reads its A operand from ``sA`` through descriptors (``operands``);
* ``tma_partition(tma_a, cta_coord, cta_layout, group_modes<0,2>(sA), ...)``: the TMA atom writes ``sA``
  (``tma``); the host built the atom with ``tma_a = make_tma_atom(OP, gmem, smem, tiler[, cluster])``, whose
  operands :func:`tma_prints` has the capture print at the launch.

Definitions: :class:`Sm90Flow` holds ``smem`` (tensor variable -> ``("arg", i)`` | ``("tparam", j)``),
``aliases`` (variable -> the smem tensor it views), ``operands`` (mma argument index, ``A``/``B``, smem tensor,
body line, statement) and ``tma`` (atom argument index, smem tensor, body line, statement); ``tparams`` the
kernel's template parameter names, ``ptypes`` its parameters' types.

Admissibility: the idioms written as above, on the source with comments blanked; a relation written another
way is not seen (the caller reports the arguments no relation covers). Post-condition: every relation listed is
written in the kernel body between those objects, never guessed from types alone (a layout type names one
parameter or one template parameter).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .cpp_flow import CUTE_QUAL, Flow
from .cpp_launch import strip_comments
from .cpp_text import blank, launch_template_args, match_close, split_args

__all__ = ["Sm90Flow", "sm90_flow", "template_prints", "tma_prints", "TEMPLATE", "TMA"]

#: the record index of a template argument the capture prints (``TEMPLATE + j``: template parameter ``j``;
#: 2000 + j is taken by the storage-struct layouts of the Blackwell tutorials' capture)
TEMPLATE = 2500
#: the record index of a TMA atom's operands (``TMA + 10 * i + k``: launch argument ``i``; k 0 gmem layout,
#: 1 smem layout, 2 cta_v_map, 3 CuTe's TMA box ``TmaGmemBasis``)
TMA = 3000
TMA_PARTS = ("gmem", "smem", "cta_v_map", "gbasis")

_ID = r"[A-Za-z_]\w*"
_QUALS = {"const", "volatile", "CUTLASS_GRID_CONSTANT", "__grid_constant__", "__restrict__", "typename", "class"}
_SMEM_T = re.compile(rf"(?:Tensor|auto)\s+({_ID})\s*=\s*{CUTE_QUAL}make_tensor\s*\(\s*{CUTE_QUAL}make_smem_ptr\s*"
                     rf"(?:<[^;()]*>\s*)?\((?:[^;]*)\)\s*,\s*({_ID})\s*\{{\s*\}}\s*\)\s*;")
_ALIAS = re.compile(rf"(?:Tensor|auto)\s+({_ID})\s*=\s*{CUTE_QUAL}as_position_independent_swizzle_tensor\s*\("
                    rf"\s*({_ID})\s*\)")
_MSLICE = re.compile(rf"(?:ThrMMA|auto)\s+({_ID})\s*=\s*({_ID})\s*\.\s*get_(?:thread_)?slice\s*\(")
_MPART = re.compile(rf"(?:Tensor|auto)\s+({_ID})\s*=\s*({_ID})\s*\.\s*partition_(A|B)\s*\(\s*({_ID})\s*\)")
_MFRAG = re.compile(rf"(?:Tensor|auto)\s+({_ID})\s*=\s*({_ID})\s*\.\s*make_fragment_(A|B)\s*\(\s*({_ID})\s*\)")
# ``thr_mma.partition_fragment_A(sA)``: make_fragment_A(partition_A(sA)) in one call (FlashAttention 3's spelling)
_MPFRAG = re.compile(rf"(?:Tensor|auto)\s+({_ID})\s*=\s*({_ID})\s*\.\s*partition_fragment_(A|B)\s*\(\s*({_ID})\s*\)")
_TPART = re.compile(r"\btma_partition\s*\(")
_GROUPED = re.compile(rf"^(?:group_modes\s*<[^<>]*>\s*\(\s*)?({_ID})\s*\)?$")
_DECLTYPE = re.compile(r"^decltype\s*\((.*)\)$", re.S)


@dataclass
class Sm90Flow:
    """The SM90 relations of one kernel's body (module docstring)."""

    tparams: list = field(default_factory=list)
    ptypes: list = field(default_factory=list)
    smem: dict = field(default_factory=dict)
    aliases: dict = field(default_factory=dict)
    operands: list = field(default_factory=list)
    tma: list = field(default_factory=list)


def _words(text: str) -> list:
    return [w for w in re.findall(rf"{_ID}(?:::{_ID})*|[*&]", text) if w not in _QUALS]


def _signature(s: str, flow: Flow) -> tuple:
    """(template parameter names, parameter types) of the kernel ``flow`` reads."""
    head = s[flow.head:flow.span[0]]
    tparams = []
    t = head.rfind("template")
    if t >= 0:
        lt = head.find("<", t)
        gt = match_close(head, lt, "<", ">") if lt >= 0 else -1
        # the kernel's own template head: nothing but its declaration between it and the kernel (a previous
        # function's body would put braces in between; `T{}` in __launch_bounds__ is no body)
        if gt > 0 and not any(c in re.sub(r"\{\s*\}", "", head[gt:]) for c in "{};"):
            tparams = [(_words(head[a:b]) or [None])[-1] for a, b in split_args(head, lt + 1, gt - 1)]
    m = re.search(rf"\b{re.escape(flow.kernel)}\s*\(", head)
    ptypes = []
    if m:
        close = match_close(head, m.end() - 1, "(", ")")
        for a, b in split_args(head, m.end(), close - 1):
            w = _words(head[a:b].split("=", 1)[0])
            ptypes.append(" ".join(w[:-1]))
    return tparams, ptypes


def _line_stmt(s, text, at):
    stmt = text[text.rfind("\n", 0, at) + 1:text.find("\n", at)].split("//")[0].strip()
    return s.count("\n", 0, at) + 1, stmt


def sm90_flow(text: str, flow: Flow | None) -> Sm90Flow | None:
    """The :class:`Sm90Flow` of the kernel ``flow`` read (None without one)."""
    if flow is None or flow.span == (0, 0):
        return None
    s = blank(text)
    tparams, ptypes = _signature(s, flow)
    out = Sm90Flow(tparams, ptypes)
    start, end = flow.span
    body = s[start:end]
    for m in _SMEM_T.finditer(body):
        typ = m.group(2)
        if ptypes.count(typ) == 1:
            out.smem[m.group(1)] = ("arg", ptypes.index(typ))
        elif tparams.count(typ) == 1:
            out.smem[m.group(1)] = ("tparam", tparams.index(typ))
    for i, names in flow.smem.items():  # laid out by the parameter's value (cpp_flow): the same smem (review)
        for var in names:
            out.smem.setdefault(var, ("arg", i))
    for m in _ALIAS.finditer(body):
        if m.group(2) in out.smem:
            out.aliases[m.group(1)] = m.group(2)
    index = {p: i for i, p in enumerate(flow.params) if p}
    slices = {m.group(1): index[m.group(2)] for m in _MSLICE.finditer(body) if m.group(2) in index}
    parts = {}
    for m in _MPART.finditer(body):
        if m.group(2) in slices and m.group(4) in out.smem:
            parts[m.group(1)] = (slices[m.group(2)], m.group(3), m.group(4))
    for m in _MFRAG.finditer(body):
        src = parts.get(m.group(4))
        if m.group(2) in slices and src is not None and src[1] == m.group(3) and src[0] == slices[m.group(2)]:
            out.operands.append((src[0], src[1], src[2], *_line_stmt(s, text, start + m.start())))
    for m in _MPFRAG.finditer(body):  # the same descriptor read, spelled as one call (review)
        if m.group(2) in slices and m.group(4) in out.smem:
            out.operands.append((slices[m.group(2)], m.group(3), m.group(4), *_line_stmt(s, text, start + m.start())))
    for m in _TPART.finditer(body):
        close = match_close(body, m.end() - 1, "(", ")")
        args = [body[a:b].strip() for a, b in split_args(body, m.end(), close - 1)] if close > 0 else []
        if len(args) < 4 or args[0] not in index:
            continue
        g = _GROUPED.match(" ".join(args[3].split()))
        tensor = out.aliases.get(g.group(1), g.group(1)) if g else None
        if tensor in out.smem:
            out.tma.append((index[args[0]], tensor, *_line_stmt(s, text, start + m.start())))
    return out


def resolve_accesses(flow: Flow, sm90: Sm90Flow) -> None:
    """Move the copy partitions of :mod:`.cpp_flow` whose tensor is an alias of (or is) an smem tensor laid out
    by a kernel parameter's type (or value) from ``flow.others`` to ``flow.accesses``, and record that parameter in
    ``flow.smem`` (the element offsets of an alias are the tensor's: the swizzle recast, the layout kept)."""
    for var, (kind, i) in sm90.smem.items():
        if kind == "arg" and var not in flow.smem.get(i, ()):
            flow.smem.setdefault(i, []).append(var)
    keep = []
    for copy, side, tensor, line, stmt in flow.others:
        base = sm90.aliases.get(tensor, tensor)
        if base in sm90.smem and sm90.smem[base][0] == "arg":
            flow.accesses.append((copy, side, sm90.smem[base][1], line, stmt))
        else:
            keep.append((copy, side, tensor, line, stmt))
    flow.others[:] = keep


def template_prints(text: str, flow: Flow | None, launched: str, before: int) -> list:
    """``[(index, source text, C++ expression)]``: the template arguments the capture prints at a launch, one
    per smem tensor the kernel lays out with a template parameter's type (``decltype(X)`` prints ``X``, a type
    ``T`` prints ``T{}``)."""
    sm90 = sm90_flow(text, flow)
    if sm90 is None:
        return []
    wanted = sorted({j for kind, j in sm90.smem.values() if kind == "tparam"})
    if not wanted:
        return []
    args = launch_template_args(blank(text), flow.kernel, launched, before, fallback=False)
    out = []
    for j in wanted:
        if args is None or j >= len(args):
            continue
        d = _DECLTYPE.match(args[j])
        out.append((TEMPLATE + j, f"{sm90.tparams[j]} = {args[j]}", d.group(1).strip() if d else f"{args[j]}{{}}"))
    return out


def tma_prints(text: str, flow: Flow | None, exprs: list, before: int) -> list:
    """``[(index, source text, C++ expression)]``: for each launch argument ``exprs[i]`` the host built with
    ``X = make_tma_atom(OP, G, S, TILER[, CLUSTER])`` (the last such statement before the launch), the gmem
    layout of ``G``, the smem layout ``S``, ``cta_v_map`` as CuTe's ``make_tma_atom`` computes it
    (``make_identity_layout(shape(G)).compose(TILER)``) and the box CuTe derived (the atom's
    ``AuxParams::TmaGmemBasis``: extents innermost first, each with the gmem mode it walks), printed by the
    capture."""
    if flow is None:
        return []
    s = blank(text)
    out = []
    for i, x in enumerate(exprs):
        if not re.fullmatch(_ID, x):
            continue
        found = None
        for m in re.finditer(rf"\b{re.escape(x)}\s*=\s*(?:cute::)?make_tma_atom\s*(?:<[^;]*?>)?\s*\(", s[:before]):
            found = m
        if found is None:
            continue
        close = match_close(s, found.end() - 1, "(", ")")
        plain = strip_comments(text, s)  # an operand's comment would end the one-line statement printing it
        args = [" ".join(plain[a:b].split()) for a, b in split_args(s, found.end(), close - 1)]
        if len(args) < 4:
            continue
        g, sl, tiler = args[1], args[2], args[3]
        for k, expr in enumerate((f"::cute::layout({g})", sl,
                                  f"::cute::make_identity_layout(::cute::shape({g})).compose({tiler})",
                                  f"typename ::std::decay_t<decltype({x})>::AuxParams::TmaGmemBasis{{}}")):
            out.append((TMA + 10 * i + k, f"{x} {TMA_PARTS[k]}: {(g, sl, tiler, 'TmaGmemBasis')[k]}", expr))
    return out
