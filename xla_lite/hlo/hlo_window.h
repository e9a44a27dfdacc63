#ifndef XLA_LITE_HLO_HLO_WINDOW_H_
#define XLA_LITE_HLO_HLO_WINDOW_H_

// The window of convolution, reduce-window and select-and-scatter, and a
// convolution's dimension numbers, with their HLO text forms:
//   window={size=3x3 stride=2x2 pad=0_1x-1_1 lhs_dilate=2x2 rhs_dilate=1x1}
//   dim_labels=b01f_01io->b01f

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xla_lite {

// One dimension of a window, with XLA's meaning: the base (input) is
// dilated by base_dilation (lhs_dilate: base_dilation - 1 holes between
// elements), padded by padding_low / padding_high (negative pads cut), and
// the window of `size` taps, window_dilation apart (rhs_dilate), slides
// over it by `stride`.
struct WindowDimension {
  int64_t size = 1;
  int64_t stride = 1;
  int64_t padding_low = 0;
  int64_t padding_high = 0;
  int64_t window_dilation = 1;
  int64_t base_dilation = 1;
  bool window_reversal = false;

  bool operator==(const WindowDimension& o) const {
    return size == o.size && stride == o.stride &&
           padding_low == o.padding_low && padding_high == o.padding_high &&
           window_dilation == o.window_dilation &&
           base_dilation == o.base_dilation &&
           window_reversal == o.window_reversal;
  }
};
using Window = std::vector<WindowDimension>;

// Which dimension of each array plays which role; the spatial lists are in
// window order (spatial dimension i of every array pairs with window
// dimension i).
struct ConvolutionDimensionNumbers {
  int64_t input_batch_dimension = 0;
  int64_t input_feature_dimension = 0;
  std::vector<int64_t> input_spatial_dimensions;
  int64_t kernel_input_feature_dimension = 0;
  int64_t kernel_output_feature_dimension = 0;
  std::vector<int64_t> kernel_spatial_dimensions;
  int64_t output_batch_dimension = 0;
  int64_t output_feature_dimension = 0;
  std::vector<int64_t> output_spatial_dimensions;
};

// Window fields beyond this magnitude are refused, so that every size the
// verifier derives from them fits in int64 without care at each use.
inline constexpr int64_t kMaxWindowValue = int64_t{1} << 32;

// "size=3x3 pad=1_1x1_1 ..." (the text between the braces). Every field
// has one entry per dimension; size, stride and dilations are >= 1 and all
// within kMaxWindowValue. INVALID_ARGUMENT saying which field is wrong.
absl::StatusOr<Window> ParseWindow(absl::string_view text);
// The inverse: fields at their defaults are left out, as XLA prints.
std::string WindowToString(const Window& window);

// "b01f_01io->b01f": lhs, rhs and output labels, each a permutation of
// b/f (i/o for the kernel) and the digits 0..n-1 for n spatial dimensions.
absl::StatusOr<ConvolutionDimensionNumbers> ParseDimLabels(
    absl::string_view text);
std::string DimLabelsToString(const ConvolutionDimensionNumbers& dnums);

// The number of window positions along one dimension of a base of
// `base_size` elements: floor((padded - dilated window) / stride) + 1, or 0
// when the window does not fit. INVALID_ARGUMENT when the padded base is
// negative or a size overflows (hostile input).
absl::StatusOr<int64_t> WindowedOutputSize(int64_t base_size,
                                           const WindowDimension& dim);

}  // namespace xla_lite

#endif  // XLA_LITE_HLO_HLO_WINDOW_H_
