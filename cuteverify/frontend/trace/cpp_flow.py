"""What a launched CUTLASS C++ kernel does with its arguments, read from its own source (issue 29).

The launch capture (:mod:`.cpp_capture`) sees the values a kernel is launched with; how the kernel relates them
(which tiled copy writes which shared-memory tensor, which copy atom is tiled after which MMA) is in the
kernel's body. :func:`kernel_flow` reads the CuTe idioms that state those relations, on the source with
comments blanked, and maps them to the launch's argument positions:

* ``Tensor sA = make_tensor(make_smem_ptr(...), sA_layout)``: parameter ``sA_layout`` lays out shared memory;
* ``TiledCopy t = make_tiled_copy_A|B|C(atom, mma)``: a copy built in the kernel from two parameters;
* ``ThrCopy s = copy.get_slice(...)`` / ``get_thread_slice`` and ``s.partition_S|D(sA)``: the copy ``copy``
  reads (S) / writes (D) the smem tensor ``sA``;
* ``s.retile_D(tCrA)`` of a slice of a built copy, ``tCrA = thr_mma.partition_fragment_A|make_fragment_A(...)``:
  the copy fills the MMA's A fragment (``retiled``: built variable -> that letter);
* ``copy(atom, tXsB_p(...), tXrB(...))`` whose source is (a slice of) ``tXsB = s.partition_S(...)`` of one built
  copy and whose destination is ``tXrB = t.retile_D(tCrB)`` of another: the first copy's partition fills the
  other's fragment (``crossed``: (built variable, fragment letter, line, statement)).

Definitions: :class:`Flow` holds ``smem`` (parameter index -> the smem tensor variables over it), ``built``
(variable -> (letter, atom parameter index, mma parameter index)) and ``accesses`` (copy, side ``src``/``dst``,
smem parameter index, body line, statement text), where a copy is a parameter index or a ``built`` variable;
``others`` the partitions by those copies of any other tensor (a gmem tensor, a slice: its text in place of the
smem parameter), which the caller reports as not checked for banks.

Admissibility: the kernel is the launched name, or the function a local ``auto k = NAME<...>;`` names; its
definition is the ``__global__`` function of that name in the same file. A relation written another way (a
helper function, a struct of layouts) is not seen: the caller reports the arguments no relation covers.
Post-condition: every relation listed is written in the kernel body between those objects, never guessed
from types.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .cpp_text import blank, match_close, split_args

__all__ = ["Flow", "kernel_flow", "resolve_kernel", "CUTE_QUAL"]

_IDENT = r"[A-Za-z_]\w*"
# a cast around the kernel's address (``reinterpret_cast<void const*>(&k<...>)``, ``(void const*) &k<...>``)
_CAST = r"(?:(?:reinterpret_cast|static_cast)\s*<[^<>;]*>\s*\(\s*|\(\s*(?:const\s+)?void\s*(?:const\s*)?\*\s*\)\s*)?"
# CuTe's functions may be spelled qualified (``cute::make_tensor``) and make_smem_ptr with its element type
# (``make_smem_ptr<T>(p)``): an unread spelling would drop the relation and the checks it carries (review)
CUTE_QUAL = r"(?:::\s*)?(?:cute\s*::\s*)?"
_SMEM = re.compile(rf"(?:Tensor|auto)\s+({_IDENT})\s*=\s*{CUTE_QUAL}make_tensor\s*\(\s*{CUTE_QUAL}make_smem_ptr\s*"
                   rf"(?:<[^;()]*>\s*)?\((?:[^;]*)\)\s*,\s*({_IDENT})\s*\)\s*;")
_BUILT = re.compile(rf"(?:TiledCopy|auto)\s+({_IDENT})\s*=\s*{CUTE_QUAL}make_tiled_copy_(A|B|C)\s*\(\s*({_IDENT})\s*,"
                    rf"\s*({_IDENT})\s*\)\s*;")
_SLICE = re.compile(rf"(?:ThrCopy|auto)\s+({_IDENT})\s*=\s*({_IDENT})\s*\.\s*get_(?:thread_)?slice\s*\(")
_PART = re.compile(rf"({_IDENT})\s*\.\s*partition_(S|D)\s*\(")
_FRAG = re.compile(rf"(?:Tensor|auto)\s+({_IDENT})\s*=\s*{_IDENT}\s*\.\s*(?:partition|make)_fragment_(A|B|C)\s*\(")
_RETILE = re.compile(rf"({_IDENT})\s*\.\s*retile_D\s*\(\s*({_IDENT})\s*\)")
_DEF = re.compile(rf"(?:Tensor|auto)\s+({_IDENT})\s*=\s*({_IDENT})\s*[.(]\s*(?:(partition_S|retile_D)\s*\()?")
_COPY = re.compile(r"(?<![\w.:])copy\s*\(")


@dataclass
class Flow:
    """The relations of one kernel's body (module docstring)."""

    kernel: str
    line: int
    params: list = field(default_factory=list)
    smem: dict = field(default_factory=dict)
    built: dict = field(default_factory=dict)
    accesses: list = field(default_factory=list)
    others: list = field(default_factory=list)
    span: tuple = (0, 0)  # the body's offsets in the source, braces included (cpp_flow_sm90 reads it again)
    head: int = 0         # the offset of the statement before the definition (its template head follows)
    retiled: dict = field(default_factory=dict)  # built copy variable -> the MMA fragment letter it retiles into
    crossed: list = field(default_factory=list)  # (built copy, fragment letter, line, statement): module docstring


