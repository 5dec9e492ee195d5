"""A kernel body's tensor-memory objects and its launch's cluster, printed by ``trace cpp``'s host capture
(issue 29; CUTLASS's Blackwell tutorials ``examples/cute/tutorial/blackwell/0[1-5]_*.cu``).

The objects a Blackwell kernel builds in tensor memory are no launch arguments: the accumulator
``Tensor tCtAcc = cta_mma.make_fragment_C(tCgC);``, the copy ``make_tmem_copy(SM100_TMEM_LOAD_32dp32b1x{},
tCtAcc)`` that reads it, one thread's ``partition_S`` of it, the ``tmem_allocator.allocate(COLUMNS, &base)`` that
places it. Their layouts are functions of the launch arguments only (the host capture has no tensor memory, but
CuTe computes a TMEM tensor's layout from its shape and the MMA's type, at address 0). :func:`replay_plan` reads
those statements from the kernel body and :func:`capture_calls` has the capture *replay* them: the body's own
top-level declarations the objects depend on, copied verbatim into a non-capturing generic lambda whose
parameters are the kernel's parameters (called with the launch arguments) and where each kernel template
parameter that is a parameter's type is ``std::decay_t<decltype(param)>``; ``threadIdx`` / ``blockIdx`` are the
prelude's zeros (CTA 0, thread 0: a layout does not depend on them, a pointer does). Records ``REPLAY + k``, source
texts ``KIND: NAME`` (:data:`KINDS`). The launch's cluster is printed too (record ``CLUSTER``, source
``launch cluster: EXPR``): ``params.cluster_dims`` of ``launch_kernel_on_cluster(params, ...)`` or the
``cudaLaunchAttributeClusterDimension`` attribute of ``cudaLaunchKernelEx(&config, ...)`` (none: ``(1,1,1)``),
as the shape ``(x,y,z)``.

Admissibility: a kernel whose body names tensor memory (``make_tmem_copy``, a ``TMEM::Allocator``; elsewhere
``make_fragment_C`` is a register fragment and nothing is replayed); a declaration is replayed when it is a
top-level statement of the body written ``TYPE NAME = EXPR;``, ``TYPE NAME{...};`` or ``using NAME = TYPE;``
and every name of the body it uses is a parameter, a bound template parameter or a replayed declaration (a
statement naming shared memory, an unbound template parameter or a name declared inside a nested block is not);
an object whose declaration is not replayable is not printed (the caller reports it unknown). When these prints
do not compile the capture (:mod:`.cpp_capture`) builds again without any of them, and their objects are reported
unknown with the compiler's first error. Post-condition: every printed object is the value CuTe C++ computes for
the body's own statement, at CTA 0 / thread 0.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .cpp_launch import CALL_FORMS, strip_comments
from .cpp_text import blank, match_close, split_args

__all__ = ["Replay", "ReplayItem", "replay_plan", "capture_calls", "cluster_call", "PRELUDE", "POSTLUDE",
           "REPLAY", "CLUSTER", "KINDS"]

#: the record of the launch's cluster shape
CLUSTER = 5000
#: the first record of a replayed object
REPLAY = 5100
#: what a replayed record is: the accumulator, a TMEM copy, its thread partition of a TMEM tensor (the tensor
#: too), the allocation's column count and the allocator
KINDS = ("acc", "tmem_copy", "tmem_tensor", "tmem_part", "tmem_columns", "tmem_allocator")

PRELUDE = r"""namespace cuteverify_capture {  // trace cpp: the launch's cluster (cpp_replay)
template <class P> void cluster(const char* at, int i, const char* kernel, const char* text, P const& p);
}
"""

POSTLUDE = r"""
namespace cuteverify_capture {  // trace cpp: the launch's cluster (cpp_replay)
template <class P> void cluster(const char* at, int i, const char* kernel, const char* text, P const& p) {
  int x = 1, y = 1, z = 1;
  if constexpr (std::is_pointer_v<P>) {  // cudaLaunchConfig_t const*: its cluster dimension attribute
    for (unsigned j = 0; p != nullptr && j < p->numAttrs; ++j)
      if (p->attrs[j].id == cudaLaunchAttributeClusterDimension) {
        x = p->attrs[j].val.clusterDim.x; y = p->attrs[j].val.clusterDim.y; z = p->attrs[j].val.clusterDim.z; }
  } else { x = p.cluster_dims.x; y = p.cluster_dims.y; z = p.cluster_dims.z; }
  one(at, i, kernel, text, ::cute::make_shape(x, y, z)); }
}
"""

_ID = r"[A-Za-z_]\w*"
_DECL = re.compile(rf"^(?:typename\s+)?((?:{_ID}::)*{_ID}(?:\s*<.*>)?(?:\s*(?:const|&|\*))*)\s+({_ID})\s*"
                   r"(=|\{)(.*)$", re.S)
_USING = re.compile(rf"^using\s+({_ID})\s*=\s*(.+)$", re.S)
_BIND = re.compile(r"^(?:auto|const\s+auto)\s*&?\s*\[([^\]]*)\]\s*=\s*(.+)$", re.S)
_NOT_TYPES = {"return", "else", "case", "goto", "delete", "throw", "co_return"}
_ACC = re.compile(rf"^({_ID})\s*\.\s*make_fragment_C\s*\(")
_TMEM_COPY = re.compile(r"^make_tmem_copy\s*\(")
_THR = re.compile(rf"^({_ID})\s*\.\s*get_(?:thread_)?slice\s*\(")
_PART = re.compile(rf"^({_ID})\s*\.\s*partition_S\s*\(\s*({_ID})\s*\)$")
_ALLOC = re.compile(rf"\b({_ID})\s*\.\s*allocate\s*\(")
_DATA = re.compile(rf"\b({_ID})\s*\.\s*data\s*\(\s*\)\s*=\s*([^;=]+);")
_CLUSTER_USE = re.compile(rf"\b({_ID})\s*\.\s*get_(?:flat|hier)_coord\s*\([^;]*block_rank_in_cluster")
_WORD = re.compile(rf"(?<!::)(?<!->)(?<![\w.]){_ID}\b")


@dataclass(frozen=True)
class ReplayItem:
    """One replayed object: record ``index``, ``kind`` (:data:`KINDS`), ``name`` (the body's variable, or the
    column expression), the C++ expression printed, the body ``line`` and statement; ``of``: the variable a
    partition / TMEM copy is of (``tmem_part``, ``tmem_copy``), the accumulator a ``tmem_tensor`` is computed from
    ("" if none), the copy a partition is by (``by``); ``since``: a ``tmem_tensor``'s declaration line."""

    index: int
    kind: str
    name: str
    expr: str
    line: int
    stmt: str
    of: str = ""
    by: str = ""
    since: int = 0

    @property
    def source(self) -> str:
        """The record's source text: ``acc: tCtAcc``."""
        return f"{self.kind}: {self.name}"


