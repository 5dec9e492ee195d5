// Probe: the wgmma descriptor's base offset (bits 49-51), on sm_90a. As probes/wgmma_desc.cu (operand A of
// wgmma.m64n8k16.f32.f16.f16, one f16 = 1.0 at byte offset o of a 1024-byte aligned region, the lit D row and
// value give (m,k)), but with start addresses that are NOT on the swizzle pattern's boundary (start = region +
// 128*j) and the base offset 0 or j: which bytes does the descriptor read?  The PTX ISA says the base offset is
// (pattern start >> 7) & 7 when the pattern does not start on its boundary; cuteverify models it as the swizzle's
// row bits read base_offset rows back (hardware/smem_desc.py).  Region 12 KiB, one CTA per f16 position.
// Checks: exactly 1024 offsets read, each (m,k) once; comparison with the model (printed, not a PASS criterion).
#include "common.h"
#include <cuda_fp16.h>
#define REGION 12288

struct Cfg { const char* name; int trans; int swz_mode; int swz_bits; int lbo, sbo, start, base; };
static Cfg CFGS[] = {
  {"K_SW128", 0, 1, 3, 16, 1024, 384, 0}, {"K_SW128", 0, 1, 3, 16, 1024, 384, 3},
  {"K_SW128", 0, 1, 3, 16, 1024, 128, 0}, {"K_SW128", 0, 1, 3, 16, 1024, 128, 1},
  {"K_SW128", 0, 1, 3, 16, 1024, 0, 2},
  {"K_SW64", 0, 2, 2, 16, 512, 128, 0}, {"K_SW64", 0, 2, 2, 16, 512, 128, 1},
  {"K_SW32", 0, 3, 1, 16, 256, 128, 0}, {"K_SW32", 0, 3, 1, 16, 256, 128, 1},
  {"MN_SW128", 1, 1, 3, 4096, 1024, 384, 0}, {"MN_SW128", 1, 1, 3, 4096, 1024, 384, 3},
  {"K_INTER", 0, 0, 0, 128, 256, 128, 1},
};
static const int NCFG = sizeof(CFGS) / sizeof(CFGS[0]);

template <int TRANS>
__global__ void __launch_bounds__(128) k_desc(float* D, int lbo, int sbo, int start, int swz_mode, int base) {
  __shared__ alignas(1024) uint8_t raw[REGION + 1024];
  __shared__ alignas(1024) uint16_t sB[8 * 16];
  uint32_t pad = (1024 - (smem_u32(raw) & 1023)) & 1023;
  uint8_t* reg = raw + pad;
  int e = blockIdx.x, t = threadIdx.x;
  for (int i = t; i < REGION / 4; i += 128) ((uint32_t*)reg)[i] = 0;
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
                ((uint64_t)(base & 7) << 49) | ((uint64_t)swz_mode << 62);
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



static void doc_D(int t, int i, int& m, int& n) { m = 16 * (t / 32) + (t % 32) / 4 + 8 * ((i >> 1) & 1); n = 8 * (i >> 2) + 2 * (t % 4) + (i & 1); }


// the model's prediction (hardware/smem_desc.py): canonical offset, then the swizzle with its row bits read
// base rows back
static int model_pred(const Cfg& c, int m, int k) {
  const int T = 8, W = 1 << c.swz_bits;
  int e, L = c.lbo / 2, S = c.sbo / 2;
  if (!c.trans) {
    if (c.swz_bits == 0) e = (m % 8) * T + (m / 8) * S + (k % 8) + (k / 8) * L;
    else e = (m % 8) * W * T + (m / 8) * S + (k % 8) + (k / 8) * T;
  } else {
    if (c.swz_bits == 0) e = (m % T) + (m / T) * S + (k % 8) * T + (k / 8) * L;
    else e = (m % T) + ((m / T) % W) * T + (m / (T * W)) * L + (k % 8) * W * T + (k / 8) * S;
  }
  int a = c.start + 2 * e;
  return a ^ (((((a >> 7) - c.base) & 7) & (W - 1)) << 4);
}

int main(int argc, char** argv) {
  FILE* f = open_out(argc, argv, "wgmma_desc_base_offset.jsonl");
  write_meta(f, "wgmma_desc_base_offset",
             "Per configuration (smem_layout, desc_lbo/desc_sbo in bytes, swizzle_mode = descriptor bits 62-63, start_offset = "
             "descriptor start address minus the 1024-aligned region base, base_offset = descriptor bits 49-51), one record per "
             "smem byte offset o (relative to the region base) that wgmma.m64n8k16.f32.f16.f16 reads as A element (row=m, col=k). "
             "trans_a = imm-trans-a. Offsets not read are not listed.");
  const int NP = REGION / 2;
  float* dD; CK(cudaMalloc(&dD, (size_t)NP * 128 * 4 * 4));
  std::vector<float> D((size_t)NP * 128 * 4);
  int nfail = 0, total_mism = 0;
  for (int ci = 0; ci < NCFG; ++ci) {
    const Cfg& c = CFGS[ci];
    if (c.trans) k_desc<1><<<NP, 128>>>(dD, c.lbo, c.sbo, c.start, c.swz_mode, c.base);
    else k_desc<0><<<NP, 128>>>(dD, c.lbo, c.sbo, c.start, c.swz_mode, c.base);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(D.data(), dD, (size_t)NP * 128 * 4 * 4, cudaMemcpyDeviceToHost));
    std::vector<int> seen(64 * 16, 0); int hits = 0, bad = 0, mism = 0;
    for (int p = 0; p < NP; ++p) {
      int row = -1, cnt = 0; float val = 0; bool ok = true; int ns[8] = {0};
      for (int t = 0; t < 128; ++t) for (int i = 0; i < 4; ++i) {
        float x = D[((size_t)p * 128 + t) * 4 + i]; if (x == 0) continue;
        int m, n; doc_D(t, i, m, n);
        if (cnt == 0) { row = m; val = x; } else if (m != row || x != val) ok = false;
        ns[n]++; cnt++;
      }
      if (cnt == 0) continue;
      hits++;
      for (int j = 0; j < 8; ++j) if (ns[j] != 1) ok = false;
      int k = (int)val - 1; if (val != (float)(k + 1) || k < 0 || k >= 16) ok = false;
      if (!ok) { bad++; continue; }
      seen[row * 16 + k]++;
      if (model_pred(c, row, k) != 2 * p) mism++;
      fprintf(f, "{\"instr\": \"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16\", \"operand\": \"A\", \"smem_layout\": \"%s\", \"trans_a\": %d, \"swizzle_mode\": %d, \"desc_lbo\": %d, \"desc_sbo\": %d, \"start_offset\": %d, \"base_offset\": %d, \"smem_offset\": %d, \"row\": %d, \"col\": %d}\n",
              c.name, c.trans, c.swz_mode, c.lbo, c.sbo, c.start, c.base, 2 * p, row, k);
    }
    for (int x : seen) if (x != 1) bad++;
    bool pass = bad == 0 && hits == 1024;
    if (!pass) nfail++;
    total_mism += mism;
    printf("wgmma desc base offset %-9s start=+%-3d base=%d: %4d offsets read, bijective %s (%d bad), vs model: %d mismatches => %s\n",
           c.name, c.start, c.base, hits, bad ? "NO" : "yes", bad, mism, pass ? "PASS" : "FAIL");
  }
  fclose(f);
  printf("wgmma_desc_base: %d FAIL, %d model mismatches\n", nfail, total_mism);
  return nfail ? 1 : 0;
}
