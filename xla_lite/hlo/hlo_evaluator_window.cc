#include <cstdint>
#include <cstring>
#include <vector>

#include "base/status_macros.h"
#include "xla_lite/hlo/hlo_evaluator_internal.h"

namespace xla_lite::evaluator_internal {
namespace {

int64_t Product(const std::vector<int64_t>& sizes) {
  int64_t product = 1;
  for (int64_t size : sizes) product *= size;
  return product;
}

std::vector<int64_t> WindowSizes(const Window& window) {
  std::vector<int64_t> sizes;
  for (const WindowDimension& d : window) sizes.push_back(d.size);
  return sizes;
}

}  // namespace

bool WindowedBaseIndex(const Window& window,
                       absl::Span<const int64_t> base_sizes,
                       absl::Span<const int64_t> out_index,
                       absl::Span<const int64_t> taps,
                       std::vector<int64_t>* base_index) {
  base_index->resize(window.size());
  for (size_t i = 0; i < window.size(); ++i) {
    const WindowDimension& d = window[i];
    // Position in the padded, dilated base.
    const int64_t position =
        out_index[i] * d.stride + taps[i] * d.window_dilation - d.padding_low;
    const int64_t dilated_size = (base_sizes[i] - 1) * d.base_dilation + 1;
    if (position < 0 || position >= dilated_size ||
        position % d.base_dilation != 0) {
      return false;
    }
    (*base_index)[i] = position / d.base_dilation;
  }
  return true;
}

absl::StatusOr<Literal> EvaluateReduceWindow(const HloInstruction& instr,
                                             const Literal& operand,
                                             const Literal& init,
                                             const ScalarCombiner& combine) {
  const Window& window = instr.window();
  const std::vector<int64_t>& base = operand.shape().dimensions();
  const std::vector<int64_t> sizes = WindowSizes(window);
  const int64_t taps_count = Product(sizes);
  Literal out(instr.shape());
  const Shape scalar = Shape::Array(init.shape().element_type(), {});
  std::vector<int64_t> base_index;
  for (int64_t o = 0; o < out.element_count(); ++o) {
    const std::vector<int64_t> out_index =
        MultiIndex(out.shape().dimensions(), o);
    Literal acc(scalar, init.bytes());
    for (int64_t t = 0; t < taps_count; ++t) {
      if (!WindowedBaseIndex(window, base, out_index, MultiIndex(sizes, t),
                             &base_index)) {
        continue;
      }
      RETURN_IF_ERROR(
          combine(acc, 0, operand, LinearIndex(base, base_index), &acc, 0));
    }
    std::memcpy(out.mutable_bytes().data() + o * acc.bytes().size(),
                acc.bytes().data(), acc.bytes().size());
  }
  return out;
}

absl::StatusOr<Literal> EvaluateSelectAndScatter(
    const HloInstruction& instr, const Literal& operand, const Literal& source,
    const Literal& init, const ScalarPredicate& select,
    const ScalarCombiner& scatter) {
  const Window& window = instr.window();
  const std::vector<int64_t>& base = operand.shape().dimensions();
  const std::vector<int64_t> sizes = WindowSizes(window);
  const int64_t taps_count = Product(sizes);
  Literal out(instr.shape());
  const size_t width = init.bytes().size();
  for (int64_t i = 0; i < out.element_count(); ++i) {
    std::memcpy(out.mutable_bytes().data() + i * width, init.bytes().data(),
                width);
  }
  std::vector<int64_t> base_index;
  for (int64_t s = 0; s < source.element_count(); ++s) {
    const std::vector<int64_t> out_index =
        MultiIndex(source.shape().dimensions(), s);
    int64_t selected = -1;
    for (int64_t t = 0; t < taps_count; ++t) {
      if (!WindowedBaseIndex(window, base, out_index, MultiIndex(sizes, t),
                             &base_index)) {
        continue;
      }
      const int64_t at = LinearIndex(base, base_index);
      if (selected < 0) {
        selected = at;
        continue;
      }
      ASSIGN_OR_RETURN(bool keep, select(operand, selected, operand, at));
      if (!keep) selected = at;
    }
    // A window wholly on padding selects nothing and scatters nothing.
    if (selected >= 0) {
      RETURN_IF_ERROR(scatter(out, selected, source, s, &out, selected));
    }
  }
  return out;
}

}  // namespace xla_lite::evaluator_internal