@dataclass
class Replay:
    """What :func:`replay_plan` read: the kernel's parameter names (lambda parameters), the template parameters
    bound to a parameter's type (``(name, param)``), the replayed declarations in body order (their text),
    the printed ``items``, the cluster parameter (index, or None: the parameter whose layout the body indexes
    by ``block_rank_in_cluster``), the allocation's base (the expression whose address ``allocate`` takes) and
    ``placed``: tensor variable -> (the expression its ``.data()`` is set to, body line); ``skipped``: objects
    found but not replayable, with why."""

    params: list
    bound: list = field(default_factory=list)
    decls: list = field(default_factory=list)
    items: list = field(default_factory=list)
    cluster_param: int | None = None
    alloc_base: str = ""
    placed: dict = field(default_factory=dict)
    skipped: list = field(default_factory=list)

    def by_kind(self, kind: str) -> list:
        """The items of one kind, in order."""
        return [i for i in self.items if i.kind == kind]


def _statements(s: str, start: int, end: int) -> list:
    """``(start, end)`` offsets of the top-level statements of the block ``s[start:end]`` (braces excluded); a
    statement with a nested block (``if (...) { }``, ``for``) is dropped whole."""
    out, depth, par, i, b, block = [], 0, 0, start, start, False
    while i < end:
        c = s[i]
        if c == "(":
            par += 1
        elif c == ")":
            par -= 1
        elif c == "{":
            if depth == 0 and par == 0:
                prev = s[b:i].rstrip()
                block = block or prev.endswith(")") or re.search(r"\b(?:else|do|try)$", prev) is not None \
                    or prev == ""
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0 and par == 0 and block:
                b, block = i + 1, False
        elif c == ";" and depth == 0 and par == 0:
            out.append((b + len(s[b:i]) - len(s[b:i].lstrip()), i))
            b = i + 1
        i += 1
    return out


