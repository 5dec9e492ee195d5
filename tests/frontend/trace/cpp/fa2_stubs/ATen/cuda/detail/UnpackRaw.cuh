// cuteverify: a stub of torch's ATen/cuda/detail/UnpackRaw.cuh (host-only capture of FlashAttention-2).
#pragma once
#include <tuple>
#include <ATen/cuda/PhiloxCudaState.h>
namespace at { namespace cuda { namespace philox {
inline std::tuple<uint64_t, uint64_t> unpack(at::PhiloxCudaState arg) {
  return std::make_tuple(arg.seed_.val, arg.offset_.val);
}
}}}  // namespace at::cuda::philox
