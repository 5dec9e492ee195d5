"""Shared-memory layouts a CUTLASS C++ kernel takes as template arguments, and what its body does with them
(issue 29; CUTLASS's Blackwell tutorials, ``examples/cute/tutorial/blackwell``).

Those kernels do not pass their smem layouts as launch arguments: the host names a storage type
``using SMEMStorage = SharedStorage<TypeA, TypeB, decltype(sA_layout), decltype(sB_layout)>;`` and launches
``&gemm_device<SMEMStorage, ...>``; the kernel reinterprets its dynamic shared memory as that type
(``SharedStorage& s = *reinterpret_cast<SharedStorage*>(shared_memory);``) and takes its tensors from the
struct's methods (``Tensor tCsA = s.tensor_sA();``), each ``make_tensor(make_smem_ptr(A.begin()), ASmemLayout{})``
of one of the struct's template parameters. :func:`storage_flow` reads that chain from the source and
:func:`capture_calls` prints each such layout at the launch, as CuTe instantiates it (``targ_t<J, SMEMStorage>``:
template argument ``J`` of the storage type).

The same kernels' bodies partition for the MMA: ``ThrMMA cta_mma = tiled_mma.get_slice(v);`` then
``cta_mma.make_fragment_A(tCsA)`` (an A / B descriptor fragment of an smem tensor: what the ``operand`` claim
relates), ``make_fragment_C(...)`` (the TMEM accumulator, which the host cannot allocate) and
``make_tmem_copy(OP, tCtAcc)`` (a copy built from that TMEM tensor): :class:`StorageFlow` lists them.

Admissibility: a kernel whose ``__global__`` definition is in the file and whose template arguments appear at the
launch (``&NAME<...>`` in the kernel expression or in ``auto k = &NAME<...>;``); a storage struct that is a class
template of type parameters only. Anything else gives an empty flow (the caller reports what it does not see).
Post-condition: every relation listed is written in the source between those objects.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .cpp_text import blank, launch_template_args, match_close, split_args

__all__ = ["StorageTensor", "StorageFlow", "storage_flow", "capture_calls", "PRELUDE", "STORAGE"]

#: the record index of the first storage layout a launch prints (after its arguments and cpp_flow's copies)
STORAGE = 2000

PRELUDE = r"""#include <tuple>
namespace cuteverify_capture {  // template argument J of a class template of type parameters
template <int J, class T> struct targ;
template <int J, template <class...> class S, class... A> struct targ<J, S<A...>>
{ using type = std::tuple_element_t<J, std::tuple<A...>>; };
template <int J, class T> using targ_t = typename targ<J, T>::type;
}
"""

_ID = r"[A-Za-z_]\w*"
_STORAGE_VAR = re.compile(rf"({_ID})\s*&\s*({_ID})\s*=\s*\*\s*reinterpret_cast\s*<\s*({_ID})\s*\*\s*>\s*\(")
_SLICE = re.compile(rf"(?:ThrMMA|auto)\s+({_ID})\s*=\s*({_ID})\s*\.\s*get_(?:thread_)?slice\s*\(")
# partition_fragment_A(t) is make_fragment_A(partition_A(t)): the same descriptor fragment (review)
_FRAG = re.compile(rf"({_ID})\s*\.\s*(make_fragment|partition_fragment|partition)_(A|B|C)\s*\(\s*({_ID})\s*\)")
_TMA_PART = re.compile(rf"\btma_partition\s*\(\s*({_ID})\s*,")
_TMEM_COPY = re.compile(rf"(?:TiledCopy|auto)\s+({_ID})\s*=\s*make_tmem_copy\s*\(")
_CUTE = r"(?:::\s*)?(?:cute\s*::\s*)?"  # a qualified spelling (cute::make_tensor) is the same relation (review)
_METHOD = re.compile(rf"({_ID})\s*\(\s*\)\s*(?:const\s*)?\{{\s*return\s+{_CUTE}make_tensor\s*\(\s*"
                     rf"{_CUTE}make_smem_ptr\s*(?:<[^;()]*>\s*)?\([^;]*?\)\s*,\s*({_ID})\s*\{{\s*\}}\s*\)\s*;")


@dataclass(frozen=True)
class StorageTensor:
    """A kernel-body smem tensor from a storage template argument: ``tensor`` (``tCsA``) at body ``line``
    (``stmt``), made by the storage struct ``struct``'s ``method`` from its template parameter ``param`` (index
    ``param_index``) of the kernel's template argument ``targ`` (index), spelled ``type_text`` at the launch."""

    tensor: str
    line: int
    stmt: str
    targ: int
    type_text: str
    struct: str
    method: str
    param: str
    param_index: int

    @property
    def source(self) -> str:
        """The record's source text: ``SMEMStorage::ASmemLayout`` (what the kernel lays ``tensor`` out with)."""
        return f"{self.type_text}::{self.param}"


