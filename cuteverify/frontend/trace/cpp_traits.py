"""Layouts, atoms and copies a CUTLASS C++ kernel takes as type members of a template parameter, and what the
functions its body calls do with them (issue 29; FlashAttention-2's ``Kernel_traits``).

FA2's forward kernel ``flash_fwd_kernel<Kernel_traits, ...>(params)`` (declared through the macro
``DEFINE_FLASH_FORWARD_KERNEL``) takes no layout as an argument: its body calls
``compute_attn<Kernel_traits, ...>(params)``, which calls ``compute_attn_1rowblock<Kernel_traits, ...>``, whose
body states the relations on type members of ``Kernel_traits``::

    Tensor sQ = make_tensor(make_smem_ptr(...), typename Kernel_traits::SmemLayoutQ{});
    Tensor sK = make_tensor(sQ.data() + size(sQ), typename Kernel_traits::SmemLayoutKV{});
    typename Kernel_traits::GmemTiledCopyQKV gmem_tiled_copy_QKV;
    auto gmem_thr_copy_QKV = gmem_tiled_copy_QKV.get_thread_slice(tidx);
    Tensor tQsQ = gmem_thr_copy_QKV.partition_D(sQ);
    typename Kernel_traits::TiledMma tiled_mma;
    auto smem_tiled_copy_Q = make_tiled_copy_A(typename Kernel_traits::SmemCopyAtom{}, tiled_mma);

Definitions:
  * :func:`find_kernel` finds the ``__global__`` definition of a launched kernel in the source and its user
    headers, written out or through a function-like macro whose replacement declares it (``#define M(name,
    ...) template<typename P, __VA_ARGS__> __global__ void name(...)``, the invocation ``M(kernel, ...) {``);
  * :func:`traits_flow` follows the calls from the kernel body (``f<P, ...>(...)`` with a template parameter
    passed as a template argument, to the definition of ``f`` in the same files, 4 calls deep) and reads in
    each body the idioms above, on the names that stand for the kernel's template parameter there;
  * :func:`capture_calls` prints, at the launch (where the kernel's template argument is in scope: ``auto
    kernel = &flash_fwd_kernel<Kernel_traits, ...>``), each type member read (``typename
    Kernel_traits::SmemLayoutQ{}``, record ``TRAITS + k``, source ``Kernel_traits::SmemLayoutQ``) and CuTe's
    own ``make_tiled_copy_A|B|C`` of each copy built after the MMA (record ``TRAITS_BUILT + k``, source the
    body's variable).

Admissibility: the relation idioms written as above (a type member spelled ``typename P::NAME``, a copy or MMA
object declared ``typename P::NAME var;``, an smem tensor's pointer ``make_smem_ptr(...)`` or the ``.data()`` of
another smem tensor); a relation written another way is not read (its objects are then notes). Post-condition:
every relation listed is written in a function the kernel reaches, between those objects; nothing is guessed
from types.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .cpp_text import blank, launch_template_args, match_close, split_args

__all__ = ["TraitsFlow", "find_kernel", "traits_flow", "capture_calls", "TRAITS", "TRAITS_BUILT"]

#: record indices: a type member of the kernel's template parameter, CuTe's tiled copy built from two of them
TRAITS = 5000
TRAITS_BUILT = 5500
_ID = r"[A-Za-z_]\w*"
_DEPTH = 4
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)((?:[^\n]*\\\n)*[^\n]*)", re.M)


@dataclass
class TraitsFlow:
    """The type-member relations of one launched kernel (module docstring). ``targ``: the index of the template
    parameter read, ``targ_text`` its argument at the launch; ``members``: type members in order of first use;
    ``smem``: tensor -> (member, file, line, stmt); ``objects``: variable -> member (a copy or MMA object);
    ``built``: variable -> (letter, atom member, MMA variable, file, line, stmt); ``accesses``: (copy variable,
    side ``src``/``dst``, smem tensor, file, line, stmt); ``others``: the same with a tensor that is no smem
    tensor read here; ``fragments``: (MMA variable, letter, tensor, file, line, stmt); ``functions``: (name,
    file, line) of the kernel and each function of the chain."""

    kernel: str
    targ: int
    param: str
    targ_text: str
    members: list = field(default_factory=list)
    smem: dict = field(default_factory=dict)
    objects: dict = field(default_factory=dict)
    built: dict = field(default_factory=dict)
    accesses: list = field(default_factory=list)
    others: list = field(default_factory=list)
    fragments: list = field(default_factory=list)
    functions: list = field(default_factory=list)

    def use(self, member: str) -> None:
        if member not in self.members:
            self.members.append(member)


def _names(s: str, o: int) -> list:
    """The parameter names of the bracket list opening at ``s[o]``."""
    close = match_close(s, o, s[o], ")" if s[o] == "(" else ">")
    out = []
    for a, b in split_args(s, o + 1, close - 1) if close > 0 else ():
        words = re.findall(_ID, s[a:b].split("=", 1)[0])
        out.append(words[-1] if words else None)
    return out


def _head_params(s: str, at: int) -> list:
    """The template parameter names of the declaration whose name is at ``at``: the last ``template <...>``
    after the previous ``;`` / ``}``."""
    start = max(s.rfind(";", 0, at), s.rfind("}", 0, at), 0)
    m = None
    for m in re.finditer(r"\btemplate\s*<", s[start:at]):
        pass
    return _names(s, start + m.end() - 1) if m else []


def _body_after(s: str, pclose: int) -> tuple | None:
    brace = s.find("{", pclose)
    if brace < 0 or s[pclose:brace].strip() not in ("", "const"):
        return None
    end = match_close(s, brace, "{", "}")
    return (brace, end) if end > 0 else None


def _definition(sources: dict, name: str, want_global: bool) -> tuple | None:
    """``(file, template parameter names, body span, line)`` of the definition of function ``name``."""
    for path, text in sources.items():
        s = blank(text)
        for m in re.finditer(rf"(?<![\w.])(?:\w+::)*{re.escape(name)}\s*\(", s):
            head = s[max(0, s.rfind(";", 0, m.start()), s.rfind("}", 0, m.start())):m.start()]
            if want_global != ("__global__" in head) or not re.search(r"\b(?:void|auto|inline|static)\b", head):
                continue
            pclose = match_close(s, m.end() - 1, "(", ")")
            span = _body_after(s, pclose) if pclose > 0 else None
            if span is not None:
                return path, _head_params(s, m.start()), span, s.count("\n", 0, m.start()) + 1
    return None


def find_kernel(sources: dict, name: str) -> tuple | None:
    """``(file, template parameter names, body span, line)`` of the ``__global__`` function ``name`` in
    ``sources`` (path -> text), written out or declared through a function-like macro (module docstring).
    Admissibility: a macro's first formal names the kernel, its replacement holds ``__global__`` and a ``template
    <...>`` head (``__VA_ARGS__`` substituted textually). Post-condition: None when no such definition is found."""
    got = _definition(sources, name, True)
    if got is not None:
        return got
    for path, text in sources.items():
        s = blank(text)
        for d in _DEFINE.finditer(s):
            macro, formals, repl = d.group(1), [f.strip() for f in d.group(2).split(",")], d.group(3)
            if "__global__" not in repl or not formals or formals[0] == "...":
                continue
            for path2, text2 in sources.items():
                s2 = blank(text2)
                for m in re.finditer(rf"(?<![\w#])\b{macro}\s*\(\s*{re.escape(name)}\s*,", s2):
                    o = s2.index("(", m.start())
                    close = match_close(s2, o, "(", ")")
                    span = _body_after(s2, close) if close > 0 else None
                    if span is None:
                        continue
                    actual = [s2[a:b].strip() for a, b in split_args(s2, o + 1, close - 1)]
                    exp = repl.replace("\\\n", " ")
                    exp = re.sub(r"\b__VA_ARGS__\b", ", ".join(actual[len(formals) - 1:]), exp) \
                        if formals[-1] == "..." else exp
                    for f, a in zip(formals, actual):
                        if f != "...":
                            exp = re.sub(rf"\b{re.escape(f)}\b", a, exp)
                    t = re.search(r"\btemplate\s*<", exp)
                    params = _names(exp, t.end() - 1) if t else []
                    return path2, params, span, s2.count("\n", 0, m.start()) + 1
    return None


def _stmt(text: str, at: int) -> str:
    return " ".join(text[text.rfind("\n", 0, at) + 1:text.find("\n", at)].split("//")[0].split())


def traits_flow(sources: dict, kernel_name: str, launched: str, launch_text: str, launch_offset: int
                ) -> TraitsFlow | None:
    """The :class:`TraitsFlow` of the kernel ``kernel_name`` launched as ``launched`` at ``launch_offset`` of
    ``launch_text``, for its first template parameter whose type members the functions it reaches use; None
    when its definition is not in ``sources`` or no type member relation is read. Admissibility: the template
    argument at the launch is spelled in the kernel expression or in ``auto k = &NAME<...>``. Post-condition:
    every relation of the flow is written in the kernel or a function it reaches (:class:`TraitsFlow`)."""
    k = find_kernel(sources, kernel_name)
    if k is None:
        return None
    targs = launch_template_args(blank(launch_text), kernel_name, launched, launch_offset) or []
    path, params, span, line = k
    for ti, p in enumerate(params):
        if p is None or ti >= len(targs):
            continue
        flow = TraitsFlow(kernel_name, ti, p, targs[ti], functions=[(kernel_name, path, line)])
        _walk(sources, path, span, {p}, flow, 0, set())
        if flow.members:
            return flow
    return None


def _walk(sources, path, span, names: set, flow: TraitsFlow, depth: int, seen: set) -> None:
    text = sources[path]
    s = blank(text)
    _read_body(s, text, path, span, names, flow)
    if depth >= _DEPTH:
        return
    body = s[span[0]:span[1]]
    alt = "|".join(re.escape(n) for n in names)
    for m in re.finditer(rf"(?<![\w.])((?:\w+::)*)({_ID})\s*<", body):
        close = match_close(body, m.end() - 1, "<", ">")
        if close < 0 or not re.match(r"\s*\(", body[close:]) or m.group(2) in seen:
            continue
        args = [" ".join(body[a:b].split()) for a, b in split_args(body, m.end(), close - 1)]
        if not any(re.fullmatch(alt, a) for a in args):
            continue
        d = _definition(sources, m.group(2), False)
        if d is None:
            continue
        seen.add(m.group(2))
        callee = {d[1][j] for j, a in enumerate(args) if j < len(d[1]) and re.fullmatch(alt, a) and d[1][j]}
        flow.functions.append((m.group(2), d[0], d[3]))
        _walk(sources, d[0], d[2], callee, flow, depth + 1, seen)


def _read_body(s, text, path, span, names, flow: TraitsFlow) -> None:
    start, end = span
    body = s[start:end]
    alt = "|".join(re.escape(n) for n in names)
    member = rf"typename\s+(?:{alt})\s*::\s*({_ID})"
    line = lambda at: s.count("\n", 0, start + at) + 1  # noqa: E731
    where = lambda at: (path, line(at), _stmt(text, start + at))  # noqa: E731
    for m in re.finditer(rf"(?:Tensor|auto)\s+({_ID})\s*=\s*make_tensor\s*\(", body):
        close = match_close(body, m.end() - 1, "(", ")")
        args = [body[a:b].strip() for a, b in split_args(body, m.end(), close - 1)] if close > 0 else []
        mm = re.fullmatch(rf"{member}\s*\{{\s*\}}", args[1]) if len(args) == 2 else None
        ptr = re.match(rf"({_ID})\s*\.\s*data\s*\(", args[0]) if args else None
        if mm and ("make_smem_ptr" in args[0] or (ptr and ptr.group(1) in flow.smem)):
            flow.use(mm.group(1))
            flow.smem[m.group(1)] = (mm.group(1), *where(m.start()))
    for m in re.finditer(rf"{member}\s+({_ID})\s*;", body):
        flow.use(m.group(1))
        flow.objects[m.group(2)] = m.group(1)
    for m in re.finditer(rf"(?:TiledCopy|auto)\s+({_ID})\s*=\s*make_tiled_copy_(A|B|C)\s*\(\s*{member}\s*\{{\s*\}}"
                         rf"\s*,\s*({_ID})\s*\)", body):
        if m.group(4) in flow.objects:
            flow.use(m.group(3))
            flow.built[m.group(1)] = (m.group(2), m.group(3), m.group(4), *where(m.start()))
    slices = {}
    for m in re.finditer(rf"(?:ThrCopy|ThrMMA|auto)\s+({_ID})\s*=\s*({_ID})\s*\.\s*get_(?:thread_)?slice\s*\(", body):
        if m.group(2) in flow.objects or m.group(2) in flow.built:
            slices[m.group(1)] = m.group(2)
    for m in re.finditer(rf"({_ID})\s*\.\s*partition_(S|D|fragment_A|fragment_B)\s*\(", body):
        copy = slices.get(m.group(1))
        close = match_close(body, m.end() - 1, "(", ")")
        if copy is None or close < 0:
            continue
        arg = body[m.end():close - 1].strip()
        if m.group(2).startswith("fragment"):
            flow.fragments.append((copy, m.group(2)[-1], arg, *where(m.start())))
        elif arg in flow.smem:
            flow.accesses.append((copy, "src" if m.group(2) == "S" else "dst", arg, *where(m.start())))
        else:
            flow.others.append((copy, "src" if m.group(2) == "S" else "dst", arg, *where(m.start())))


def capture_calls(flow: TraitsFlow | None, at_c: str, kernel_c: str, cstr) -> str:
    """The capture's statements printing each type member of ``flow`` (record ``TRAITS + k``) and CuTe's
    ``make_tiled_copy_A|B|C`` of each copy the body builds from two of them (``TRAITS_BUILT + k``).
    Admissibility: placed at the launch, where ``flow.targ_text`` names a type. Post-condition: one record per
    member and per built copy, "" for no flow."""
    if flow is None:
        return ""
    t = flow.targ_text
    out = ""
    for k, mem in enumerate(flow.members):
        out += (f"::cuteverify_capture::one({at_c}, {TRAITS + k}, {kernel_c}, {cstr(f'{t}::{mem}')}, "
                f"typename {t}::{mem}{{}}); ")
    for k, (var, (letter, atom, mma, *_)) in enumerate(sorted(flow.built.items())):
        out += (f"::cuteverify_capture::one({at_c}, {TRAITS_BUILT + k}, {kernel_c}, {cstr(var)}, "
                f"::cute::make_tiled_copy_{letter}(typename {t}::{atom}{{}}, typename {t}::{flow.objects[mma]}{{}})); ")
    return out