def _declared(stmt: str):
    """``(names, kind)`` a top-level statement declares (``decl`` / ``using`` / ``bind``), or ``((), None)``."""
    m = _USING.match(stmt)
    if m is not None:
        return (m.group(1),), "using"
    m = _BIND.match(stmt)
    if m is not None:
        return tuple(x.strip() for x in m.group(1).split(",")), "bind"
    m = _DECL.match(stmt)
    if m is not None and m.group(1).split()[0] not in _NOT_TYPES and (m.group(3) == "=" or stmt.endswith("}")):
        return (m.group(2),), "decl"
    return (), None


def _uses(stmt: str, names) -> set:
    """The names a declaration statement uses (its type and initialiser), its own ``names`` excluded."""
    return set(_WORD.findall(stmt)) - set(names)


def _expr(stmt: str) -> str:
    """The initialiser of a declaration (after ``=``), or its braces' contents."""
    m = _DECL.match(stmt)
    if m is None:
        return ""
    return m.group(4).strip() if m.group(3) == "=" else m.group(4).rstrip("}").strip()


def replay_plan(text: str, flow, sm90) -> Replay | None:
    """The :class:`Replay` of the kernel ``flow`` reads (:class:`.cpp_flow.Flow`; ``sm90``: its
    :class:`.cpp_flow_sm90.Sm90Flow`, for the signature), or None without a body."""
    if flow is None or sm90 is None or flow.span == (0, 0):
        return None
    s = strip_comments(text)
    bl = blank(text)
    start, end = flow.span
    params = list(flow.params)
    bound = [(t, params[sm90.ptypes.index(t)]) for t in sm90.tparams
             if t and sm90.ptypes.count(t) == 1 and sm90.ptypes.index(t) < len(params)]
    out = Replay(params, bound)
    stmts = _statements(bl, start + 1, end - 1)
    known = set(p for p in params if p) | {t for t, _ in bound}
    body_names = set(re.findall(rf"\b({_ID})\s*\[\s*\]", bl[start:end]))  # extern __shared__ arrays
    body_names |= {t for t in sm90.tparams if t}
    decls = []  # (offset, names, kind, text)
    for off, stop in stmts:
        stmt = " ".join(s[off:stop].split())
        names, kind = _declared(stmt)
        body_names |= set(names)
        if kind is not None:
            decls.append((off, names, kind, stmt))
    for m in re.finditer(rf"\b(?:{_ID}(?:\s*<[^;{{}}]*>)?)\s+({_ID})\s*(?:=|\{{|;)", bl[start:end]):
        body_names.add(m.group(1))  # nested declarations: names the replay must not take from the host
    ok: dict = {}  # name -> replayable declaration index
    for n, (off, names, kind, stmt) in enumerate(decls):
        if not [w for w in _uses(stmt, names) if w in body_names and w not in known and w not in ok]:
            for x in names:
                ok[x] = n
    line = lambda off: bl.count("\n", 0, off) + 1  # noqa: E731

    def need(name, acc):
        n = ok.get(name)
        if n is None or n in acc:
            return
        acc.add(n)
        for w in _uses(decls[n][3], decls[n][1]):
            need(w, acc)

    wanted: set = set()
    items: list = []

    def add(kind, name, expr, off, stmt, of="", by="", since=0):
        items.append(ReplayItem(REPLAY + len(items), kind, name, expr, line(off), stmt, of, by, since))

    tensors = {}
    for off, names, kind, stmt in decls:
        e = _expr(stmt) if kind == "decl" else ""
        if kind != "decl":
            continue
        v = names[0]
        if _ACC.match(e) and v in ok:
            need(v, wanted)
            add("acc", v, v, off, stmt)
            tensors[v] = True
        elif _ACC.match(e):
            out.skipped.append((v, line(off), stmt, "its statement names what the host does not have"))
    for off, names, kind, stmt in decls:
        e = _expr(stmt) if kind == "decl" else ""
        if kind == "decl" and _TMEM_COPY.match(e):
            v = names[0]
            if v not in ok:
                out.skipped.append((v, line(off), stmt, "its statement names what the host does not have"))
                continue
            need(v, wanted)
            close = match_close(e, e.index("("), "(", ")")
            args = [e[a:b].strip() for a, b in split_args(e, e.index("(") + 1, close - 1)] if close > 0 else []
            add("tmem_copy", v, v, off, stmt, of=args[1] if len(args) > 1 else "")
            slices = [d for d in decls if d[2] == "decl" and (m := _THR.match(_expr(d[3]))) and m.group(1) == v]
            for soff, snames, _, sstmt in slices:
                for poff, pnames, pkind, pstmt in decls:
                    pm = _PART.match(_expr(pstmt)) if pkind == "decl" else None
                    if pm is None or pm.group(1) != snames[0]:
                        continue
                    if pnames[0] not in ok:
                        out.skipped.append((pnames[0], line(poff), pstmt, "its statement names what the host "
                                            "does not have"))
                        continue
                    need(pnames[0], wanted)
                    if pm.group(2) not in tensors:
                        tensors[pm.group(2)] = True
                        dep: set = set()
                        need(pm.group(2), dep)  # the declarations it is computed from: an accumulator's?
                        src = next((a.name for a in items if a.kind == "acc" and ok.get(a.name) in dep), "")
                        n = ok.get(pm.group(2))
                        add("tmem_tensor", pm.group(2), pm.group(2), poff, pstmt, of=src,
                            since=line(decls[n][0]) if n is not None else 0)
                    add("tmem_part", pnames[0], pnames[0], poff, pstmt, of=pm.group(2), by=v)
    body = bl[start:end]
    for m in _ALLOC.finditer(body):
        close = match_close(body, m.end() - 1, "(", ")")
        args = [" ".join(s[start + a:start + b].split()) for a, b in split_args(body, m.end(), close - 1)] \
            if close > 0 else []
        obj = m.group(1)
        if len(args) != 2 or not args[1].startswith("&") or obj not in ok:
            continue
        cols = args[0]
        free = [w for w in _WORD.findall(cols) if w in body_names and w not in ok and w not in known]
        stmt = " ".join(s[start + m.start():start + close].split())
        if free:
            out.skipped.append((cols, line(start + m.start()), stmt, f"its column count names {free[0]}"))
            continue
        for w in _WORD.findall(cols) + [obj]:
            need(w, wanted)
        out.alloc_base = args[1][1:].strip()
        add("tmem_columns", cols, f"int({cols})", start + m.start(), stmt)
        add("tmem_allocator", obj, obj, start + m.start(), stmt)
    for m in _DATA.finditer(body):
        out.placed[m.group(1)] = (" ".join(m.group(2).split()), line(start + m.start()))
    for m in _CLUSTER_USE.finditer(body):
        d = next((x for x in decls if m.group(1) in x[1] and x[2] == "decl"), None)
        pm = re.search(rf"make_layout\s*\(\s*({_ID})\s*\)", _expr(d[3])) if d else None
        if pm is not None and pm.group(1) in params:
            out.cluster_param = params.index(pm.group(1))
    if not re.search(r"\bmake_tmem_copy\s*\(|\bTMEM\s*::\s*Allocator", bl[start:end]):
        items, wanted = [], set()  # no tensor memory in this kernel: make_fragment_C is a register fragment
    out.decls = [decls[n][3] for n in sorted(wanted)]
    out.items = items
    return out


