"""``trace cpp --collective TYPE``: an SM90 collective mainloop verified from its type members, for kernels whose
layouts and atoms are not launch arguments but type members of a template parameter (issue 29; FlashAttention-3's
``flash::CollectiveMainloopFwdSm90<...>`` in ``hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp``).

FlashAttention-3 launches ``cutlass::device_kernel<AttnKernel>`` with one opaque ``Params`` struct; the smem
layouts, tiled MMAs and copy atoms are the collective's type members (``using SmemLayoutQ = decltype(tile_to_shape(
...))``), its TMA atoms are built on the host in ``static Params to_underlying_arguments(Arguments const& args)``
and the relations between them are written in its member functions (``load``, ``mma``, ...), not in a kernel
body; the launch argument itself is a struct CuTe cannot print. This module instead instantiates the collective
type the user names and prints, as CuTe instantiates them:

* every class-scope ``using NAME = ...`` whose right side builds a CuTe object (``tile_to_shape``,
  ``make_tiled_mma``, ``make_tiled_copy``, ``Copy_Atom<``, ``Layout<``): record ``i`` at the line of the ``using``;
* each TMA atom ``TMA_X tma_load_X = make_tma_copy[_A_sm90|_B_sm90](OP, gmem, smem, tiler, cluster);`` of
  ``to_underlying_arguments``: the statements of that function up to the last such one are run verbatim in a
  struct derived from the collective (its names resolve as in the source) with ``args`` the initializer the user
  gives (``--host-args``: the host's problem sizes; ``make_tma_copy`` asserts on empty extents); the atom is
  printed as its ``Copy_Atom`` and its operands as records ``TMA + 10 i + k`` (:mod:`.cpp_flow_sm90`: gmem
  layout, smem layout, ``cta_v_map`` as CuTe computes it for that helper, ``TmaGmemBasis``);
* the ``if constexpr (COND)`` of a smem tensor chosen by a lambda (``Tensor sVt = [&] { if constexpr
  (!Transpose_V) { return make_tensor(..., SmemLayoutVt{}); } else { ... } }();``): ``bool(COND)``, record
  ``COND + k``, so the branch the configuration takes is known.

:func:`collective_flow` reads the member functions' relations: ``Tensor sQ = make_tensor(make_smem_ptr(...),
SmemLayoutQ{})`` (optionally through ``as_position_independent_swizzle_tensor``), ``TiledMmaQK tiled_mma_qk;``,
``auto wg = tiled_mma_qk.get_slice(...)``, ``wg.partition_fragment_A(sQ)`` (an ``operand`` claim when the MMA reads
that operand through descriptors: an ``_RS`` atom's A is registers, a note), ``auto b = params.tma_load_Q.get_slice
(...)`` and ``b.partition_D(sQ)`` (the TMA atom writes ``sQ``: ``tma_atom`` and ``equal`` of its smem layout with
stage 0), each variable named ``FUNCTION::VAR``. The records then go through :func:`.cpp_emit.emit_launch` as one
launch whose arguments are the members (claims ``at`` ``FILE:LINE: STRUCT argument I `MEMBER```).

Admissibility: the collective is a ``struct`` defined in SOURCE whose members are public; ``--host-args`` is a
braced initializer of its ``Arguments`` (designated initializers, g++ accepts them in C++17 mode); relations
written otherwise are not seen (the members no relation covers are notes or unknowns, as for a launch).
Post-condition: every record is a member, atom or condition as CuTe C++ instantiated it for TYPE, and every
relation listed is written in the struct's member functions between those objects.
"""
from __future__ import annotations

import hashlib
import os
import re
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import CaptureError
from . import cpp_build
from .check import run_documents as check_run_documents
from .cpp_capture import DRIVER, BUILT, LINK_FLAGS, PRELUDE, Record, first_error, include_flags, records
from ...core.layout import Layout, size
from ...core.notation.parse import parse
from ...core.swizzle import ComposedLayout
from ...errors import CuteVerifyError
from .cpp_emit import strip_static, emit_launch
from .cpp_emit_sm90 import flagged_smem_text
from .cpp_flow import Flow
from .cpp_flow_sm90 import TMA, TMA_PARTS, Sm90Flow
from .cpp_launch import strip_comments
from .cpp_text import blank, match_close, split_args
from .document import Doc
from .mlir import Loc

