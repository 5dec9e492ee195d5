// cuteverify: a stub of torch's ATen/cuda/PhiloxCudaState.h (host-only capture of FlashAttention-2).
#pragma once
#include <cstdint>
namespace at {
struct PhiloxCudaState {
  PhiloxCudaState() = default;
  union Payload { uint64_t val; int64_t* ptr; };
  Payload seed_{}, offset_{};
  uint32_t offset_intragraph_ = 0;
  bool captured_ = false;
};
}  // namespace at
