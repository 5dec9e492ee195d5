"""Parameter sets for the cuTensorMapEncodeIm2col probe (probes/tma_im2col_encode.c): legal bases (NWC, NHWC,
NDHWC; 1-, 2- and 4-byte types; the swizzle modes) and, for each documented rule, the value just inside and
just outside its boundary, plus seeded random perturbations. Prints one case per line:

    id dtype rank addr_off dims[5] strides[4] lower[3] upper[3] channels pixels estr[5] interleave swizzle l2 oob

Deterministic (seeded); only the Python standard library.
"""
from __future__ import annotations

import random

U8, F16, F32, BF16 = 0, 6, 7, 9
BYTES = {U8: 1, F16: 2, F32: 4, BF16: 2}


def case(dtype, dims, lower, upper, channels, pixels, swizzle=0, estr=None, strides=None, addr=0, interleave=0,
         oob=0, l2=0, rank=None):
    if strides is None:
        strides, s = [], dims[0] * BYTES[dtype]
        for d in dims[1:]:
            strides.append(s)
            s *= d
    return {"dtype": dtype, "rank": len(dims) if rank is None else rank, "addr": addr, "dims": list(dims),
            "strides": list(strides), "lower": list(lower), "upper": list(upper), "channels": channels,
            "pixels": pixels, "estr": list(estr or [1] * len(dims)), "interleave": interleave, "swizzle": swizzle,
            "l2": l2, "oob": oob}


BASES = [
    case(BF16, (64, 56, 56, 8), (-1, -1), (-1, -1), 64, 128, swizzle=3),
    case(F16, (128, 32, 32, 4), (0, 0), (-2, -2), 32, 256, swizzle=2),
    case(F32, (32, 1024, 16), (-2,), (-2,), 8, 64, swizzle=1),
    case(U8, (128, 16, 16, 16, 2), (-1, -1, -1), (-1, -1, -1), 128, 64, swizzle=3),
    case(BF16, (16, 28, 28, 8), (-1, -1), (-1, -1), 16, 64),
]


def variants(b):
    r = b["rank"]
    n = r - 2
    lo, hi = {3: (-32768, 32767), 4: (-128, 127), 5: (-16, 15)}[r]
    out = []
    for v in (lo, lo - 1, hi, hi + 1):
        out.append(dict(b, lower=[v] + b["lower"][1:]))
        out.append(dict(b, upper=[v] + b["upper"][1:]))
    for ch in (1, 0, 256, 257, 8, 9, 16, 24, 72, 128, 136):
        out.append(dict(b, channels=ch))
        out.append(dict(b, channels=ch, swizzle=0))
    for px in (1, 0, 1024, 1025, 512, 2048):
        out.append(dict(b, pixels=px))
    # the bounding box: globalDim + upper - lower around 1
    w = b["dims"][1]
    for up in (-(w - 1), -w, -(w + 1)):
        out.append(dict(b, lower=[0] + b["lower"][1:], upper=[up] + b["upper"][1:]))
    out.append(dict(b, rank=r + 1 if r < 5 else 2))
    out.append(dict(b, lower=b["lower"][: n - 1] if n > 1 else b["lower"]))
    for e in (1, 2, 8, 9):
        out.append(dict(b, estr=[1] + [e] + [1] * (r - 2)))
        out.append(dict(b, estr=[e] + [1] * (r - 1)))
    for a in (16, 8):
        out.append(dict(b, addr=a))
    for pad in (16, 8):
        st = list(b["strides"])
        st[0] += pad
        out.append(dict(b, strides=st))
    for sw in range(4):
        out.append(dict(b, swizzle=sw))
    return out


def main():
    rnd = random.Random(16)
    cases = []
    for b in BASES:
        cases.append(b)
        cases += variants(b)
    for _ in range(300):  # random perturbations of several fields at once
        b = dict(rnd.choice(BASES))
        r = b["rank"]
        b["channels"] = rnd.choice((1, 8, 16, 32, 64, 128, 200, 256, 257))
        b["pixels"] = rnd.choice((1, 64, 256, 1000, 1024, 1025))
        b["swizzle"] = rnd.randrange(4)
        lim = {3: 40000, 4: 140, 5: 20}[r]
        b["lower"] = [rnd.randint(-lim, lim // 4) for _ in range(r - 2)]
        b["upper"] = [rnd.randint(-lim, lim // 4) for _ in range(r - 2)]
        cases.append(b)
    # the bytes one box loads (channels x pixels x element size) around 228 KiB, each way
    for dt, ch in ((F32, 64), (BF16, 128), (U8, 256)):  # 256 bytes per pixel
        b = case(dt, (256, 1024, 4), (-1,), (-1,), ch, 1, swizzle=0)
        for px in (912, 913, 1024):
            cases.append(dict(b, pixels=px))
    for i, c in enumerate(cases):
        pad = lambda xs, k: list(xs)[:k] + [0] * (k - len(list(xs)[:k]))  # noqa: E731
        dims = pad(c["dims"], 5)
        row = [i, c["dtype"], c["rank"], c["addr"], *dims, *pad(c["strides"], 4), *pad(c["lower"], 3),
               *pad(c["upper"], 3), c["channels"], c["pixels"], *pad(c["estr"], 5), c["interleave"], c["swizzle"],
               c["l2"], c["oob"]]
        print(" ".join(str(x) for x in row))


if __name__ == "__main__":
    main()