__all__ = ["COND", "Member", "CollectiveFlow", "struct_span", "members", "host_tma", "collective_flow", "probe_unit",
           "capture_collective", "collective_documents", "check_collective"]

#: the record index of a printed ``if constexpr`` condition (``COND + k``)
COND = 5000
_ID = r"[A-Za-z_]\w*"
_CUTE_RHS = re.compile(r"\b(?:tile_to_shape|make_tiled_mma|make_tiled_copy|Copy_Atom\s*<|Layout\s*<)")
_TMA_STMT = re.compile(rf"({_ID})\s+({_ID})\s*=\s*(make_tma_copy(?:_A_sm90|_B_sm90)?)\s*\(")
#: device-only intrinsics that CUTLASS's headers call in templates with non-dependent arguments (``__dp4a``,
#: ``__hfma2`` in ``cutlass/numeric_conversion.h``): g++ diagnoses those at definition unless ``-fpermissive``;
#: nothing calls them on the host
_FLAGS = ["-fpermissive"]
# the CTA tiler each host helper hands make_tma_copy_tiled (cute/atom/copy_traits_sm90_tma.hpp)
_TILER = {"make_tma_copy_A_sm90": "::cute::remove<1>({})", "make_tma_copy_B_sm90": "::cute::remove<0>({})",
          "make_tma_copy": "{}"}


@dataclass(frozen=True)
class Member:
    """A class-scope ``using NAME = RHS;`` of the collective: name, 1-based line, right side's text."""

    name: str
    line: int
    rhs: str


@dataclass
class CollectiveFlow:
    """The relations of the collective's member functions (module docstring): ``smem`` (``FUNC::VAR`` -> member
    name | ``("cond", COND text, then member, else member)``), ``aliases`` (``FUNC::VAR`` -> ``FUNC::VAR``),
    ``operands`` (mma member, ``A``/``B``, ``FUNC::VAR``, line, statement), ``tma`` (atom variable of
    ``to_underlying_arguments``, ``FUNC::VAR``, line, statement); ``built`` (``FUNC::VAR`` -> (letter, copy atom
    member, mma member): ``auto c = make_tiled_copy_C(SmemCopyAtomP{}, tiled_mma_qk)``) and ``accesses`` (``FUNC::VAR``
    of a built copy, ``src``/``dst``, ``FUNC::VAR`` of the smem tensor, line, statement); ``buffers``
    (``FUNC::VAR`` -> the storage member its pointer is, ``smem_v`` of ``make_smem_ptr(s.tensors.mainloop.smem_v.data())``)."""

    smem: dict = field(default_factory=dict)
    aliases: dict = field(default_factory=dict)
    operands: list = field(default_factory=list)
    tma: list = field(default_factory=list)
    conds: list = field(default_factory=list)
    built: dict = field(default_factory=dict)
    accesses: list = field(default_factory=list)
    buffers: dict = field(default_factory=dict)
    line: int = 0  # the line of ``struct NAME``


def struct_span(text: str, name: str) -> tuple:
    """``(start, end)``: the offsets of the body of ``struct NAME`` in ``text``, braces included.

    Admissibility: one definition ``struct NAME [: bases] {`` (the first is taken), read with comments and literals
    blanked; none, or a body that does not close, is a CaptureError. Post-condition: ``text[start] == "{"`` and
    ``text[end - 1] == "}"`` close each other."""
    s = blank(text)
    m = re.search(rf"\bstruct\s+{re.escape(name)}\s*(?::[^{{;]*)?\{{", s)
    if m is None:
        raise CaptureError(f"no `struct {name} {{` in the source: --collective names a struct defined in it")
    end = match_close(s, m.end() - 1, "{", "}")
    if end < 0:
        raise CaptureError(f"the body of struct {name} does not close")
    return m.end() - 1, end


