"""Decision procedures per stride domain, exact before Z3.

Concrete: enumeration (small sizes), sorted strides, exhaustive collision / preimage search, interval
chains, common refinement (equality), F2 rank (power-of-two layouts under a swizzle); Z3 only when a
search runs out of budget. A swizzle is an involution of the integers, so a swizzled layout is injective
exactly when its inner layout is, and (offset 0, codomain a multiple of the swizzle's block) onto
``[0, n)`` exactly when the inner layout is.
Symbolic: the same arguments with every step decided by ``cuteverify.decide`` under the hypotheses, and
Z3 (Int) queries.
"""
from __future__ import annotations

from ..algebra._op import exact_div
from ..core.tuples import flatten, product
from ..symbolic import decide
from . import intlin
from .encode import (
    F2_KINDS,
    Form,
    SymEnv,
    Unsupported,
    as_int,
    canon_path,
    coords,
    facts,
    lin,
    model_int,
    norm_value,
    pow2_constraint,
    solver,
)
from .intlin import BUDGET, Flat
from .verdict import Counterexample

ENUM_LIMIT = 1 << 12
ENUM_SURJ_LIMIT = 1 << 20
POW2_MODEL_EXP = 128  # pow2 symbols range over 2^0..2^128 when Z3 looks for a model


class R:
    __slots__ = ("status", "method", "cex", "reason")

    def __init__(self, status, method="", cex=None, reason=None):
        self.status, self.method, self.cex, self.reason = status, method, cex, reason


def path_of_index(i):
    return canon_path((i,))


def component_flat(f: Form, path, restricted=False):
    strides, ignore = f.component(path, restricted)
    return Flat(f.shapes, strides, ignore=ignore)


def coord_extents(f: Form):
    out = {}
    for p in f.paths():
        lo, hi = component_flat(f, p, True).value_range()
        out[p] = hi + 1
    return out


def coord_sizes(f: Form):
    out = {}
    for p in f.paths():
        n = 1
        for k, s in enumerate(f.shapes):
            st = f.strides[k]
            if st is not None and st[0] == p:
                n *= s
        out[p] = n
    return out


# --- concrete: injective ----------------------------------------------------------------------------------

def _inj_flat(flat: Flat, allow_enum=True):
    if allow_enum and not flat.ignore and flat.size <= ENUM_LIMIT:
        c = intlin.enumerate_collision(flat)
        return R("proved", "enumeration") if c is None else R("refuted", "enumeration", c)
    z = intlin.zero_stride_collision(flat)
    if z is not None:
        return R("refuted", "sorted-strides", z)
    if intlin.sorted_strides_injective(flat):
        return R("proved", "sorted-strides")
    c = intlin.find_collision(flat)
    if c is None:
        return R("proved", "collision-search")
    if c is not BUDGET:
        return R("refuted", "collision-search", c)
    return z3_collision_concrete(flat)


def injective(f: Form) -> R:
    if f.kind in F2_KINDS:
        return f2_form_injective(f)
    if f.kind == "int":
        return _inj_flat(Flat(f.shapes, f.strides))
    if f.kind == "swizzle":
        m = f2_injective(f)
        if m is not None:
            return m
        r = _inj_flat(Flat(f.shapes, f.strides))
        r.method = "swizzle-bijection + " + r.method
        return r
    # coordinate strides: the coordinates are independent, each must be injective on its own modes
    flat_all = Flat(f.shapes, [0] * len(f.shapes))
    for k, s in enumerate(f.shapes):
        if s > 1 and f.strides[k] is None:
            return R("refuted", "sorted-strides", (0, flat_all.prefix[k]))
    methods = []
    for p in f.paths():
        r = _inj_flat(component_flat(f, p, True), allow_enum=False)
        if r.status != "proved":
            return r
        methods.append(r.method)
    return R("proved", "per-coordinate " + "/".join(sorted(set(methods)) or ["trivial"]))


# --- concrete: surjective ---------------------------------------------------------------------------------

def _enum_missed(values, n):
    if n > (1 << 22):
        return BUDGET
    s = set(values)
    for v in range(n):
        if v not in s:
            return v
    return None


