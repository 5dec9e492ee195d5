"""Differential harness: CuTe C++ (header-only, host g++) as the oracle for cuteverify's layout algebra.

Pipeline
--------
1. ``generate(op, n, seed)`` draws cases (seeded, random + structured) for one operation family.
   A case is ``{"id", "op", "kind", "args": [text, ...]}``; every argument is text in cuteverify
   notation (a layout ``(4,8):(1,4)``, a swizzled layout ``S<3,4,3> o 0 o (8,8):(8,1)``, a coordinate
   stride ``(4,2):(1@0,1@1)``, a tiler ``<2:1,3:2>`` / ``<4,2>``, an integer cotarget ``64``, a slice
   coordinate ``(_,(1,_))``).  The generator keeps a structural spec beside the text so the same
   argument can be rendered as a C++ expression with static ``Int<>`` everywhere.
2. ``run_cases(cases)`` writes one translation unit per batch (a function per case), compiles it ONCE
   with g++ -O0 against a precompiled header of CuTe, runs it and parses what CuTe C++ prints:
   ``print(result)``, ``size(result)`` and ``result(i)`` for ``i < min(size, VALUE_CAP)`` -- that
   last list is the independent evaluator.  A case whose instantiation fails (static_assert, no
   overload, ...) is attributed from g++'s diagnostics to its function, recorded as a C++ reject
   with its error class, removed, and the rest is recompiled; a case that crashes at run time is
   recorded the same way and the binary is restarted after it.
3. ``check(record)`` evaluates the case with ``import cuteverify as cv`` (public API only) and
   classifies it: match / functional_mismatch / printed_only / cv_refuses / cv_refuses_other /
   cv_crash / parse_mismatch / cpp_rejects.

Only the public API of cuteverify is used; the library is imported lazily so a module move inside
the package never breaks importing this file.
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import tempfile
import time
import threading
from concurrent.futures import ThreadPoolExecutor

from cuteverify.frontend.trace import cpp_build

VALUE_CAP = 4096          # values CuTe C++ prints (and the corpus stores) per case
OPS = ["coalesce", "composition", "complement", "logical_divide", "zipped_divide", "logical_product",
       "blocked_product", "raked_product", "right_inverse", "left_inverse", "max_common_vector",
       "filter", "slice"]

# Outcome classes.  FAILING ones make the pytest fail unless the case id is in known_failures.json.
MATCH, PRINTED_ONLY, FUNC_MISMATCH = "match", "printed_only", "functional_mismatch"
CV_REFUSES, CV_REFUSES_OTHER, CV_CRASH = "cv_refuses", "cv_refuses_other", "cv_crash"
PARSE_MISMATCH, CPP_REJECTS = "parse_mismatch", "cpp_rejects"
# The answers disagree and C++'s answer fails the operation's defining property (checked on the input with
# cuteverify's evaluator, itself cross-checked against C++'s printed values) while cuteverify's passes it.
CPP_WRONG = "cpp_wrong"
CLASSES = [MATCH, FUNC_MISMATCH, PRINTED_ONLY, CV_REFUSES, CV_REFUSES_OTHER, CV_CRASH, PARSE_MISMATCH,
           CPP_REJECTS, CPP_WRONG]
FAILING = {FUNC_MISMATCH, CV_REFUSES_OTHER, CV_CRASH, PARSE_MISMATCH}

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS_DIR = os.path.join(HERE, "corpus")
KNOWN_PATH = os.path.join(HERE, "known_failures.json")


# ----------------------------------------------------------------------------------------------
# Structural specs and their two renderings
# ----------------------------------------------------------------------------------------------
# shape  : int | tuple(shape, ...)
# stride : congruent; leaf = int | ("E", scale, idx)       (scale * E<idx>)
# layout spec  : ("L", shape, stride)
# swizzled     : ("SW", B, M, S, offset, ("L", shape, stride))
# tiler        : ("T", [item, ...])  item = int (shape n:1) | layout spec
# integer      : ("I", n)      slice coordinate: ("C", crd) with None for '_'

def _leaves(t):
    if isinstance(t, tuple) and (not t or t[0] != "E"):
        out = []
        for x in t:
            out.extend(_leaves(x))
        return out
    return [t]


def _rebuild(shape, it):
    if isinstance(shape, tuple):
        return tuple(_rebuild(s, it) for s in shape)
    return next(it)


def _prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def _txt_tree(t, leaf):
    if isinstance(t, tuple) and (not t or t[0] != "E"):
        return "(" + ",".join(_txt_tree(x, leaf) for x in t) + ")"
    return leaf(t)


def _txt_stride_leaf(d):
    if isinstance(d, tuple):
        return f"{d[1]}@{d[2]}"
    return str(d)


def _cpp_int(n):
    return f"Int<{n}>{{}}"


def _cpp_stride_leaf(d):
    if isinstance(d, tuple):
        return f"(Int<{d[1]}>{{}}*E<{d[2]}>{{}})"
    return _cpp_int(d)


def _cpp_tree(t, leaf, maker):
    if isinstance(t, tuple) and (not t or t[0] != "E"):
        return f"{maker}(" + ",".join(_cpp_tree(x, leaf, maker) for x in t) + ")"
    return leaf(t)


def text_of(spec):
    k = spec[0]
    if k == "L":
        return _txt_tree(spec[1], str) + ":" + _txt_tree(spec[2], _txt_stride_leaf)
    if k == "SW":
        _, b, m, s, off, inner = spec
        return f"S<{b},{m},{s}> o {off} o {text_of(inner)}"
    if k == "T":
        return "<" + ",".join(str(x) if isinstance(x, int) else text_of(x) for x in spec[1]) + ">"
    if k == "I":
        return str(spec[1])
    if k == "C":
        return _txt_tree(spec[1], lambda c: "_" if c is None else str(c))
    raise ValueError(spec)


def cpp_of(spec):
    k = spec[0]
    if k == "L":
        return (f"make_layout({_cpp_tree(spec[1], _cpp_int, 'make_shape')}, "
                f"{_cpp_tree(spec[2], _cpp_stride_leaf, 'make_stride')})")
    if k == "SW":
        _, b, m, s, off, inner = spec
        return f"composition(Swizzle<{b},{m},{s}>{{}}, {_cpp_int(off)}, {cpp_of(inner)})"
    if k == "T":
        return "make_tile(" + ",".join(_cpp_int(x) if isinstance(x, int) else cpp_of(x) for x in spec[1]) + ")"
    if k == "I":
        return _cpp_int(spec[1])
    if k == "C":
        return _cpp_tree(spec[1], lambda c: "_" if c is None else _cpp_int(c), "make_coord")
    raise ValueError(spec)


CPP_CALL = {
    "coalesce": "coalesce(a0)", "composition": "composition(a0, a1)", "complement": "complement(a0, a1)",
    "logical_divide": "logical_divide(a0, a1)", "zipped_divide": "zipped_divide(a0, a1)",
    "logical_product": "logical_product(a0, a1)", "blocked_product": "blocked_product(a0, a1)",
    "raked_product": "raked_product(a0, a1)", "right_inverse": "right_inverse(a0)",
    "left_inverse": "left_inverse(a0)", "max_common_vector": "max_common_vector(a0, a1)",
    "filter": "filter(a0)", "slice": "a0(a1)",
}


# ----------------------------------------------------------------------------------------------
# Generators
# ----------------------------------------------------------------------------------------------
SHAPE_POOL = (1, 2, 2, 2, 3, 4, 4, 4, 5, 6, 8, 8, 16)
POW2_POOL = (1, 2, 2, 4, 4, 8, 16)
KINDS = ("pos", "neg", "zero", "E", "swz")


def rand_shape(rng, max_size=256, pool=SHAPE_POOL, max_rank=3, depth=2):
    for _ in range(100):
        if rng.random() < 0.2:
            sh = rng.choice(pool)
        else:
            r = rng.choices(range(1, max_rank + 1), weights=(1, 4, 3)[:max_rank])[0]
            modes = []
            for _m in range(r):
                if depth > 1 and rng.random() < 0.3:
                    ln = rng.choices((1, 2, 3), weights=(1, 8, 2))[0]
                    modes.append(tuple(rng.choice(pool) for _ in range(ln)))
                else:
                    modes.append(rng.choice(pool))
            sh = tuple(modes)
        if _prod(_leaves(sh)) <= max_size:
            return sh
    return 4


def compact_strides(rng, shape, gaps=True, order=None):
    """Strides of a compact layout over the leaves in a random (or given) order, with optional gaps."""
    lv = _leaves(shape)
    idx = list(range(len(lv)))
    if order == "col":
        pass
    elif order == "row":
        idx.reverse()
    else:
        if rng.random() < 0.5:
            rng.shuffle(idx)
        elif rng.random() < 0.5:
            idx.reverse()
    strides = [0] * len(lv)
    cur = rng.choice((1, 1, 1, 2, 4)) if gaps else 1
    for i in idx:
        strides[i] = cur
        cur *= lv[i]
        if gaps and rng.random() < 0.2:
            cur *= rng.choice((2, 3, 4))
    return strides


def rand_layout(rng, kind="pos", max_size=256, pool=SHAPE_POOL, shape=None, compact_p=0.6):
    sh = shape if shape is not None else rand_shape(rng, max_size, pool)
    lv = _leaves(sh)
    if kind == "E":
        nidx = rng.choice((1, 2, 2, 3))
        st = []
        for i, s in enumerate(lv):
            st.append(("E", rng.choice((1, 1, 1, 2, 3, 4)), rng.randrange(nidx) if rng.random() < 0.6
                       else min(i, nidx - 1)))
        return ("L", sh, _rebuild(sh, iter(st)))
    if rng.random() < compact_p:
        st = compact_strides(rng, sh)
    else:
        st = [rng.choice((1, 1, 2, 3, 4, 8, 16, 32)) for _ in lv]
    if kind == "neg":
        k = rng.randint(1, len(st))
        for i in rng.sample(range(len(st)), k):
            st[i] = -st[i]
    elif kind == "zero":
        k = rng.randint(1, len(st))
        for i in rng.sample(range(len(st)), k):
            st[i] = 0
    elif kind == "swz":
        inner = ("L", sh, _rebuild(sh, iter(st)))
        return rand_swizzle(rng, inner)
    return ("L", sh, _rebuild(sh, iter(st)))


def rand_swizzle(rng, inner):
    b = rng.choice((1, 1, 2, 2, 3))
    m = rng.choice((0, 1, 2, 3, 4))
    s = rng.choice(tuple(range(b, 5)) + ((-b,) if rng.random() < 0.1 else ()))
    off = 0 if rng.random() < 0.8 else rng.choice((1, 2, 4, 8, 16))
    return ("SW", b, m, s, off, inner)


def rand_kind(rng, kinds=KINDS, weights=(4, 1, 1, 1, 2)):
    return rng.choices(kinds, weights=weights[:len(kinds)])[0]


def _divisor_layout(rng, n, kind="pos", max_rank=2):
    """A layout whose size divides ``n``-ish and whose strides stay in ``[0, n)``: composition-friendly."""
    sh = []
    rem = n
    for _ in range(rng.randint(1, max_rank)):
        divs = [d for d in range(1, rem + 1) if rem % d == 0 and d <= 16]
        d = rng.choice(divs)
        sh.append(d)
        rem //= d
    shape = sh[0] if len(sh) == 1 and rng.random() < 0.5 else tuple(sh)
    lv = _leaves(shape)
    if rng.random() < 0.6:
        st = compact_strides(rng, shape, gaps=rng.random() < 0.5)
    else:
        st = [rng.choice((0, 1, 2, 4, 8)) for _ in lv]
    if kind == "neg" and rng.random() < 0.5:
        st[rng.randrange(len(st))] *= -1
    return ("L", shape, _rebuild(shape, iter(st)))


def _size(spec):
    if spec[0] == "L":
        return _prod(_leaves(spec[1]))
    return _size(spec[5])


def _shape(spec):
    return spec[1] if spec[0] == "L" else spec[5][1]


def _rand_rhs(rng, a, allow_tiler=True):
    n = _size(a)
    sh = _shape(a)
    r = rng.random()
    if allow_tiler and isinstance(sh, tuple) and len(sh) >= 2 and r < 0.35:
        items = []
        for m in sh[:rng.randint(1, len(sh))]:
            mn = _prod(_leaves(m)) if isinstance(m, tuple) else m
            if rng.random() < 0.4:
                items.append(rng.choice([d for d in range(1, mn + 1) if mn % d == 0]))
            else:
                items.append(_divisor_layout(rng, mn, max_rank=1 if rng.random() < 0.6 else 2))
        return ("T", items)
    if r < 0.75:
        return _divisor_layout(rng, n, kind=rng.choice(("pos", "pos", "neg")))
    return rand_layout(rng, rng.choice(("pos", "pos", "zero")), max_size=64, pool=POW2_POOL)


# Structured seeds: layouts from CuTe's docs and kernels.
STRUCTURED_LAYOUTS = [
    ("L", (4, 8), (1, 4)), ("L", (4, 8), (8, 1)), ("L", ((2, 2), (2, 4)), ((1, 4), (2, 8))),
    ("L", (8, 8), (8, 1)), ("L", ((4, 2), 8), ((1, 32), 4)), ("L", (2, (2, 2)), (4, (1, 2))),
    ("L", ((2, 4), (2, 2)), ((2, 8), (1, 4))), ("L", (16, 8), (8, 1)), ("L", (32, 4), (1, 32)),
    ("L", 16, 1), ("L", 8, 2), ("L", (4, 4), (4, 1)), ("L", ((4, 8), (2, 2)), ((16, 1), (8, 64))),
    ("L", (3, 4), (4, 1)), ("L", (6, 2), (1, 6)), ("L", (2, 3, 4), (12, 4, 1)), ("L", (1, 8), (0, 1)),
    ("L", (4, 2), (0, 1)), ("L", (8, 4), (-1, 8)), ("L", (4, 2), (("E", 1, 0), ("E", 1, 1))),
    ("L", (8, 8), (("E", 1, 0), ("E", 1, 1))), ("L", ((2, 4), 8), (("E", 2, 0), ("E", 1, 1))),
    ("SW", 3, 4, 3, 0, ("L", (8, 8), (8, 1))), ("SW", 3, 3, 3, 0, ("L", (8, 64), (64, 1))),
    ("SW", 2, 4, 3, 0, ("L", (8, 32), (32, 1))), ("SW", 1, 4, 3, 0, ("L", (8, 16), (16, 1))),
    ("SW", 3, 4, 3, 0, ("L", (64, 8), (1, 64))), ("SW", 2, 3, 3, 0, ("L", ((8, 2), 16), ((16, 128), 1))),
]


def _structured(op, rng):
    a = rng.choice(STRUCTURED_LAYOUTS)
    b = rng.choice(STRUCTURED_LAYOUTS)
    return a, b


def gen_case(op, rng, structured=False):
    """One case: (kind, [spec, ...])."""
    if structured:
        a, b = _structured(op, rng)
        kind = "structured"
    else:
        kind = None
        a = b = None
    if op in ("coalesce", "filter"):
        kind = kind or rand_kind(rng)
        a = a or rand_layout(rng, kind)
        return kind, [a]
    if op in ("right_inverse", "left_inverse"):
        kind = kind or rand_kind(rng)
        if a is None:
            a = rand_layout(rng, kind, compact_p=0.8)
        return kind, [a]
    if op == "complement":
        kind = kind or rand_kind(rng, weights=(5, 1, 1, 1, 1))
        if a is None:
            a = rand_layout(rng, kind, max_size=64, compact_p=0.8)
        if a[0] == "SW":
            a = a if rng.random() < 0.3 else a[5]
        lv = [x for x in _leaves(a[2]) if isinstance(x, int)] if a[0] == "L" else [1]
        cos = 1 + sum((s - 1) * abs(d) for s, d in zip(_leaves(_shape(a)), lv)) if a[0] == "L" else 64
        cot = rng.choice((cos, cos * 2, cos * 4, 1, 16, 32, 64, 128, 256, cos + rng.randint(1, 8)))
        return kind, [a, ("I", max(1, min(cot, 4096)))]
    if op == "slice":
        kind = kind or rand_kind(rng)
        a = a or rand_layout(rng, kind)
        sh = _shape(a)

        def crd(s, top):
            if isinstance(s, tuple):
                r = rng.random()
                if r < 0.25 and not top:
                    return None
                return tuple(crd(x, False) for x in s)
            return None if rng.random() < 0.5 else rng.randrange(s)
        for _ in range(50):
            c = crd(sh, True) if isinstance(sh, tuple) else None
            lv = _leaves(c) if isinstance(c, tuple) else [c]
            if any(x is None for x in lv) and (not all(x is None for x in lv) or rng.random() < 0.1):
                break
        else:                                  # a coordinate without '_' evaluates; it is no slice
            c = _rebuild(c, iter([None] * len(lv))) if isinstance(c, tuple) else None
        return kind, [a, ("C", c)]
    if op == "max_common_vector":
        kind = kind or rand_kind(rng)
        if a is None:
            a = rand_layout(rng, kind)
            r = rng.random()
            if r < 0.4:
                b = a
            elif r < 0.8:
                b = rand_layout(rng, rand_kind(rng), shape=_shape(a))
            else:
                b = rand_layout(rng, rand_kind(rng))
        return kind, [a, b]
    if op in ("composition", "logical_divide", "zipped_divide"):
        kind = kind or rand_kind(rng)
        if a is None:
            a = rand_layout(rng, kind, pool=POW2_POOL if rng.random() < 0.6 else SHAPE_POOL)
        if kind != "structured" or rng.random() < 0.7:
            b = _rand_rhs(rng, a)
            if op == "composition" and b[0] == "L" and rng.random() < 0.06:
                b = rand_swizzle(rng, b)        # a swizzled right-hand side
        return kind, [a, b]
    if op in ("logical_product", "blocked_product", "raked_product"):
        kind = kind or rand_kind(rng)
        if a is None:
            a = rand_layout(rng, kind, max_size=32)
        if kind != "structured" or b[0] != "L" or _size(a) * _size(b) > 1024 or rng.random() < 0.5:
            b = rand_layout(rng, rng.choice(("pos", "pos", "pos", "zero")), max_size=16, compact_p=0.8)
        if op == "logical_product" and rng.random() < 0.2 and isinstance(_shape(a), tuple):
            b = ("T", [rand_layout(rng, "pos", max_size=4, pool=(1, 2, 3, 4)) for _ in _shape(a)][:2])
        return kind, [a, b]
    raise ValueError(op)


def case_id(op, args):
    return op + ":" + hashlib.sha1(("|".join(args)).encode()).hexdigest()[:12]


def generate(op, n, seed=0, structured_frac=0.1):
    rng = random.Random(f"{op}/{seed}")
    out, seen = [], set()
    tries = 0
    while len(out) < n and tries < n * 20:
        tries += 1
        kind, specs = gen_case(op, rng, structured=rng.random() < structured_frac)
        args = [text_of(s) for s in specs]
        cid = case_id(op, args)
        if cid in seen:
            continue
        seen.add(cid)
        out.append({"id": cid, "op": op, "kind": kind, "args": args, "cpp_args": [cpp_of(s) for s in specs]})
    return out


# ----------------------------------------------------------------------------------------------
# C++ side
# ----------------------------------------------------------------------------------------------
PREAMBLE = r"""
#include <cute/layout.hpp>
#include <cute/layout_composed.hpp>
#include <cute/swizzle.hpp>
#include <cute/swizzle_layout.hpp>
#include <cstdio>
#include <cstdlib>
using namespace cute;
template <class R> static void emit(R const& r) {
  printf("@R "); print(r); printf("\n");
  if constexpr (is_layout<R>::value) {
    int n = int(size(r)); printf("@S %d\n@V", n);
    for (int i = 0; i < n && i < %(cap)d; ++i) { printf(" "); print(r(i)); }
    printf("\n");
  }
  fflush(stdout);
}
""".replace("%(cap)d", str(VALUE_CAP))


def build_pch(workdir):
    h = os.path.join(workdir, "pre.hpp")
    r = cpp_build.compile_cpp("#pragma once\n" + PREAMBLE, h, h + ".gch", flags=[*cpp_build.CXXFLAGS, "-x", "c++-header"],
                        cache=False, timeout=3600)
    if r.returncode != 0:
        raise RuntimeError("cannot build the CuTe precompiled header:\n" + r.stderr[-3000:])
    return h


def _write_tu(path, cases):
    lines = ['#include "pre.hpp"']
    ranges = []
    for k, c in enumerate(cases):
        start = len(lines) + 1
        body = [f"static void c_{k}() {{"]
        for j, a in enumerate(c["cpp_args"]):
            body.append(f"  auto a{j} = {a};")
        body.append(f"  auto r = {CPP_CALL[c['op']]};")
        body.append("  emit(r);")
        body.append("}")
        lines.extend(body)
        ranges.append((start, len(lines)))
    lines.append("typedef void (*fn_t)();")
    lines.append("static fn_t fns[] = {" + ",".join(f"c_{k}" for k in range(len(cases))) + "};")
    lines.append("int main(int argc, char** argv) {")
    lines.append("  int s = argc > 1 ? atoi(argv[1]) : 0;")
    lines.append(f"  for (int k = s; k < {len(cases)}; ++k) {{ printf(\"@B %d\\n\", k); fflush(stdout);"
                 " fns[k](); printf(\"@E %d\\n\", k); fflush(stdout); }")
    lines.append("  return 0; }")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return ranges


_TEMPLATE_ARGS = re.compile(r"<[^<>]*>")


def error_class(msg):
    """A short, stable class for a g++ error message (static_assert text, or the error with types elided)."""
    m = re.search(r"static assertion failed: ?(.*)", msg)
    if m:
        return "static_assert: " + m.group(1).strip()[:100]
    if "static assertion failed" in msg:
        return "static_assert"
    msg = re.sub(r"‘[^’]*’|'[^']*'", "X", msg)
    for _ in range(10):
        msg2 = _TEMPLATE_ARGS.sub("", msg)
        if msg2 == msg:
            break
        msg = msg2
    return msg.strip()[:100]


def _attribute_errors(stderr, tu_name, ranges):
    """Map g++ diagnostics to case indices: {k: error_class}."""
    starts = [r[0] for r in ranges]
    import bisect

    def case_of_line(ln):
        i = bisect.bisect_right(starts, ln) - 1
        if 0 <= i < len(ranges) and ranges[i][0] <= ln <= ranges[i][1]:
            return i
        return None
    out = {}
    cur = None
    pat = re.compile(re.escape(tu_name) + r":(\d+):")
    fpat = re.compile(re.escape(tu_name) + r": In function ‘?'?void c_(\d+)\(\)")
    for line in stderr.splitlines():
        fm = fpat.search(line)
        if fm:
            cur = int(fm.group(1))
            continue
        if line.startswith(tu_name + ": In function") and "c_" not in line:
            cur = None
        m = pat.search(line)
        if m:
            k = case_of_line(int(m.group(1)))
            if k is not None:
                cur = k
        em = re.search(r"\berror: (.*)", line)
        if em and cur is not None and cur not in out:
            out[cur] = error_class(em.group(1))
    return out


def _parse_run(stdout):
    """{k: {"result", "size", "values"}} and the last case begun."""
    res, last = {}, None
    cur = None
    for line in stdout.splitlines():
        if line.startswith("@B "):
            last = int(line[3:])
            cur = {}
        elif line.startswith("@E "):
            res[int(line[3:])] = cur
            cur = None
        elif cur is not None:
            if line.startswith("@R "):
                cur["result"] = line[3:].strip()
            elif line.startswith("@S "):
                cur["size"] = int(line[3:])
            elif line.startswith("@V"):
                cur["values"] = line[2:].strip()
    return res, last


def _compile_and_run(cases, workdir, tag, pch):
    """Results for one batch: list of dicts with cpp fields (result/size/values or reject)."""
    out = [None] * len(cases)
    live = list(range(len(cases)))
    attempt = 0
    while live:
        attempt += 1
        sub = [cases[i] for i in live]
        tu = os.path.join(workdir, f"{tag}_{attempt}.cpp")
        exe = tu[:-4]
        ranges = _write_tu(tu, sub)
        with open(tu) as f:
            source = f.read()
        t0 = time.time()
        # cached by content (the TU, the preamble, flags, compiler and headers); the PCH is built only on a miss
        r = cpp_build.compile_cpp(source, tu, exe, flags=[*cpp_build.CXXFLAGS, "-Winvalid-pch"], deps=(PREAMBLE,), cwd=workdir,
                            timeout=3600, before=pch)
        if os.environ.get("CPP_ORACLE_VERBOSE"):
            print(f"[cpp] {tag}#{attempt}: {len(sub)} cases, rc={r.returncode}, cached={r.cached}, "
                  f"{time.time() - t0:.1f}s", flush=True)
        if r.returncode != 0:
            errs = _attribute_errors(r.stderr, os.path.basename(tu), ranges) or \
                _attribute_errors(r.stderr, tu, ranges)
            if not errs:
                if len(sub) == 1:
                    out[live[0]] = {"cpp_reject": "compile: " + error_class(
                        (re.findall(r"error: (.*)", r.stderr) or ["unknown"])[0])}
                    break
                # cannot attribute: bisect
                half = len(live) // 2
                a = _compile_and_run([cases[i] for i in live[:half]], workdir, tag + "a", pch)
                b = _compile_and_run([cases[i] for i in live[half:]], workdir, tag + "b", pch)
                for i, v in zip(live, a + b):
                    out[i] = v
                break
            for k, cls in errs.items():
                out[live[k]] = {"cpp_reject": cls}
            live = [i for j, i in enumerate(live) if j not in errs]
            continue
        # run; restart after a crashing case
        start = 0
        while start < len(sub):
            try:
                p = subprocess.run([exe, str(start)], capture_output=True, text=True, timeout=300)
                stdout, rc, stderr = p.stdout, p.returncode, p.stderr
            except subprocess.TimeoutExpired as e:
                stdout = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
                rc, stderr = "timeout", ""
            res, last = _parse_run(stdout)
            for k, v in res.items():
                out[live[k]] = v
            if rc == 0:
                break
            if last is None or last in res:
                last = start if last is None else last + 1
                if last >= len(sub):
                    break
            sig = f"signal {-rc}" if isinstance(rc, int) and rc < 0 else f"exit {rc}"
            msg = (stderr.strip().splitlines() or [""])[-1][:100]
            out[live[last]] = {"cpp_reject": f"runtime: {sig} {msg}".strip()}
            start = last + 1
        for f in (tu, exe) if not os.environ.get("CPP_ORACLE_KEEP") else ():
            try:
                os.remove(f)
            except OSError:
                pass
        break
    return out


def run_cases(cases, batch=300, jobs=2, workdir=None, log=None):
    """Attach the C++ oracle's answers to every case (in place) and return the list."""
    if cpp_build.toolchain() is None:
        raise RuntimeError("g++, the CUTLASS headers or the CUDA (libcu++) headers are missing")
    own = workdir is None
    workdir = workdir or tempfile.mkdtemp(prefix="cute_oracle_")
    os.makedirs(workdir, exist_ok=True)
    try:
        lock, built = threading.Lock(), []

        def pch():  # built once, and only when some batch misses the compile cache
            with lock:
                if not built:
                    built.append(build_pch(workdir))
        batches = [cases[i:i + batch] for i in range(0, len(cases), batch)]

        def work(bi):
            res = _compile_and_run(batches[bi], workdir, f"b{bi}", pch)
            if log:
                log(f"batch {bi + 1}/{len(batches)} done ({len(batches[bi])} cases)")
            return res
        with ThreadPoolExecutor(max_workers=jobs) as ex:
            results = list(ex.map(work, range(len(batches))))
        for b, res in zip(batches, results):
            for c, r in zip(b, res):
                r = r or {"cpp_reject": "runtime: no output"}
                c.update(r)
        return cases
    finally:
        if own:
            shutil.rmtree(workdir, ignore_errors=True)


