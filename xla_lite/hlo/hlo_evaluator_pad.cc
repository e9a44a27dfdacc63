#include <cstdint>
#include <cstring>
#include <vector>

#include "xla_lite/hlo/hlo_evaluator_internal.h"

namespace xla_lite::evaluator_internal {

absl::StatusOr<Literal> EvaluatePad(const HloInstruction& instr,
                                    const Literal& operand,
                                    const Literal& value) {
  const std::vector<PaddingDimension>& padding = instr.padding();
  const std::vector<int64_t>& out_dims = instr.shape().dimensions();
  const int64_t width = primitive_util::ByteWidth(instr.shape().element_type());
  Literal out(instr.shape());
  for (int64_t o = 0; o < out.element_count(); ++o) {
    std::memcpy(out.mutable_bytes().data() + o * width, value.bytes().data(),
                width);
  }
  // Each operand element lands at low + index * (interior + 1), if at all.
  for (int64_t i = 0; i < operand.element_count(); ++i) {
    std::vector<int64_t> index = MultiIndex(operand.shape().dimensions(), i);
    bool inside = true;
    for (size_t d = 0; d < index.size(); ++d) {
      index[d] = padding[d].edge_low + index[d] * (padding[d].interior + 1);
      inside = inside && index[d] >= 0 && index[d] < out_dims[d];
    }
    if (!inside) continue;
    std::memcpy(out.mutable_bytes().data() + LinearIndex(out_dims, index) * width,
                operand.bytes().data() + i * width, width);
  }
  return out;
}

}  // namespace xla_lite::evaluator_internal
