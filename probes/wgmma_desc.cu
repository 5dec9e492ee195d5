// Probe: which shared-memory byte a wgmma smem descriptor reads for each A element (m,k),
// for K-major and MN-major operands with no swizzle / 32B / 64B / 128B swizzle, on sm_90a.
//
// Instruction: wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16, imm-trans-a = 0 (K-major) or 1
// (M-major).  A's descriptor points into an 8 KiB, 1024-byte aligned shared region that is all
// zero except ONE f16 element = 1.0 at byte offset o.  B is the validated no-swizzle K-major
// layout with B[k][n] = k+1.  D (read through the accumulator layout validated by wgmma.cu) is
// then nonzero exactly on row m with value k+1 if the instruction reads byte o as A(m,k), and
// all zero if it does not read o.  One CTA per o (4096 per configuration).
// Checks: exactly 64*16 offsets read, each (m,k) exactly once; comparison with CuTe's canonical
// GMMA layouts (cute/atom/mma_traits_sm90_gmma.hpp, make_gmma_desc comment), in 16-byte units
// T = 8 f16 elements, composed with Swizzle<B,4,3> on the byte address:
//   K-major  INTER ((8,m),(T,2)):((1T,SBO),(1,LBO)); SWn ((8,m),(T,2)):((nT/16... see host code)
//   MN-major INTER ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)); SWn ((T,W,m),(8,k)):((1,T,LBO),(WT,SBO))
#include "common.h"
#include <cuda_fp16.h>

struct Cfg { const char* name; int trans; int swz_mode; int swz_bits; int lbo, sbo, start; };
// swz_mode: descriptor bits 62-63 (0 none, 1 128B, 2 64B, 3 32B); swz_bits: B of Swizzle<B,4,3>
static Cfg CFGS[] = {
  {"K_INTER", 0, 0, 0, 128, 256, 0},
  {"K_SW32", 0, 3, 1, 16, 256, 0},
  {"K_SW64", 0, 2, 2, 16, 512, 0},
  {"K_SW128", 0, 1, 3, 16, 1024, 0},
  {"K_SW128", 0, 1, 3, 16, 1024, 32},
  {"K_SW128", 0, 1, 3, 16, 1024, 96},
  {"MN_INTER", 1, 0, 0, 1024, 128, 0},
  {"MN_SW32", 1, 3, 1, 256, 1024, 0},
  {"MN_SW64", 1, 2, 2, 512, 1024, 0},
  {"MN_SW128", 1, 1, 3, 4096, 1024, 0},
};
static const int NCFG = sizeof(CFGS) / sizeof(CFGS[0]);

template <int TRANS>
__global__ void __launch_bounds__(128) k_desc(float* D, int lbo, int sbo, int start, int swz_mode) {
  __shared__ alignas(1024) uint8_t raw[8192 + 1024];
  __shared__ alignas(1024) uint16_t sB[8 * 16];
  uint32_t pad = (1024 - (smem_u32(raw) & 1023)) & 1023;
  uint8_t* reg = raw + pad;
  int e = blockIdx.x, t = threadIdx.x;
  for (int i = t; i < 2048; i += 128) ((uint32_t*)reg)[i] = 0;
  __syncthreads();                           // all zeroing done before the one-hot write
  if (t == 0) ((uint16_t*)reg)[e] = 0x3C00;  // f16 1.0 at byte offset 2e
  for (int i = t; i < 8 * 16; i += 128) {    // B: row n, k; no-swizzle K-major core matrices, value k+1
    int n = i / 16, k = i % 16;
    __half h = __float2half((float)(k + 1));
    sB[(k >> 3) * 64 + n * 8 + (k & 7)] = *(uint16_t*)&h;
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  uint32_t a = smem_u32(reg) + start, b = smem_u32(sB);
  uint64_t da = (uint64_t)((a & 0x3FFFF) >> 4) | ((uint64_t)((lbo >> 4) & 0x3FFF) << 16) | ((uint64_t)((sbo >> 4) & 0x3FFF) << 32) |
                ((uint64_t)swz_mode << 62);
  uint64_t db = (uint64_t)((b & 0x3FFFF) >> 4) | ((uint64_t)(128 >> 4) << 16) | ((uint64_t)(256 >> 4) << 32);
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  asm volatile("" : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)::"memory");
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  if (TRANS)
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\nwgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, %4, %5, p, 1, 1, 1, 0;\n}\n"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "l"(da), "l"(db), "r"(0) : "memory");
  else
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\nwgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, %4, %5, p, 1, 1, 0, 0;\n}\n"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "l"(da), "l"(db), "r"(0) : "memory");
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  asm volatile("" : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)::"memory");
  float* o = D + ((size_t)e * 128 + t) * 4;
  o[0] = d0; o[1] = d1; o[2] = d2; o[3] = d3;
}


