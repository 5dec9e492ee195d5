"""Parameter sets for the cuTensorMapEncodeTiled probe (probes/tma_encode.c): legal bases and, for each
driver rule, the value just inside and just outside its boundary, plus seeded random perturbations.

Prints one case per line in the probe's input format (whitespace-separated integers):

    id dtype rank addr_off dims[5] strides[4] box[5] estr[5] interleave swizzle l2 oob

``addr_off`` is added to a 1024-byte aligned device allocation; ``strides`` are in bytes (rank - 1 used);
unused slots are 0. Deterministic (seeded), so the evidence file can be regenerated case for case.
Needs only the Python standard library (it runs on the device machine before the probe).
"""
from __future__ import annotations

import random

U8, U16, U32, I32, U64, I64, F16, F32, F64, BF16, F32FTZ, TF32, TF32FTZ, P4A8, P4A16, P6A16 = range(16)
BYTES = {U8: 1, U16: 2, U32: 4, I32: 4, U64: 8, I64: 8, F16: 2, F32: 4, F64: 8, BF16: 2, F32FTZ: 4, TF32: 4,
         TF32FTZ: 4}
IL_NONE, IL_16B, IL_32B = 0, 1, 2
SW_NONE, SW_32, SW_64, SW_128, SW_A32, SW_A32F, SW_A64 = range(7)


def case(dtype, dims, strides, box, estr=None, interleave=0, swizzle=0, l2=0, oob=0, addr=0, rank=None):
    rank = len(dims) if rank is None else rank
    return {"dtype": dtype, "rank": rank, "addr": addr, "dims": list(dims), "strides": list(strides),
            "box": list(box), "estr": list(estr or [1] * len(dims)), "interleave": interleave,
            "swizzle": swizzle, "l2": l2, "oob": oob}


def packed_strides(dims, nbytes, pad=0):
    """Byte strides of a packed tensor (the innermost contiguous) with ``pad`` bytes added to the first."""
    out, s = [], dims[0] * nbytes + pad
    for d in dims[1:]:
        out.append(s)
        s *= d
    return out


BASES = [
    case(F16, (4096, 4096), (8192,), (64, 128), swizzle=SW_128, l2=2),
    case(BF16, (64, 8192), (128,), (64, 256), swizzle=SW_128),
    case(F32, (256, 64, 8), (1024, 65536), (32, 8, 2), swizzle=SW_128),
    case(U8, (1 << 20,), (), (256,)),
    case(F16, (128, 128), (256,), (16, 16), swizzle=SW_32),
    case(F32, (64, 64), (256,), (16, 64), swizzle=SW_64),
    case(F64, (32, 32, 4, 4, 2), packed_strides((32, 32, 4, 4, 2), 8), (16, 4, 2, 2, 2)),
    case(F16, (16, 64, 64), (32, 2048), (16, 8, 8), interleave=IL_32B, swizzle=SW_32, addr=32),
    case(F16, (8, 64, 64), (16, 1024), (8, 8, 8), interleave=IL_16B),
    case(I32, (64, 64), (256,), (4, 64)),
]


