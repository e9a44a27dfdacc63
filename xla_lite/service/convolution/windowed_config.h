#ifndef XLA_LITE_SERVICE_CONVOLUTION_WINDOWED_CONFIG_H_
#define XLA_LITE_SERVICE_CONVOLUTION_WINDOWED_CONFIG_H_

// convolution, reduce-window and select-and-scatter in the form their
// emitted kernels take: each array's dimensions by role, as element
// strides into row-major buffers, with the window along each.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xla_lite/hlo/hlo_instruction.h"
#include "xla_lite/service/gemm/gemm_tiling.h"

namespace xla_lite::gpu {

// One windowed dimension: output position o and tap t read base element
// (o * stride + t * window_dilation - pad_low) / base_dilation when that
// is in [0, base_size) and divides exactly (else padding or a hole).
struct WindowedAxis {
  int64_t out_size = 1;
  int64_t base_size = 1;
  int64_t window = 1;
  int64_t stride = 1;
  int64_t pad_low = 0;
  int64_t base_dilation = 1;
  int64_t window_dilation = 1;
  bool reversal = false;
  // Element strides of this dimension in the base (lhs or operand), the
  // kernel (convolution) and the output (or select-and-scatter's source).
  int64_t base_stride = 0;
  int64_t kernel_stride = 0;
  int64_t out_stride = 0;
};

// A convolution as one gemm per group of output features that share their
// lhs feature and batch group: rows are the output's (batch, spatial...)
// positions, columns the group's features, and the contraction runs over
// the window's taps (row-major), then the kernel's input features, which
// is the order every back end sums in.
struct ConvolutionGemm {
  // The tiled kernel (conv_gemm_kernel.h) rather than one output per
  // thread: for groups of at least kMinTiledFeatures features, whose
  // indices fit in int.
  static constexpr int64_t kMinTiledFeatures = 8;
  bool tiled = false;
  int64_t groups = 1;
  int64_t m = 1, n = 1, k = 1;
  // The row's components, outermost first: -1 the output batch, i spatial
  // axis i; the one with the smallest lhs stride is innermost, so that
  // neighbouring rows read neighbouring lhs elements where they can.
  std::vector<int> row_axes;
  GemmTiling tiling;
  // Split-K, for contractions too long for the tiles' few blocks (filter
  // gradients): split s sums the contraction's [s * split_k, (s + 1) *
  // split_k) into scratch[s][group][row][column], and a second kernel adds
  // the splits in order, so the result is deterministic.
  int64_t splits = 1;
  int64_t split_k = 0;

  int64_t ScratchElements() const {
    return splits > 1 ? splits * groups * m * n : 0;
  }
  std::string ToString() const;
};

// out[b, f, s...] = sum over taps t and c < kernel_inputs of
//   lhs[batch group(f) * out_batch + b, feature group(f) * kernel_inputs + c,
//       base(s, t)] * rhs[c, f, t (reversed per axis)].
struct ConvolutionConfig {
  PrimitiveType type = PrimitiveType::F32;
  int64_t out_batch = 1;
  int64_t out_features = 1;
  int64_t kernel_inputs = 1;
  // Output features per feature group and per batch group.
  int64_t per_feature_group = 1;
  int64_t per_batch_group = 1;
  int64_t lhs_batch_stride = 0, lhs_feature_stride = 0;
  int64_t rhs_input_stride = 0, rhs_output_stride = 0;
  int64_t out_batch_stride = 0, out_feature_stride = 0;
  std::vector<WindowedAxis> spatial;
  int64_t lhs_elements = 0, rhs_elements = 0, out_elements = 0;
  ConvolutionGemm gemm;

  std::string ToString() const;
};

// The gemm form of `config` (its fields but `gemm`), chosen by a model of
// the device's occupancy: the emitted gemm's tiling (ChooseGemmTiling),
// with the tiles fitted to thin sides, and split-K when a long
// contraction would otherwise leave most multiprocessors idle.
ConvolutionGemm ChooseConvolutionGemm(const ConvolutionConfig& config);

// reduce-window (one output per window) and select-and-scatter (one
// result element per operand element, the source one per window): every
// operand dimension is an axis.
struct PoolingConfig {
  enum class Reducer { kAdd, kMax };
  // select(selected, candidate) keeps the selected element.
  enum class Select { kGe, kGt, kLe, kLt };
  PrimitiveType type = PrimitiveType::F32;
  Reducer reducer = Reducer::kAdd;  // reduce-window; scatter is always add
  Select select = Select::kGe;      // select-and-scatter
  double init = 0;
  std::vector<WindowedAxis> axes;
  int64_t operand_elements = 0, out_elements = 0;

  std::string ToString() const;
};

// The configs of a verified instruction; UNIMPLEMENTED naming it for forms
// the kernels do not take (element types other than f32, an init that is
// not a constant, reducers other than add and max, select other than a
// comparison of its parameters, scatter other than add, dilated
// select-and-scatter windows).
absl::StatusOr<ConvolutionConfig> ConvolutionConfigFor(
    const HloInstruction& convolution);
absl::StatusOr<PoolingConfig> PoolingConfigFor(const HloInstruction& pooling);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_CONVOLUTION_WINDOWED_CONFIG_H_
