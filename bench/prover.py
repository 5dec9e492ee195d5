"""Prover benchmark: prints figures, asserts nothing.  ``python bench/prover.py``"""
import random
import statistics
import time

import cuteverify as cv
from cuteverify import ComposedLayout, Layout, Swizzle


def corpus(rng):
    out = []
    for n in (30, 34, 40):  # binary strides
        out.append(Layout(tuple([2] * n), tuple(1 << i for i in range(n))))
        p = list(range(n)); rng.shuffle(p)
        out.append(Layout(tuple([2] * n), tuple(1 << i for i in p)))
        out.append(Layout(tuple([2] * n), tuple(1 << min(i, n - 2) for i in range(n))))  # collision at the top
    for n in (16, 20):  # ternary strides
        out.append(Layout(tuple([3] * n), tuple(3 ** i for i in range(n))))
        out.append(Layout(tuple([4] + [3] * (n - 1)), tuple(3 ** i for i in range(n))))
        out.append(Layout(tuple([3] * (n - 1) + [4]), tuple(3 ** i for i in range(n))))
    for k in (20, 24, 30):  # near misses of size >= 2^40, collisions far apart
        out.append(Layout((1 << k, 1 << (40 - k), 3), (1, 1 << k, (1 << 40) - 1)))
        out.append(Layout((1 << k, 1 << (40 - k), 3), (1, 1 << k, 1 << 40)))
        out.append(Layout((1 << k, 1 << (41 - k)), (1, (1 << k) - 1)))
    for _ in range(200):  # random ranks up to 8
        r = rng.randint(1, 8)
        shapes = tuple(rng.choice([2, 3, 4, 5, 8, 16]) for _ in range(r))
        if rng.random() < 0.5:
            strides, cur = [], 1
            for s in shapes:
                strides.append(cur + rng.choice([0, 0, 1, -1]))
                cur *= s
            rng.shuffle(strides)
        else:
            strides = [rng.randint(0, 4096) for _ in shapes]
        out.append(Layout(shapes, tuple(strides)))
    for text in ("S<3,4,3> o 0 o (8,128):(128,1)", "S<2,4,3> o 0 o (8,64):(64,1)", "S<1,4,3> o 0 o (8,32):(32,1)",
                 "S<3,3,3> o 0 o (8,64):(64,1)", "S<3,3,3> o 0 o ((8,8),(64,4)):((64,512),(1,4096))",
                 "S<2,3,3> o 0 o (16,32):(32,1)", "S<3,4,3> o 0 o (64,(8,2)):(128,(1,8192))",
                 "S<3,3,3> o 0 o (8,64):(64,2)", "S<3,4,3> o 0 o (1024,1024):(1024,1)"):
        out.append(cv.parse(text))
    return out


def brute_injective(L):
    vals = L.values()
    return len(set(vals)) == len(vals)


def main():
    rng = random.Random(0)
    layouts = corpus(rng)
    cv.is_injective("(4,8):(1,4)")  # warm up imports
    times, decided, total = [], 0, 0
    for L in layouts:
        for q in (cv.is_injective, cv.is_bijective, cv.is_surjective):
            t = time.perf_counter()
            v = q(L)
            times.append((time.perf_counter() - t) * 1e3)
            total += 1
            decided += v.status != "unknown"
    times.sort()
    print(f"concrete corpus: {len(layouts)} layouts, {total} queries")
    print(f"  decided: {100.0 * decided / total:.1f}%  (goal 100%)")
    print(f"  median: {statistics.median(times):.3f} ms (goal <= 5)   p95: {times[int(0.95 * len(times))]:.3f} ms "
          f"(goal <= 50)   max: {times[-1]:.1f} ms")

    # speed-up vs brute force at size 2^20
    cases = [Layout((1024, 1024), (1, 1024)), Layout((1024, 1024), (1024, 1)), Layout((32, 32, 1024), (1, 33, 2048)),
             Layout((1 << 10, 1 << 10), (1, 1023)), cv.parse("S<3,4,3> o 0 o (1024,1024):(1024,1)")]
    ratios = []
    for L in cases:
        t = time.perf_counter(); bf = brute_injective(L); tb = time.perf_counter() - t
        t = time.perf_counter(); v = cv.is_injective(L); tp = time.perf_counter() - t
        assert (v.status == "proved") == bf or v.status == "unknown"
        ratios.append(tb / tp)
        print(f"  2^20 {str(L)[:50]:50s} brute {tb * 1e3:8.1f} ms  prover {tp * 1e3:7.3f} ms  x{tb / tp:,.0f}")
    print(f"speed-up vs enumeration at 2^20: median x{statistics.median(ratios):,.0f} (goal >= 100x)")

    # symbolic catalog
    import importlib.util, pathlib
    spec = importlib.util.spec_from_file_location("cat", pathlib.Path(__file__).parent.parent / "tests" /
                                                  "prover" / "test_prove_catalog.py")
    cat = importlib.util.module_from_spec(spec); spec.loader.exec_module(cat)
    for label, claims, goal in (("symbolic catalog", cat.TRUE_CLAIMS + cat.FALSE_CLAIMS, 100),
                                ("symbolic catalog with swizzles", cat.SWIZZLE_TRUE + cat.SWIZZLE_FALSE, 1000)):
        st, proved = [], 0
        for claim, bind, assume in claims:
            t = time.perf_counter()
            v = cv.prove(claim, assume=assume or None, **bind)
            st.append((time.perf_counter() - t) * 1e3)
            proved += v.status != "unknown"
        st.sort()
        print(f"{label}: {len(st)} claims, {proved} decided, median {statistics.median(st):.1f} ms "
              f"(goal <= {goal}), p95 {st[int(0.95 * len(st))]:.1f} ms, max {st[-1]:.1f} ms")


if __name__ == "__main__":
    main()
