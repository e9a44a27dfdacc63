#include "base/array_size.h"

#include "absl/strings/str_cat.h"

namespace base {

std::optional<int64_t> CheckedMultiply(int64_t a, int64_t b) {
  int64_t product;
  if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

std::optional<int64_t> CheckedAdd(int64_t a, int64_t b) {
  int64_t sum;
  if (__builtin_add_overflow(a, b, &sum)) return std::nullopt;
  return sum;
}

absl::StatusOr<int64_t> CheckedArrayBytes(absl::Span<const int64_t> dimensions,
                                          int64_t element_bytes,
                                          absl::string_view what) {
  for (int64_t d : dimensions) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": negative dimension ", d));
    }
    // A zero anywhere makes the product 0, whatever the others are.
    if (d == 0) return 0;
  }
  // Checked at each factor: the running size stays <= kMaxArrayBytes, so
  // one multiplication by an int64 can overflow, never two.
  int64_t bytes = element_bytes;
  for (int64_t d : dimensions) {
    std::optional<int64_t> next = CheckedMultiply(bytes, d);
    if (!next.has_value() || *next > kMaxArrayBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": more than ", kMaxArrayBytes,
                       " bytes (2^48), the largest array supported"));
    }
    bytes = *next;
  }
  return bytes;
}

}  // namespace base
