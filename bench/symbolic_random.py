"""Random symbolic claims for bench/symbolic.py: layouts with 1-3 symbols under random assumptions
(divisibility, bounds, finite sets, pow2), each query's verdict checked against enumeration of sampled
assignments with an evaluator of its own (no library evaluation of the symbolic layout).

A case is ``(family, query, text, assume, extra)``; ``run_case`` times the prover and ``check_case`` compares
the verdict with brute force at sampled admissible assignments: a proof is wrong if one of them (satisfying
the assumptions and the verdict's hypotheses) is a counterexample; a refutation is wrong if its assignment is
not one.
"""
from __future__ import annotations

import itertools
import random
import re
import time

import cuteverify as cv
from cuteverify.symbolic import Assumptions, parse_expr
from cuteverify.symbolic.lazy import sympy

NAMES = ("M", "N", "K")
FAMILIES = ("compact", "padded", "broken", "swizzle", "tile", "equal")
QUERIES = {"compact": ("injective", "surjective", "bijective"), "padded": ("injective", "surjective", "bijective"),
           "broken": ("injective", "surjective", "bijective"), "swizzle": ("injective", "bijective"),
           "tile": ("disjoint",), "equal": ("equal",)}
MAX_SIZE = 1 << 14  # brute force only below this size


# --- assumptions ---------------------------------------------------------------------------------------

def rand_assumptions(rng, names):
    """Per symbol one or two facts; returns (facts, divisors {name: d}) so shapes may use ``X/d``."""
    facts, div = [], {}
    for n in names:
        kind = rng.choice(["div", "div", "bound", "finite", "pow2", "divbound", "none"])
        if kind in ("div", "divbound"):
            d = rng.choice([2, 4, 8, 16, 32, 64, 128])
            facts.append(rng.choice([f"{d} | {n}", f"{n} % {d} == 0"]))
            div[n] = d
            if kind == "divbound":
                facts.append(f"{n} >= {d * rng.choice([1, 2])}")
        elif kind == "bound":
            facts.append(f"{n} <= {rng.choice([4, 8, 16, 32])}")
            if rng.random() < 0.4:
                facts.append(f"{n} >= 2")
        elif kind == "finite":
            step = rng.choice([1, 2, 8, 16])
            k = rng.randint(2, 6)
            facts.append(f"{n} in {{{','.join(str(step * (i + 1)) for i in range(k))}}}")
            if step > 1:
                div[n] = step
        elif kind == "pow2":
            facts.append(f"pow2({n})")
    return facts, div


# --- layouts as (shapes, strides) text ---------------------------------------------------------------------

def _atom(rng, names, div):
    n = rng.choice(names)
    r = rng.random()
    if n in div and r < 0.3:
        return f"{n}/{rng.choice([d for d in (2, 4, 8) if div[n] % d == 0] or [div[n]])}"
    if r < 0.6:
        return n
    if r < 0.8:
        return f"{rng.choice([2, 4])}*{n}"
    return str(rng.choice([2, 4, 8]))


def _mul(a, b):
    if a == "1":
        return b
    if b == "1":
        return a
    return f"({a})*({b})" if not a.isdigit() or not b.isdigit() else str(int(a) * int(b))


def compact(rng, names, div, rank=None):
    """Shapes with every symbol used, strides compact in a random mode order: a bijection onto [0, size)."""
    rank = rank or rng.randint(2, 3)
    shapes = [_atom(rng, names, div) for _ in range(rank)]
    for i, n in enumerate(names):  # every symbol appears
        if not any(n in s for s in shapes):
            shapes[i % rank] = n
    order = list(range(rank))
    rng.shuffle(order)
    strides = [None] * rank
    cur = "1"
    for i in order:
        strides[i] = cur
        cur = _mul(cur, shapes[i])
    return shapes, strides, order


def text(shapes, strides):
    fmt = lambda xs: "(" + ",".join(xs) + ")"
    return f"{fmt(shapes)}:{fmt(strides)}"


def rand_case(rng):
    """A random case whose facts mention only symbols of its layouts (others are an input error)."""
    case = _rand_case(rng)
    used = " ".join([case[2], str(case[4])])
    facts = [f for f in case[3] if any(re.search(rf"\b{n}\b", used) and re.search(rf"\b{n}\b", f)
                                       for n in NAMES)]
    return case[:3] + (facts,) + case[4:]


