"""Check the banking model of ``cuteverify.banks`` on a GPU (needs nvcc and an sm_80+ GPU; optional ncu).

For each case (the worked examples, a probe of the 8-byte two-phase rule, and random generated pairs) the
per-lane byte addresses of warp 0's first ``KI`` instructions are written to a table; a kernel issues exactly
those shared-memory loads (``ld.shared.{u8,u16,u32,v2.u32,v4.u32}`` or ``ldmatrix.x4``) in a loop, and
  * ``clock64`` gives cycles per warp-instruction with 32 warps per SM (shared memory serves one wavefront per
    cycle, so this tracks the wavefront count),
  * ``ncu`` (if it runs) gives the exact ``l1tex__data_pipe_lsu_wavefronts_mem_shared`` count of a single warp.
Both are printed next to the prediction ``wavefronts / instruction``.

    python examples/banks_silicon.py [--out DIR]
"""
from __future__ import annotations

import argparse
import csv
import io
import os
import random
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

import cuteverify as cv  # noqa: E402
from cuteverify import banks  # noqa: E402

KI = 8
SMEM_BYTES = 48 * 1024

KERNEL = r"""
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <vector>
#include <algorithm>
#define KI %(KI)d
__global__ void kern(const uint32_t* tab, int R, long long* cyc, uint32_t* out) {
  extern __shared__ __align__(128) uint8_t smraw[];
  uint32_t* sm = (uint32_t*)smraw;
  for (int i = threadIdx.x; i < %(WORDS)d; i += blockDim.x) sm[i] = i * 2654435761u;
  __syncthreads();
  int lane = threadIdx.x & 31;
  uint32_t base = (uint32_t)__cvta_generic_to_shared(smraw);
  uint32_t a[KI];
#pragma unroll
  for (int k = 0; k < KI; k++) a[k] = base + tab[k * 32 + lane];
  uint32_t acc = 0;
  __syncthreads();
  long long t0 = clock64();
  for (int r = 0; r < R; r++) {
#pragma unroll
    for (int k = 0; k < KI; k++) {
#if MODE == 1
      uint32_t x; asm volatile("ld.shared.u8 %%0, [%%1];" : "=r"(x) : "r"(a[k])); acc += x;
#elif MODE == 2
      uint32_t x; asm volatile("ld.shared.u16 %%0, [%%1];" : "=r"(x) : "r"(a[k])); acc += x;
#elif MODE == 4
      uint32_t x; asm volatile("ld.shared.u32 %%0, [%%1];" : "=r"(x) : "r"(a[k])); acc += x;
#elif MODE == 8
      uint32_t x, y; asm volatile("ld.shared.v2.u32 {%%0,%%1}, [%%2];" : "=r"(x), "=r"(y) : "r"(a[k])); acc += x ^ y;
#elif MODE == 16
      uint32_t x, y, z, w;
      asm volatile("ld.shared.v4.u32 {%%0,%%1,%%2,%%3}, [%%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(a[k]));
      acc += x ^ y ^ z ^ w;
#else
      uint32_t x, y, z, w;
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%%0,%%1,%%2,%%3}, [%%4];"
                   : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(a[k]));
      acc += x ^ y ^ z ^ w;
#endif
    }
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) cyc[blockIdx.x] = t1 - t0;
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
int main(int argc, char** argv) {
  FILE* f = fopen(argv[1], "r"); int R = atoi(argv[2]), blocks = atoi(argv[3]), threads = atoi(argv[4]);
  int n; if (fscanf(f, "%%d", &n) != 1) return 1;
  uint32_t *tab; long long* cyc; uint32_t* out;
  cudaMalloc(&tab, KI * 32 * 4); cudaMalloc(&cyc, blocks * 8); cudaMalloc(&out, blocks * threads * 4);
  cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, %(SMEM)d);
  std::vector<uint32_t> h(KI * 32); std::vector<long long> hc(blocks);
  for (int c = 0; c < n; c++) {
    for (int i = 0; i < KI * 32; i++) if (fscanf(f, "%%u", &h[i]) != 1) return 1;
    cudaMemcpy(tab, h.data(), KI * 32 * 4, cudaMemcpyHostToDevice);
    if (R > 1) kern<<<blocks, threads, %(SMEM)d>>>(tab, R, cyc, out);  // warm-up
    kern<<<blocks, threads, %(SMEM)d>>>(tab, R, cyc, out);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { printf("ERR %%d %%s\n", c, cudaGetErrorString(e)); return 2; }
    cudaMemcpy(hc.data(), cyc, blocks * 8, cudaMemcpyDeviceToHost);
    std::sort(hc.begin(), hc.end());
    printf("%%d %%.4f\n", c, (double)hc[blocks / 2] / ((double)R * KI * (threads / 32)));
  }
  return 0;
}
"""