// B-operand variant: m64n64k16, the one-hot is in B's region (B is (k,n), N=64 x K=16; imm-trans-b = 0
// K-major, 1 N-major); A is the validated no-swizzle K-major layout with A[m][k] = k+1.  D is then
// nonzero exactly on column n with value k+1.
template <int TRANS>
__global__ void __launch_bounds__(128) k_descB(float* D, int lbo, int sbo, int start, int swz_mode) {
  __shared__ alignas(1024) uint8_t raw[8192 + 1024];
  __shared__ alignas(1024) uint16_t sA[64 * 16];
  uint32_t pad = (1024 - (smem_u32(raw) & 1023)) & 1023;
  uint8_t* reg = raw + pad;
  int e = blockIdx.x, t = threadIdx.x;
  for (int i = t; i < 2048; i += 128) ((uint32_t*)reg)[i] = 0;
  __syncthreads();
  if (t == 0) ((uint16_t*)reg)[e] = 0x3C00;
  for (int i = t; i < 64 * 16; i += 128) {
    int m = i / 16, k = i % 16;
    __half h = __float2half((float)(k + 1));
    sA[((m >> 3) * 2 + (k >> 3)) * 64 + (m & 7) * 8 + (k & 7)] = *(uint16_t*)&h;
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  uint32_t b = smem_u32(reg) + start, a = smem_u32(sA);
  uint64_t db = (uint64_t)((b & 0x3FFFF) >> 4) | ((uint64_t)((lbo >> 4) & 0x3FFF) << 16) | ((uint64_t)((sbo >> 4) & 0x3FFF) << 32) |
                ((uint64_t)swz_mode << 62);
  uint64_t da = (uint64_t)((a & 0x3FFFF) >> 4) | ((uint64_t)(128 >> 4) << 16) | ((uint64_t)(256 >> 4) << 32);
  float d[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) { d[i] = 0.f; asm volatile("" : "+f"(d[i])::"memory"); }
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  if (TRANS)
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\nwgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1, 0, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]) : "l"(da), "l"(db), "r"(0) : "memory");
  else
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\nwgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]) : "l"(da), "l"(db), "r"(0) : "memory");
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#pragma unroll
  for (int i = 0; i < 32; ++i) { asm volatile("" : "+f"(d[i])::"memory"); D[((size_t)e * 128 + t) * 32 + i] = d[i]; }
}

static void doc_D(int t, int i, int& m, int& n) { m = 16 * (t / 32) + (t % 32) / 4 + 8 * ((i >> 1) & 1); n = 8 * (i >> 2) + 2 * (t % 4) + (i & 1); }

// CuTe canonical prediction: byte offset (relative to the aligned region) of A(m,k), f16, T = 8.
static int cute_pred(const Cfg& c, int m, int k) {
  const int T = 8, W = 1 << c.swz_bits;  // W = swizzle width in 16-byte units (1 for INTER)
  int e;                                  // element offset, LBO/SBO given in bytes -> /2 elements
  int L = c.lbo / 2, S = c.sbo / 2;
  if (!c.trans) {
    if (c.swz_bits == 0) e = (m % 8) * T + (m / 8) * S + (k % 8) + (k / 8) * L;            // ((8,m),(T,2)):((1T,SBO),(1,LBO))
    else e = (m % 8) * W * T + (m / 8) * S + (k % 8) + (k / 8) * T;                       // ((8,m),(T,2)):((WT,SBO),(1,T))
  } else {
    if (c.swz_bits == 0) e = (m % T) + (m / T) * S + (k % 8) * T + (k / 8) * L;           // ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))
    else e = (m % T) + ((m / T) % W) * T + (m / (T * W)) * L + (k % 8) * W * T + (k / 8) * S;  // ((T,W,m),(8,k)):((1,T,LBO),(WT,SBO))
  }
  int a = c.start + 2 * e;
  return a ^ (((a >> 7) & (W - 1)) << 4);
}