def capture_calls(plan: Replay | None, args, at_c: str, kernel_c: str, cstr) -> str:
    """The capture's statement replaying ``plan`` with the launch argument texts ``args`` (module docstring),
    or "" when there is nothing to print or the argument count is not the kernel's."""
    if plan is None or not plan.items or len(args) != len(plan.params) or not all(plan.params):
        return ""
    # a bound template parameter is renamed (the host function's own template parameters must not be shadowed)
    used = {t: p for t, p in plan.bound if any(re.search(rf"(?<![\w.:]){t}\b", d) for d in plan.decls)}
    ren = (lambda d: re.sub(rf"(?<![\w.:])({'|'.join(used)})\b", r"cv_t_\1", d)) if used else (lambda d: d)
    using = "".join(f"using cv_t_{t} = ::std::decay_t<decltype({p})>; " for t, p in used.items())
    prints = "".join(f"::cuteverify_capture::one({at_c}, {it.index}, {kernel_c}, {cstr(it.source)}, {ren(it.expr)}); "
                     for it in plan.items)
    lam = ("[](" + ", ".join(f"auto {p}" for p in plan.params) + ") { " + using
           + "".join(ren(d) + "; " for d in plan.decls) + prints + "}")
    return f"{lam}({', '.join(args)}); "


def cluster_call(text: str, start: int, end: int, at_c: str, kernel_c: str, cstr) -> str:
    """The capture's statement printing the cluster of the call-form launch ``text[start:end]`` (record
    :data:`CLUSTER`), "" for another launch form."""
    s = blank(text)
    m = re.match(r"(?:::)?(?:cutlass::)?(\w+)\s*\(", s[start:end])
    if m is None or m.group(1) not in CALL_FORMS:
        return ""
    o = start + m.end() - 1
    close = match_close(s, o, "(", ")")
    spans = split_args(s, o + 1, close - 1)
    if not spans:
        return ""
    cfg = " ".join(strip_comments(text, s)[spans[0][0]:spans[0][1]].split())
    return f"::cuteverify_capture::cluster({at_c}, {CLUSTER}, {kernel_c}, {cstr('launch cluster: ' + cfg)}, {cfg}); "


