// Probe: which parameter sets cuTensorMapEncodeTiled accepts (the driver's verdict, no kernel launched).
//
// Reads cases from stdin, one per line (written by probes/tma_encode_cases.py):
//   id dtype rank addr_off dims[5] strides[4] box[5] estr[5] interleave swizzle l2 oob
// and prints one JSON object per case with the parameters and the CUresult (0 = CUDA_SUCCESS,
// 1 = CUDA_ERROR_INVALID_VALUE). The global address is a 1024-byte aligned device allocation plus
// addr_off; the driver only encodes it, nothing is read or written. First line: a meta record.
//   build: gcc -O2 -o tma_encode probes/tma_encode.c -I$CUDA/include -lcuda
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { \
  fprintf(stderr, "%s failed: %d\n", #x, (int)r_); return 2; } } while (0)

static void print_u64s(const char* key, const unsigned long long* v, int n) {
  printf(", \"%s\": [", key);
  for (int i = 0; i < n; i++) printf("%s%llu", i ? ", " : "", v[i]);
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
  printf("{\"meta\": {\"family\": \"tma_driver\", \"gpu\": \"%s\", \"cc\": \"%d.%d\", \"cuda_driver_api\": %d, "
         "\"probe_source\": \"probes/tma_encode.c\", \"cases\": \"probes/tma_encode_cases.py\", "
         "\"notes\": \"cuTensorMapEncodeTiled per parameter set; strides in bytes (rank-1 of them), "
         "addr = offset from a 1024-byte aligned allocation; result is the CUresult\"}}\n",
         name, major, minor, drv);
  long id;
  unsigned int dtype, rank, il, sw, l2, oob;
  unsigned long long addr, dims[8], strides[8], box[8], estr[8];
  for (;;) {
    memset(dims, 0, sizeof dims); memset(strides, 0, sizeof strides);
    memset(box, 0, sizeof box); memset(estr, 0, sizeof estr);
    if (scanf("%ld %u %u %llu", &id, &dtype, &rank, &addr) != 4) break;
    int ok = 1;
    for (int i = 0; i < 5; i++) ok &= scanf("%llu", &dims[i]) == 1;
    for (int i = 0; i < 4; i++) ok &= scanf("%llu", &strides[i]) == 1;
    for (int i = 0; i < 5; i++) ok &= scanf("%llu", &box[i]) == 1;
    for (int i = 0; i < 5; i++) ok &= scanf("%llu", &estr[i]) == 1;
    ok &= scanf("%u %u %u %u", &il, &sw, &l2, &oob) == 4;
    if (!ok) { fprintf(stderr, "bad input at case %ld\n", id); return 2; }
    cuuint64_t gd[8], gs[8];
    cuuint32_t bd[8], es[8];
    for (int i = 0; i < 8; i++) {
      gd[i] = dims[i]; gs[i] = strides[i]; bd[i] = (cuuint32_t)box[i]; es[i] = (cuuint32_t)estr[i];
    }
    CUtensorMap tm __attribute__((aligned(64)));
    CUresult r = cuTensorMapEncodeTiled(&tm, (CUtensorMapDataType)dtype, rank, (void*)(uintptr_t)(base + addr),
                                        gd, gs, bd, es, (CUtensorMapInterleave)il, (CUtensorMapSwizzle)sw,
                                        (CUtensorMapL2promotion)l2, (CUtensorMapFloatOOBfill)oob);
    int n = rank > 5 ? 5 : (int)rank;
    printf("{\"id\": %ld, \"dtype\": %u, \"rank\": %u, \"addr\": %llu", id, dtype, rank, addr);
    print_u64s("dims", dims, n);
    print_u64s("strides", strides, n > 0 ? n - 1 : 0);
    print_u64s("box", box, n);
    print_u64s("estr", estr, n);
    printf(", \"interleave\": %u, \"swizzle\": %u, \"l2\": %u, \"oob\": %u, \"result\": %d}\n", il, sw, l2, oob, (int)r);
  }
  return 0;
}