int main(int argc, char** argv) {
  FILE* f = open_out(argc, argv, "wgmma_smem_desc.jsonl");
  write_meta(f, "wgmma_smem_desc",
             "Per configuration (smem_layout, desc_lbo/desc_sbo in bytes as encoded >>4 in the descriptor, swizzle mode, "
             "start_offset = descriptor start address minus the 1024-aligned region base), one record per smem byte offset o "
             "(relative to the region base) that wgmma.m64n8k16.f32.f16.f16 reads as A element (row=m, col=k). "
             "trans_a = imm-trans-a (0: K-major, 1: M-major). Offsets not read are not listed. Operand B records (m64n64k16, "
             "one-hot in B's region, A = validated no-swizzle K-major with A[m][k]=k+1): row=k, col=n, trans_b = imm-trans-b "
             "(0: K-major, 1: N-major); same descriptor configurations with N in the role of M.");
  float* dD; CK(cudaMalloc(&dD, (size_t)4096 * 128 * 32 * 4));
  std::vector<float> D((size_t)4096 * 128 * 32);
  int nfail = 0, total_mism = 0;
  for (int opb = 0; opb < 2; ++opb)
  for (int ci = 0; ci < NCFG; ++ci) {
    const Cfg& c = CFGS[ci];
    const int NR = opb ? 32 : 4;   // accumulator registers per thread (N = 64 or 8)
    if (opb) { if (c.trans) k_descB<1><<<4096, 128>>>(dD, c.lbo, c.sbo, c.start, c.swz_mode); else k_descB<0><<<4096, 128>>>(dD, c.lbo, c.sbo, c.start, c.swz_mode); }
    else if (c.trans) k_desc<1><<<4096, 128>>>(dD, c.lbo, c.sbo, c.start, c.swz_mode);
    else k_desc<0><<<4096, 128>>>(dD, c.lbo, c.sbo, c.start, c.swz_mode);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(D.data(), dD, (size_t)4096 * 128 * NR * 4, cudaMemcpyDeviceToHost));
    std::vector<int> seen(64 * 16, 0); int hits = 0, bad = 0, mism = 0;
    for (int p = 0; p < 4096; ++p) {
      int row = -1, cnt = 0; float val = 0; bool ok = true; int ns[64] = {0};  // row = m (A) or n (B)
      for (int t = 0; t < 128; ++t) for (int i = 0; i < NR; ++i) {
        float x = D[((size_t)p * 128 + t) * NR + i]; if (x == 0) continue;
        int m, n; doc_D(t, i, m, n);
        int lit = opb ? n : m, other = opb ? m : n;
        if (cnt == 0) { row = lit; val = x; } else if (lit != row || x != val) ok = false;
        ns[other]++; cnt++;
      }
      if (cnt == 0) continue;
      hits++;
      for (int j = 0; j < (opb ? 64 : 8); ++j) if (ns[j] != 1) ok = false;
      int k = (int)val - 1; if (val != (float)(k + 1) || k < 0 || k >= 16) ok = false;
      if (!ok) { bad++; fprintf(f, "{\"instr\": \"wgmma(anomaly)\", \"operand\": \"%s\", \"smem_layout\": \"%s\", \"trans\": %d, \"swizzle_mode\": %d, \"desc_lbo\": %d, \"desc_sbo\": %d, \"start_offset\": %d, \"smem_offset\": %d, \"row\": -1, \"col\": -1, \"anomaly\": true}\n", opb ? "B" : "A", c.name, c.trans, c.swz_mode, c.lbo, c.sbo, c.start, 2 * p); continue; }
      seen[row * 16 + k]++;
      if (cute_pred(c, row, k) != 2 * p) mism++;
      fprintf(f, "{\"instr\": \"%s\", \"operand\": \"%s\", \"smem_layout\": \"%s\", \"%s\": %d, \"swizzle_mode\": %d, \"desc_lbo\": %d, \"desc_sbo\": %d, \"start_offset\": %d, \"smem_offset\": %d, \"row\": %d, \"col\": %d}\n",
              opb ? "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16" : "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16",
              opb ? "B" : "A", c.name, opb ? "trans_b" : "trans_a", c.trans, c.swz_mode, c.lbo, c.sbo, c.start, 2 * p,
              opb ? k : row, opb ? row : k);
    }
    for (int x : seen) if (x != 1) bad++;
    bool pass = bad == 0 && hits == 1024;
    if (!pass) nfail++;
    total_mism += mism;
    printf("wgmma smem desc %s %-9s trans=%d LBO=%4d SBO=%4d start=+%-3d: %4d offsets read, bijective %s (%d bad), vs CuTe canonical layout: %d mismatches => %s\n",
           opb ? "B(n64)" : "A(n8) ", c.name, c.trans, c.lbo, c.sbo, c.start, hits, bad ? "NO" : "yes", bad, mism, pass ? "PASS" : "FAIL");
  }
  fclose(f);
  printf("wgmma_desc: %d FAIL, %d CuTe-formula mismatches\n", nfail, total_mism);
  return nfail ? 1 : 0;
}
