"""Atom-layer speed (issue 15's figure): building a 128- or 256-thread tiled MMA with its A/B/C tiled copies and
proving it: agreement of the three tiled TV layouts with the hardware (``agrees_tiled``, atom by atom from the
PTX formulas), coverage of the three operand tiles, compatibility of each copy's register side with the MMA
fragment.

Prints the median wall time per configuration over --repeat fresh builds (nothing but the parsed spec layouts
is reused between repetitions: each builds new atoms, tiled MMAs and copies), and the median process CPU time
(the figure to read on a loaded machine). Goal: <= 20 ms per configuration. Asserts nothing beyond each
proof's verdict.

    python bench/atoms.py [--repeat 15]
"""
from __future__ import annotations

import argparse
import statistics
import time

import cuteverify.atoms as at

# (label, mma atom, atom layout, permutation, (A copy, B copy, C copy), (A/B dtype, C dtype))
CONFIGS = [
    ("sgemm_sm80 128t", "SM80_16x8x16_F32F16F16F32_TN", (2, 2, 1), (32, 32, 16),
     ("SM75_U32x4_LDSM_N", "SM75_U32x2_LDSM_N", "UniversalCopy<uint64_t>"), ("f16", "f32")),
    ("sm80 128t perm-layout", "SM80_16x8x16_F32F16F16F32_TN", (2, 2, 1), (32, "(8,2,2):(1,16,8)", 16),
     ("SM75_U32x4_LDSM_N", "SM75_U16x4_LDSM_T", "UniversalCopy<uint32_t>"), ("f16", "f32")),
    ("sm80 256t 4x2", "SM80_16x8x16_F32BF16BF16F32_TN", (4, 2, 1), (64, 32, 16),
     ("SM75_U32x4_LDSM_N", "SM75_U32x2_LDSM_N", "UniversalCopy<uint64_t>"), ("bf16", "f32")),
    ("sm80 256t 2x4 f16acc", "SM80_16x8x16_F16F16F16F16_TN", (2, 4, 1), (32, 64, 16),
     ("SM75_U32x4_LDSM_N", "SM75_U32x2_LDSM_N", "SM90_U32x4_STSM_N"), ("f16", "f16")),
    ("wgmma RS 128t 64x128", "SM90_64x128x16_F32F16F16_RS", (1, 1, 1), None,
     ("SM75_U32x4_LDSM_N", None, "UniversalCopy<uint64_t>"), ("f16", "f32")),
    ("wgmma SS 256t 128x256", "SM90_64x256x16_F32BF16BF16_SS", (2, 1, 1), None,
     (None, None, "UniversalCopy<uint64_t>"), ("bf16", "f32")),
]
_MODES = {"A": (0, 2), "B": (1, 2), "C": (0, 1)}


def one(cfg) -> None:
    _, atom, alay, perm, copies, (ab, c) = cfg
    t = at.make_tiled_mma(atom, alay, perm)
    for op, (i, j) in _MODES.items():
        v = at.agrees_tiled(t.tv_layout_tiled(op), t, op)
        assert v.proved, (cfg[0], op, v.counterexample)
        v = at.covers(t.tv_layout_tiled(op), t.get_tile_size(i) * t.get_tile_size(j))
        assert v.proved, (cfg[0], op, v.counterexample)
    makers = (at.make_tiled_copy_A, at.make_tiled_copy_B, at.make_tiled_copy_C)
    for op, mk, name in zip("ABC", makers, copies):
        if name is None:
            continue
        tc = mk(at.make_copy_atom(name, c if op == "C" else ab), t)
        _ = (tc.layout_src_tv_tiled, tc.layout_dst_tv_tiled)  # both sides are part of building a copy
        v = at.compatible_tv(tc, t, op)
        assert v.proved, (cfg[0], op, v.counterexample)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    one(CONFIGS[0])  # first use loads the spec library (once per process), not part of a configuration
    meds, cpus = [], []
    for cfg in CONFIGS:
        ts, cs = [], []
        for _ in range(args.repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            one(cfg)
            ts.append(time.perf_counter() - t0)
            cs.append(time.process_time() - c0)
        med, cpu = statistics.median(ts) * 1e3, statistics.median(cs) * 1e3
        meds.append(med)
        cpus.append(cpu)
        print(f"{cfg[0]:28s} median {med:7.2f} ms  (min {min(ts) * 1e3:.2f}, max {max(ts) * 1e3:.2f}; "
              f"cpu {cpu:.2f} ms)")
    print(f"{'all configurations':28s} median {statistics.median(meds):7.2f} ms  worst {max(meds):.2f} ms "
          f"(cpu: median {statistics.median(cpus):.2f}, worst {max(cpus):.2f}) (goal <= 20 ms)")


if __name__ == "__main__":
    main()
