"""The cp.async access patterns measured by cp_async_rows.cu (issue 25): one warp, one ``cp.async`` of W bytes
per lane from global byte offset g(lane) to shared byte offset s(lane). The CPU test reads the offsets back from
the evidence records, so what was measured and what is checked cannot drift apart.

A phase is the 128 bytes of shared memory one conflict-free pass writes: 8 lanes of 16 bytes, 16 of 8, 32 of 4.
Global side, per phase p and lane j of the phase (n lanes per phase), rows 4096 bytes apart unless "adjacent":

* ``rows{R}``: R distinct 128-byte rows per phase, lanes blocked (lane j in row j // (n/R), contiguous in it);
* ``inter{R}``: R rows, lanes interleaved (lane j in row j % R);
* ``adj{R}``: as rows{R} with the rows adjacent 128-byte lines (stride 128 bytes);
* ``bcast``: every lane of a phase reads the same W bytes;
* ``mis``: the phase's 128 contiguous bytes start 64 bytes into a line (two lines);
* ``xph{R}``: as rows{R} but every phase reads the same rows (lanes j of all phases read the same bytes).

Shared side: ``d{k}``: the lanes of a phase in k groups (blocked, ``d{k}i``: interleaved) 1024 bytes apart, so
the phase has k words per bank (a k-way conflict); ``d1`` is conflict-free.
"""

ROW = 4096
SMEM = 32768


def gmem(w, kind, r=1):
    n = 128 // w
    out = []
    for lane in range(32):
        p, j = divmod(lane, n)
        if kind == "rows":
            off = (p * r + j // (n // r)) * ROW + (j % (n // r)) * w
        elif kind == "inter":
            off = (p * r + j % r) * ROW + (j // r) * w
        elif kind == "adj":
            off = (p * r + j // (n // r)) * 128 + (j % (n // r)) * w
        elif kind == "bcast":
            off = p * ROW
        elif kind == "mis":
            off = p * ROW + 64 + j * w
        elif kind == "xph":
            off = (j // (n // r)) * ROW + (j % (n // r)) * w
        else:
            raise ValueError(kind)
        out.append(off)
    return out


def smem(w, d=1, interleaved=False):
    n = 128 // w
    ps = SMEM // (32 // n)
    out = []
    for lane in range(32):
        p, j = divmod(lane, n)
        g, pos = (j % d, j // d) if interleaved else (j // (n // d), j % (n // d))
        out.append(p * ps + g * 1024 + pos * w)
    return out


def _g(kind, r):
    return kind + (str(r) if kind in ("rows", "inter", "adj", "xph") else "")


def patterns():
    """(name, width, cache, reps, gmem offsets, smem offsets) of every measured configuration."""
    out = []

    def add(w, cache, kind, r, d, inter=False, reps=1):
        name = f"{cache}{w}_{_g(kind, r)}_d{d}{'i' if inter else ''}" + (f"_x{reps}" if reps > 1 else "")
        out.append((name, w, cache, reps, gmem(w, kind, r), smem(w, d, inter)))

    for cache in ("ca", "cg"):
        w = 16
        for kind, r in [("rows", 1), ("rows", 2), ("rows", 4), ("rows", 8), ("inter", 2), ("inter", 4),
                        ("adj", 2), ("adj", 8), ("bcast", 1), ("mis", 1), ("xph", 1), ("xph", 8)]:
            add(w, cache, kind, r, 1)
        for kind, r in [("rows", 1), ("rows", 2), ("rows", 4), ("rows", 8), ("inter", 2), ("inter", 4)]:
            for d, inter in [(2, False), (2, True), (4, False), (8, False)]:
                add(w, cache, kind, r, d, inter)
        for r in (1, 8):
            add(w, cache, "rows", r, 1, reps=2)
    for w in (8, 4):
        n = 128 // w
        for kind, r in [("rows", 1), ("rows", 2), ("rows", 4), ("rows", 8), ("rows", n), ("inter", 2),
                        ("adj", 2), ("bcast", 1), ("mis", 1)]:
            add(w, "ca", kind, r, 1)
        for r in (1, 2, n):
            for d in (2, n):
                add(w, "ca", "rows", r, d)
        for r in (1, n):
            add(w, "ca", "rows", r, 1, reps=2)
    return out


if __name__ == "__main__":
    import sys
    # one line per pattern for cp_async_rows.cu: name W cache reps g0..g31 s0..s31; argv[1] filters by prefix
    pre = sys.argv[1] if len(sys.argv) > 1 else ""
    for name, w, cache, reps, g, s in patterns():
        if name.startswith(pre):
            print(name, w, cache, reps, *g, *s)
