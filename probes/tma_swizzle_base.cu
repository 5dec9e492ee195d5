// Where does a SWIZZLE_128B TMA load put its bytes when the smem destination is 128- but not 1024-aligned
// (issue 28: the CuTe DSL Blackwell GEMM allocates its swizzled buffers with align<128>, and the DSL 4.8.1
// allocator puts them at 256 mod 1024)?  An 8x64 uint16 box is loaded at destination offsets 0..1024 of a
// 1024-aligned dynamic smem buffer; each element's byte is compared with two hypotheses: the 128B swizzle
// applied to the absolute smem address (CuTe's swizzled pointer) or to the offset from the destination.
// Build: nvcc -arch=sm_90a -o tma_swizzle_base tma_swizzle_base.cu -lcuda.  Not part of run_all.sh (text output).
// Result on an NVIDIA H200 (2026-12-03): the absolute-address swizzle matches 512/512 elements at every offset
// (0, 128, 256, 384, 512, 768, 1024); the relative one only at 0 and 1024.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>
#include <vector>

__global__ void k(const __grid_constant__ CUtensorMap tmap, int off, uint16_t* out, uint32_t* base_out) {
  extern __shared__ __align__(1024) uint8_t smem[];
  __shared__ __align__(8) uint64_t bar;
  uint32_t smem_s = (uint32_t)__cvta_generic_to_shared(smem);
  uint32_t dst_s = smem_s + off;
  uint32_t bar_s = (uint32_t)__cvta_generic_to_shared(&bar);
  for (int i = threadIdx.x; i < 4096; i += blockDim.x) smem[i] = 0xFF;
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" :: "r"(bar_s));
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;" :: "r"(bar_s), "r"(1024) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(dst_s), "l"(&tmap), "r"(0), "r"(0), "r"(bar_s) : "memory");
    asm volatile("{\n .reg .pred p;\n W:\n mbarrier.try_wait.parity.shared.b64 p, [%0], 0;\n @!p bra W;\n}" :: "r"(bar_s) : "memory");
    base_out[0] = smem_s;
  }
  __syncthreads();
  for (int i = threadIdx.x; i < 2048; i += blockDim.x) out[i] = ((uint16_t*)smem)[i];
}

static int sw128(int a) { return a ^ (((a >> 7) & 7) << 4); }

int main() {
  const int R = 8, C = 64;
  std::vector<uint16_t> h(R * C);
  for (int i = 0; i < R * C; ++i) h[i] = (uint16_t)(i + 1);
  uint16_t* g; cudaMalloc(&g, h.size() * 2); cudaMemcpy(g, h.data(), h.size() * 2, cudaMemcpyHostToDevice);
  uint16_t* out; cudaMalloc(&out, 4096); uint32_t* bo; cudaMalloc(&bo, 4);
  CUtensorMap tm;
  cuuint64_t dims[2] = {C, R}; cuuint64_t strides[1] = {C * 2}; cuuint32_t box[2] = {C, R}; cuuint32_t es[2] = {1, 1};
  CUresult r = cuTensorMapEncodeTiled(&tm, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, g, dims, strides, box, es,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  printf("encode: %d\n", (int)r);
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 8192);
  int offs[] = {0, 128, 256, 384, 512, 768, 1024};
  for (int off : offs) {
    k<<<1, 128, 8192>>>(tm, off, out, bo);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { printf("off %d: error %s\n", off, cudaGetErrorString(e)); return 1; }
    std::vector<uint16_t> s(2048); cudaMemcpy(s.data(), out, 4096, cudaMemcpyDeviceToHost);
    uint32_t base; cudaMemcpy(&base, bo, 4, cudaMemcpyDeviceToHost);
    int abs_ok = 0, rel_ok = 0;
    for (int i = 0; i < R * C; ++i) {
      int x = 2 * i;                                   // byte offset of element i in the unswizzled box
      int pa = sw128(int(base % 1024) + off + x) - int(base % 1024);   // absolute-address swizzle
      int pr = off + sw128(x);                          // swizzle relative to the destination
      abs_ok += s[pa / 2] == h[i];
      rel_ok += s[pr / 2] == h[i];
    }
    printf("off %4d (smem base %% 1024 = %u): absolute-address swizzle matches %d/%d, relative %d/%d\n",
           off, base % 1024, abs_ok, R * C, rel_ok, R * C);
  }
  return 0;
}
