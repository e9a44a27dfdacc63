#ifndef BASE_ARRAY_SIZE_H_
#define BASE_ARRAY_SIZE_H_

// Element counts and byte sizes of arrays, computed without overflow. Every
// size that comes from outside (HLO text, .npy headers, flags) passes here
// before anything is allocated or sliced, so a dimension like 2^63 or a
// product that wraps to 0 ends in a clear error instead of a negative slice
// or a wrong result.

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace base {

// The largest array this project makes (256 TiB). Far above any memory, so
// it refuses nothing real; far below 2^63, so offsets and sums of a few
// sizes stay exact in int64.
inline constexpr int64_t kMaxArrayBytes = int64_t{1} << 48;

// a * b and a + b, or nullopt when the result does not fit in int64.
std::optional<int64_t> CheckedMultiply(int64_t a, int64_t b);
std::optional<int64_t> CheckedAdd(int64_t a, int64_t b);

// The byte size of an array of `dimensions` (each >= 0) with
// `element_bytes` per element. INVALID_ARGUMENT naming `what` when a
// dimension is negative or the size passes kMaxArrayBytes.
absl::StatusOr<int64_t> CheckedArrayBytes(absl::Span<const int64_t> dimensions,
                                          int64_t element_bytes,
                                          absl::string_view what);

}  // namespace base

#endif  // BASE_ARRAY_SIZE_H_
