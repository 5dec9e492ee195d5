// One warp, one shared-memory load of W bytes per lane at a byte offset read from global memory (so the
// compiler cannot fold the address), profiled by ncu one launch per pattern.  Patterns come on stdin as
// lines "name W off0 ... off31" (patterns.py).
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void probe(const unsigned *offs, int width, unsigned *out) {
  __shared__ __align__(16) unsigned char smem[8192];
  for (int i = threadIdx.x; i < 8192 / 4; i += blockDim.x) reinterpret_cast<unsigned *>(smem)[i] = i;
  __syncthreads();
  unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(smem)) + offs[threadIdx.x];
  unsigned x0 = 0, x1 = 0, x2 = 0, x3 = 0;
  if (width == 4) {
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(x0) : "r"(a));
  } else if (width == 8) {
    asm volatile("ld.shared.v2.u32 {%0,%1}, [%2];" : "=r"(x0), "=r"(x1) : "r"(a));
  } else {
    asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(x0), "=r"(x1), "=r"(x2), "=r"(x3) : "r"(a));
  }
  out[threadIdx.x] = x0 + x1 + x2 + x3;
}

int main() {
  char name[64];
  int width;
  unsigned h[32], *d, *o;
  cudaMalloc(&d, sizeof h);
  cudaMalloc(&o, sizeof h);
  while (scanf("%63s %d", name, &width) == 2) {
    for (int i = 0; i < 32; i++) scanf("%u", &h[i]);
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    probe<<<1, 32>>>(d, width, o);
    cudaError_t e = cudaDeviceSynchronize();
    printf("launch %s %d %s\n", name, width, cudaGetErrorString(e));
  }
  return 0;
}