def _rand_case(rng):
    family = rng.choice(FAMILIES)
    names = list(NAMES[:rng.randint(1, 3)])
    facts, div = rand_assumptions(rng, names)
    query = rng.choice(QUERIES[family])
    if family == "tile":
        a, b = rng.choice([(32, 8), (64, 16), (128, 64), (16, 16)])
        M, N = names[0], (names[1] if len(names) > 1 else names[0])
        # the tile's own divisibility facts replace the random ones on M and N (a random finite set could
        # contradict them); a random bound may stay on top
        facts = [f"{a} | {M}"] + ([f"{b} | {N}"] if N != M else [])
        if N == M:
            b = 1
        if rng.random() < 0.5:
            facts.append(f"{M} <= {a * rng.choice([2, 4, 8])}")
        lay = f"({a},{b}):(1,{M})"
        return family, query, lay, facts, {"cotarget": f"{M}*{N}" if N != M else f"{M}*{M}"}
    shapes, strides, order = compact(rng, names, div)
    if family == "padded":
        k = rng.randrange(len(strides))
        if strides[k] != "1" or rng.random() < 0.5:
            strides[k] = _mul(strides[k], rng.choice(["2", "3", names[0]]))
        else:
            strides[k] = "2"
    elif family == "broken":
        k = order[-1] if rng.random() < 0.7 else rng.randrange(len(strides))
        strides[k] = rng.choice(["1", "0", names[-1], "2"])
    if family == "swizzle":
        B, Mb, S = rng.choice([(3, 4, 3), (2, 4, 3), (1, 4, 3), (3, 3, 3), (2, 3, 3)])
        width = rng.choice(["64", "128", "32"])
        n = names[-1]
        lay = f"S<{B},{Mb},{S}> o 0 o (8,{width}*{n}):({width}*{n},1)"
        return family, query, lay, facts, {}
    lay = text(shapes, strides)
    if family == "equal":
        if rng.random() < 0.5:
            other = "coalesce"
        else:
            s2 = list(strides)
            i, j = rng.sample(range(len(s2)), 2)
            s2[i], s2[j] = s2[j], s2[i]
            other = text(shapes, s2)
        return family, query, lay, facts, {"other": other}
    return family, query, lay, facts, {}


# --- the brute-force evaluator -------------------------------------------------------------------------------

def _flat_parse(lay):
    """(swizzle (B,M,S) or None, [shape exprs], [stride exprs]) from the generator's text forms."""
    sw = None
    if lay.startswith("S<"):
        head, lay = lay.split(" o 0 o ")
        sw = tuple(int(x) for x in head[2:-1].split(","))
    sh, st = lay.split(":")
    return sw, _top_level(sh), _top_level(st)


def _top_level(t):
    """The entries of a flat tuple text ``(e0,e1,...)`` whose entries may hold parentheses."""
    body, parts, depth, cur = t[1:-1], [], 0, ""
    for ch in body:
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return [parse_expr(x) for x in parts + [cur]]


def _ints(exprs, values):
    out = []
    for e in exprs:
        v = sympy.sympify(e).subs({sympy.Symbol(k, integer=True, positive=True): x for k, x in values.items()})
        if not v.is_Integer:
            return None
        out.append(int(v))
    return out


def brute_values(lay, values):
    """Every value of the layout at an assignment (None: not a layout there, or too large)."""
    sw, sh, st = _flat_parse(lay)
    shapes, strides = _ints(sh, values), _ints(st, values)
    if shapes is None or strides is None or any(s < 1 for s in shapes):
        return None
    size = 1
    for s in shapes:
        size *= s
    if size > MAX_SIZE:
        return None
    out = []
    for digits in itertools.product(*[range(s) for s in reversed(shapes)]):
        x = sum(c * d for c, d in zip(reversed(digits), strides))
        if sw is not None:
            B, Mb, S = sw
            ymask = ((1 << B) - 1) << (Mb + S)
            x ^= (x & ymask) >> S
        out.append(x)
    return out