def case_table(smem, access, eb, vb, ldsm=False):
    """Warp 0's first KI instructions: (table KI x 32 byte offsets, predicted wavefronts per instruction)."""
    idx, off = banks.access_offsets(smem, access)
    n = vb // eb
    T = min(32, off.shape[0])
    k = min(KI, off.shape[1] // n)
    idx, off = idx[:T, :k * n], off[:T, :k * n]
    lanes = 8 if ldsm else banks.lanes_per_phase(vb, None)
    _, waves, _, _ = banks.conflict_degree(idx, off, eb, vb, lanes)
    tab = np.zeros((KI, 32), dtype=np.int64)
    for j in range(KI):
        src = j % k
        col = off[:, src * n] * eb
        tab[j, :T] = col
        tab[j, T:] = col[np.arange(T, 32) % T]
    reps = [j % k for j in range(KI)]
    per = waves / k  # wavefronts per instruction (instructions repeat cyclically)
    return tab, per, reps


def build_cases():
    out = []  # (name, mode, table, predicted)
    sw = cv.tile_to_shape(cv.parse("S<3,3,3> o 0 o (8,64):(64,1)"), (64, 64))
    pl = cv.tile_to_shape(cv.parse("(8,64):(64,1)"), (64, 64))
    sys.path.insert(0, HERE)
    import banks_fa2
    acc, _ = banks_fa2.fa2_k_tile_access()
    for name, s in (("FA2 K ldmatrix.x4 SW", sw), ("FA2 K ldmatrix.x4 plain", pl)):
        t, p, _ = case_table(s, acc, 2, 16, ldsm=True)
        out.append((name, 17, t, p))
        t, p, _ = case_table(s, acc, 2, 16)
        out.append((name.replace("ldmatrix.x4", "ld.v4"), 16, t, p))
    s128 = cv.tile_to_shape(cv.parse("S<3,3,3> o 0 o (8,64):(64,1)"), (128, 64))
    p128 = cv.tile_to_shape(cv.parse("(8,64):(64,1)"), (128, 64))
    for tn, a in (("row-major", cv.parse("((8,16),(8,8)):((1024,1),(128,16))")),
                  ("col-major", cv.parse("((16,8),(8,8)):((1,1024),(128,16))"))):
        for sn, s in (("SW128", s128), ("plain", p128)):
            t, p, _ = case_table(s, a, 2, 16)
            out.append((f"Hopper 128x64 {tn} {sn} v4", 16, t, p))
    # 8-byte rule: lane i at byte 8*(i%16) + 128*(i//16): 2 phases of 16 lanes -> conflict-free (1 phase: 2-way)
    a8 = cv.parse("((16,2),2):((2,32),1)")
    t, p, _ = case_table(cv.parse("64:1"), a8, 4, 8)
    out.append(("8B half-warps on same banks", 8, t, p))
    # 4-byte stride-2 words: 2-way; 16-byte phases of 8 threads
    t, p, _ = case_table(cv.parse("64:1"), cv.parse("(32,1):(2,0)"), 4, 4)
    out.append(("4B stride 2 words", 4, t, p))
    # random generated pairs (the test generator)
    from test_banks import cases as gen_cases, brute_offsets, brute_widest
    rng = random.Random(5)
    for smem, access, eb, u in gen_cases(400, 4242):
        if len([c for c in out if c[0].startswith("random")]) >= 40:
            break
        _, off = banks.access_offsets(smem, access)
        if (off.max() + 1) * eb > SMEM_BYTES or off.shape[0] < 32:
            continue
        w, _ = banks.widest_vector(off, eb)
        vb = rng.choice([x for x in (1, 2, 4, 8, 16) if eb <= x <= w])
        t, p, _ = case_table(smem, access, eb, vb)
        out.append((f"random eb={eb} vb={vb} {smem} | {access}", vb, t, p))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/banks_silicon"))
    ap.add_argument("--ncu", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    work = "/tmp/banks_silicon_build"
    os.makedirs(work, exist_ok=True)
    cases = build_cases()
    modes = sorted({c[1] for c in cases})
    results = {}
    ncu_res = {}
    for mode in modes:
        src = os.path.join(work, f"k{mode}.cu")
        with open(src, "w") as f:
            f.write(KERNEL % {"KI": KI, "WORDS": SMEM_BYTES // 4, "SMEM": SMEM_BYTES})
        exe = os.path.join(work, f"k{mode}")
        subprocess.run(["nvcc", "-O2", "-arch=sm_90", f"-DMODE={mode}", "-o", exe, src], check=True)
        mine = [(i, c) for i, c in enumerate(cases) if c[1] == mode]
        tabf = os.path.join(work, f"t{mode}.txt")
        with open(tabf, "w") as f:
            f.write(f"{len(mine)}\n")
            for _, c in mine:
                f.write(" ".join(str(int(x)) for x in c[2].ravel()) + "\n")
        r = subprocess.run([exe, tabf, "2048", "132", "1024"], capture_output=True, text=True)
        for line in r.stdout.split("\n"):
            parts = line.split()
            if len(parts) == 2 and parts[0].isdigit():
                results[mine[int(parts[0])][0]] = float(parts[1])
            elif line.strip():
                print(line)
        if args.ncu:
            metric = ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum" if mode != 17 else
                      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum")
            try:
                q = subprocess.run(["ncu", "--clock-control", "none", "--csv", "--metrics", metric, exe, tabf, "1",
                                    "1", "32"], capture_output=True, text=True, timeout=240)
                rows = [row for row in csv.reader(io.StringIO(q.stdout)) if len(row) > 5]
                vals = [row[-1] for row in rows[1:]]
                for (i, _), v in zip(mine, vals):
                    ncu_res[i] = v
                if not vals:
                    print("ncu gave nothing:", (q.stdout + q.stderr)[-600:])
            except Exception as e:  # pragma: no cover
                print("ncu failed:", e)
    base = {}
    for i, c in enumerate(cases):
        if i in results and abs(c[3] - min(x[3] for x in cases if x[1] == c[1])) < 1e-9:
            base.setdefault(c[1], results[i] / c[3])
    lines = [f"{'case':72s} {'mode':>4s} {'pred wf/instr':>13s} {'cycles/instr':>12s} {'ncu wf (KI instr)':>17s}"]
    for i, (name, mode, _, pred) in enumerate(cases):
        lines.append(f"{name[:72]:72s} {mode:4d} {pred:13.2f} {results.get(i, float('nan')):12.2f} "
                     f"{ncu_res.get(i, '-'):>17s}")
    text = "\n".join(lines)
    print(text)
    with open(os.path.join(args.out, "banks_silicon.txt"), "w") as f:
        f.write(text + "\n")
    xs = np.array([c[3] for i, c in enumerate(cases) if i in results])
    ys = np.array([results[i] for i, c in enumerate(cases) if i in results])
    if len(xs) > 2:
        print(f"correlation(predicted, measured) = {np.corrcoef(xs, ys)[0, 1]:.4f}")


if __name__ == "__main__":
    main()
