"""Vector width of a symbolic TV layout by divisibility (docs/model.md section 7; issue 19).

``banks.max_vector_width`` enumerates finite assumption sets; a symbol with infinitely many values (a leading
dimension ``L`` with ``L % 8 == 0``) is decided here instead. An access of ``n`` elements per vector works at
every admissible assignment when

* the value mode's size is a multiple of ``n``;
* its first ``n`` values are contiguous: walking the value modes in order, each stride equals the product of
  the sizes before it until ``n`` is used up (a mode of which only a factor is used contributes its first
  ``n / so_far`` digits: the rest of it has stride ``n``);
* every other stride (the rest of the value mode and the thread mode) is a multiple of ``n``, so that every
  vector starts at an element offset that is a multiple of ``n`` (byte-aligned to the width).

Each step is decided by ``symbolic.decide`` under the layout's assumptions; a step it cannot decide makes that
width unproved (never assumed). The widest proved width is exact only where the next one fails at some
admissible assignment: that one is looked for among small assignments (``witness_values``).
"""
from __future__ import annotations

import itertools

import time

from ...core.tuples import flatten, product
from ...symbolic import decide, domain
from ...symbolic.lazy import sympy
from .model import widest_vector, vector_problem, access_offsets
from .verdict import VectorBreak, VectorVerdict

_SAMPLE = (1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256)


def width_ok(thread, value, n):
    """True when ``n``-element vectors work for every assignment (decided under the current context), else
    False (not proved). ``thread``/``value``: flat ``(shapes, strides)`` of the two modes."""
    if n == 1:
        return True
    vs, vd = value
    if decide.divides(n, product(tuple(vs))) is not True:
        return False
    rest = list(zip(*thread)) if thread[0] else []
    need, expect = n, 1
    for k, (s, d) in enumerate(zip(vs, vd)):
        if need == 1:
            rest += list(zip(vs[k:], vd[k:]))
            break
        if decide.is_one(s) is True:
            continue
        if decide.eq(d, expect) is not True:
            return False
        if decide.divides(need, s) is True:  # the mode's first ``need`` digits finish the vector
            need = 1
        elif decide.divides(s, need) is True:
            need, expect = need // s if type(s) is int else decide_div(need, s), expect * s
        else:
            return False
    if need != 1:
        return False
    for s, d in rest:
        if decide.is_one(s) is True or decide.is_zero(d) is True:
            continue
        if decide.divides(n, d) is not True:
            return False
    return True


def decide_div(a, b):
    """``a / b`` for a proved divisor ``b`` of the int ``a`` (a symbolic ``b`` dividing an int is small)."""
    q = sympy.sympify(a) / b
    return int(q) if q.is_Integer else q


def widest_proved(L, eb, alignment):
    """The widest width in bytes proved for every assignment (``eb`` at least), under ``L``'s assumptions."""
    thread = (list(flatten(L.shape[0])), list(flatten(L.stride[0])))
    value = (list(flatten(L.shape[1])), list(flatten(L.stride[1])))
    best = eb
    with decide.context(L.assumptions):
        w = 2 * eb
        while w <= min(16, alignment):
            if not width_ok(thread, value, w // eb):
                break
            best, w = w, 2 * w
    return best


def witness_values(L, limit=400):
    """Small admissible assignments of ``L``'s symbols (finite and bounded ones from their domains)."""
    asm = L.assumptions
    names = sorted(s.name for s in L.free_symbols())
    pools = []
    for n in names:
        dom = domain(asm, n) if asm is not None else None
        pools.append(list(dom)[:24] if dom is not None else list(_SAMPLE))
    for k, combo in enumerate(itertools.product(*pools)):
        if k >= limit:
            return
        values = dict(zip(names, combo))
        if asm is None or asm.holds(values):
            yield values


def symbolic_verdict(L, eb, alignment, require, claim, name, t0=None):
    """The ``VectorVerdict`` of a symbolic TV layout ``L`` (no smem) by divisibility, or None (unknown stays):
    ``require`` proved where the widest proved width reaches it; the widest width proved exact where the next
    width fails at a small admissible assignment (refuting ``require`` there when it is wider)."""
    t0 = time.perf_counter() if t0 is None else t0
    w = widest_proved(L, eb, alignment)
    method = "divisibility (symbolic, every assignment)"
    if require is not None and w >= require:
        return VectorVerdict("proved", claim=claim, method=method, width=w, elems=w // eb, elem_bytes=eb,
                             elapsed=time.perf_counter() - t0)
    top = w * 2 > min(16, alignment)
    hit = None if top else _witness(L, eb, alignment, 2 * w)
    if hit is None and not top:
        return None
    blocker = None
    if hit is not None:
        a, off, blk = hit
        if blk is not None and blk[1] is not None:
            blocker = VectorBreak.at(blk[0], blk[1], assignment=a)
        method += f" + a narrower assignment {a}"
        if require is not None:
            p = vector_problem(off, eb, require, alignment)
            cex = VectorBreak.at(require, p, assignment=a) if p else blocker
            return VectorVerdict("refuted", claim=claim, method=method, counterexample=cex, width=w,
                                 elems=w // eb, blocker=blocker, elem_bytes=eb, reason=f"widest is {w} bytes at {a}",
                                 elapsed=time.perf_counter() - t0)
    claim = f"widest vector access is {w} bytes ({w // eb} x {name}): {claim[len('widest vector access of '):]}"
    return VectorVerdict("proved", claim=claim, method=method, width=w, elems=w // eb, blocker=blocker,
                         elem_bytes=eb, elapsed=time.perf_counter() - t0)


def _witness(L, eb, alignment, width):
    """``(assignment, offsets, blocker)`` of a small admissible assignment where ``width`` fails, or None."""
    for values in witness_values(L):
        try:
            Lc = L.subs(values)
            _, off = access_offsets(None, Lc)
        except Exception:  # noqa: BLE001 (an assignment where the layout does not exist: skipped)
            continue
        wc, blk = widest_vector(off, eb, alignment)
        if wc < width:
            return values, off, blk
    return None


__all__ = ["width_ok", "widest_proved", "witness_values", "symbolic_verdict"]