def surjective(f: Form, n, L) -> R:
    if f.kind in F2_KINDS:
        return f2_form_surjective(f, n)
    if f.kind == "int":
        flat = Flat(f.shapes, f.strides)
        m = intlin.surjective_onto(flat, n)
        if m is BUDGET and flat.size <= ENUM_SURJ_LIMIT:
            m = _enum_missed(flat.values(), n)
            meth = "enumeration"
        else:
            meth = "interval-chain"
        if m is BUDGET:
            return R("unknown", meth, reason="image is not an interval chain and too large to enumerate")
        return R("proved", meth) if m is None else R("refuted", meth, m)
    if f.kind == "coord":
        for p, ext in sorted(n.items()):
            if p not in f.paths():
                if ext > 1:
                    return R("refuted", "interval-chain", {p: 1})
                continue
            m = intlin.surjective_onto(component_flat(f, p, True), ext)
            if m is BUDGET:
                return R("unknown", "interval-chain", reason=f"coordinate {p}: image is not an interval chain")
            if m is not None:
                return R("refuted", "interval-chain", {p: m})
        return R("proved", "per-coordinate interval-chain")
    # swizzle
    r = f2_surjective(f, n)
    if r is not None:
        return r
    sw = f.swizzle
    flat = Flat(f.shapes, f.strides)
    if f.offset == 0 and n % sw.size() == 0:
        m = intlin.surjective_onto(flat, n)
        if m is not BUDGET:
            return R("proved", "swizzle-bijection + interval-chain") if m is None else \
                R("refuted", "swizzle-bijection + interval-chain", sw(m))
    if flat.size <= ENUM_SURJ_LIMIT:
        m = _enum_missed(L.values(), n)
        if m is not BUDGET:
            return R("proved", "enumeration") if m is None else R("refuted", "enumeration", m)
    return R("unknown", "swizzle", reason="swizzled layout not aligned to its swizzle block and too large to "
                                          "enumerate")


# --- F2 -------------------------------------------------------------------------------------------------

def _f2_columns(f: Form):
    """Images of the index bits when the layout is F2-linear (power-of-two shapes and strides with
    disjoint bit ranges, offset 0), else None."""
    if f.kind != "swizzle" or f.offset != 0:
        return None
    cols, used = [], 0
    for s, d in zip(f.shapes, f.strides):
        if s & (s - 1) or s < 1:
            return None
        k = s.bit_length() - 1
        if d == 0:
            cols += [0] * k
            continue
        if d < 0 or d & (d - 1):
            return None
        e = d.bit_length() - 1
        rng = ((1 << k) - 1) << e
        if rng & used:
            return None
        used |= rng
        cols += [f.swizzle(1 << (e + j)) for j in range(k)]
    return cols


def _f2_basis(cols):
    basis = {}
    kernel = None
    for i, col in enumerate(cols):
        v, c = col, 1 << i
        while v:
            p = v.bit_length() - 1
            if p in basis:
                v ^= basis[p][0]
                c ^= basis[p][1]
            else:
                basis[p] = (v, c)
                break
        if v == 0 and kernel is None:
            kernel = c
    return basis, kernel


def _f2_in_span(basis, v):
    while v:
        p = v.bit_length() - 1
        if p not in basis:
            return False
        v ^= basis[p][0]
    return True


def f2_injective(f: Form):
    cols = _f2_columns(f)
    if cols is None:
        return None
    basis, kernel = _f2_basis(cols)
    if kernel is None:
        return R("proved", "f2-rank")
    return R("refuted", "f2-rank", (kernel, 0))


def f2_surjective(f: Form, n):
    cols = _f2_columns(f)
    if cols is None or n < 1 or n & (n - 1):
        return None
    basis, _ = _f2_basis(cols)
    for j in range(n.bit_length() - 1):
        if not _f2_in_span(basis, 1 << j):
            # the image is a subspace: 2^j is not in it
            return R("refuted", "f2-rank", 1 << j)
    return R("proved", "f2-rank")


