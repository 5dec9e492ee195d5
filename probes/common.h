// Shared helpers for the cuteverify silicon probes.
#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #x, __FILE__, __LINE__, cudaGetErrorString(e_)); exit(2);} } while (0)

static std::string env_or(const char* k, const char* d) {
  const char* v = getenv(k); return v ? std::string(v) : std::string(d);
}

// JSON-escape a short string (no control chars expected other than quotes/backslash).
static std::string jesc(const std::string& s) {
  std::string o; for (char c : s) { if (c == '"' || c == '\\') o += '\\'; if ((unsigned char)c >= 32) o += c; } return o;
}

// First line of each evidence file.
static void write_meta(FILE* f, const char* family, const char* notes) {
  cudaDeviceProp p; memset(&p, 0, sizeof p); strcpy(p.name, "EMULATED");
  int drv = 0, rt = 0;
#ifndef PROBE_EMULATE
  CK(cudaGetDeviceProperties(&p, 0)); CK(cudaDriverGetVersion(&drv)); CK(cudaRuntimeGetVersion(&rt));
#endif
  fprintf(f, "{\"meta\": {\"family\": \"%s\", \"gpu\": \"%s\", \"cc\": \"%d.%d\", \"sm_count\": %d, "
             "\"driver\": \"%s\", \"cuda_driver_api\": %d, \"cuda_runtime\": %d, \"nvcc\": \"%s\", "
             "\"compile_flags\": \"%s\", \"date\": \"%s\", \"probe_source\": \"probes/%s.cu\", \"notes\": \"%s\"}}\n",
          family, p.name, p.major, p.minor, p.multiProcessorCount,
          jesc(env_or("PROBE_DRIVER", "unknown")).c_str(), drv, rt,
          jesc(env_or("PROBE_NVCC", "unknown")).c_str(), jesc(env_or("PROBE_FLAGS", "unknown")).c_str(),
          jesc(env_or("PROBE_DATE", "unknown")).c_str(), family, jesc(notes).c_str());
}

static FILE* open_out(int argc, char** argv, const char* name) {
  std::string dir = argc > 1 ? argv[1] : ".";
  std::string path = dir + "/" + name;
  FILE* f = fopen(path.c_str(), "w");
  if (!f) { perror(path.c_str()); exit(2); }
  return f;
}

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return (uint32_t)__cvta_generic_to_shared(p);
}
