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
  }
  // Checked at each factor: the running size stays <= kMaxArrayBytes, so
  // one multiplication by an int64 can overflow, never two. A zero
  // dimension counts as 1 here: an empty array's other dimensions obey the
  // same limit, because strides and element counts are products taken
  // over every dimension, in any order.
  int64_t bytes = element_bytes;
  bool empty = false;
  for (int64_t d : dimensions) {
    empty |= d == 0;
    std::optional<int64_t> next = CheckedMultiply(bytes, d == 0 ? 1 : d);
    if (!next.has_value() || *next > kMaxArrayBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": more than ", kMaxArrayBytes,
                       " bytes (2^48), the largest array supported"));
    }
    bytes = *next;
  }
  if (empty) return 0;
  return bytes;
}

}  // namespace base