# ----------------------------------------------------------------------------------------------
# cuteverify side
# ----------------------------------------------------------------------------------------------
def _cv():
    import cuteverify as cv
    return cv


def parse_arg(op, j, text):
    cv = _cv()
    text = text.strip()
    if text.startswith("<"):
        items = _split_top(text[1:-1])
        return tuple(int(x) if re.fullmatch(r"-?\d+", x) else cv.parse(x) for x in items)
    if op == "complement" and j == 1:
        return int(text)
    if op == "slice" and j == 1:
        return _parse_crd(text)
    return cv.parse(text)


def _split_top(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "(<":
            depth += 1
        elif ch in ")>":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _parse_crd(text):
    text = text.strip()
    if text == "_":
        return None
    if text.startswith("("):
        return tuple(_parse_crd(x) for x in _split_top(text[1:-1]))
    return int(text)


def cv_apply(op, args):
    cv = _cv()
    xs = [parse_arg(op, j, a) for j, a in enumerate(args)]
    if op == "slice":
        return xs[0][xs[1]]
    fn = getattr(cv, op)
    return fn(*xs)


def normalize_cpp(text):
    t = text.replace("Sw<", "S<")
    return re.sub(r"_(?=-?\d)", "", t)


def _flat_value(v):
    """A C++-printed value (``_3``, ``(1,_2)``, ``_3@1``) or a cuteverify value as {mode: int}."""
    out = {}

    def add(path, x):
        out[path] = out.get(path, 0) + x
    if isinstance(v, str):
        t = v.replace("_", "").strip()
        if t.startswith("("):
            for j, x in enumerate(_split_top(t[1:-1])):
                for k, y in _flat_value(x).items():
                    add((j,) + k, y)
        elif "@" in t:
            parts = t.split("@")
            add(tuple(int(p) for p in reversed(parts[1:])), int(parts[0]))
        else:
            add((), int(t))
    elif isinstance(v, tuple):
        for j, x in enumerate(v):
            for k, y in _flat_value(x).items():
                add((j,) + k, y)
    elif hasattr(v, "as_tuple"):          # a lone coordinate-stride value (ScaledBasis)
        t = v.as_tuple() if callable(v.as_tuple) else v.as_tuple
        return _flat_value(tuple(t))
    else:
        add((), int(v))
    return out


def _norm_value(v):
    """An evaluated value, canonical: an int, or a tuple of ints with trailing zeros dropped.

    ``E<i>`` results print in C++ as ``(a,b)`` (ArithTuple), ``v@i`` (a lone ScaledBasis) or ``_0``;
    cuteverify returns ints or ``ArithTuple``.  All of them map to {coordinate path: value}."""
    d = {k: x for k, x in _flat_value(v).items() if x != 0}
    if not d:
        return 0
    if list(d) == [()]:
        return d[()]
    # a scalar and a 1-tuple (x,) are the same coordinate
    return tuple(sorted(((k if k else (0,)), x) for k, x in d.items()))


def split_values(s):
    return s.split() if s else []


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def _eval_all(f, n):
    vals = [f(i) for i in range(n)]
    if all(type(v) is int for v in vals):
        return vals
    return [_norm_value(v) for v in vals]


def cpp_values(text):
    toks = split_values(text)
    try:
        return [int(t[1:]) if t[0] == "_" else int(t) for t in toks]
    except ValueError:
        return [_norm_value(t) for t in toks]


def _slice_note(rec, vals, r, detail):
    """Slicing: the sliced layout at i must be the input at the coordinate whose free ('_') modes take the
    colexicographic coordinate of i, up to one constant (the offset C++ hands to the pointer)."""
    try:
        cv = _cv()
        L = parse_arg("slice", 0, rec["args"][0])
        crd = _parse_crd(rec["args"][1])
        sh = cv.shape(L)
        free = []

        def walk(c, s, path):
            if c is None:
                for p2, n2 in _leaf_paths(s, path):
                    free.append((p2, n2))
            elif isinstance(c, tuple):
                for j, (cc, ss) in enumerate(zip(c, s if isinstance(s, tuple) else (s,))):
                    walk(cc, ss, path + (j,))
        walk(crd, sh, ())
        fixed = crd

        def full(i):
            vals_ = {}
            for p, n in free:
                vals_[p] = i % n
                i //= n

            def build(c, s, path):
                if c is None:
                    if isinstance(s, tuple):
                        return tuple(build(None, ss, path + (j,)) for j, ss in enumerate(s))
                    return vals_[path]
                if isinstance(c, tuple):
                    return tuple(build(cc, ss, path + (j,)) for j, (cc, ss) in
                                 enumerate(zip(c, s if isinstance(s, tuple) else (s,))))
                return c
            return build(fixed, sh, ())
        n = _prod([n for _, n in free])
        m = min(n, VALUE_CAP)
        exp = [_norm_value(L(full(i))) for i in range(m)]
        got = _eval_all(r, m)

        def ok(v):
            if len(v) != m or not all(type(x) is int for x in v + exp):
                return None
            return all(v[i] - v[0] == exp[i] - exp[0] for i in range(m))
        c_ok, v_ok = ok(vals), ok(got)
        word = {True: "satisfies", False: "VIOLATES", None: "?"}
        detail["property"] = (f"C++ answer {word[c_ok]} the slice's values (up to its offset), cuteverify's "
                              f"{word[v_ok]} them" + (" exactly" if got == exp else " (up to its offset)"
                                                      if v_ok else ""))
        return c_ok, v_ok
    except Exception as e:  # noqa: BLE001
        detail["property"] = f"property not checked ({type(e).__name__}: {e})"[:200]
        return None, None


def _leaf_paths(s, path):
    if isinstance(s, tuple):
        out = []
        for j, x in enumerate(s):
            out.extend(_leaf_paths(x, path + (j,)))
        return out
    return [(path, s)]


def _zero_image_left_inverse(rec, vals, r):
    """A left inverse of a layout whose image is {0}: only R(0) == 0 is defined, C++ gives size(L):0, CuTe DSL
    and CuTe IR (and cuteverify) 1:0. Deliberate (the printed form follows DSL), not a functional mismatch."""
    if rec["op"] != "left_inverse" or str(r) != "1:0" or any(vals):
        return False
    L = parse_arg(rec["op"], 0, rec["args"][0])
    return all(v == 0 for v in L.values())


def _mismatch(rec, vals, r, detail):
    c_ok = v_ok = None
    if rec["op"] in ("left_inverse", "right_inverse"):
        c_ok, v_ok = _inverse_note(rec, vals, r, detail)
    elif rec["op"] == "slice":
        c_ok, v_ok = _slice_note(rec, vals, r, detail)
    if c_ok is False and v_ok:
        return CPP_WRONG, detail
    return FUNC_MISMATCH, detail


def _inverse_note(rec, vals, r, detail):
    """For inverses, say whether each answer has the defining property (C++ has no precondition checks:
    outside them it returns some layout anyway)."""
    if rec["op"] not in ("left_inverse", "right_inverse"):
        return
    try:
        L = parse_arg(rec["op"], 0, rec["args"][0])
        cvv = [r(i) for i in range(min(_cv().size(r), VALUE_CAP))]

        def ok(rv):
            if rec["op"] == "right_inverse":      # L(R(i)) == i
                return all(type(v) is int and 0 <= v < _cv().size(L) and L(v) == i for i, v in enumerate(rv))
            img = [L(i) for i in range(_cv().size(L))]   # R(L(i)) == i
            return all(type(v) is int and 0 <= v < len(rv) and rv[v] == i for i, v in enumerate(img))
        c_ok, v_ok = ok(vals), ok(cvv)
        detail["property"] = f"C++ answer {'satisfies' if c_ok else 'VIOLATES'} the inverse property, " \
                             f"cuteverify's {'satisfies' if v_ok else 'VIOLATES'} it"
        return c_ok, v_ok
    except Exception as e:  # noqa: BLE001
        detail["property"] = f"property not checked ({type(e).__name__})"
        return None, None


def check(rec, timeout=10):
    """Classify one corpus record against cuteverify.  Returns (class, detail dict).  ``timeout``: CPU seconds
    cuteverify may spend on the case (this process's CPU time, so load from other processes cannot trip it)."""
    cv = _cv()
    if "cpp_reject" in rec:
        try:
            r = cv_apply(rec["op"], rec["args"])
            cvs = "accepts: " + str(r)
        except Exception as e:  # noqa: BLE001
            cvs = f"{type(e).__name__}: {e}"
        return CPP_REJECTS, {"cpp": rec["cpp_reject"], "cv": cvs[:200]}
    use_alarm = hasattr(signal, "setitimer") and timeout
    if use_alarm:
        # CPU time of this process (ITIMER_PROF), not wall clock: load from other processes cannot trip it
        old = signal.signal(signal.SIGPROF, _alarm)
        signal.setitimer(signal.ITIMER_PROF, timeout)
    try:
        try:
            r = cv_apply(rec["op"], rec["args"])
        except _Timeout:
            return CV_CRASH, {"cv": "Timeout: cuteverify took more than %ss of CPU" % timeout}
        except Exception as e:  # noqa: BLE001
            msg = f"{type(e).__name__}: {e}".splitlines()[0][:300]
            if isinstance(e, cv.NotAdmissibleError):
                return CV_REFUSES, {"cv": msg}
            if isinstance(e, cv.CuteVerifyError):
                return CV_REFUSES_OTHER, {"cv": msg}
            return CV_CRASH, {"cv": msg}
        cpp_print = rec["result"]
        detail = {"cpp": cpp_print}
        if rec["op"] == "max_common_vector":
            detail["cv"] = str(r)
            try:
                ok = int(r) == int(normalize_cpp(cpp_print))
            except Exception as e:  # noqa: BLE001
                return CV_CRASH, {"cv": f"{type(e).__name__}: {e}"[:300], "cpp": cpp_print}
            return (MATCH if ok else FUNC_MISMATCH), detail
        if "size" not in rec:
            return CPP_REJECTS, {"cpp": "not a layout: " + cpp_print, "cv": str(r)[:200]}
        if rec["size"] <= 0:
            return CPP_REJECTS, {"cpp": "degenerate result (size <= 0)", "cv": str(r)[:200]}
        try:
            detail["cv"] = str(r)
            n = rec["size"]
            vals = cpp_values(rec.get("values", ""))
            m = min(n, VALUE_CAP)
            cv_n = cv.size(r)
            if cv_n != n:
                detail["why"] = f"size: C++ {n}, cuteverify {cv_n}"
                if _zero_image_left_inverse(rec, vals, r):
                    detail["why"] += " (image {0}: CuTe DSL's and CuTe IR's 1:0, docs/model.md section 2.5)"
                    return PRINTED_ONLY, detail
                return _mismatch(rec, vals, r, detail)
            same_print = normalize_cpp(cpp_print).replace(" ", "") == str(r).replace(" ", "")
            if len(vals) == m:
                got = _eval_all(r, m)
                if got != vals:
                    i = next(i for i in range(m) if got[i] != vals[i])
                    detail["why"] = f"at {i}: C++ {vals[i]}, cuteverify {got[i]}"
                    return _mismatch(rec, vals, r, detail)
        except _Timeout:
            return CV_CRASH, {"cv": "Timeout: evaluating cuteverify's result", "cpp": cpp_print}
        except Exception as e:  # noqa: BLE001
            return CV_CRASH, {"cv": f"evaluating result: {type(e).__name__}: {e}"[:300], "cpp": cpp_print}
        # independent check of the parser/evaluator on C++'s own print (when the prints agree, cuteverify's
        # result already is that layout and was just evaluated against C++'s values)
        try:
            pc = cv.parse(normalize_cpp(cpp_print))
            if not same_print and len(vals) == m and _eval_all(pc, m) != vals:
                detail["why"] = "cv.parse(C++ print) evaluates differently from C++"
                return PARSE_MISMATCH, detail
            if same_print and str(pc).replace(" ", "") != str(r).replace(" ", ""):
                detail["why"] = f"cv.parse(C++ print) prints as {pc}"
                return PARSE_MISMATCH, detail
        except _Timeout:
            raise
        except Exception as e:  # noqa: BLE001
            detail["why"] = f"cv.parse(C++ print) fails: {type(e).__name__}: {e}"[:300]
            return PARSE_MISMATCH, detail
        if not same_print:
            return PRINTED_ONLY, detail
        return MATCH, detail
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, old)