def truth(case, values):
    family, query, lay, facts, extra = case
    vals = brute_values(lay, values)
    if vals is None:
        return None
    if query == "injective":
        return len(set(vals)) == len(vals)
    if query == "surjective":
        return set(vals) == set(range(max(vals) + 1))
    if query == "bijective":
        return set(vals) == set(range(len(vals))) and len(set(vals)) == len(vals)
    if query == "equal":
        other = extra["other"]
        if other == "coalesce":
            return True  # coalesce keeps the function: the library's concrete coalesce is checked elsewhere
        ov = brute_values(other, values)
        return ov is not None and ov == vals
    if query == "disjoint":
        cot = _ints([parse_expr(extra["cotarget"])], values)[0]
        if cot > MAX_SIZE:
            return None
        A = cv.parse(lay.replace("M", str(values.get("M", 0))).replace("N", str(values.get("N", 0))))
        try:
            R = cv.complement(A, cot)
        except cv.CuteVerifyError:
            return None
        rv = [int(x) for x in R.values()]
        both = [a + b for b in rv for a in vals]  # (A, R) with A's modes first
        return sorted(both) == list(range(cot))
    raise ValueError(query)


def candidates(name, asm: Assumptions):
    if name in asm.finite:
        return list(asm.finite[name])
    return sorted(set(range(1, 17)) | {2 ** k for k in range(12)} | {d * k for d in (8, 16, 32, 64, 128)
                                                                    for k in range(1, 9)})


def sample_assignments(names, asm, rng, limit=40):
    pools = [candidates(n, asm) for n in names]
    combos = list(itertools.product(*pools))
    rng.shuffle(combos)
    out = []
    for c in combos:
        v = dict(zip(names, c))
        if asm.holds(v):
            out.append(v)
            if len(out) >= limit:
                break
    return out


def prove(case):
    family, query, lay, facts, extra = case
    a = cv.Assumptions(facts) if facts else None
    if query == "injective":
        return cv.is_injective(lay, assume=a)
    if query == "surjective":
        return cv.is_surjective(lay, assume=a)
    if query == "bijective":
        return cv.is_bijective(lay, assume=a)
    if query == "equal":
        A = cv.parse(lay, assume=a)
        B = cv.coalesce(A) if extra["other"] == "coalesce" else cv.parse(extra["other"], assume=a)
        return cv.are_equal(A, B)
    if query == "disjoint":
        return cv.complement_disjoint(lay, parse_expr(extra["cotarget"]), assume=a)
    raise ValueError(query)


def check_case(case, v, rng):
    """``"wrong: ..."`` when the verdict contradicts brute force at an admissible sampled assignment."""
    family, query, lay, facts, extra = case
    names = sorted({n for n in NAMES if n in lay or n in str(extra)})
    asm = Assumptions(facts)
    if v.status == "refuted":
        ce = v.counterexample
        values = dict(getattr(ce, "assignment", None) or {})
        if not values:
            return None  # a concrete-index witness on a symbolic claim: nothing to check here
        t = truth(case, values)
        return f"wrong: refuted at {values} but brute force says true" if t is True else None
    if v.status != "proved":
        return None
    hyps = [o.condition for o in v.obligations if hasattr(o.condition, "holds")]
    for values in sample_assignments(names, asm, rng):
        if any(c.holds(values) is False for c in hyps):
            continue
        if truth(case, values) is False:
            return f"wrong: proved but false at {values}"
    return None


def run_cases(n, seed=0, time_limit=None):
    """``[(family, query, status, seconds, wrong-or-None, reason, case, cpu seconds)]`` for ``n`` random
    cases (seconds: wall clock; cpu seconds: this process's CPU time, which other processes sharing the
    machine do not inflate)."""
    rng = random.Random(seed)
    check_rng = random.Random(seed + 1)
    out = []
    t_end = None if time_limit is None else time.perf_counter() + time_limit
    for _ in range(n):
        case = rand_case(rng)
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            v = prove(case)
        except cv.CuteVerifyError as e:  # a layout that does not exist under the assumptions
            out.append((case[0], case[1], "error", time.perf_counter() - t0, None, f"{type(e).__name__}: {e}", case,
                        time.process_time() - c0))
            continue
        dt, dc = time.perf_counter() - t0, time.process_time() - c0
        out.append((case[0], case[1], v.status, dt, check_case(case, v, check_rng), v.reason or "", case, dc))
        if t_end is not None and time.perf_counter() > t_end:
            break
    return out
