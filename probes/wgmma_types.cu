// Probe: wgmma accumulator layout for more types and the RS A-register fragment, on sm_90a.
//   TY0 m64nNk16.f16.f16.f16 (f16 accumulator, packed f16x2; N = 8..256 step 8)
//   TY1 m64nNk8.f32.tf32.tf32, TY2 m64nNk32.f32.e4m3.e4m3, TY3 m64nNk32.s32.s8.s8 (N in 8,16,64,128,256)
// Operands: no-swizzle K-major smem, each row 32 bytes of K (= one instruction's K) in two 16-byte
// core matrices 128 B apart (LBO), 8-row groups 256 B apart (SBO) -- the convention validated by wgmma.cu.
// D map: two exact experiments, D=m (A[m][j]=bit_j(m)*2^(j-j/2), B[j][n]=2^(j/2)) and D=n (the
// mirror), powers of two <= 16 only, exact in every input type.  Random A,B in [-2,2] checked
// against a host matmul through the PTX-doc accumulator formula.  RS (N=8): one-hot A register
// slots with B[k][n]=kval(k), read through the silicon SS D map of the same type.
// slot numbering for the f16 accumulator: element i lives in register i/2, low half for even i.
#include "common.h"
#include <algorithm>
#include <type_traits>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include "wgmma2_gen.h"

__device__ __forceinline__ int core_byte(int row, int kb) { return ((row >> 3) * 2 + (kb >> 4)) * 128 + (row & 7) * 16 + (kb & 15); }
__device__ __forceinline__ uint64_t make_desc(const void* p) {
  uint32_t a = smem_u32(p);
  return (uint64_t)((a & 0x3FFFF) >> 4) | ((uint64_t)(128 >> 4) << 16) | ((uint64_t)(256 >> 4) << 32);
}
template <class T, int NR> __device__ __forceinline__ void fence_regs(T* d) {
#pragma unroll
  for (int i = 0; i < NR; ++i) {
    if constexpr (sizeof(T) == 4 && std::is_same<T, float>::value) asm volatile("" : "+f"(d[i])::"memory");
    else asm volatile("" : "+r"(d[i])::"memory");
  }
}

template <int N, int TY, bool RS>
__global__ void __launch_bounds__(128) k_w2(const uint8_t* A, const uint32_t* Ar, const uint8_t* B, uint32_t* D) {
  using W = W2<N, TY>;
  typedef typename W::acc_t acc_t;
  constexpr int ND = W::ND;
  __shared__ alignas(1024) uint8_t sA[64 * 32];
  __shared__ alignas(1024) uint8_t sB[256 * 32];
  int e = blockIdx.x, t = threadIdx.x;
  if (!RS) for (int i = t; i < 64 * 32; i += 128) sA[core_byte(i / 32, i % 32)] = A[(size_t)e * 64 * 32 + i];
  for (int i = t; i < N * 32; i += 128) sB[core_byte(i / 32, i % 32)] = B[(size_t)e * N * 32 + i];
  uint32_t a[4] = {0, 0, 0, 0};
  if (RS) for (int j = 0; j < 4; ++j) a[j] = Ar[((size_t)e * 128 + t) * 4 + j];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  acc_t d[ND];
#pragma unroll
  for (int i = 0; i < ND; ++i) d[i] = 0;
  fence_regs<acc_t, ND>(d);
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  if (RS) W::rs(d, a, make_desc(sB)); else W::ss(d, make_desc(sA), make_desc(sB));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  fence_regs<acc_t, ND>(d);
#pragma unroll
  for (int i = 0; i < ND; ++i) { uint32_t u; memcpy(&u, &d[i], 4); D[((size_t)e * 128 + t) * ND + i] = u; }
}

