// Probe: which parameter sets cuTensorMapEncodeIm2col accepts (the driver's verdict, no kernel launched).
//
// Reads cases from stdin, one per line (written by probes/tma_im2col_cases.py):
//   id dtype rank addr_off dims[5] strides[4] lower[3] upper[3] channels pixels estr[5] interleave swizzle l2 oob
// and prints one JSON object per case with the parameters and the CUresult (0 = CUDA_SUCCESS). The global
// address is a 1024-byte aligned device allocation plus addr_off; nothing is read or written.
//   build: gcc -O2 -o tma_im2col_encode probes/tma_im2col_encode.c -I$CUDA/include -lcuda
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { \
  fprintf(stderr, "%s failed: %d\n", #x, (int)r_); return 2; } } while (0)

static void print_ll(const char* key, const long long* v, int n) {
  printf(", \"%s\": [", key);
  for (int i = 0; i < n; i++) printf("%s%lld", i ? ", " : "", v[i]);
  printf("]");
}

int main(void) {
  CUdevice dev; CUcontext ctx; CUdeviceptr base;
  char name[128] = {0};
  int drv = 0, major = 0, minor = 0;
  CK(cuInit(0));
  CK(cuDeviceGet(&dev, 0));
  CK(cuDeviceGetName(name, sizeof name, dev));
  CK(cuDriverGetVersion(&drv));
  CK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
  CK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  CK(cuMemAlloc(&base, 1 << 20));
  base = (base + 1023) & ~(CUdeviceptr)1023;
  printf("{\"meta\": {\"family\": \"tma_im2col_driver\", \"gpu\": \"%s\", \"cc\": \"%d.%d\", \"cuda_driver_api\": %d, "
         "\"probe_source\": \"probes/tma_im2col_encode.c\", \"cases\": \"probes/tma_im2col_cases.py\", "
         "\"notes\": \"cuTensorMapEncodeIm2col per parameter set; strides in bytes (rank-1 of them), corners rank-2 "
         "offsets, addr = offset from a 1024-byte aligned allocation; result is the CUresult\"}}\n",
         name, major, minor, drv);
  long id;
  unsigned int dtype, rank, il, sw, l2, oob;
  unsigned long long addr, channels, pixels;
  long long dims[8], strides[8], lower[8], upper[8], estr[8];
  for (;;) {
    memset(dims, 0, sizeof dims); memset(strides, 0, sizeof strides); memset(estr, 0, sizeof estr);
    memset(lower, 0, sizeof lower); memset(upper, 0, sizeof upper);
    if (scanf("%ld %u %u %llu", &id, &dtype, &rank, &addr) != 4) break;
    int ok = 1;
    for (int i = 0; i < 5; i++) ok &= scanf("%lld", &dims[i]) == 1;
    for (int i = 0; i < 4; i++) ok &= scanf("%lld", &strides[i]) == 1;
    for (int i = 0; i < 3; i++) ok &= scanf("%lld", &lower[i]) == 1;
    for (int i = 0; i < 3; i++) ok &= scanf("%lld", &upper[i]) == 1;
    ok &= scanf("%llu %llu", &channels, &pixels) == 2;
    for (int i = 0; i < 5; i++) ok &= scanf("%lld", &estr[i]) == 1;
    ok &= scanf("%u %u %u %u", &il, &sw, &l2, &oob) == 4;
    if (!ok) { fprintf(stderr, "bad input at case %ld\n", id); return 2; }
    cuuint64_t gd[8], gs[8];
    cuuint32_t es[8];
    int lo[8], up[8];
    for (int i = 0; i < 8; i++) {
      gd[i] = (cuuint64_t)dims[i]; gs[i] = (cuuint64_t)strides[i]; es[i] = (cuuint32_t)estr[i];
      lo[i] = (int)lower[i]; up[i] = (int)upper[i];
    }
    CUtensorMap tm __attribute__((aligned(64)));
    CUresult r = cuTensorMapEncodeIm2col(&tm, (CUtensorMapDataType)dtype, rank, (void*)(uintptr_t)(base + addr),
                                         gd, gs, lo, up, (cuuint32_t)channels, (cuuint32_t)pixels, es,
                                         (CUtensorMapInterleave)il, (CUtensorMapSwizzle)sw,
                                         (CUtensorMapL2promotion)l2, (CUtensorMapFloatOOBfill)oob);
    int n = rank > 5 ? 5 : (int)rank;
    int c = n >= 3 ? n - 2 : 0;
    printf("{\"id\": %ld, \"dtype\": %u, \"rank\": %u, \"addr\": %llu", id, dtype, rank, addr);
    print_ll("dims", dims, n);
    print_ll("strides", strides, n > 0 ? n - 1 : 0);
    print_ll("lower", lower, c);
    print_ll("upper", upper, c);
    printf(", \"channels\": %llu, \"pixels\": %llu", channels, pixels);
    print_ll("estr", estr, n);
    printf(", \"interleave\": %u, \"swizzle\": %u, \"l2\": %u, \"oob\": %u, \"result\": %d}\n", il, sw, l2, oob, (int)r);
  }
  return 0;
}