# --- F2 strides (XOR-combined) -------------------------------------------------------------------------
# An ``f2`` form maps x to XOR_k (digit_k(x) * v_k), the digit times v an integer product (core/strides.py
# F2: scalars multiply as integers, elements add by XOR). Every rule above assumes integer addition of the
# mode terms, so none of them applies; these procedures are the only ones an f2 or mixed form reaches.

def value_table(f: Form):
    """``[f(0), ..., f(size-1)]`` as ints, by the layout's own evaluation: ``values()`` for an f2 form (XOR is
    associative, so the flat fold is the function), the evaluator index by index for a mixed form (its value
    depends on how the evaluator nests and orders integer sums and XORs)."""
    L = f.layout
    if f.kind == "mixed":
        return [int(L(i)) for i in range(product(tuple(f.shapes)))]
    return [int(v) for v in L.values()]


def _int_table(f: Form):
    """The values of a concrete non-coordinate form as ints (an F2 value is an integer)."""
    return value_table(f) if f.kind in F2_KINDS else [int(v) for v in f.layout.values()]


def xor_columns(f: Form):
    """The images of the index bits when the form is GF(2)-linear in them, else None. Valid for ``f2`` and
    ``int`` forms with concrete strides. Index bits split into digit bits only when every mode's size is a
    power of two. An f2 mode ``c -> c*v`` is linear iff the shifted copies ``v << j`` (j < log2 size) are
    pairwise disjoint (otherwise ``(2^i + 2^j) v`` carries); an int form is linear iff all shifted copies of
    all its strides are pairwise disjoint (then the integer sum of the terms has no carries and is their XOR)."""
    if f.kind not in ("f2", "int"):
        return None
    cols, used = [], 0
    for s, v in zip(f.shapes, f.strides):
        if type(s) is not int or type(v) is not int or s < 1 or s & (s - 1) or v < 0:
            return None
        mode = 0
        for j in range(s.bit_length() - 1):
            c = v << j
            if c & mode:
                return None
            mode |= c
            cols.append(c)
        if f.kind == "int":
            if mode & used:
                return None
            used |= mode
    return cols


def _span_max(basis):
    m = 0
    for p in sorted(basis, reverse=True):
        m = max(m, m ^ basis[p][0])
    return m


def f2_form_injective(f: Form) -> R:
    """Injectivity of an f2 or mixed form: GF(2) rank when it is linear, else the value table (small
    sizes), else (f2 only) a Z3 bit-vector collision query, else unknown."""
    cols = xor_columns(f) if f.kind == "f2" else None
    if cols is not None:
        _, kernel = _f2_basis(cols)
        return R("proved", "f2-rank") if kernel is None else R("refuted", "f2-rank", (kernel, 0))
    size = product(tuple(f.shapes))
    if size <= ENUM_LIMIT:
        seen = {}
        for i, v in enumerate(value_table(f)):
            if v in seen:
                return R("refuted", "enumeration", (seen[v], i))
            seen[v] = i
        return R("proved", "enumeration")
    if f.kind == "f2":
        return z3_collision_bv(f)
    return R("unknown", "", reason="a large layout mixing F2 and integer strides: only enumeration decides it")


def f2_form_codomain(f: Form):
    """One past the largest value of an f2 or mixed form (the default codomain)."""
    cols = xor_columns(f) if f.kind == "f2" else None
    if cols is not None:
        return _span_max(_f2_basis(cols)[0]) + 1
    if product(tuple(f.shapes)) <= ENUM_SURJ_LIMIT:
        return max(value_table(f)) + 1
    raise Unsupported("a large layout with F2 strides that is not GF(2)-linear needs an explicit codomain")


