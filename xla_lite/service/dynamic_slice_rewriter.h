#ifndef XLA_LITE_SERVICE_DYNAMIC_SLICE_REWRITER_H_
#define XLA_LITE_SERVICE_DYNAMIC_SLICE_REWRITER_H_

#include "absl/status/status.h"
#include "xla_lite/hlo/hlo_module.h"

namespace xla_lite {

// Rewrites dynamic-slice into gather and dynamic-update-slice into scatter
// with an assigning combiner, in every computation of `module`, so that
// they run on the gather and scatter kernels. Each start index is first
// clamped to [0, dim - size]: dynamic-update-slice moves a window that
// would not fit back inside, where scatter would drop it, so the clamp is
// what keeps the two equal (gather clamps the same way, made explicit for
// symmetry). The start indices become one s32[rank] vector (concatenate of
// the clamped scalars, converted to s32).
absl::Status RewriteDynamicSlices(HloModule* module);

}  // namespace xla_lite

#endif  // XLA_LITE_SERVICE_DYNAMIC_SLICE_REWRITER_H_