_TMA_CALL = re.compile(r"\s*=\s*(?:cute::)?make_tma_atom(?:_(A|B)_sm100)?\s*(?:<[^;]*?>)?\s*\(")


def _open_to(s: str, start: int, end: int) -> bool:
    """No block that is open at ``start`` closes before ``end``."""
    depth = 0
    for c in s[start:end]:
        depth += (c == "{") - (c == "}")
        if depth < 0:
            return False
    return True


def tma_calls(text: str, args, before: int) -> list:
    """``[(argument index, letter or "", operand texts)]``: each launch argument (an identifier) the host built
    with the last ``X = make_tma_atom(OP, G, S, TILER, N)`` (five operands: a multicast count) or
    ``X = make_tma_atom_A|B_sm100(OP, G, S, MMA_TILER, MMA, CLUSTER_VMNK)`` before the launch, no block closing
    between the two (its operands are in scope at the launch)."""
    s = blank(text)
    plain = strip_comments(text, s)
    out = []
    for i, x in enumerate(args):
        if not re.fullmatch(_ID, x):
            continue
        found = None
        for m in re.finditer(rf"\b{re.escape(x)}{_TMA_CALL.pattern}", s[:before]):
            found = m
        if found is None:
            continue
        close = match_close(s, found.end() - 1, "(", ")")
        if close < 0 or close > before or not _open_to(s, close, before):
            continue  # its operands are not in scope at the launch (a block closes in between)
        ops = [" ".join(plain[a:b].split()) for a, b in split_args(s, found.end(), close - 1)]
        letter = found.group(1) or ""
        if (letter and len(ops) == 6) or (not letter and len(ops) == 5):
            out.append((i, letter, ops))
    return out


def tma_prints(text: str, args, before: int, tma: int) -> list:
    """``[(index, source text, C++ expression)]`` of the TMA atoms :func:`tma_calls` finds, records ``tma + 10 i +
    k`` as :mod:`.cpp_flow_sm90` numbers them (k 0 gmem layout, 1 smem layout, 2 ``cta_v_map``, 3 CuTe's box
    ``TmaGmemBasis``, which that module prints for ``make_tma_atom``) and k 4 the multicast count: the fifth
    operand of ``make_tma_atom``; for ``make_tma_atom_A|B_sm100`` the extent of the cluster's N (A) / M (B) mode
    of ``CLUSTER_VMNK``, the count CuTe takes for a multicast operation, and the ``cta_v_map`` CuTe computes
    there: ``layout<1>(mma.thrfrg_A|B(g_tile))(_, repeat<rank(g_tile)>(_))`` of ``g_tile =
    make_identity_layout(shape(G)).compose(remove<1|0>(MMA_TILER))`` (``copy_traits_sm100_tma.hpp``)."""
    out = []
    for i, letter, ops in tma_calls(text, args, before):
        x = args[i]
        base = tma + 10 * i
        if not letter:
            out.append((base + 4, f"{x} multicast: {ops[4]}", ops[4]))
            continue
        g, sl, tiler, mma, vmnk = ops[1:]
        keep = 1 if letter == "A" else 0  # the mode of the MMA tiler the operand has not (N for A, M for B)
        gt = f"::cute::make_identity_layout(::cute::shape({g})).compose(::cute::remove<{keep}>({tiler}))"
        cta = (f"[&]() {{ auto g_tile = {gt}; return ::cute::layout<1>(({mma}).thrfrg_{letter}(g_tile))"
               "(::cute::_, ::cute::repeat<::cute::rank(g_tile)>(::cute::_)); }()")
        mode = 2 if letter == "A" else 1
        for k, (src, expr) in enumerate(((g, f"::cute::layout({g})"), (sl, sl),
                                         (f"thrfrg_{letter} of {tiler}", cta),
                                         ("TmaGmemBasis", f"typename ::std::decay_t<decltype({x})>::AuxParams::"
                                                          "TmaGmemBasis{}"),
                                         (f"size<{mode}>({vmnk})", f"::cute::size<{mode}>({vmnk})"))):
            out.append((base + k, f"{x} {('gmem', 'smem', 'cta_v_map', 'gbasis', 'multicast')[k]}: {src}", expr))
    return out