def f2_form_surjective(f: Form, n) -> R:
    """``[0, n)`` inside the image of an f2 or mixed form. Linear: the image is the span, which contains
    ``[0, n)`` iff it contains every ``2^j < n`` (they lie in ``[0, n)``, and they span ``[0, 2^ceil(log2 n))``).
    Else the value table (sizes up to ENUM_SURJ_LIMIT), else unknown."""
    if n <= 0:
        return R("proved", "trivial")
    cols = xor_columns(f) if f.kind == "f2" else None
    if cols is not None:
        basis, _ = _f2_basis(cols)
        j = 0
        while (1 << j) < n:
            if not _f2_in_span(basis, 1 << j):
                return R("refuted", "f2-rank", 1 << j)
            j += 1
        return R("proved", "f2-rank")
    if product(tuple(f.shapes)) <= ENUM_SURJ_LIMIT:
        m = _enum_missed(value_table(f), n)
        if m is not BUDGET:
            return R("proved", "enumeration") if m is None else R("refuted", "enumeration", m)
    return R("unknown", "", reason="a large layout with F2 strides that is not GF(2)-linear")


def f2_form_reaches(f: Form, v):
    """Is ``v`` a value of the f2 or mixed form? None when only a table too large to build would say."""
    cols = xor_columns(f) if f.kind == "f2" else None
    if cols is not None:
        return _f2_in_span(_f2_basis(cols)[0], v)
    if product(tuple(f.shapes)) <= (1 << 22):
        return v in set(value_table(f))
    return None


def f2_form_equal(fa: Form, fb: Form) -> R:
    """Equality where one side has F2 strides (the other: any concrete form). Both GF(2)-linear on the
    same index bits: equal iff the columns are. Else the value tables (sizes up to 2^16), else a Z3
    bit-vector query when both are f2 or int forms, else unknown."""
    ca, cb = xor_columns(fa), xor_columns(fb)
    if ca is not None and cb is not None and len(ca) == len(cb):
        for j, (x, y) in enumerate(zip(ca, cb)):
            if x != y:
                return R("refuted", "f2-columns", 1 << j)
        return R("proved", "f2-columns")
    size = product(tuple(fa.shapes))
    if size <= (1 << 16):
        if fa.kind == "coord" or fb.kind == "coord":
            return _equal_enum(fa.layout, fb.layout)
        for i, (x, y) in enumerate(zip(_int_table(fa), _int_table(fb))):
            if x != y:
                return R("refuted", "enumeration", i)
        return R("proved", "enumeration")
    if fa.kind in ("f2", "int", "swizzle") and fb.kind in ("f2", "int", "swizzle"):
        return z3_equal_bv(fa, fb)
    return R("unknown", "", reason="a large layout mixing F2 and integer or coordinate strides")


# --- concrete: equality ---------------------------------------------------------------------------------

def refine_compare(sa, da, sb, db):
    """Compare two flat integer layouts of the same size on a common refinement of their shapes.
    ``("equal",)``, ``("differ", index)`` (concrete only) or None (no common refinement / undecided)."""
    na, nb = len(sa), len(sb)
    i = j = 0
    ra = sa[0] if na else 1
    rb = sb[0] if nb else 1
    qa = qb = 1
    pos = 1
    while True:
        while i < na and decide.is_one(ra) is True:
            i += 1
            ra, qa = (sa[i] if i < na else 1), 1
        while j < nb and decide.is_one(rb) is True:
            j += 1
            rb, qb = (sb[j] if j < nb else 1), 1
        if i >= na or j >= nb:
            break
        if decide.divides(rb, ra) is True:
            z = rb
        elif decide.divides(ra, rb) is True:
            z = ra
        else:
            return None
        ca, cb = da[i] * qa, db[j] * qb
        e = decide.eq(ca, cb)
        if e is not True:
            if e is False and type(z) is int and type(pos) is int:
                return ("differ", pos)
            return None
        pos = pos * z
        ra, rb = exact_div(ra, z), exact_div(rb, z)
        qa, qb = qa * z, qb * z
    if i < na or j < nb:
        return None
    return ("equal",)


def _components(f: Form):
    if f.kind == "coord":
        return {p: f.component(p)[0] for p in f.paths()}
    return {(): list(f.strides)}


