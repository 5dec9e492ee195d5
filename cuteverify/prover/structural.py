"""Structural rules: proofs about symbolic layouts from the shape of their strides (docs/model.md section 9).

Every step is decided by ``cuteverify.decide`` under the hypotheses (a step it cannot decide makes the rule
give up, never assume). Valid for: ``int`` forms and ``coord`` forms (each coordinate an integer layout) and,
where a docstring says so, ``swizzle`` forms over an int inner form. Never for ``f2`` or ``mixed`` forms:
every rule here argues with the integer sum of the mode terms (the term of a larger stride outweighs the
smaller ones; a mode's term splits as ``c*d = c0*d + c1*(z*d)``), which XOR-combined F2 terms do not obey;
those rules return None (no proof) for them.
"""
from __future__ import annotations

import math

from ..algebra._op import exact_div
from ..core.tuples import flatten, product
from ..symbolic import decide, poly
from .forms import F2_KINDS, Form, as_int, components, path_of_index


def refine_compare(sa, da, sb, db):
    """Compare two flat integer layouts of the same size on a common refinement of their shapes.
    ``("equal",)``, ``("differ", index)`` (concrete only) or None (no common refinement / undecided).

    Splits a mode ``s:d`` into ``z:d`` and ``(s/z):(z*d)``, which is the same function only because the
    mode's term ``c*d`` is an integer added to the others: valid for integer strides (one coordinate of a
    coord form; the inner form of two swizzled layouts with the same swizzle and offset), never for F2
    strides (``c*^v`` does not split: ``3*^3 = ^9`` but ``^3 XOR 2*^3 = ^5``)."""
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


def _numeric_key(x):
    x = as_int(x)
    if type(x) is int:
        return x
    try:
        return float(x.subs({s: 64 for s in x.free_symbols}))
    except Exception:
        return 0.0


