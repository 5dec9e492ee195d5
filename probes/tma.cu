// Probe: TMA 2-D tile load (cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes)
// with swizzle NONE / 32B / 64B / 128B, element size 2 and 4 bytes, on sm_90a.
//
// Global tensor G[64 rows][128 cols] (row-major, cols innermost), G[r][c] = r*256+c (2-byte elements)
// or r*65536+c (4-byte).  Box = 16 rows x (inner span) where the inner span is the swizzle width
// (32/64/128 B; 128 B for NONE).  The box is loaded at coordinates (col=0,row=0) into a 1024-byte
// aligned shared buffer pre-filled with 0xAB bytes.  For each element-aligned smem byte offset o the
// record names the global (row,col) whose element landed there.  Self-checks: every offset written
// exactly once with a distinct in-box element; a second load at (col=inner,row=8) puts element
// (r+8, c+inner) at every offset where the first load put (r,c) (pattern depends on the smem
// address only); comparison against CuTe's Swizzle<B,4,3> on byte offsets
// (o ^ (((o >> 7) & (2^B-1)) << 4), B = 1,2,3 for 32B,64B,128B).
#include "common.h"
#include <cuda.h>
#include <cudaTypedefs.h>

__global__ void k_tma(const __grid_constant__ CUtensorMap tm, uint8_t* out, int bytes, int c0, int r0) {
  extern __shared__ uint8_t raw[];
  __shared__ alignas(8) uint64_t bar;
  uint32_t pad = (1024 - (smem_u32(raw) & 1023)) & 1023;
  uint8_t* sm = raw + pad;
  int t = threadIdx.x;
  for (int i = t; i < bytes; i += blockDim.x) sm[i] = 0xAB;
  uint32_t b = smem_u32(&bar), s = smem_u32(sm);
  if (t == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(b), "r"(1) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (t == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 ::"r"(s), "l"((uint64_t)&tm), "r"(c0), "r"(r0), "r"(b) : "memory");
  }
  uint32_t done = 0;
  while (!done) {
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done) : "r"(b), "r"(0) : "memory");
  }
  for (int i = t; i < bytes; i += blockDim.x) out[i] = sm[i];
}