// ---------------------------------------------------------------- host
static const char* TYNAME[4] = {"m64n%dk16.f16.f16.f16", "m64n%dk8.f32.tf32.tf32", "m64n%dk32.f32.e4m3.e4m3", "m64n%dk32.s32.s8.s8"};
static int EB[4] = {2, 4, 1, 1};
static void enc(int ty, double x, uint8_t* p) {
  if (ty == 0) { __half h = __float2half((float)x); memcpy(p, &h, 2); }
  else if (ty == 1) { float f = (float)x; memcpy(p, &f, 4); }
  else if (ty == 2) { __nv_fp8_e4m3 h((float)x); memcpy(p, &h, 1); }
  else { int8_t v = (int8_t)(int)x; memcpy(p, &v, 1); }
}
static double dacc(int ty, const uint32_t* regs, int i) {
  if (ty == 0) { uint16_t s = (uint16_t)(i & 1 ? regs[i / 2] >> 16 : regs[i / 2] & 0xFFFF); __half h; memcpy(&h, &s, 2); return __half2float(h); }
  if (ty == 3) return (double)(int32_t)regs[i];
  float f; memcpy(&f, &regs[i], 4); return f;
}
static void doc_D(int t, int i, int& m, int& n) { m = 16 * (t / 32) + (t % 32) / 4 + 8 * ((i >> 1) & 1); n = 8 * (i >> 2) + 2 * (t % 4) + (i & 1); }
static int nslotsA(int ty) { return ty == 0 ? 8 : ty == 1 ? 4 : 16; }
static void doc_A(int ty, int t, int v, int& m, int& k) {
  int w = t / 32, l = t % 32, g = l / 4, tg = l % 4;
  if (ty == 0) { m = 16 * w + g + 8 * ((v >> 1) & 1); k = 2 * tg + (v & 1) + 8 * (v >> 2); }
  else if (ty == 1) { m = 16 * w + g + 8 * (v & 1); k = tg + 4 * (v >> 1); }
  else { m = 16 * w + g + 8 * ((v >> 2) & 1); k = 4 * tg + (v & 3) + 16 * (v >> 3); }
}
static double kval(int k) { return k < 16 ? k + 1 : -(k - 15); }
static int kinv(double x) { for (int k = 0; k < 64; ++k) if (kval(k) == x) return k; return -1; }
static double amv(int m, int j) { return j < 6 ? ((m >> j) & 1) * (double)(1 << (j - j / 2)) : 0; }  // A for D=m
static double bmv(int j) { return j < 6 ? (double)(1 << (j / 2)) : 0; }
static double anv(int j) { return j < 8 ? (double)(1 << (j / 2)) : 0; }                               // A for D=n
static double bnv(int j, int n) { return j < 8 ? ((n >> j) & 1) * (double)(1 << (j - j / 2)) : 0; }
static uint32_t seed = 4242;
static int rnd(int lo, int hi) { seed = seed * 1664525u + 1013904223u; return lo + (int)((seed >> 8) % (uint32_t)(hi - lo + 1)); }

static FILE* g_out;
static int g_fail = 0, g_mism = 0;
static std::vector<int> g_map8[4];

