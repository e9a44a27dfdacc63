#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "xla_lite/hlo/hlo_evaluator_internal.h"

namespace xla_lite::evaluator_internal {
namespace {

bool Contains(const std::vector<int64_t>& dims, int64_t d) {
  return std::find(dims.begin(), dims.end(), d) != dims.end();
}

}  // namespace

SliceStarts::SliceStarts(const Literal& indices, int64_t index_vector_dim,
                         const std::vector<int64_t>& to_operand,
                         const std::vector<int64_t>& operand_batching_dims,
                         const std::vector<int64_t>& indices_batching_dims,
                         int64_t operand_rank)
    : indices_(indices),
      index_vector_dim_(index_vector_dim),
      to_operand_(to_operand),
      operand_batching_dims_(operand_batching_dims),
      operand_rank_(operand_rank) {
  // A batch index lacks index_vector_dim, so later dimensions move up one.
  for (int64_t d : indices_batching_dims) {
    batch_positions_.push_back(d < index_vector_dim ? d : d - 1);
  }
}

std::vector<int64_t> SliceStarts::Start(
    const std::vector<int64_t>& batch_index) const {
  const std::vector<int64_t>& dims = indices_.shape().dimensions();
  const int64_t rank = dims.size();
  std::vector<int64_t> full(rank);
  for (int64_t d = 0, b = 0; d < rank; ++d) {
    if (d != index_vector_dim_) full[d] = batch_index[b++];
  }
  const bool is_u64 = indices_.shape().element_type() == PrimitiveType::U64;
  std::vector<int64_t> start(operand_rank_, 0);
  for (size_t k = 0; k < to_operand_.size(); ++k) {
    if (index_vector_dim_ < rank) full[index_vector_dim_] = k;
    int64_t value = indices_.GetAsInt64(LinearIndex(dims, full));
    // u64 travels as its bits: above int64's range it is past any end.
    if (is_u64 && value < 0) value = std::numeric_limits<int64_t>::max();
    start[to_operand_[k]] = value;
  }
  for (size_t i = 0; i < operand_batching_dims_.size(); ++i) {
    start[operand_batching_dims_[i]] = batch_index[batch_positions_[i]];
  }
  return start;
}

absl::StatusOr<Literal> EvaluateGather(const HloInstruction& instr,
                                       const Literal& operand,
                                       const Literal& indices) {
  const GatherDimensionNumbers& d = instr.gather_dimension_numbers();
  const std::vector<int64_t>& sizes = instr.gather_slice_sizes();
  const std::vector<int64_t>& operand_dims = operand.shape().dimensions();
  const int64_t operand_rank = operand_dims.size();
  const SliceStarts starts(indices, d.index_vector_dim, d.start_index_map,
                           d.operand_batching_dims,
                           d.start_indices_batching_dims, operand_rank);
  const std::vector<int64_t> window = GatherOffsetOperandDims(d, operand_rank);
  Literal out(instr.shape());
  const int64_t width = primitive_util::ByteWidth(instr.shape().element_type());
  for (int64_t o = 0; o < out.element_count(); ++o) {
    const std::vector<int64_t> out_index =
        MultiIndex(out.shape().dimensions(), o);
    std::vector<int64_t> batch_index, offset;
    for (int64_t i = 0; i < static_cast<int64_t>(out_index.size()); ++i) {
      (Contains(d.offset_dims, i) ? offset : batch_index)
          .push_back(out_index[i]);
    }
    std::vector<int64_t> index = starts.Start(batch_index);
    for (int64_t k = 0; k < operand_rank; ++k) {
      index[k] = std::clamp<int64_t>(index[k], 0, operand_dims[k] - sizes[k]);
    }
    for (size_t k = 0; k < window.size(); ++k) index[window[k]] += offset[k];
    std::memcpy(
        out.mutable_bytes().data() + o * width,
        operand.bytes().data() + LinearIndex(operand_dims, index) * width,
        width);
  }
  return out;
}

}  // namespace xla_lite::evaluator_internal