def _depth0(s: str, start: int, end: int):
    """The spans of ``s[start+1:end-1]`` at brace depth 0 of the body (class scope), as ``(a, b)`` pairs."""
    spans, depth, a = [], 0, start + 1
    for i in range(start + 1, end - 1):
        c = s[i]
        if c == "{":
            if depth == 0:
                spans.append((a, i))
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                a = i + 1
    spans.append((a, end - 1))
    return spans


def members(text: str, name: str) -> list:
    """The class-scope ``using NAME = RHS;`` members of struct ``name`` whose right side builds a CuTe object
    (``tile_to_shape``, ``make_tiled_mma``, ``make_tiled_copy``, ``Copy_Atom<``, ``Layout<``), in source order.

    Admissibility: as :func:`struct_span`; members of nested structs are not class scope and not listed.
    Post-condition: each :class:`Member` is written at its line of the source, with its right side's text."""
    s = blank(text)
    start, end = struct_span(text, name)
    out = []
    for a, b in _depth0(s, start, end):
        for m in re.finditer(rf"\busing\s+({_ID})\s*=", s[a:b]):
            semi = s.find(";", a + m.end())
            rhs = " ".join(s[a + m.end():semi].split())
            if _CUTE_RHS.search(rhs):
                out.append(Member(m.group(1), s.count("\n", 0, a + m.start()) + 1, rhs))
    return out


def _functions(s: str, start: int, end: int) -> list:
    """``[(name, body start, body end)]``: the member function definitions at class scope."""
    out, depth, i = [], 0, start + 1
    while i < end - 1:
        c = s[i]
        if c == "{" and depth == 0:
            j = i - 1
            while j > start and (s[j].isspace() or s[j - 4:j + 1] == "const"):
                j = j - 5 if s[j - 4:j + 1] == "const" else j - 1
            close = match_close(s, i, "{", "}")
            if s[j] == ")":
                k, d = j, 0
                while k > start:
                    d += {")": 1, "(": -1}.get(s[k], 0)
                    if d == 0:
                        break
                    k -= 1
                m = re.search(rf"({_ID})\s*$", s[start:k])
                if m:
                    out.append((m.group(1), i, close))
            i = close
            continue
        i += 1
    return out


def _line(s: str, at: int) -> int:
    return s.count("\n", 0, at) + 1


def _stmt(text: str, s: str, a: int, b: int) -> str:
    return " ".join(strip_comments(text[a:b], s[a:b]).split())


def host_tma(text: str, name: str) -> tuple:
    """``(param, prefix, atoms)`` of the collective's ``to_underlying_arguments``: its parameter's name, the text
    of its body up to the end of the last TMA statement (comments dropped), and ``[(var, helper, args, line,
    stmt)]`` for each ``TYPE var = make_tma_copy[_A_sm90|_B_sm90](args...);``.

    Admissibility: a member function of that name with one parameter; None when it is absent or builds no atom
    that way (an atom returned from a lambda is not listed). Post-condition: the prefix, run in a scope where the
    parameter and the struct's names resolve, defines every listed ``var``."""
    s = blank(text)
    start, end = struct_span(text, name)
    for fname, a, b in _functions(s, start, end):
        if fname != "to_underlying_arguments":
            continue
        sig = re.search(rf"to_underlying_arguments\s*\(\s*[^()]*?\b({_ID})\s*\)\s*$", s[start:a])
        atoms, last = [], None
        for m in _TMA_STMT.finditer(s, a, b):
            close = match_close(s, m.end() - 1, "(", ")")
            semi = s.find(";", close)
            plain = strip_comments(text[m.end():close - 1], s[m.end():close - 1])
            args = [" ".join(plain[x - m.end():y - m.end()].split()) for x, y in split_args(s, m.end(), close - 1)]
            atoms.append((m.group(2), m.group(3), args, _line(s, m.start()), _stmt(text, s, m.start(), semi + 1)))
            last = semi + 1
        if sig is None or last is None:
            return None
        return sig.group(1), strip_comments(text[a + 1:last], s[a + 1:last]), atoms
    return None