template <int N, int TY>
static void run_ss() {
  constexpr int ND = W2<N, TY>::ND;
  const int K = 32 / EB[TY], NE = N / 2;  // NE accumulator elements per thread
  const int nexp = 3;
  std::vector<uint8_t> A((size_t)nexp * 64 * 32, 0), B((size_t)nexp * N * 32, 0);
  std::vector<double> hA(64 * K), hB(K * N);
  for (auto& x : hA) x = rnd(-2, 2);
  for (auto& x : hB) x = rnd(-2, 2);
  for (int m = 0; m < 64; ++m) for (int k = 0; k < K; ++k) {
    enc(TY, hA[m * K + k], &A[(0 * 64 + m) * 32 + k * EB[TY]]);
    enc(TY, amv(m, k), &A[(1 * 64 + m) * 32 + k * EB[TY]]);
    enc(TY, anv(k), &A[(2 * 64 + m) * 32 + k * EB[TY]]);
  }
  for (int n = 0; n < N; ++n) for (int k = 0; k < K; ++k) {
    enc(TY, hB[k * N + n], &B[((size_t)0 * N + n) * 32 + k * EB[TY]]);
    enc(TY, bmv(k), &B[((size_t)1 * N + n) * 32 + k * EB[TY]]);
    enc(TY, bnv(k, n), &B[((size_t)2 * N + n) * 32 + k * EB[TY]]);
  }
  uint8_t *dA, *dB; uint32_t* dD;
  CK(cudaMalloc(&dA, A.size())); CK(cudaMalloc(&dB, B.size())); CK(cudaMalloc(&dD, (size_t)nexp * 128 * ND * 4));
  CK(cudaMemcpy(dA, A.data(), A.size(), cudaMemcpyHostToDevice)); CK(cudaMemcpy(dB, B.data(), B.size(), cudaMemcpyHostToDevice));
  CK(cudaMemset(dD, 0xFF, (size_t)nexp * 128 * ND * 4));
  k_w2<N, TY, false><<<nexp, 128>>>(dA, nullptr, dB, dD);
  CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  std::vector<uint32_t> D((size_t)nexp * 128 * ND);
  CK(cudaMemcpy(D.data(), dD, D.size() * 4, cudaMemcpyDeviceToHost));
  cudaFree(dA); cudaFree(dB); cudaFree(dD);
  int rand_bad = 0, mism = 0; bool bij = true;
  std::vector<int> cover(64 * N, 0), map(128 * NE, -1);
  for (int t = 0; t < 128; ++t) for (int i = 0; i < NE; ++i) {
    int m, n; doc_D(t, i, m, n); double ref = 0;
    for (int k = 0; k < K; ++k) ref += hA[m * K + k] * hB[k * N + n];
    if (dacc(TY, &D[(size_t)(0 * 128 + t) * ND], i) != ref) rand_bad++;
    double xm = dacc(TY, &D[(size_t)(1 * 128 + t) * ND], i), xn = dacc(TY, &D[(size_t)(2 * 128 + t) * ND], i);
    int im = (int)xm, in = (int)xn;
    if (xm != im || xn != in || im < 0 || im >= 64 || in < 0 || in >= N) { bij = false; continue; }
    cover[im * N + in]++; map[t * NE + i] = im * N + in;
  }
  for (int x : cover) if (x != 1) bij = false;
  char name[128], shape[64]; snprintf(shape, sizeof shape, TYNAME[TY], N); snprintf(name, sizeof name, "wgmma.mma_async.sync.aligned.%s", shape);
  for (int t = 0; t < 128; ++t) for (int i = 0; i < NE; ++i) {
    int code = map[t * NE + i], m = code < 0 ? -1 : code / N, n = code < 0 ? -1 : code % N, m0, n0; doc_D(t, i, m0, n0);
    if (m != m0 || n != n0) mism++;
    fprintf(g_out, "{\"instr\": \"%s\", \"operand\": \"D\", \"thread\": %d, \"slot\": %d, \"row\": %d, \"col\": %d}\n", name, t, i, m, n);
  }
  if (N == 8) g_map8[TY] = map;
  bool pass = rand_bad == 0 && bij;
  if (!pass) g_fail++;
  g_mism += mism;
  printf("%-52s SS: rand %s(%d bad), D-encode %s, doc mismatches %d => %s\n", name, rand_bad ? "FAIL" : "PASS", rand_bad,
         bij ? "bijective" : "BAD", mism, pass ? "PASS" : "FAIL");
}