def resolve_kernel(text: str, launched: str, before: int) -> str:
    """The function a launch of ``launched`` calls: ``launched`` itself, or what ``auto launched = NAME<...>;``
    (the last such statement before offset ``before``) names; template arguments dropped."""
    base = launched.split("<", 1)[0].split("::")[-1]
    found = None
    for m in re.finditer(rf"\b{re.escape(base)}\s*=\s*{_CAST}&?\s*({_IDENT})\s*[<;]", text[:before]):
        found = m.group(1)
    return found or base


def _param_name(p: str) -> str | None:
    p = p.split("=", 1)[0].strip()
    toks = re.findall(rf"{_IDENT}|[*&]", p)
    words = [t for t in toks if t not in ("const", "volatile", "__restrict__", "*", "&")]
    return words[-1] if len(words) >= 2 and re.fullmatch(_IDENT, toks[-1]) else None


def kernel_flow(text: str, launched: str, launch_offset: int) -> Flow | None:
    """The :class:`Flow` of the ``__global__`` function a launch calls, or None when its definition is not in
    ``text``."""
    s = blank(text)
    name = resolve_kernel(s, launched, launch_offset)
    for m in re.finditer(rf"\b{re.escape(name)}\s*\(", s):
        head = s[max(0, s.rfind(";", 0, m.start())):m.start()]
        if "__global__" not in head:
            continue
        popen = m.end() - 1
        pclose = match_close(s, popen, "(", ")")
        brace = s.find("{", pclose)
        if pclose < 0 or brace < 0 or s[pclose:brace].strip(" \n\t") not in ("", "const"):
            continue
        end = match_close(s, brace, "{", "}")
        params = [_param_name(s[a:b]) for a, b in split_args(s, popen + 1, pclose - 1)]
        flow = Flow(name, s.count("\n", 0, m.start()) + 1, params, span=(brace, end),
                    head=max(0, s.rfind(";", 0, m.start())))
        _read_body(s, text, brace, end, flow)
        return flow
    return None


def _read_body(s, text, start, end, flow: Flow) -> None:
    index = {p: i for i, p in enumerate(flow.params) if p}
    body = s[start:end]
    tensors = {}
    for m in _SMEM.finditer(body):
        if m.group(2) in index:
            tensors[m.group(1)] = index[m.group(2)]
            flow.smem.setdefault(index[m.group(2)], []).append(m.group(1))
    for m in _BUILT.finditer(body):
        if m.group(3) in index and m.group(4) in index:
            flow.built[m.group(1)] = (m.group(2), index[m.group(3)], index[m.group(4)])
    # a slice variable is the copy of its last definition before the partition (a name reused in another block,
    # or for a copy the body builds itself, names that copy from there on: review)
    slices: dict = {}
    for m in _SLICE.finditer(body):
        copy = index.get(m.group(2), m.group(2) if m.group(2) in flow.built else None)
        slices.setdefault(m.group(1), []).append((m.start(), copy))
    for m in _PART.finditer(body):
        copy = _slice_at(slices, m.group(1), m.start())
        close = match_close(body, m.end() - 1, "(", ")")
        if copy is None or close < 0:
            continue
        arg = body[m.end():close - 1].strip()
        at = start + m.start()
        line = s.count("\n", 0, at) + 1
        stmt = text[text.rfind("\n", 0, at) + 1:text.find("\n", at)].split("//")[0].strip()
        side = "src" if m.group(2) == "S" else "dst"
        if arg in tensors:
            flow.accesses.append((copy, side, tensors[arg], line, stmt))
        else:
            flow.others.append((copy, side, arg, line, stmt))
    frags = {m.group(1): m.group(2) for m in _FRAG.finditer(body)}
    for m in _RETILE.finditer(body):
        copy = _slice_at(slices, m.group(1), m.start())
        if isinstance(copy, str) and m.group(2) in frags:
            flow.retiled[copy] = frags[m.group(2)]
    _read_crossed(s, text, start, body, slices, frags, flow)


def _slice_at(slices: dict, name: str, at: int):
    """The copy the slice variable ``name`` is at body offset ``at``: its last definition before it, or None."""
    return next((c for pos, c in reversed(slices.get(name, ())) if pos < at), None)


def _read_crossed(s, text, start, body, slices, frags, flow: Flow) -> None:
    """``flow.crossed`` (module docstring): the source's partition and the destination's retile of one ``copy``
    call made by two different built copies."""
    src, dst = {}, {}
    for m in _DEF.finditer(body):
        var, base, how = m.groups()
        copy = _slice_at(slices, base, m.start())
        if how == "partition_S" and isinstance(copy, str):
            src[var] = copy
        elif how == "retile_D" and isinstance(copy, str):
            tail = body[m.end():body.find(")", m.end())].strip()
            if tail in frags:
                dst[var] = (copy, frags[tail])
        elif how is None and base in src:
            src[var] = src[base]           # an alias: ``Tensor tXsA_p = tXsA(_,_,_,pipe)``
    for m in _COPY.finditer(body):
        close = match_close(body, m.end() - 1, "(", ")")
        args = split_args(body, m.end(), close - 1) if close > 0 else []
        names = [re.match(rf"\s*({_IDENT})", body[a:b]) for a, b in args]
        if len(names) != 3 or not all(names):
            continue
        a, b = src.get(names[1].group(1)), dst.get(names[2].group(1))
        if a is not None and b is not None and a != b[0]:
            at = start + m.start()
            stmt = text[text.rfind("\n", 0, at) + 1:text.find("\n", at)].split("//")[0].strip()
            flow.crossed.append((a, b[1], s.count("\n", 0, at) + 1, stmt))