def boundary_cases():
    """For each rule: the base with one field set just inside and just outside the rule's boundary."""
    out = []
    b0 = BASES[0]

    def v(base=b0, **kw):
        c = {k: (list(x) if isinstance(x, list) else x) for k, x in base.items()}
        c.update(kw)
        out.append(c)

    for c in BASES:
        out.append(dict(c))
    # rank
    for r in (0, 6):
        v(rank=r)
    v(case(F16, (8, 8), (16,), (8, 8), interleave=IL_16B))          # rank 2 with interleave
    v(case(F16, (16, 8), (32,), (16, 8), interleave=IL_32B, swizzle=SW_32, addr=32))
    # global address
    for a in (0, 1, 2, 4, 8, 16, 32, 48, 1008):
        v(addr=a)
    for a in (16, 32, 48, 64):
        v(BASES[7], addr=a)
        v(BASES[8], addr=a)
    # global dims
    for d0 in (0, 1, 8, (1 << 32) - 8, 1 << 32, (1 << 32) + 8):
        v(dims=[d0, 4096])
    for d1 in (0, 1, (1 << 32) - 1, 1 << 32, (1 << 32) + 1):
        v(dims=[4096, d1])
    # global strides
    for s in (0, 8, 16, 24, 32, 48, 4096, 8184, 8192, 8200, 8208, (1 << 40) - 16, 1 << 40, (1 << 40) + 16):
        v(strides=[s])
    for s in (16, 32, 48, 64, 2048, 2064):
        v(BASES[7], strides=[32, s])
        v(BASES[7], strides=[s, 2048])
    for s in (8, 16, 24, 32):
        v(BASES[8], strides=[s, 1024])
    v(BASES[2], strides=[1024, 1024])                 # outer stride smaller than dims[1]*stride[0]
    v(BASES[2], strides=[1024, 1008])
    v(BASES[2], strides=[65536, 1024])                # strides not increasing
    # box dims
    for bx in (0, 1, 8, 16, 255, 256, 257, 512):
        v(box=[64, bx])
    for bx in (0, 4, 8, 16, 24, 56, 64, 72, 128):
        v(box=[bx, 128], swizzle=SW_NONE)
    for bx in (8, 16, 24, 32, 40, 64, 128, 256):
        v(box=[bx, 128], swizzle=SW_NONE, dtype=U8)
    for sw, span in ((SW_32, 32), (SW_64, 64), (SW_128, 128), (SW_A32, 128), (SW_A32F, 128), (SW_A64, 128)):
        for nb in (16, span - 16, span, span + 16, 2 * span):
            v(box=[nb // 2, 64], swizzle=sw)
    for bx in (128, 192, 256, 257):
        v(BASES[3], box=[bx])
    v(BASES[3], box=[256], dtype=U8, dims=[1 << 20])
    v(case(F32, (1 << 16,), (), (256,)))                      # 1024-byte inner box, swizzle NONE
    v(case(F64, (1 << 16, 4), (1 << 19,), (256, 256)))      # large box in bytes
    v(case(F16, (32, 32), (64,), (64, 64), swizzle=SW_128))  # box larger than the tensor
    v(case(F16, (8, 8), (16,), (8, 256)))
    # element strides
    for e in (0, 1, 2, 7, 8, 9):
        v(estr=[1, e])
        v(estr=[e, 1])
    for e in (0, 1, 2, 8, 9):
        v(BASES[8], estr=[e, 1, 1])
        v(BASES[8], estr=[1, 1, e])
    v(box=[64, 100], estr=[1, 3])                               # box not a multiple of the element stride
    # interleave / swizzle
    for sw in range(7):
        v(BASES[7], swizzle=sw)
        v(BASES[8], swizzle=sw)
    for il in (0, 1, 2, 3):
        v(BASES[2], interleave=il, addr=32, strides=[1024, 65536])
    for bx in (4, 8, 16, 32, 64):
        v(BASES[8], box=[bx, 8, 8], dims=[max(bx, 8), 64, 64])
        v(BASES[7], box=[bx, 8, 8], dims=[max(bx, 16), 64, 64])
    for d0 in (4, 8, 16, 24, 32):
        v(BASES[8], dims=[d0, 64, 64])
        v(BASES[7], dims=[d0, 64, 64], box=[min(d0, 16), 8, 8])
    for sw in (SW_32, SW_64, SW_128):
        for bx in (8, 16, 32, 64, 128):
            v(BASES[8], box=[bx, 8, 8], dims=[128, 64, 64], strides=[256, 16384], swizzle=sw)
    # enums
    for sw in (7, 8):
        v(swizzle=sw)
    for l2 in (0, 1, 2, 3, 4):
        v(l2=l2)
    for il in (3, 4):
        v(interleave=il)
    for dt in range(17):
        nb = BYTES.get(dt, 1)
        v(dtype=dt, box=[max(16 // nb, 128 // nb if dt < 13 else 128), 64], swizzle=SW_128 if dt < 13 else SW_NONE,
          dims=[4096, 4096], strides=[8192])
    # OOB fill
    for dt in range(16):
        nb = BYTES.get(dt, 1)
        v(dtype=dt, oob=1, box=[64 // nb if dt < 13 else 128, 64], swizzle=SW_NONE)
    v(oob=2)
    # packed types (sub-byte): dims/box/alignment rules
    for dt in (P4A8, P4A16, P6A16):
        for d0, bx, addr, s, sw in ((128, 128, 0, 64, SW_NONE), (256, 128, 32, 128, SW_NONE), (130, 128, 0, 64, 0),
                                    (128, 64, 0, 64, 0), (128, 128, 16, 64, 0), (128, 128, 0, 48, 0),
                                    (2, 32, 0, 16, 0), (128, 128, 0, 64, SW_128), (128, 128, 0, 64, SW_32),
                                    (128, 128, 0, 64, SW_A32), (128, 128, 0, 64, SW_A64)):
            v(dtype=dt, dims=[d0, 64], box=[bx, 8], addr=addr, strides=[s], swizzle=sw)
        v(dtype=dt, dims=[128, 64, 64], box=[128, 8, 8], strides=[64, 4096], interleave=IL_16B)
    return out


def _perturb(c, rng):
    k = rng.choice(["addr", "dims", "strides", "box", "estr", "interleave", "swizzle", "oob", "dtype"])
    c = {key: (list(x) if isinstance(x, list) else x) for key, x in c.items()}
    r = c["rank"]
    if k == "addr":
        c["addr"] = rng.choice([0, 8, 16, 24, 32, 64])
    elif k == "dims":
        i = rng.randrange(r)
        c["dims"][i] = rng.choice([0, 1, 7, 64, 1000, (1 << 32), (1 << 32) + 1])
    elif k == "strides" and r > 1:
        i = rng.randrange(r - 1)
        c["strides"][i] = max(0, c["strides"][i] + rng.choice([-16, -8, 8, 16, 32, 1 << 40]))
    elif k == "box":
        i = rng.randrange(r)
        c["box"][i] = rng.choice([1, 2, 8, 16, 24, 32, 48, 64, 96, 128, 256, 257])
    elif k == "estr":
        i = rng.randrange(r)
        c["estr"][i] = rng.choice([0, 1, 2, 4, 8, 9])
    elif k == "interleave":
        c["interleave"] = rng.choice([0, 1, 2])
    elif k == "swizzle":
        c["swizzle"] = rng.randrange(7)
    elif k == "oob":
        c["oob"] = 1 - c["oob"]
    else:
        c["dtype"] = rng.randrange(13)
    return c


def random_cases(n=300, seed=16):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        c = rng.choice(BASES)
        for _ in range(rng.choice((1, 1, 2))):
            c = _perturb(c, rng)
        out.append(c)
    return out


def limit_cases():
    """Second round: the limits the first round left open (the total box size, the inner box of
    interleaved layouts) and the rules the sm_90 driver did not enforce as documented."""
    out = []
    for dt, nb in ((U8, 1), (F16, 2), (F32, 4), (F64, 8)):
        for b0 in (16 // nb * 4, 128 // nb, 256 // nb * 2, 256):
            for b1 in (1, 64, 128, 256):
                for b2 in (1, 2, 4):
                    d0 = 4096
                    out.append(case(dt, (d0, 256, 8), (d0 * nb, d0 * nb * 256), (b0, b1, b2)))
    for il in (IL_16B, IL_32B):
        for dt, nb in ((U8, 1), (F16, 2), (F32, 4)):
            for nbytes in (8, 16, 24, 32, 40, 48, 64, 96, 128, 256, 512, 1024):
                if nbytes % nb:
                    continue
                for sw in (SW_NONE, SW_32, SW_128):
                    out.append(case(dt, (256, 64, 64), (512, 32768), (nbytes // nb, 8, 8), interleave=il,
                                    swizzle=sw, addr=32))
    for b0, es0 in ((16, 3), (24, 2), (64, 8), (8, 8)):
        out.append(case(F16, (4096, 64), (8192,), (b0, 64), (es0, 1)))
    for s in (16, 32, 48, 64, 96):
        out.append(case(F16, (256, 64, 64), (512, s * 1024), (16, 8, 8), interleave=IL_32B, swizzle=SW_32, addr=32))
    return out


def box_size_cases():
    """Third round: where between 128 KiB (accepted) and 256 KiB (refused) the total box size stops, and
    whether element strides, the element type, swizzle or interleave move that limit."""
    out = []
    for dt, nb in ((U8, 1), (F16, 2), (F32, 4)):
        for b1 in range(128, 257, 4):
            out.append(case(dt, (4096, 256, 8), (4096 * nb, 4096 * nb * 256), (256 // nb, b1, 4)))
    for b1 in range(128, 257, 8):
        out.append(case(F16, (4096, 256, 16), (8192, 8192 * 256), (64, b1, 8), swizzle=SW_128))
        out.append(case(F16, (8, 256, 256), (16, 4096), (8, b1, 128), interleave=IL_16B))
    for es in ((1, 2, 1), (1, 1, 2), (1, 8, 8), (2, 1, 1), (8, 1, 1)):
        out.append(case(U8, (4096, 256, 8), (4096, 4096 * 256), (256, 256, 4), es))
        out.append(case(U8, (4096, 256, 8), (4096, 4096 * 256), (256, 256, 2), es))
    return out


def line(i, c):
    pad = lambda xs, n: list(xs)[:n] + [0] * (n - len(list(xs)[:n]))  # noqa: E731
    fields = [i, c["dtype"], c["rank"], c["addr"], *pad(c["dims"], 5), *pad(c["strides"], 4), *pad(c["box"], 5),
              *pad(c["estr"], 5), c["interleave"], c["swizzle"], c["l2"], c["oob"]]
    return " ".join(str(x) for x in fields)


def all_cases():
    return boundary_cases() + random_cases()


if __name__ == "__main__":
    import sys
    rnd = int(sys.argv[2]) if sys.argv[1:2] == ["--round"] else 1
    cases = {1: all_cases, 2: limit_cases, 3: box_size_cases}[rnd]()
    first = (rnd - 1) * 10000
    for i, c in enumerate(cases, first):
        print(line(i, c))
