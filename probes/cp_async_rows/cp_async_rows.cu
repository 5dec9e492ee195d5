// One warp issues one (or `reps`) cp.async of W bytes per lane, lane l copying global byte goff[l] to shared
// byte soff[l] (both read from global memory, so the compiler cannot fold them). Profiled by ncu one launch per
// pattern (patterns.py), or timed with clock64 (`./cp_async_rows time [copies]`: cycles for `copies` back-to-back
// copies, default 64), which also checks that every lane's bytes arrived. Patterns come on stdin as lines "name W cache reps g0 .. g31 s0 .. s31" (cache: ca | cg).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

constexpr int SMEM = 32768;
constexpr size_t GMEM = 1 << 20;

template <int W, bool CG>
__global__ void probe(const unsigned char *g, const unsigned *goff, const unsigned *soff, int reps, int check,
                      unsigned char *out, long long *cycles) {
  __shared__ __align__(1024) unsigned char smem[SMEM];
  const int l = threadIdx.x;
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem)) + soff[l];
  const unsigned char *src = g + goff[l];
  long long t0 = clock64();
  for (int r = 0; r < reps; r++) {
    if constexpr (CG) {
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(src) : "memory");
    } else {
      asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(s), "l"(src), "n"(W) : "memory");
    }
  }
  asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;" ::: "memory");
  long long t1 = clock64();
  if (check) {  // timing mode only: not under ncu, where it would add shared loads
    __syncwarp();
    for (int b = 0; b < W; b++) out[l * 16 + b] = smem[soff[l] + b];
    if (l == 0) *cycles = t1 - t0;
  }
}

int main(int argc, char **argv) {
  const bool timing = argc > 1 && !strcmp(argv[1], "time");
  const int treps = argc > 2 ? atoi(argv[2]) : 64;  // timing: copies per launch (throughput, L1-warm for .ca)
  char name[96], cache[8];
  int width, reps;
  unsigned hg[32], hs[32], *dg, *ds;
  unsigned char *g, *out, hout[32 * 16];
  long long *cyc, hc;
  cudaMalloc(&g, GMEM);
  cudaMalloc(&dg, sizeof hg);
  cudaMalloc(&ds, sizeof hs);
  cudaMalloc(&out, sizeof hout);
  cudaMalloc(&cyc, sizeof hc);
  // byte b of the buffer holds a hash of b, so a misplaced copy is seen by the check
  unsigned char *init = new unsigned char[GMEM];
  for (size_t b = 0; b < GMEM; b++) init[b] = static_cast<unsigned char>((b * 2654435761u) >> 13);
  cudaMemcpy(g, init, GMEM, cudaMemcpyHostToDevice);
  int bad_total = 0;
  while (scanf("%95s %d %7s %d", name, &width, cache, &reps) == 4) {
    for (int i = 0; i < 32; i++) scanf("%u", &hg[i]);
    for (int i = 0; i < 32; i++) scanf("%u", &hs[i]);
    cudaMemcpy(dg, hg, sizeof hg, cudaMemcpyHostToDevice);
    cudaMemcpy(ds, hs, sizeof hs, cudaMemcpyHostToDevice);
    const bool cg = !strcmp(cache, "cg");
    auto k = cg ? probe<16, true> : width == 4 ? probe<4, false> : width == 8 ? probe<8, false> : probe<16, false>;
    if (timing) {  // a warm-up launch, then the timed one; the minimum of 5 is reported
      long long best = -1;
      for (int it = 0; it < 6; it++) {
        k<<<1, 32>>>(g, dg, ds, treps, 1, out, cyc);
        cudaMemcpy(&hc, cyc, sizeof hc, cudaMemcpyDeviceToHost);
        if (it && (best < 0 || hc < best)) best = hc;
      }
      cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost);
      int bad = 0;
      for (int l = 0; l < 32; l++)
        for (int b = 0; b < width; b++) bad += hout[l * 16 + b] != init[hg[l] + b];
      bad_total += bad;
      printf("time %s %d %s %d cycles %lld check %s\n", name, width, cache, treps, best, bad ? "FAIL" : "PASS");
    } else {
      k<<<1, 32>>>(g, dg, ds, reps, 0, out, cyc);
    }
    cudaError_t e = cudaDeviceSynchronize();
    if (!timing) printf("launch %s %d %s %d %s\n", name, width, cache, reps, cudaGetErrorString(e));
    else if (e != cudaSuccess) printf("error %s %s\n", name, cudaGetErrorString(e));
  }
  delete[] init;
  return bad_total ? 1 : 0;
}
