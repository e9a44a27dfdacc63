#ifndef XLA_LITE_SERVICE_REDUCTION_SPLITTER_H_
#define XLA_LITE_SERVICE_REDUCTION_SPLITTER_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "xla_lite/hlo/hlo_module.h"

namespace xla_lite {

// A reduction over the outer dimensions of its operand (R rows of C
// contiguous elements reduced to C: bias and LayerNorm gradients) has C
// outputs to spread over the device and R elements per output. When C is
// small one kernel cannot fill the device, and past 4096 rows its blocks'
// strips of rows take too long; this pass splits such a reduce in two, as
// XLA's tree reduction rewriter does: the rows are reshaped to [R1, R2, C]
// and reduced over R2, then the [R1, C] partial results over R1. Both
// kernels read coalesced columns (cuda_emitter's column strategy),
// the first with R1 * C outputs, and the order of the sums is fixed, so
// results stay deterministic. Only f32 reduces are split (a bf16 partial
// would round where the unsplit one does not).
absl::Status SplitColumnReductions(HloModule* module);

// The R1 the pass picks for R reduced rows of C outputs, or nullopt when
// the reduce stays whole. Exposed for tests.
std::optional<int64_t> ColumnReductionSplit(int64_t rows, int64_t columns);

}  // namespace xla_lite

#endif  // XLA_LITE_SERVICE_REDUCTION_SPLITTER_H_