_SLICE = re.compile(rf"\bauto\s+({_ID})\s*=\s*(?:params\s*\.\s*)?({_ID})\s*\.\s*get_(?:thread_)?slice\s*\(")
_PART = re.compile(rf"\b({_ID})\s*\.\s*(partition_fragment_A|partition_fragment_B|partition_S|partition_D)\s*\(\s*"
                   rf"(?:(?:cute::)?as_position_independent_swizzle_tensor\s*\(\s*)?({_ID})\s*\)")
_BUILT = re.compile(rf"\bauto\s+({_ID})\s*=\s*(?:cute::)?make_tiled_copy_(A|B|C)\s*\(\s*({_ID})\s*\{{\s*\}}\s*,\s*({_ID})\s*\)")
_ALIAS = re.compile(rf"\bTensor\s+({_ID})\s*=\s*(?:cute::)?as_position_independent_swizzle_tensor\s*\(\s*({_ID})\s*\)")
_TENSOR = re.compile(rf"\bTensor\s+({_ID})\s*=")
_IFC = re.compile(r"if\s+constexpr\s*\(")


def _one(part: str, pattern: str, keep) -> str | None:
    found = {m.group(1) for m in re.finditer(pattern, part) if keep(m.group(1))}
    return found.pop() if len(found) == 1 else None


def _smem_tensor(s: str, a: int, semi: int, layouts: set):
    """``(layout, buffer)`` of a ``Tensor X = ...;`` statement that lays smem out: the layout member and the
    storage member (``smem_v`` of ``...smem_v.data()``), each a name or, for a lambda choosing by ``if constexpr
    (COND) {...} else {...}`` with different ones, ``("cond", COND, then, else)``; or None."""
    body = s[a:semi]
    if "make_smem_ptr" not in body:
        return None
    lay_re, buf_re = rf"\b({_ID})\s*\{{\s*\}}", rf"\.\s*({_ID})\s*\.\s*data\s*\(\s*\)"
    m = _IFC.search(body)
    if m is None:
        lay = _one(body, lay_re, layouts.__contains__)
        return None if lay is None else (lay, _one(body, buf_re, lambda x: True))
    close = match_close(body, m.end() - 1, "(", ")")
    cond = " ".join(body[m.end():close - 1].split())
    e = re.search(r"\belse\b", body[close:])
    if e is None:
        return None
    parts = (body[close:close + e.start()], body[close + e.end():])
    out = []
    for pattern, keep in ((lay_re, layouts.__contains__), (buf_re, lambda x: True)):
        then, other = (_one(p, pattern, keep) for p in parts)
        out.append(then if then == other else ("cond", cond, then, other))
    return None if out[0] is None else tuple(out)


