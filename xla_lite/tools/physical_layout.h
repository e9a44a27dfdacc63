#ifndef XLA_LITE_TOOLS_PHYSICAL_LAYOUT_H_
#define XLA_LITE_TOOLS_PHYSICAL_LAYOUT_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "xla_lite/hlo/literal.h"
#include "xla_lite/shape.h"

namespace xla_lite {

// `literal` (logical, row-major) as the bytes an array of `layout` stores,
// and back: entry parameters and results keep the module's entry layout,
// while host arrays (.npy files, Literals) are always row-major.
// INVALID_ARGUMENT when the element type or dimensions differ.
absl::StatusOr<std::vector<uint8_t>> ToPhysicalBytes(const Literal& literal,
                                                     const Shape& layout);
absl::StatusOr<Literal> FromPhysicalBytes(const std::vector<uint8_t>& bytes,
                                          const Shape& layout);

}  // namespace xla_lite

#endif  // XLA_LITE_TOOLS_PHYSICAL_LAYOUT_H_