def failure_signature(rec, cls, detail):
    """``op/kind: failure_class`` -- what known_failures.json stores per case id."""
    return f"{rec['op']}/{rec.get('kind', '')}: {failure_class(cls, detail)}"


def failure_class(cls, detail):
    """A coarse, stable signature for grouping failures (class + message shape)."""
    if cls in (CV_CRASH, CV_REFUSES, CV_REFUSES_OTHER):
        msg = detail.get("cv", "")
        msg = re.sub(r"-?\d+", "N", msg)
        msg = re.sub(r"[\(\[][^:]*?[\)\]]", "..", msg)
        return f"{cls}: {msg[:90]}"
    if cls == CPP_REJECTS:
        return f"{cls}: {detail.get('cpp', '')[:90]}"
    if cls in (FUNC_MISMATCH, CPP_WRONG) and "property" in detail:
        return f"{cls}: {detail['property']}"
    if cls == PARSE_MISMATCH:
        return f"{cls}: {re.sub(r'-?[0-9]+', 'N', detail.get('why', ''))[:90]}"
    return cls


# ----------------------------------------------------------------------------------------------
# Corpus IO
# ----------------------------------------------------------------------------------------------
CORPUS_FIELDS = ("id", "op", "kind", "args", "result", "size", "values", "cpp_reject")


def corpus_path(op):
    return os.path.join(CORPUS_DIR, f"{op}.jsonl.gz")


def write_corpus(op, cases):
    import gzip
    os.makedirs(CORPUS_DIR, exist_ok=True)
    with gzip.open(corpus_path(op), "wt", compresslevel=9) as f:
        for c in cases:
            rec = {k: c[k] for k in CORPUS_FIELDS if k in c}
            if rec.get("size", 0) > VALUE_CAP:
                rec["values_truncated"] = True
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")


def read_corpus(op):
    import gzip
    p = corpus_path(op)
    if not os.path.exists(p):
        return []
    with gzip.open(p, "rt") as f:
        return [json.loads(line) for line in f if line.strip()]


def load_known():
    if not os.path.exists(KNOWN_PATH):
        return {}
    with open(KNOWN_PATH) as f:
        return json.load(f).get("cases", {})
