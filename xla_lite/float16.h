#ifndef XLA_LITE_FLOAT16_H_
#define XLA_LITE_FLOAT16_H_

// bfloat16 and IEEE half as their 16 storage bits, converted to and from
// f32 with round to nearest even. There is one implementation,
// float16_conversions.inc: compiled here for the host, and handed to the
// device as text by Float16DeviceSource(), so the host interpreter, the
// emitted fusions and the emitted gemm all round the same way.

#include <cstdint>
#include <cstring>

namespace xla_lite {
namespace float16_internal {

static_assert(sizeof(unsigned int) == sizeof(float),
              "float16_conversions.inc assumes a 32-bit unsigned int");

inline unsigned int xl_float_as_uint(float f) {
  unsigned int u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}
inline float xl_uint_as_float(unsigned int u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

#define XL_FN inline
#include "xla_lite/float16_conversions.inc"
#undef XL_FN

}  // namespace float16_internal

inline float BF16ToF32(uint16_t bits) {
  return float16_internal::xl_bf16_to_f32(bits);
}
// NaN stays NaN (quieted); everything else rounds to nearest even.
inline uint16_t F32ToBF16(float value) {
  return float16_internal::xl_f32_to_bf16(value);
}
inline float F16ToF32(uint16_t bits) {
  return float16_internal::xl_f16_to_f32(bits);
}
// NaN becomes the quiet NaN 0x7e00 with its sign; values from 65520 up
// become infinity; everything else rounds to nearest even.
inline uint16_t F32ToF16(float value) {
  return float16_internal::xl_f32_to_f16(value);
}
// `value` rounded to the nearest bf16 (f16), as an f32.
inline float RoundToBF16(float value) {
  return float16_internal::xl_round_to_bf16(value);
}
inline float RoundToF16(float value) {
  return float16_internal::xl_round_to_f16(value);
}

// CUDA C (NVRTC and hiprtc compile it) defining the same functions for the
// device: xl_bf16_to_f32, xl_f32_to_bf16, xl_f16_to_f32, xl_f32_to_f16,
// xl_round_to_bf16, xl_round_to_f16, and the XL_FN qualifiers and bit casts
// (xl_float_as_uint, xl_uint_as_float) that other shared device helpers
// use too. Guarded, so a source may contain it more than once.
extern const char kFloat16DeviceSource[];

}  // namespace xla_lite

#endif  // XLA_LITE_FLOAT16_H_