def collective_flow(text: str, name: str, mems: list) -> CollectiveFlow:
    """The relations the member functions of struct ``name`` write between its members ``mems`` (module
    docstring), each variable named ``FUNCTION::VAR``.

    Admissibility: the idioms of the module docstring, matched on the source with comments blanked, one member
    function at a time (a variable is local to its function); an ``if constexpr`` condition is listed in
    ``conds`` (for the probe to print) only when every name in it is a ``static constexpr`` member.
    Post-condition: every relation listed is a statement of that function between those objects."""
    s = blank(text)
    start, end = struct_span(text, name)
    kinds = {m.name: m.rhs for m in mems}
    layouts = {n for n, rhs in kinds.items() if "make_tiled" not in rhs and "Copy_Atom" not in rhs}
    mmas = {n for n, rhs in kinds.items() if "make_tiled_mma" in rhs}
    statics = {m.group(1) for x, y in _depth0(s, start, end)
               for m in re.finditer(rf"\bstatic\s+constexpr\s+[\w:<>, ]+?\s({_ID})\s*=", s[x:y])}
    f = CollectiveFlow(line=_line(s, start))
    for fname, a, b in _functions(s, start, end):
        q = f"{fname}::"
        for m in _TENSOR.finditer(s, a, b):
            semi = m.end()
            depth = 0
            while semi < b and not (s[semi] == ";" and depth == 0):
                depth += {"(": 1, "{": 1, "[": 1, ")": -1, "}": -1, "]": -1}.get(s[semi], 0)
                semi += 1
            found = _smem_tensor(s, m.end(), semi, layouts)
            if found is not None:
                f.smem[q + m.group(1)], f.buffers[q + m.group(1)] = found
                for x in found:  # a condition the probe can print: static members of the struct only
                    if isinstance(x, tuple) and x[1] not in f.conds and \
                            set(re.findall(_ID, x[1])) <= statics:
                        f.conds.append(x[1])
        for m in _ALIAS.finditer(s, a, b):
            f.aliases[q + m.group(1)] = q + m.group(2)
        objs = {m.group(2): m.group(1) for m in re.finditer(rf"\b({'|'.join(mmas) or '$^'})\s+({_ID})\s*;", s[a:b])}
        slices = {m.group(1): m.group(2) for m in _SLICE.finditer(s, a, b)}
        for m in _BUILT.finditer(s, a, b):
            if m.group(4) in objs and "Copy_Atom" in kinds.get(m.group(3), ""):
                f.built[q + m.group(1)] = (m.group(2), m.group(3), objs[m.group(4)])
        for m in _PART.finditer(s, a, b):
            sl, what, var = m.groups()
            src = slices.get(sl)
            ls = s.rfind(";", a, m.start()) + 1  # the statement: from the previous `;` to the next one
            stmt = _stmt(text, s, ls, s.find(";", m.end()) + 1)
            if what == "partition_D" and src is not None and src.startswith("tma_"):
                f.tma.append((src, q + var, _line(s, m.start()), stmt))
            elif what in ("partition_S", "partition_D") and q + str(src) in f.built:
                f.accesses.append((q + src, "src" if what == "partition_S" else "dst", q + var,
                                   _line(s, m.start()), stmt))
            elif what.startswith("partition_fragment") and src in objs:
                f.operands.append((objs[src], what[-1], q + var, _line(s, m.start()), stmt))
    return f


def _cstr(t: str) -> str:
    return '"' + t.replace("\\", "\\\\").replace('"', '\\"') + '"'


