#ifndef XLA_LITE_SERVICE_LAYOUT_NORMALIZATION_H_
#define XLA_LITE_SERVICE_LAYOUT_NORMALIZATION_H_

#include "absl/status/status.h"
#include "xla_lite/hlo/hlo_module.h"
#include "xla_lite/shape.h"

namespace xla_lite {

// Makes every value of the entry computation logical and row-major.
//
// Intermediate layouts are the compiler's choice, so they are all reset to
// the default. Entry parameters and results are what callers pass and get
// back, so they keep entry_computation_layout: a parameter stored in another
// layout is read as its physical (row-major over the layout's major-to-minor
// dimensions) array followed by a transpose to the logical dimensions, and
// a result is transposed into its physical order before it is stored. The
// transposes are ordinary instructions that fuse into neighbouring kernels.
//
// Tuple-shaped parameters are INVALID_ARGUMENT (parameters must be flat).
absl::Status NormalizeLayouts(HloModule* module);

// The runtime's (row-major) shape of an array stored in `shape`'s layout:
// its dimensions from most major to most minor.
Shape PhysicalShape(const Shape& shape);

}  // namespace xla_lite

#endif  // XLA_LITE_SERVICE_LAYOUT_NORMALIZATION_H_
