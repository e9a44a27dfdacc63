#ifndef XLA_LITE_SERVICE_GEMM_BF16_BITS_H_
#define XLA_LITE_SERVICE_GEMM_BF16_BITS_H_

#include <cstdint>
#include <cstring>

namespace xla_lite::gpu {

// bfloat16 as its 16 storage bits: the upper half of an IEEE f32. The emitted
// device code does the same bit operations (gemm_kernel_source.cc), so host
// and GPU round identically without either depending on a bf16 type.

inline float Bf16BitsToFloat(uint16_t bits) {
  uint32_t word = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &word, sizeof(value));
  return value;
}

// Round to nearest, ties to even; NaN stays NaN (quieted, sign kept), which
// plain rounding could turn into infinity by carrying out of the mantissa.
inline uint16_t FloatToBf16Bits(float value) {
  uint32_t word;
  std::memcpy(&word, &value, sizeof(word));
  if ((word & 0x7fffffffu) > 0x7f800000u) {
    return static_cast<uint16_t>((word >> 16) | 0x0040u);
  }
  word += 0x7fffu + ((word >> 16) & 1u);
  return static_cast<uint16_t>(word >> 16);
}

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_GEMM_BF16_BITS_H_
