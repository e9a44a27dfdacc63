#include <algorithm>
#include <cstdint>
#include <vector>

#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/hlo/hlo_evaluator_internal.h"

namespace xla_lite::evaluator_internal {

absl::StatusOr<Literal> EvaluateScatter(const HloInstruction& instr,
                                        const Literal& operand,
                                        const Literal& indices,
                                        const Literal& updates,
                                        const ScalarCombiner& combine) {
  const ScatterDimensionNumbers& d = instr.scatter_dimension_numbers();
  const std::vector<int64_t>& operand_dims = operand.shape().dimensions();
  const int64_t operand_rank = operand_dims.size();
  const SliceStarts starts(
      indices, d.index_vector_dim, d.scatter_dims_to_operand_dims,
      d.input_batching_dims, d.scatter_indices_batching_dims, operand_rank);
  const std::vector<int64_t> window = ScatterWindowOperandDims(d, operand_rank);
  // The window's extent along each operand dimension (1 where inserted or
  // batching).
  std::vector<int64_t> extent(operand_rank, 1);
  for (size_t k = 0; k < window.size(); ++k) {
    extent[window[k]] = updates.shape().dimensions(d.update_window_dims[k]);
  }
  Literal out(instr.shape(), operand.bytes());
  int64_t dropped = 0;
  for (int64_t u = 0; u < updates.element_count(); ++u) {
    const std::vector<int64_t> update_index =
        MultiIndex(updates.shape().dimensions(), u);
    std::vector<int64_t> batch_index, offset;
    for (int64_t i = 0; i < static_cast<int64_t>(update_index.size()); ++i) {
      const bool in_window =
          std::find(d.update_window_dims.begin(), d.update_window_dims.end(),
                    i) != d.update_window_dims.end();
      (in_window ? offset : batch_index).push_back(update_index[i]);
    }
    std::vector<int64_t> index = starts.Start(batch_index);
    bool fits = true;
    for (int64_t k = 0; k < operand_rank; ++k) {
      fits = fits && index[k] >= 0 && index[k] <= operand_dims[k] - extent[k];
    }
    if (!fits) {
      ++dropped;
      continue;
    }
    for (size_t k = 0; k < window.size(); ++k) index[window[k]] += offset[k];
    const int64_t at = LinearIndex(operand_dims, index);
    RETURN_IF_ERROR(combine(out, at, updates, u, &out, at));
  }
  VLOG(5) << instr.name() << ": " << dropped
          << " update elements outside the operand dropped";
  return out;
}

}  // namespace xla_lite::evaluator_internal