@dataclass
class StorageFlow:
    """What :func:`storage_flow` read: ``tensors`` (:class:`StorageTensor`), ``fragments`` (tiled MMA parameter
    index, ``make_fragment`` / ``partition``, operand letter, tensor variable, line, statement) and
    ``tmem_copies`` (variable, line, statement) and ``tma_writes`` (TMA atom parameter index, smem tensor
    variables among ``tma_partition``'s arguments, line, statement)."""

    kernel: str
    tensors: list = field(default_factory=list)
    fragments: list = field(default_factory=list)
    tmem_copies: list = field(default_factory=list)
    tma_writes: list = field(default_factory=list)


def _last_ident(p: str) -> str | None:
    words = re.findall(_ID, p.split("=", 1)[0])
    return words[-1] if words else None


def _stmt(text: str, at: int) -> str:
    return text[text.rfind("\n", 0, at) + 1:text.find("\n", at)].split("//")[0].strip()


def _template_params(s: str, at: int) -> list:
    """The template parameter names of the declaration starting at or before ``at`` (after the last ``;`` / ``}``)."""
    start = max(s.rfind(";", 0, at), s.rfind("}", 0, at))
    m = None
    for m in re.finditer(r"\btemplate\s*<", s[start + 1:at]):
        pass
    if m is None:
        return []
    o = start + 1 + m.end() - 1
    close = match_close(s, o, "<", ">")
    return [_last_ident(s[a:b]) for a, b in split_args(s, o + 1, close - 1)] if close > 0 else []


def _struct_methods(s: str, struct: str) -> tuple:
    """(template parameter names, method -> parameter name) of ``template <...> struct NAME { ... }``."""
    for m in re.finditer(rf"\b(?:struct|class)\s+{re.escape(struct)}\s*\{{", s):
        params = _template_params(s, m.start())
        end = match_close(s, m.end() - 1, "{", "}")
        body = s[m.end():end]
        return params, {mm.group(1): mm.group(2) for mm in _METHOD.finditer(body)}
    return [], {}


def storage_flow(text: str, kernel_name: str, launched: str, launch_offset: int) -> StorageFlow | None:
    """The :class:`StorageFlow` of the ``__global__`` function ``kernel_name`` launched as ``launched`` at
    ``launch_offset``, or None when its definition is not in ``text``."""
    s = blank(text)
    for m in re.finditer(rf"\b{re.escape(kernel_name)}\s*\(", s):
        head = s[max(0, s.rfind(";", 0, m.start())):m.start()]
        pclose = match_close(s, m.end() - 1, "(", ")")
        brace = s.find("{", pclose) if pclose > 0 else -1
        if "__global__" not in head or brace < 0 or s[pclose:brace].strip() not in ("", "const"):
            continue
        end = match_close(s, brace, "{", "}")
        tparams = _template_params(s, m.start())
        params = [_last_ident(s[a:b]) for a, b in split_args(s, m.end(), pclose - 1)]
        targs = launch_template_args(s, kernel_name, launched, launch_offset) or []
        flow = StorageFlow(kernel_name)
        _read(s, text, brace, end, tparams, params, targs, launch_offset, flow)
        return flow
    return None