def equal(fa: Form, fb: Form, A, B) -> R:
    if fa.kind in F2_KINDS or fb.kind in F2_KINDS:
        return f2_form_equal(fa, fb)
    size = Flat(fa.shapes, [0] * len(fa.shapes)).size
    if fa.kind == "swizzle" or fb.kind == "swizzle":
        if size <= (1 << 16):
            return _equal_enum(A, B)
        return z3_equal_bv(fa, fb)
    ca, cb = _components(fa), _components(fb)
    zero = [0] * len(fa.shapes)
    zerob = [0] * len(fb.shapes)
    first = None
    for p in sorted(set(ca) | set(cb)):
        r = refine_compare(fa.shapes, ca.get(p, zero), fb.shapes, cb.get(p, zerob))
        if r is None:
            first = None
            break
        if r[0] == "differ":
            return R("refuted", "common-refinement", r[1])
        first = "ok"
    else:
        return R("proved", "common-refinement")
    if size <= (1 << 16):
        return _equal_enum(A, B)
    return z3_equal(fa, fb, None)


def _equal_enum(A, B):
    for i, (x, y) in enumerate(zip(A.values(), B.values())):
        if x != y and norm_value(x) != norm_value(y):
            return R("refuted", "enumeration", i)
    return R("proved", "enumeration")


# --- symbolic structure -------------------------------------------------------------------------------------

def _numeric_key(x):
    x = as_int(x)
    if type(x) is int:
        return x
    try:
        return float(x.subs({s: 64 for s in x.free_symbols}))
    except Exception:
        return 0.0


def _sym_modes(shapes, strides, injective=False):
    """The modes that matter, sorted by a numeric guess of their stride (the criteria below check every
    step, so the order only decides whether a proof is found, never whether it is sound). A stride-0 mode
    does not change the image (dropped for surjectivity) but collides unless its size is 1 (injectivity:
    no proof)."""
    modes = []
    for s, d in zip(shapes, strides):
        if decide.is_one(s) is True:
            continue
        if decide.is_zero(d) is True:
            if injective:
                return None
            continue
        if decide.le(0, d) is not True:
            return None
        modes.append((s, d))
    modes.sort(key=lambda m: _numeric_key(m[1]))
    return modes


def _sym_inj_modes(shapes, strides):
    modes = _sym_modes(shapes, strides, injective=True)
    if modes is None:
        return False
    reach = 0
    for s, d in modes:
        if decide.lt(reach, d) is not True:
            return False
        reach = reach + (s - 1) * d
    return True


def sym_injective(f: Form):
    if f.kind in F2_KINDS:
        return None  # sorted strides argue with integer sums; XOR-combined terms are not covered
    if f.kind in ("int", "swizzle"):
        if _sym_inj_modes(f.shapes, f.strides):
            return "sorted-strides (symbolic)" if f.kind == "int" else "swizzle-bijection + sorted-strides (symbolic)"
        return None
    for k, s in enumerate(f.shapes):
        if f.strides[k] is None and decide.is_one(s) is not True:
            return None
    for p in f.paths():
        sh = [s for s, st in zip(f.shapes, f.strides) if st is not None and st[0] == p]
        dd = [st[1] for st in f.strides if st is not None and st[0] == p]
        if not _sym_inj_modes(sh, dd):
            return None
    return "per-coordinate sorted-strides (symbolic)"


def _sym_chain(shapes, strides):
    """The reach R when the image is exactly ``[0, R]`` (every stride <= reach + 1), else None."""
    modes = _sym_modes(shapes, strides)
    if modes is None:
        return None
    reach = 0
    for s, d in modes:
        if decide.le(d, reach + 1) is not True:
            return None
        reach = reach + (s - 1) * d
    return reach


def _sym_interval(shapes, strides):
    """The reach R when the image is exactly ``[0, R]``, else None: every sorted stride is at most the
    reach of the smaller modes + 1 (interval chain), or the layout is injective by sorted strides with
    size == R + 1 (an injective map of R + 1 points into ``[0, R]`` is onto it)."""
    reach = _sym_chain(shapes, strides)
    if reach is not None:
        return reach
    modes = _sym_modes(shapes, strides)
    if modes is None or not _sym_inj_modes(shapes, strides):
        return None
    reach, size = 0, 1
    for s, d in modes:
        reach = reach + (s - 1) * d
        size = size * s
    return reach if decide.eq(size, reach + 1) is True else None