template <int TY>
static void run_rs() {
  const int N = 8;
  constexpr int ND = W2<N, TY>::ND;
  const int K = 32 / EB[TY], NS = nslotsA(TY), NE = 4;
  const int nexp = 2 + 128 * NS;
  std::vector<uint32_t> Ar((size_t)nexp * 128 * 4, 0); std::vector<uint8_t> B((size_t)nexp * N * 32, 0);
  std::vector<double> hA(64 * K), hB(K * N);
  for (auto& x : hA) x = rnd(-2, 2);
  for (auto& x : hB) x = rnd(-2, 2);
  auto setA = [&](int e, int t, int v, double x) {
    uint8_t* p = (uint8_t*)&Ar[((size_t)e * 128 + t) * 4]; enc(TY, x, p + v * EB[TY]); };
  for (int t = 0; t < 128; ++t) for (int v = 0; v < NS; ++v) {
    int m, k; doc_A(TY, t, v, m, k);
    setA(0, t, v, hA[m * K + k]); setA(1, t, v, amv(m, k));
    setA(2 + t * NS + v, t, v, 1.0);
  }
  for (int n = 0; n < N; ++n) for (int k = 0; k < K; ++k) {
    enc(TY, hB[k * N + n], &B[(size_t)n * 32 + k * EB[TY]]);
    enc(TY, bmv(k), &B[((size_t)N + n) * 32 + k * EB[TY]]);
    for (int e = 2; e < nexp; ++e) enc(TY, kval(k), &B[((size_t)e * N + n) * 32 + k * EB[TY]]);
  }
  uint32_t *dA, *dD; uint8_t* dB;
  CK(cudaMalloc(&dA, Ar.size() * 4)); CK(cudaMalloc(&dB, B.size())); CK(cudaMalloc(&dD, (size_t)nexp * 128 * ND * 4));
  CK(cudaMemcpy(dA, Ar.data(), Ar.size() * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(dB, B.data(), B.size(), cudaMemcpyHostToDevice));
  k_w2<N, TY, true><<<nexp, 128>>>(nullptr, dA, dB, dD);
  CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  std::vector<uint32_t> D((size_t)nexp * 128 * ND);
  CK(cudaMemcpy(D.data(), dD, D.size() * 4, cudaMemcpyDeviceToHost));
  cudaFree(dA); cudaFree(dB); cudaFree(dD);
  const std::vector<int>& dm = g_map8[TY];
  bool have = dm.size() == 512 && *std::min_element(dm.begin(), dm.end()) >= 0;
  auto dmap = [&](int t, int i, int& m, int& n) { if (have) { m = dm[t * 4 + i] / N; n = dm[t * 4 + i] % N; } else doc_D(t, i, m, n); };
  int rand_bad = 0, dm_bad = 0, onehot_bad = 0, mism = 0;
  for (int t = 0; t < 128; ++t) for (int i = 0; i < NE; ++i) {
    int m, n; dmap(t, i, m, n); double ref = 0;
    for (int k = 0; k < K; ++k) ref += hA[m * K + k] * hB[k * N + n];
    if (dacc(TY, &D[(size_t)t * ND], i) != ref) rand_bad++;
    if (dacc(TY, &D[(size_t)(128 + t) * ND], i) != m) dm_bad++;
  }
  char name[128], shape[64]; snprintf(shape, sizeof shape, TYNAME[TY], N); snprintf(name, sizeof name, "wgmma.mma_async.sync.aligned.%s", shape);
  for (int t = 0; t < 128; ++t) for (int v = 0; v < NS; ++v) {
    const uint32_t* De = &D[(size_t)(2 + t * NS + v) * 128 * ND];
    int row = -1, cnt = 0; double val = 0; bool ok = true; int ns[8] = {0};
    for (int t2 = 0; t2 < 128; ++t2) for (int i = 0; i < NE; ++i) {
      double x = dacc(TY, &De[t2 * ND], i); if (x == 0) continue;
      int m, n; dmap(t2, i, m, n);
      if (cnt == 0) { row = m; val = x; } else if (m != row || x != val) ok = false;
      ns[n]++; cnt++;
    }
    for (int x : ns) if (x != 1) ok = false;
    int k = kinv(val); if (k < 0 || k >= K) ok = false;
    if (!ok) { onehot_bad++; row = -1; k = -1; }
    int m0, k0; doc_A(TY, t, v, m0, k0); if (m0 != row || k0 != k) mism++;
    fprintf(g_out, "{\"instr\": \"%s\", \"operand\": \"A\", \"thread\": %d, \"slot\": %d, \"row\": %d, \"col\": %d, \"a_source\": \"registers (RS)\"}\n", name, t, v, row, k);
  }
  bool pass = rand_bad == 0 && dm_bad == 0 && onehot_bad == 0;
  if (!pass) g_fail++;
  g_mism += mism;
  printf("%-52s RS: rand (doc A layout) %s(%d bad), D=m %s(%d bad), A one-hot %s(%d bad), A doc mismatches %d => %s\n", name,
         rand_bad ? "FAIL" : "PASS", rand_bad, dm_bad ? "FAIL" : "OK", dm_bad, onehot_bad ? "FAIL" : "OK", onehot_bad, mism, pass ? "PASS" : "FAIL");
}

template <int N> static void all_f16acc() { run_ss<N, 0>(); if constexpr (N < 256) all_f16acc<N + 8>(); }
template <int TY> static void some() { run_ss<8, TY>(); run_ss<16, TY>(); run_ss<64, TY>(); run_ss<128, TY>(); run_ss<256, TY>(); }

int main(int argc, char** argv) {
  g_out = open_out(argc, argv, "wgmma_types.jsonl");
  write_meta(g_out, "wgmma_types",
             "D records: thread 0..127, slot i = accumulator element i (f32/s32: register i; f16 accumulator: register i/2, "
             "low half for even i), row=m, col=n, from exact experiments D=m and D=n (SS, no-swizzle K-major smem, LBO=128B "
             "K-direction, SBO=256B 8-row-group). A records (RS, N=8): slot v = v-th element of the 4 .b32 A registers "
             "(lowest bits first), row=m, col=k, from one-hot A with B[k][n]=kval(k) (k+1 for k<16, -(k-15) for k>=16).");
  all_f16acc<8>();
  some<1>(); some<2>(); some<3>();
  run_rs<0>(); run_rs<1>(); run_rs<2>(); run_rs<3>();
  fclose(g_out);
  printf("wgmma_types: %d FAIL, %d doc mismatches\n", g_fail, g_mism);
  return g_fail ? 1 : 0;
}