int main(int argc, char** argv) {
  FILE* f = open_out(argc, argv, "tma.jsonl");
  write_meta(f, "tma",
             "Global tensor G[64][128] row-major (row=outer dim1, col=inner dim0), G[r][c]=r*256+c (2B) or r*65536+c (4B). "
             "Box = 16 rows x (swizzle span bytes / elem_bytes) cols (128 B span for NONE), loaded at (col=0,row=0) into a "
             "1024-byte aligned smem buffer. Each record: smem byte offset o (element aligned, relative to the buffer) holds "
             "global element (row,col). box_cols/box_rows give the box shape.");
  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  cudaDriverEntryPointQueryResult q;
  CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void**)&encode, 12000, cudaEnableDefault, &q));
  if (!encode || q != cudaDriverEntryPointSuccess) { fprintf(stderr, "no cuTensorMapEncodeTiled\n"); return 2; }
  const int ROWS = 64, COLS = 128, BOXR = 16;
  const char* swname[4] = {"NONE", "32B", "64B", "128B"};
  CUtensorMapSwizzle swz[4] = {CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_SWIZZLE_32B, CU_TENSOR_MAP_SWIZZLE_64B, CU_TENSOR_MAP_SWIZZLE_128B};
  int span[4] = {128, 32, 64, 128};
  int nfail = 0, total_mism = 0;
  uint8_t* dout; CK(cudaMalloc(&dout, 65536));
  CK(cudaFuncSetAttribute(k_tma, cudaFuncAttributeMaxDynamicSharedMemorySize, 16384));
  for (int eb : {2, 4}) {
    std::vector<uint8_t> G((size_t)ROWS * COLS * eb);
    for (int r = 0; r < ROWS; ++r) for (int c = 0; c < COLS; ++c) {
      if (eb == 2) { uint16_t v = (uint16_t)(r * 256 + c); memcpy(&G[((size_t)r * COLS + c) * 2], &v, 2); }
      else { uint32_t v = (uint32_t)(r * 65536 + c); memcpy(&G[((size_t)r * COLS + c) * 4], &v, 4); }
    }
    void* dG; CK(cudaMalloc(&dG, G.size())); CK(cudaMemcpy(dG, G.data(), G.size(), cudaMemcpyHostToDevice));
    for (int si = 0; si < 4; ++si) {
      int boxc = span[si] / eb, bytes = span[si] * BOXR;
      CUtensorMap tm; memset(&tm, 0, sizeof tm);
      cuuint64_t gdim[2] = {(cuuint64_t)COLS, (cuuint64_t)ROWS}, gstr[1] = {(cuuint64_t)COLS * eb};
      cuuint32_t box[2] = {(cuuint32_t)boxc, (cuuint32_t)BOXR}, es[2] = {1, 1};
      CUresult cr = encode(&tm, eb == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16 : CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, dG, gdim, gstr, box, es,
                           CU_TENSOR_MAP_INTERLEAVE_NONE, swz[si], CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
      if (cr != CUDA_SUCCESS) { printf("tma swizzle %s elem %d: encode failed (%d)\n", swname[si], eb, (int)cr); nfail++; continue; }
      std::vector<uint8_t> S0(bytes), S1(bytes);
      k_tma<<<1, 128, bytes + 1024>>>(tm, dout, bytes, 0, 0); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(S0.data(), dout, bytes, cudaMemcpyDeviceToHost));
      k_tma<<<1, 128, bytes + 1024>>>(tm, dout, bytes, boxc, 8); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(S1.data(), dout, bytes, cudaMemcpyDeviceToHost));
      auto decode = [&](const std::vector<uint8_t>& S, int o, int& r, int& c) {
        if (eb == 2) { uint16_t v; memcpy(&v, &S[o], 2); r = v >> 8; c = v & 255; }
        else { uint32_t v; memcpy(&v, &S[o], 4); r = v >> 16; c = v & 65535; }
      };
      std::vector<int> seen(BOXR * boxc, 0); int bad = 0, shift_bad = 0, mism = 0;
      int B = si == 1 ? 1 : si == 2 ? 2 : si == 3 ? 3 : 0;
      for (int o = 0; o < bytes; o += eb) {
        int r, c, r1, c1; decode(S0, o, r, c); decode(S1, o, r1, c1);
        bool ok = r < BOXR && c < boxc;
        if (ok) seen[r * boxc + c]++; else bad++;
        if (r1 != r + 8 || c1 != c + boxc) shift_bad++;
        int lin = r * span[si] + c * eb;
        int pred = lin ^ (((lin >> 7) & ((1 << B) - 1)) << 4);
        if (!ok || pred != o) mism++;
        fprintf(f, "{\"instr\": \"tma_2d\", \"swizzle\": \"%s\", \"elem_bytes\": %d, \"box_cols\": %d, \"box_rows\": %d, \"smem_offset\": %d, \"row\": %d, \"col\": %d}\n",
                swname[si], eb, boxc, BOXR, o, ok ? r : -1, ok ? c : -1);
      }
      for (int x : seen) if (x != 1) bad++;
      bool pass = bad == 0 && shift_bad == 0;
      if (!pass) nfail++;
      total_mism += mism;
      printf("tma_2d swizzle %-4s elem %dB box %3dx%-2d: coverage %s (%d bad), offset-load check %s (%d bad), vs CuTe Swizzle<%d,4,3>: %d mismatches => %s\n",
             swname[si], eb, boxc, BOXR, bad ? "FAIL" : "OK", bad, shift_bad ? "FAIL" : "OK", shift_bad, B, mism, pass ? "PASS" : "FAIL");
    }
    cudaFree(dG);
  }
  fclose(f);
  printf("tma: %d FAIL, %d swizzle-formula mismatches\n", nfail, total_mism);
  return nfail ? 1 : 0;
}