def probe_unit(path: str, text: str, collective: str, host_args: str | None, include_first=()) -> tuple:
    """``(unit, mems, atoms, flow)``: the host translation unit that prints the members of ``collective`` (a
    type defined in ``path``, whose text is ``text``), its printable ``if constexpr`` conditions, CuTe's own
    ``make_tiled_copy_X`` of each built copy and, with ``host_args``, the TMA atoms ``to_underlying_arguments``
    builds and their operands (module docstring); ``include_first``: headers included before ``path``.

    Admissibility: as :func:`members` / :func:`host_tma`; the unit still needs CuTe's ``print`` for each member (a
    member without one prints ``<not printable>``). Post-condition: the unit's run prints one record per member
    (index = position in ``mems``), atom (after them), operand (``TMA + 10 i + k``), condition (``COND + k``)
    and built copy (``BUILT + k``)."""
    name = re.sub(r"\s*<.*$", "", collective, flags=re.S).split("::")[-1].strip()
    mems = members(text, name)
    flow = collective_flow(text, name, mems)
    at = lambda line: _cstr(f"{path}:{line}")  # noqa: E731
    kn = _cstr(name)
    calls = [f"::cuteverify_capture::one({at(m.line)}, {i}, {kn}, {_cstr(m.name)}, {m.name}{{}});"
             for i, m in enumerate(mems)]
    sline = _line(blank(text), struct_span(text, name)[0])
    for k, cond in enumerate(flow.conds):
        calls.append(f"::cuteverify_capture::one({at(sline)}, {COND + k}, {kn}, {_cstr(cond)}, int(bool({cond})));")
    for k, (var, (letter, atom, mma)) in enumerate(sorted(flow.built.items())):
        calls.append(f"::cuteverify_capture::one({at(sline)}, {BUILT + k}, {kn}, {_cstr(var)}, "
                     f"::cute::make_tiled_copy_{letter}({atom}{{}}, {mma}{{}}));")
    atoms, prefix = [], ""
    host = host_tma(text, name) if host_args else None
    wanted = {a for a, _, _, _ in flow.tma}
    if host is not None:
        param, prefix, found = host
        prefix = f"Arguments const {param}{host_args};\n" + prefix
        for var, helper, args, line, stmt in found:
            if var not in wanted or len(args) < 4:
                continue
            i = len(mems) + len(atoms)
            atoms.append((var, helper, args, line, stmt, i))
            calls.append(f"::cuteverify_capture::one({at(line)}, {i}, {kn}, {_cstr(var)}, cv_atom_of({var}));")
            g, sl, tiler = args[1], args[2], _TILER[helper].format(args[3])
            for k, expr in enumerate((f"::cute::layout({g})", sl,
                                      f"::cute::make_identity_layout(::cute::shape({g})).compose({tiler})",
                                      f"typename ::std::decay_t<decltype(cv_atom_of({var}))>::AuxParams::TmaGmemBasis{{}}")):
                src = (g, sl, tiler, "TmaGmemBasis")[k]
                calls.append(f"::cuteverify_capture::one({at(line)}, {TMA + 10 * i + k}, {kn}, "
                             f"{_cstr(f'{var} {TMA_PARTS[k]}: {src}')}, {expr});")
    # the source's own text is in the unit's cache key (cpp_build keys headers by their version files only)
    heads = f"// source sha256 {hashlib.sha256(text.encode()).hexdigest()}\n"
    heads += "".join(f'#include "{h}"\n' for h in include_first)
    # the probe lives in the collective's namespace: names resolve there as in the source (its using-directives)
    ns = re.sub(r"\s*<.*$", "", collective, flags=re.S).strip().split("::")[:-1]
    open_ns, close_ns = "".join(f"namespace {n} {{ " for n in ns if n), "}" * len([n for n in ns if n])
    unit = (PRELUDE + heads + f'#include "{os.path.abspath(path)}"\n'
            "template <class A, class L, class T> A const& cv_atom_of(::cute::TiledCopy<A, L, T> const& t) { return t; }\n"
            f"{open_ns}struct cv_collective_probe : {collective} {{\n  static void run() {{\n{prefix}\n"
            + "\n".join("    " + c for c in calls) + f"\n  }}\n}}; {close_ns}\n"
            f"using cv_collective_probe_t = {'::'.join(ns + ['cv_collective_probe'])};\n")
    return unit, mems, atoms, flow


def capture_collective(path, collective, host_args=None, includes=(), defines=(), include_first=(),
                       timeout=900, run_timeout=120) -> tuple:
    """Build and run the probe of ``collective`` (a type defined in ``path``): ``(records, info, mems, atoms,
    flow)``; ``info`` as :func:`.cpp_capture.capture` gives it (one entry: the collective).

    Admissibility: as :func:`probe_unit`; the build goes through :func:`.cpp_build.compile_cpp` (cached by
    content; the source's hash is in the unit). A failed build is a CaptureError quoting the first compiler error.
    Post-condition: the records are those the probe printed, in order, each with ``entry`` = ``collective``."""
    text = Path(path).read_text()
    unit, mems, atoms, flow = probe_unit(str(path), text, collective, host_args, include_first)
    unit += DRIVER.replace("@CASES@", "  case 0: cv_collective_probe_t::run(); break;")
    flags = [*cpp_build.CXXFLAGS, *LINK_FLAGS, *_FLAGS]
    work = tempfile.mkdtemp(prefix="cv_trace_collective_")
    t0 = time.perf_counter()
    c = cpp_build.compile_cpp(unit, os.path.join(work, "unit.cpp"), os.path.join(work, "unit"), flags=flags,
                              includes=include_flags(str(path), includes, defines), timeout=timeout)
    info = {"compile_s": time.perf_counter() - t0, "cached": c.cached, "entries": {}}
    if c.returncode != 0:
        raise CaptureError(first_error(c.stderr, str(path)))
    p = subprocess.run([c.out, "0"], capture_output=True, text=True, timeout=run_timeout, check=False)
    recs = [Record(**{**r.__dict__, "entry": collective}) for r in records(p.stdout)]
    info["entries"][collective] = {"returncode": p.returncode, "records": len(recs),
                                   "stderr": p.stderr.strip().splitlines()[-1][-300:] if p.stderr.strip() else ""}
    return recs, info, mems, atoms, flow