def coord_codomain(n):
    """A coordinate codomain as ``{canonical path: extent}`` (None: the default box)."""
    if n is None or isinstance(n, dict):
        return n
    ext = tuple(flatten(n)) if type(n) is tuple else (n,)
    return {path_of_index(i): e for i, e in enumerate(ext)}


def sym_surjective(f: Form, n, sizes=False):
    """A method name when ``[0, n)`` (coordinate layouts: the codomain box; ``sizes``: the box of each
    coordinate's size) is proved inside the image for every admissible assignment, else None."""
    if f.kind in F2_KINDS:
        return None  # interval chains argue with integer sums; XOR-combined terms are not covered
    if f.kind == "int":
        reach = _sym_interval(f.shapes, f.strides)
        if reach is None:
            return None
        if n is None or decide.le(n, reach + 1) is True:
            return "interval-chain (symbolic)"
        return None
    if f.kind == "coord":
        cod = None if sizes else coord_codomain(n)
        paths = f.paths()
        if cod is not None:
            for p, ext in cod.items():
                if p not in paths and decide.le(ext, 1) is not True:
                    return None
        for p in paths:
            sh = [s for s, st in zip(f.shapes, f.strides) if st is not None and st[0] == p]
            dd = [st[1] for st in f.strides if st is not None and st[0] == p]
            target = product(tuple(sh)) if sizes else (cod.get(p) if cod is not None else None)
            if target is None and cod is not None:
                continue  # a coordinate outside the codomain box: its digits can be held at 0
            reach = _sym_interval(sh, dd)
            if reach is None:
                return None
            if target is not None and decide.le(target, reach + 1) is not True:
                return None
        return "per-coordinate interval-chain (symbolic)"
    # swizzle: Sw(0 + inner) with inner's image exactly [0, R]; Sw permutes [0, R + 1) when its block divides
    # R + 1, so the image is [0, R + 1) again
    if decide.is_zero(f.offset) is not True:
        return None
    reach = _sym_interval(f.shapes, f.strides)
    if reach is None or decide.divides(f.swizzle.size(), reach + 1) is not True:
        return None
    if n is None or decide.le(n, reach + 1) is True:
        return "swizzle-bijection + interval-chain (symbolic)"
    return None


def sym_equal(fa: Form, fb: Form):
    if fa.kind in F2_KINDS or fb.kind in F2_KINDS:
        return None  # common refinement splits a mode's integer term; an F2 term ``c*v`` does not split so
    if fa.kind == "swizzle" or fb.kind == "swizzle":
        if fa.kind == fb.kind and fa.swizzle == fb.swizzle and decide.eq(fa.offset, fb.offset) is True:
            r = refine_compare(fa.shapes, fa.strides, fb.shapes, fb.strides)
            return "same swizzle + common-refinement (symbolic)" if r == ("equal",) else None
        return None
    ca, cb = _components(fa), _components(fb)
    for p in set(ca) | set(cb):
        r = refine_compare(fa.shapes, ca.get(p, [0] * len(fa.shapes)), fb.shapes, cb.get(p, [0] * len(fb.shapes)))
        if r != ("equal",):
            return None
    return "common-refinement (symbolic)"


# --- Z3 -------------------------------------------------------------------------------------------------

def _check(s):
    import z3
    r = s.check()
    if r == z3.sat:
        return "sat"
    if r == z3.unsat:
        return "unsat"
    return "unknown: " + str(s.reason_unknown())


def z3_collision_concrete(flat: Flat) -> R:
    import z3
    s = solver()
    ds = []
    for k, sh, d in flat.active():
        v = z3.Int(f"d{k}")
        s.add(v > -sh, v < sh)
        ds.append((k, v, d))
    s.add(z3.Sum([v * d for _, v, d in ds]) == 0 if ds else z3.BoolVal(False))
    s.add(z3.Or(*[v != 0 for _, v, _ in ds]) if ds else z3.BoolVal(False))
    r = _check(s)
    if r == "unsat":
        return R("proved", "z3")
    if r == "sat":
        m = s.model()
        x = [0] * len(flat.shapes)
        y = [0] * len(flat.shapes)
        for k, v, _ in ds:
            dv = model_int(m, v)
            if dv > 0:
                x[k] = dv
            else:
                y[k] = -dv
        return R("refuted", "z3", (flat.index(x), flat.index(y)))
    return R("unknown", "z3", reason=r)


