#include <cstdint>
#include <vector>

#include "xla_lite/hlo/hlo_evaluator_internal.h"

namespace xla_lite::evaluator_internal {
namespace {

std::vector<int64_t> Pick(const std::vector<int64_t>& values,
                          const std::vector<int64_t>& positions) {
  std::vector<int64_t> picked;
  for (int64_t p : positions) picked.push_back(values[p]);
  return picked;
}

}  // namespace

// Output feature f belongs to feature group f / (O / feature_group_count),
// which reads input features [g * Ci, (g + 1) * Ci) for the kernel's Ci
// input features, and to batch group f / (O / batch_group_count), which
// reads input batch group * out_batch + b (the groups are the major part
// of the input batch, as XLA splits it).
absl::StatusOr<Literal> EvaluateConvolution(const HloInstruction& instr,
                                            const Literal& lhs,
                                            const Literal& rhs) {
  const ConvolutionDimensionNumbers& d = instr.convolution_dimension_numbers();
  const Window& window = instr.window();
  const std::vector<int64_t>& lhs_dims = lhs.shape().dimensions();
  const std::vector<int64_t>& rhs_dims = rhs.shape().dimensions();
  const std::vector<int64_t>& out_dims = instr.shape().dimensions();
  const std::vector<int64_t> lhs_strides = RowMajorStrides(lhs_dims);
  const std::vector<int64_t> rhs_strides = RowMajorStrides(rhs_dims);
  const std::vector<int64_t> base = Pick(lhs_dims, d.input_spatial_dimensions);
  const std::vector<int64_t> taps_sizes =
      Pick(rhs_dims, d.kernel_spatial_dimensions);
  int64_t taps_count = 1;
  for (int64_t size : taps_sizes) taps_count *= size;
  const int64_t kernel_inputs = rhs_dims[d.kernel_input_feature_dimension];
  const int64_t outputs = rhs_dims[d.kernel_output_feature_dimension];
  const int64_t per_feature_group = outputs / instr.feature_group_count();
  const int64_t per_batch_group = outputs / instr.batch_group_count();
  const int64_t out_batch = out_dims[d.output_batch_dimension];

  Literal out(instr.shape());
  std::vector<int64_t> base_index;
  for (int64_t o = 0; o < out.element_count(); ++o) {
    const std::vector<int64_t> out_index = MultiIndex(out_dims, o);
    const int64_t f = out_index[d.output_feature_dimension];
    const int64_t batch = (f / per_batch_group) * out_batch +
                          out_index[d.output_batch_dimension];
    const int64_t first_input = (f / per_feature_group) * kernel_inputs;
    const std::vector<int64_t> out_spatial =
        Pick(out_index, d.output_spatial_dimensions);
    double acc = 0;
    for (int64_t t = 0; t < taps_count; ++t) {
      const std::vector<int64_t> taps = MultiIndex(taps_sizes, t);
      if (!WindowedBaseIndex(window, base, out_spatial, taps, &base_index)) {
        continue;
      }
      int64_t lhs_at = batch * lhs_strides[d.input_batch_dimension];
      int64_t rhs_at = f * rhs_strides[d.kernel_output_feature_dimension];
      for (size_t i = 0; i < taps.size(); ++i) {
        lhs_at += base_index[i] * lhs_strides[d.input_spatial_dimensions[i]];
        const int64_t tap = window[i].window_reversal
                                ? taps_sizes[i] - 1 - taps[i]
                                : taps[i];
        rhs_at += tap * rhs_strides[d.kernel_spatial_dimensions[i]];
      }
      for (int64_t k = 0; k < kernel_inputs; ++k) {
        acc += lhs.GetAsDouble(
                   lhs_at + (first_input + k) *
                                lhs_strides[d.input_feature_dimension]) *
               rhs.GetAsDouble(
                   rhs_at + k * rhs_strides[d.kernel_input_feature_dimension]);
      }
    }
    out.SetFromDouble(o, acc);
  }
  return out;
}

}  // namespace xla_lite::evaluator_internal