def collective_documents(path: str, text: str, records_, collective: str, mems=None, flow=None) -> list:
    """``[Doc]``: one document for the collective's records (members, TMA atoms, conditions) with its member
    functions' relations, mapped as :func:`.cpp_emit.emit_launch` maps a launch whose arguments are the members,
    plus the notes of an ``_RS`` MMA's register operand and the one-layout claims of :func:`_aliasing`.

    Admissibility: ``mems`` / ``flow`` read from ``text`` when not given (the committed fixtures give them, so
    ``text`` may be empty). Post-condition: every member record is in a claim's ``at``, a note or an unknown."""
    name = re.sub(r"\s*<.*$", "", collective, flags=re.S).split("::")[-1].strip()
    mems = members(text, name) if mems is None else mems
    flow = collective_flow(text, name, mems) if flow is None else flow
    by_name = {r.source: r.index for r in records_ if r.index < COND}
    conds = {r.source: r.text.strip() == "1" for r in records_ if COND <= r.index < COND + 1000}
    sline = flow.line
    doc = Doc(name, path, {"function": collective})
    smem, flow_smem, notes = {}, {}, []
    buffers = {}
    for var, lay in flow.smem.items():
        buf = flow.buffers.get(var)
        if isinstance(lay, tuple):
            if lay[1] not in conds:
                notes.append((var, f"its layout is chosen by `if constexpr ({lay[1]})`, which the probe does not "
                                   "print (not a static member of the struct)", sline))
                continue
            lay = lay[2 if conds[lay[1]] else 3]
        if isinstance(buf, tuple):  # an unknown buffer relates the tensor to no other
            buf = buf[2 if conds[buf[1]] else 3] if buf[1] in conds else None
        buffers[var] = buf
        if lay in by_name:
            smem[var] = ("arg", by_name[lay])
            flow_smem.setdefault(by_name[lay], []).append(var)
    for var, base in flow.aliases.items():
        if base in smem:
            smem[var] = smem[base]
    types = {r.index: r.type for r in records_}
    operands, rs = [], []
    for mma, op, var, line, stmt in flow.operands:
        i = by_name.get(mma)
        if i is None or var not in smem:
            continue
        if op == "A" and re.search(r"_RS(?:_[A-Z]+)?<", types.get(i, "")):  # an RS atom: A from registers
            rs.append((i, var, line, stmt))
            continue
        operands.append((i, op, var, line, stmt))
    tma = [(by_name[a], var, line, stmt) for a, var, line, stmt in flow.tma if a in by_name and var in smem]
    for a, var, line, stmt in flow.tma:
        if a not in by_name:
            notes.append((f"{a} partitions {var} ({path}:{line}: {stmt})", "the atom was not printed: no --host-args, "
                          "or to_underlying_arguments does not build it as `TYPE var = make_tma_copy...(...);` "
                          "(returned from a lambda, say)", line))
    sm90 = Sm90Flow(smem=smem, operands=operands, tma=tma)
    built = {var: (letter, by_name[atom], by_name[mma]) for var, (letter, atom, mma) in flow.built.items()
             if atom in by_name and mma in by_name}
    accesses = [(c, side, smem[var][1], line, stmt) for c, side, var, line, stmt in flow.accesses
                if c in built and var in smem]
    kflow = Flow(kernel=name, line=sline, smem=flow_smem, built=built, accesses=accesses)
    emit_launch(doc, [r for r in records_ if r.index < COND], kflow, path, sm90)
    _aliasing(doc, path, name, records_, buffers, smem, operands, tma)
    for i, var, line, stmt in rs:
        r = next(x for x in records_ if x.index == i)
        doc.note(stmt, Loc(path, int(r.at.rsplit(":", 1)[1]), None, f"{name} argument {i} `{r.source}`"),
                 f"{path}:{line}: {r.source}'s A operand is registers (an _RS atom): partition_fragment_A({var}) "
                 "makes a register fragment, no descriptor reads the smem")
    for var, why, line in notes:
        doc.unknown(var, Loc(path, line), why)
    return [doc]


