#ifndef XLA_LITE_PRIMITIVE_UTIL_H_
#define XLA_LITE_PRIMITIVE_UTIL_H_

// Element types, and what every layer needs to know about one: its name in
// HLO text, its width, its class, its .npy dtype and the C type emitted
// kernels store it as. The bottom of xla_lite (nothing here depends on
// anything above Abseil), so the HLO IR, the runtime and both kernel back
// ends take their element types from the same place.

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace xla_lite {

// XLA's element types, with XLA's names.
enum class PrimitiveType {
  PRED,
  S8,
  S16,
  S32,
  S64,
  U8,
  U16,
  U32,
  U64,
  F16,
  BF16,
  F32,
  F64,
};

namespace primitive_util {

// Every element type, in declaration order.
absl::Span<const PrimitiveType> AllPrimitiveTypes();

// Bytes per element; PRED takes one byte (0 or 1).
int64_t ByteWidth(PrimitiveType type);

// F16, BF16, F32, F64.
bool IsFloatingPointType(PrimitiveType type);
// S8 to S64.
bool IsSignedIntegralType(PrimitiveType type);
// U8 to U64.
bool IsUnsignedIntegralType(PrimitiveType type);
// Signed or unsigned integers; PRED is neither, as in XLA.
bool IsIntegralType(PrimitiveType type);

// The name HLO text uses: "pred", "s32", "bf16", ...
absl::string_view LowercasePrimitiveTypeName(PrimitiveType type);
// The type HLO text names `name`; INVALID_ARGUMENT listing the known names
// otherwise.
absl::StatusOr<PrimitiveType> StringToPrimitiveType(absl::string_view name);

// NumPy's dtype descriptor for arrays of `type`, little-endian: "<f4",
// "|b1", ... NumPy has no bfloat16, so BF16 travels as its 16 bits, "<u2",
// which reads back as U16 unless the reader knows to expect BF16.
absl::string_view NpyDescr(PrimitiveType type);
// The type whose NpyDescr is `descr` (U16 for "<u2"), or nullopt.
std::optional<PrimitiveType> PrimitiveTypeForNpyDescr(absl::string_view descr);

// The C type an emitted CUDA/HIP kernel stores an element in: "float",
// "int", "unsigned char" for PRED, "unsigned short" for the bits of F16 and
// BF16 (device code converts them with the helpers of float16.h).
absl::string_view CudaStorageTypeName(PrimitiveType type);

}  // namespace primitive_util
}  // namespace xla_lite

#endif  // XLA_LITE_PRIMITIVE_UTIL_H_