def _model_assignment(m, env: SymEnv):
    return {k: model_int(m, v) for k, v in env.symbol_vars().items()}


def _solve_with_pow2(s, env, hyp):
    """``unsat`` only when no assignment satisfying the relaxed facts (pow2 symbols: positive, 1 or even)
    has a witness, so a proof holds for every power of two. A model that is not a power of two is retried
    with the pow2 symbols restricted to 2^0..2^POW2_MODEL_EXP: that can only find a real model (``sat``); its ``unsat``
    says nothing about larger powers and is reported as unknown."""
    import z3
    if hyp is not None and hyp.pow2:
        for name in hyp.pow2:
            v = env.env.get(name)
            if v is not None:
                s.add(z3.Or(v == 1, v % 2 == 0))
    r = _check(s)
    if r == "sat" and hyp is not None and hyp.pow2:
        values = _model_assignment(s.model(), env)
        if not hyp.holds(values):
            s.add(*pow2_constraint(env, hyp, max_exp=POW2_MODEL_EXP))
            r = _check(s)
            if r == "unsat":
                r = (f"unknown: no witness with the pow2 symbols in 2^0..2^{POW2_MODEL_EXP}; larger powers of two "
                     "not decided")
    return r


def z3_injective(f: Form, hyp) -> R:
    import z3
    if f.kind in F2_KINDS:
        raise Unsupported("symbolic layouts with F2 strides are decided only where their symbols are enumerated")
    env = SymEnv()
    s = solver()
    xs, _, cx, _ = coords("x", f.shapes, env)
    ys, _, cy, _ = coords("y", f.shapes, env)
    s.add(*cx, *cy)
    if f.kind == "coord":
        for p in f.paths():
            comp = f.component(p)[0]
            s.add(lin(xs, comp, env) == lin(ys, comp, env))
    else:
        s.add(lin(xs, f.strides, env) == lin(ys, f.strides, env))
    s.add(z3.Or(*[a != b for a, b in zip(xs, ys)]))
    s.add(*env.side)
    s.add(*facts(env, hyp))
    r = _solve_with_pow2(s, env, hyp)
    if r == "unsat":
        return R("proved", "z3")
    if r == "sat":
        return R("refuted", "z3", Counterexample("collision", assignment=_model_assignment(s.model(), env)))
    return R("unknown", "z3", reason=f"Z3 answered {r} (nonlinear in the symbols)")


def z3_equal(fa: Form, fb: Form, hyp) -> R:
    import z3
    if fa.kind in F2_KINDS or fb.kind in F2_KINDS:
        raise Unsupported("symbolic layouts with F2 strides are decided only where their symbols are enumerated")
    if fa.kind == "swizzle" or fb.kind == "swizzle":
        if fa.concrete and fb.concrete:
            return z3_equal_bv(fa, fb)
        raise Unsupported("symbolic swizzled layouts are compared only when their symbols range over finite sets")
    env = SymEnv()
    s = solver()
    xs, ix, cx, _ = coords("x", fa.shapes, env)
    ys, iy, cy, _ = coords("y", fb.shapes, env)
    s.add(*cx, *cy, ix == iy)
    ca, cb = _components(fa), _components(fb)
    diffs = []
    for p in set(ca) | set(cb):
        diffs.append(lin(xs, ca.get(p, [0] * len(xs)), env) != lin(ys, cb.get(p, [0] * len(ys)), env))
    s.add(z3.Or(*diffs))
    s.add(*env.side)
    s.add(*facts(env, hyp))
    r = _solve_with_pow2(s, env, hyp)
    if r == "unsat":
        return R("proved", "z3")
    if r == "sat":
        m = s.model()
        if fa.concrete and fb.concrete:
            flat = Flat(fa.shapes, fa.strides if fa.kind != "coord" else [0] * len(fa.shapes))
            return R("refuted", "z3", flat.index([model_int(m, x) for x in xs]))
        return R("refuted", "z3", Counterexample("differ", assignment=_model_assignment(m, env)))
    return R("unknown", "z3", reason=f"Z3 answered {r}")