def _matched(ref: str, other: str) -> str | None:
    """``other`` (an element-domain smem layout text) with its top-level modes reordered so that their sizes are
    ``ref``'s, when the sizes determine the order (all distinct); ``other`` itself when the two texts are equal;
    else None. Two views of one buffer may name its modes in either order (FlashAttention-3's ``SmemLayoutVt``
    ``(d, n, stage)`` and ``SmemLayoutVMmaQV`` ``(n, d, stage)``): which mode of one is which of the other is
    known only from distinct sizes."""
    if ref == other:
        return other
    a, b = parse(ref, source="smem layout"), parse(other, source="smem layout")
    oa, ob = (x.outer if isinstance(x, ComposedLayout) else x for x in (a, b))
    if not isinstance(oa.shape, tuple) or not isinstance(ob.shape, tuple) or len(oa.shape) != len(ob.shape):
        return None
    sa = [size(Layout(m, d)) for m, d in zip(oa.shape, oa.stride)]
    sb = [size(Layout(m, d)) for m, d in zip(ob.shape, ob.stride)]
    if sorted(sa) != sorted(sb) or len(set(sa)) != len(sa):
        return None
    order = [sb.index(n) for n in sa]
    lay = Layout(tuple(ob.shape[j] for j in order), tuple(ob.stride[j] for j in order))
    return str(ComposedLayout(b.inner, b.offset, lay) if isinstance(b, ComposedLayout) else lay)


def _aliasing(doc, path, name, records_, buffers, smem, operands, tma) -> None:
    """``equal`` of the layout a TMA atom writes a storage member through and the layout an MMA reads the same
    member through, when the member functions name two different layout members for them (FlashAttention-3's
    ``smem_v``: ``SmemLayoutVt`` in ``load``, ``SmemLayoutVtMma`` in ``mma``): the MMA reads element (i, j)
    where the TMA wrote it only if the two are one function. At the reader's layout member (where the data
    arrives wrong)."""
    by = {r.index: r for r in records_}
    for atom_i, tvar, tline, tstmt in tma:
        for mma_i, op, mvar, mline, mstmt in operands:
            buf = buffers.get(tvar)
            ti, mi = smem[tvar][1], smem[mvar][1]
            if buf is None or buf != buffers.get(mvar) or ti == mi:
                continue
            rt, rm = by[ti], by[mi]
            try:
                texts = [flagged_smem_text(r.text, r.type) if "smem_ptr[" in r.text else strip_static(r.text)
                         for r in (rt, rm)]
            except CuteVerifyError as e:
                doc.unknown(f"{tvar} and {mvar}", Loc(path, int(rt.at.rsplit(":", 1)[1])), str(e))
                continue
            loc = Loc(path, int(rm.at.rsplit(":", 1)[1]), None, f"{name} argument {mi} `{rm.source}`")
            texts[1] = _matched(*texts)
            if texts[1] is None:
                doc.unknown(f"{tvar} and {mvar} over {buf}", loc, f"{rt.source} and {rm.source} view {buf}, but "
                            "their mode sizes do not say which mode of one is which of the other")
                continue
            doc.claim({"equal": texts}, loc, name=f"{by[atom_i].source} writes {buf} through {rt.source} "
                      f"({path}:{tline}: {tstmt}) and {by[mma_i].source} reads its {op} from {buf} through "
                      f"{rm.source} ({path}:{mline}: {mstmt}): one layout")


def check_collective(path, collective, host_args=None, includes=(), defines=(), include_first=(), jobs=1,
                     progress=None) -> tuple:
    """Capture the collective, build its document, run its claims: ``(results, claims, docs, info)`` as
    :func:`.cpp_check.check_cpp` returns them.

    Admissibility: as :func:`capture_collective`. Post-condition: one result row per claim, note and unknown of
    the document, checked by the manifest checker."""
    recs, info, mems, atoms, flow = capture_collective(path, collective, host_args, includes, defines,
                                                       include_first)
    docs = collective_documents(str(path), Path(path).read_text(), recs, collective, mems, flow)
    results, claims = check_run_documents([(d.source, d) for d in docs], jobs, progress)
    return results, claims, docs, info
