// dynamic-slice and dynamic-update-slice. Both clamp each start index so
// the slice (or the update) lies wholly within the operand, as XLA does:
// start = min(max(index, 0), operand_dim - size). A loop that indexes past
// the end thus reads or writes the last window instead of faulting.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "xla_lite/hlo/hlo_evaluator_internal.h"

namespace xla_lite::evaluator_internal {
namespace {

// Clamped starts from the scalar index operands `indices`, for a window of
// `sizes` in an operand of `operand_dims`.
std::vector<int64_t> ClampedStarts(absl::Span<const Literal* const> indices,
                                   const std::vector<int64_t>& operand_dims,
                                   const std::vector<int64_t>& sizes) {
  std::vector<int64_t> starts(operand_dims.size());
  for (size_t d = 0; d < starts.size(); ++d) {
    const int64_t index = indices[d]->GetAsInt64(0);
    starts[d] = std::clamp<int64_t>(index, 0, operand_dims[d] - sizes[d]);
  }
  return starts;
}

// Copies every element of `window` (whose position in `whole` is `starts`)
// between the two: into `whole` when `to_whole`, out of it otherwise.
void CopyWindow(const std::vector<int64_t>& starts, bool to_whole,
                Literal* whole, Literal* window) {
  const int64_t width =
      primitive_util::ByteWidth(whole->shape().element_type());
  const std::vector<int64_t>& window_dims = window->shape().dimensions();
  const std::vector<int64_t>& whole_dims = whole->shape().dimensions();
  for (int64_t i = 0; i < window->element_count(); ++i) {
    std::vector<int64_t> index = MultiIndex(window_dims, i);
    for (size_t d = 0; d < index.size(); ++d) index[d] += starts[d];
    uint8_t* in_whole =
        whole->mutable_bytes().data() + LinearIndex(whole_dims, index) * width;
    uint8_t* in_window = window->mutable_bytes().data() + i * width;
    if (to_whole) {
      std::memcpy(in_whole, in_window, width);
    } else {
      std::memcpy(in_window, in_whole, width);
    }
  }
}

}  // namespace

Literal EvaluateDynamicSlice(const HloInstruction& instr,
                             absl::Span<const Literal* const> operands) {
  Literal operand = *operands[0];
  Literal out(instr.shape());
  const std::vector<int64_t> starts =
      ClampedStarts(operands.subspan(1), operand.shape().dimensions(),
                    instr.dynamic_slice_sizes());
  CopyWindow(starts, /*to_whole=*/false, &operand, &out);
  return out;
}

Literal EvaluateDynamicUpdateSlice(const HloInstruction& instr,
                                   absl::Span<const Literal* const> operands) {
  Literal out = *operands[0];
  Literal update = *operands[1];
  const std::vector<int64_t> starts =
      ClampedStarts(operands.subspan(2), out.shape().dimensions(),
                    update.shape().dimensions());
  CopyWindow(starts, /*to_whole=*/true, &out, &update);
  return out;
}

}  // namespace xla_lite::evaluator_internal