def _sym_modes(shapes, strides, injective=False):
    """Valid for integer strides only (reorders modes: integer addition commutes). The modes that matter,
    sorted by a numeric guess of their stride (the criteria below check every
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


def _decided_order(modes):
    """Repair the guessed order where the assumptions decide it (``128 | M`` puts ``128`` before ``M``,
    which the guess ``M = 64`` gets wrong): adjacent modes swap while the later stride is proved smaller
    than the earlier. Only the chance of finding a proof depends on the order, never its soundness."""
    changed, rounds = True, 0
    while changed and rounds < len(modes):
        changed, rounds = False, rounds + 1
        for i in range(len(modes) - 1):
            a, b = modes[i][1], modes[i + 1][1]
            if type(as_int(a)) is int and type(as_int(b)) is int:
                continue
            if decide.lt(b, a) is True:
                modes[i], modes[i + 1] = modes[i + 1], modes[i]
                changed = True
    return modes


def _sym_inj_modes(shapes, strides):
    modes = _sym_modes(shapes, strides, injective=True)
    if modes is None:
        return False
    # the guessed order first; where it fails, the order the assumptions decide (costs a comparison per pair)
    return _inj_sorted(modes) or (_symbolic(modes) and _inj_sorted(_decided_order(list(modes))))


def _coprime_injective(modes):
    """Injectivity by divisibility where strides do not dominate (``(M,K):(3,M)`` with ``pow2(M)``).

    1. Peel: a mode ``s:d`` (``d > 0``) whose ``s*d`` divides every other stride splits each value as
       ``d*(n + s*w)`` with ``0 <= n < s``, so the layout is injective iff the others, strides divided by
       ``s*d``, are.
    2. Two parts: a mode ``a:c`` with ``c`` an odd integer and the other modes a compact chain ``B:y``
       (strides ``y, y*b1, ...``, a bijection onto ``y*[0, B)``). With ``g = gcd(c, y)``, ``c*i == y*j``
       has a solution with ``0 < |i| < a``, ``|j| < B`` iff ``y/g < a`` and ``c/g < B``. ``g`` is known
       when ``y`` is an integer times powers of pow2 symbols: ``g = gcd(c, k)`` (``c`` is odd).
    Valid for int forms (integer sums of mode terms) only. Tried only under pow2 facts: without them the
    strides that sorted-strides leaves open are almost never coprime for every assignment."""
    if not _pow2_names():
        return False
    while len(modes) > 1:
        for i, (s, d) in enumerate(modes):
            if decide.lt(0, d) is not True:
                return False
            sd = s * d
            if all(decide.divides(sd, e) is True for j, (_, e) in enumerate(modes) if j != i):
                modes = [(t, exact_div(e, sd)) for j, (t, e) in enumerate(modes) if j != i]
                break
        else:
            break
    if len(modes) <= 1:
        return all(decide.lt(0, d) is True for _, d in modes)
    for i, (a, c) in enumerate(modes):
        c = as_int(c)
        if type(c) is not int or c % 2 == 0:
            continue
        rest = sorted((m for j, m in enumerate(modes) if j != i), key=lambda m: _numeric_key(m[1]))
        y, B = rest[0][1], 1
        for (t, e) in rest:
            if decide.eq(e, y * B) is not True:
                break
            B = B * t
        else:
            k = _pow2_monomial_coeff(y)
            if k is None:
                continue
            g = math.gcd(c, k)
            if decide.le(a, exact_div(y, g)) is True or decide.le(B, c // g) is True:
                return True
    return False


def _pow2_names():
    ctx = decide.current()
    return ctx.assumptions.pow2 if ctx is not None and ctx.assumptions is not None else set()


def _pow2_monomial_coeff(y):
    """``k`` when ``y`` is ``k`` times a product of powers of pow2 symbols (decision context's facts)."""
    pow2 = _pow2_names()
    p = poly.to_poly(as_int(y))
    if p is None or len(p) != 1:
        return None
    (m, k), = p.items()
    if k.denominator != 1 or k <= 0 or any(not a.is_Symbol or a.name not in pow2 for a, _ in m):
        return None
    return int(k)


def _symbolic(modes):
    return any(type(as_int(d)) is not int for _, d in modes)


def _inj_sorted(modes):
    reach = 0
    for s, d in modes:
        if decide.lt(reach, d) is not True:
            return False
        reach = reach + (s - 1) * d
    return True


def sym_injective(f: Form):
    """Sorted strides: every sorted stride exceeds the reach of the smaller modes. Valid for int forms, each
    coordinate of a coord form, and swizzles over an int form (a swizzle is a bijection); None otherwise."""
    if f.kind in F2_KINDS:
        return None  # sorted strides argue with integer sums; XOR-combined terms are not covered
    if f.kind in ("int", "swizzle"):
        if _sym_inj_modes(f.shapes, f.strides):
            return "sorted-strides (symbolic)" if f.kind == "int" else "swizzle-bijection + sorted-strides (symbolic)"
        modes = _sym_modes(f.shapes, f.strides, injective=True)
        if modes and _symbolic(modes) and _coprime_injective(list(modes)):
            return "peeled modes + coprime strides (symbolic)" if f.kind == "int" else \
                "swizzle-bijection + peeled modes + coprime strides (symbolic)"
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
    reach = _chain_sorted(modes)
    if reach is None and _symbolic(modes):
        reach = _chain_sorted(_decided_order(list(modes)))
    return reach


def _chain_sorted(modes):
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
    coordinate's size) is proved inside the image for every admissible assignment, else None. Interval
    chains: valid for int forms, each coordinate of a coord form, and swizzles over an int form with offset
    0 whose image is a union of swizzle blocks; None for f2 / mixed forms."""
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
    if reach is None or decide.divides(swizzle_block(f.swizzle), reach + 1) is not True:
        return None
    if n is None or decide.le(n, reach + 1) is True:
        return "swizzle-bijection + interval-chain (symbolic)"
    return None


def swizzle_block(sw) -> int:
    """The smallest power of two ``B`` such that the swizzle permutes every aligned block ``[kB, (k+1)B)``:
    it changes only its ZZZ bits (XORing in the YYY bits, which it leaves alone), so every bit above the
    highest ZZZ bit is kept, and ``[0, n)`` is mapped onto itself whenever ``B | n``."""
    return 1 << sw.zzz_mask.bit_length()


def sym_equal(fa: Form, fb: Form):
    """Common refinement (``refine_compare``) per coordinate: valid for int and coord forms, and for two
    swizzled layouts with the same swizzle and offset (compared on their inner forms); None otherwise."""
    if fa.kind in F2_KINDS or fb.kind in F2_KINDS:
        return None  # common refinement splits a mode's integer term; an F2 term ``c*v`` does not split so
    if fa.kind == "swizzle" or fb.kind == "swizzle":
        if fa.kind == fb.kind and fa.swizzle == fb.swizzle and decide.eq(fa.offset, fb.offset) is True:
            r = refine_compare(fa.shapes, fa.strides, fb.shapes, fb.strides)
            return "same swizzle + common-refinement (symbolic)" if r == ("equal",) else None
        return None
    ca, cb = components(fa), components(fb)
    for p in set(ca) | set(cb):
        r = refine_compare(fa.shapes, ca.get(p, [0] * len(fa.shapes)), fb.shapes, cb.get(p, [0] * len(fb.shapes)))
        if r != ("equal",):
            return None
    return "common-refinement (symbolic)"


__all__ = ["refine_compare", "sym_injective", "sym_surjective", "sym_equal", "coord_codomain", "swizzle_block"]