def _struct_of(s: str, type_text: str, before: int) -> tuple:
    """(struct name, its argument texts or None) of a storage type spelled ``type_text`` at the launch."""
    m = re.fullmatch(rf"(?:\w+::)*({_ID})\s*(<.*>)?", type_text)
    if m is None:
        return None, None
    if m.group(2) is None:  # an alias: the last `using NAME = STRUCT<...>;` before the launch
        found = None
        for u in re.finditer(rf"\busing\s+{re.escape(m.group(1))}\s*=\s*(?:typename\s+)?(?:\w+::)*({_ID})\s*<",
                             s[:before]):
            found = u
        return (found.group(1), None) if found is not None else (None, None)
    return m.group(1), None


def _read(s, text, start, end, tparams, params, targs, before, flow: StorageFlow) -> None:
    body = s[start:end]
    line = lambda at: s.count("\n", 0, start + at) + 1  # noqa: E731
    tensors = {}
    for sv in _STORAGE_VAR.finditer(body):
        if sv.group(1) != sv.group(3) or sv.group(3) not in tparams:
            continue
        ti = tparams.index(sv.group(3))
        if ti >= len(targs):
            continue
        struct, _ = _struct_of(s, targs[ti], before)
        if struct is None:
            continue
        sparams, methods = _struct_methods(s, struct)
        for tm in re.finditer(rf"(?:Tensor|auto)\s+({_ID})\s*=\s*{re.escape(sv.group(2))}\s*\.\s*({_ID})\s*\(\s*\)",
                              body):
            p = methods.get(tm.group(2))
            if p is None or p not in sparams:
                continue
            st = StorageTensor(tm.group(1), line(tm.start()), _stmt(text, start + tm.start()), ti, targs[ti], struct,
                               tm.group(2), p, sparams.index(p))
            flow.tensors.append(st)
            tensors[st.tensor] = st
    index = {p: i for i, p in enumerate(params) if p}
    slices = {m.group(1): index[m.group(2)] for m in _SLICE.finditer(body) if m.group(2) in index}
    for m in _FRAG.finditer(body):
        if m.group(1) in slices:
            flow.fragments.append((slices[m.group(1)], m.group(2).replace("partition_fragment", "make_fragment"),
                                   m.group(3), m.group(4), line(m.start()),
                                   _stmt(text, start + m.start())))
    for m in _TMA_PART.finditer(body):
        close = match_close(body, body.index("(", m.start()), "(", ")")
        if m.group(1) in index and close > 0:
            args = body[m.start():close]
            names = [t for t in tensors if re.search(rf"\b{t}\b", args)]
            flow.tma_writes.append((index[m.group(1)], names, line(m.start()), _stmt(text, start + m.start())))
    for m in _TMEM_COPY.finditer(body):
        flow.tmem_copies.append((m.group(1), line(m.start()), _stmt(text, start + m.start())))


def capture_calls(flow: StorageFlow | None, at_c: str, kernel_c: str, cstr) -> str:
    """The capture's statements printing each storage layout of ``flow`` once (record ``STORAGE + k``, its
    source text :attr:`StorageTensor.source`); ``at_c`` / ``kernel_c`` are the record's C string literals."""
    out, seen = "", []
    for st in flow.tensors if flow else ():
        key = (st.type_text, st.param_index)
        if key in seen:
            continue
        seen.append(key)
        out += (f"::cuteverify_capture::one({at_c}, {STORAGE + len(seen) - 1}, {kernel_c}, {cstr(st.source)}, "
                f"::cuteverify_capture::targ_t<{st.param_index}, {st.type_text}>{{}}); ")
    return out