def _bv_value(f: Form, x, width):
    """The form's value at index ``x`` as a bit-vector of ``width`` bits (wide enough that no term wraps).
    Valid for int forms (terms added), f2 forms (terms XORed) and swizzles over int forms; never mixed."""
    import z3
    if f.kind not in ("int", "f2", "swizzle"):
        raise Unsupported(f"no bit-vector encoding of a {f.kind} form")
    v = z3.BitVecVal(as_int(f.offset) if f.kind == "swizzle" else 0, width)
    rest = x
    n = len(f.shapes)
    for k, (s, d) in enumerate(zip(f.shapes, f.strides)):
        if k == n - 1:
            digit = rest
        else:
            digit = z3.URem(rest, z3.BitVecVal(s, width))
            rest = z3.UDiv(rest, z3.BitVecVal(s, width))
        if d != 0 and s != 1:
            term = digit * z3.BitVecVal(d, width)
            v = (v ^ term) if f.kind == "f2" else (v + term)
    if f.kind == "swizzle":
        sw = f.swizzle
        m = z3.BitVecVal(sw.yyy_mask, width)
        if sw.shift >= 0:
            v = v ^ z3.LShR(v & m, sw.shift)
        else:
            v = v ^ ((v & m) << (-sw.shift))
    return v


def _bv_width(forms):
    """Bits enough for the index and every intermediate value of these concrete forms (two's complement for
    negative integer strides, three spare bits)."""
    size = product(tuple(forms[0].shapes))
    bound = size
    for f in forms:
        if f.kind == "f2":
            bound = max([bound] + [(s - 1) * d for s, d in zip(f.shapes, f.strides)])
            continue
        lo, hi = Flat(f.shapes, f.strides, const=as_int(f.offset) if f.kind == "swizzle" else 0).value_range()
        bound = max(bound, abs(lo), abs(hi))
        if f.kind == "swizzle":
            bound = max(bound, f.swizzle.yyy_mask, f.swizzle.zzz_mask)
    return bound.bit_length() + 3


def z3_collision_bv(f: Form) -> R:
    """Two distinct indices with the same value, as a bit-vector query (concrete f2 or int forms)."""
    import z3
    size = product(tuple(f.shapes))
    width = _bv_width([f])
    x, y = z3.BitVec("x", width), z3.BitVec("y", width)
    s = solver()
    s.add(z3.ULT(x, z3.BitVecVal(size, width)), z3.ULT(y, z3.BitVecVal(size, width)), x != y)
    s.add(_bv_value(f, x, width) == _bv_value(f, y, width))
    r = _check(s)
    if r == "unsat":
        return R("proved", "z3-bitvector")
    if r == "sat":
        m = s.model()
        return R("refuted", "z3-bitvector", (model_int(m, x), model_int(m, y)))
    return R("unknown", "z3-bitvector", reason=r)


def z3_equal_bv(fa: Form, fb: Form) -> R:
    import z3
    if fa.kind not in ("int", "f2", "swizzle") or fb.kind not in ("int", "f2", "swizzle"):
        raise Unsupported(f"no bit-vector comparison of {fa.kind} and {fb.kind} forms")
    size = product(tuple(fa.shapes))
    width = _bv_width([fa, fb])
    x = z3.BitVec("x", width)
    s = solver()
    s.add(z3.ULT(x, z3.BitVecVal(size, width)))
    s.add(_bv_value(fa, x, width) != _bv_value(fb, x, width))
    r = _check(s)
    if r == "unsat":
        return R("proved", "z3-bitvector")
    if r == "sat":
        return R("refuted", "z3-bitvector", model_int(s.model(), x))
    return R("unknown", "z3-bitvector", reason=r)


__all__ = ["injective", "surjective", "equal", "sym_injective", "sym_surjective", "sym_equal", "z3_injective",
           "z3_equal", "refine_compare", "ENUM_LIMIT", "BUDGET"]
