#include "xla_lite/service/convolution/dnn_convolution.h"

#include "glog/logging.h"

namespace xla_lite::gpu {
namespace {

using se::dnn::ConvolutionCall;
using se::dnn::ConvolutionKind;

// Null addresses as large as the layouts span, so that Validate checks
// the shape alone.
std::optional<ConvolutionCall> Checked(ConvolutionCall call) {
  auto spanned = [](const se::dnn::TensorLayout& layout) {
    return se::DeviceAddressBase(nullptr,
                                 layout.SpanElements() * sizeof(float));
  };
  call.input_data = spanned(call.input);
  call.filter_data = spanned(call.filter);
  call.output_data = spanned(call.output);
  absl::Status valid = call.Validate();
  if (!valid.ok()) {
    VLOG(2) << "no DNN convolution: " << valid;
    return std::nullopt;
  }
  call.input_data = call.filter_data = call.output_data = {};
  return call;
}

void Append(se::dnn::TensorLayout& layout, int64_t size, int64_t stride) {
  layout.dims.push_back(size);
  layout.strides.push_back(stride);
}

bool AnyBaseDilation(const ConvolutionConfig& c) {
  for (const WindowedAxis& axis : c.spatial) {
    if (axis.base_dilation != 1) return true;
  }
  return false;
}

std::optional<ConvolutionCall> Forward(const ConvolutionConfig& c) {
  const int64_t groups = c.out_features / c.per_feature_group;
  ConvolutionCall call;
  call.kind = ConvolutionKind::kForward;
  call.groups = groups;
  call.input = {{c.out_batch, c.kernel_inputs * groups},
                {c.lhs_batch_stride, c.lhs_feature_stride}};
  call.filter = {{c.out_features, c.kernel_inputs},
                 {c.rhs_output_stride, c.rhs_input_stride}};
  call.output = {{c.out_batch, c.out_features},
                 {c.out_batch_stride, c.out_feature_stride}};
  for (const WindowedAxis& axis : c.spatial) {
    if (axis.reversal != c.spatial.front().reversal) return std::nullopt;
    call.flip = axis.reversal;
    Append(call.input, axis.base_size, axis.base_stride);
    Append(call.filter, axis.window, axis.kernel_stride);
    Append(call.output, axis.out_size, axis.out_stride);
    call.padding.push_back(axis.pad_low);
    call.strides.push_back(axis.stride);
    call.dilations.push_back(axis.window_dilation);
  }
  return Checked(std::move(call));
}

// w[k, c, r] = sum over n, p of x[n, c, p * S + r * D - P] * dy[n, k, p]
// with n the convolution's contracted lhs feature, c its batch, k its
// output feature, p its window tap and r its output position.
std::optional<ConvolutionCall> BackwardFilter(const ConvolutionConfig& c) {
  if (c.per_feature_group != c.out_features) return std::nullopt;
  ConvolutionCall call;
  call.kind = ConvolutionKind::kBackwardFilter;
  call.input = {{c.kernel_inputs, c.out_batch},
                {c.lhs_feature_stride, c.lhs_batch_stride}};
  call.output = {{c.kernel_inputs, c.out_features},
                 {c.rhs_input_stride, c.rhs_output_stride}};
  call.filter = {{c.out_features, c.out_batch},
                 {c.out_feature_stride, c.out_batch_stride}};
  for (const WindowedAxis& axis : c.spatial) {
    if (axis.reversal) return std::nullopt;
    Append(call.input, axis.base_size, axis.base_stride);
    Append(call.output, axis.window, axis.kernel_stride);
    Append(call.filter, axis.out_size, axis.out_stride);
    call.padding.push_back(axis.pad_low);
    call.strides.push_back(axis.window_dilation);
    call.dilations.push_back(axis.stride);
  }
  return Checked(std::move(call));
}

}  // namespace

int64_t ConvolutionFlops(const ConvolutionConfig& config) {
  int64_t taps = config.kernel_inputs;
  for (const WindowedAxis& axis : config.spatial) taps *= axis.window;
  return 2 * config.out_elements * taps;
}

std::optional<ConvolutionCall> DnnConvolutionFor(
    const ConvolutionConfig& config) {
  if (config.type != PrimitiveType::F32 || config.spatial.empty() ||
      config.spatial.size() > se::dnn::kMaxSpatialDims ||
      config.per_batch_group != config.out_features ||
      config.per_feature_group < 1 || AnyBaseDilation(config)) {
    return std::nullopt;
  }
  int64_t taps = 1, positions = 1;
  for (const WindowedAxis& axis : config.spatial) {
    taps *= axis.window;
    positions *= axis.out_size;
  }
  if (taps > positions) {
    if (auto call = BackwardFilter(config)) return call;
    return Forward(config);
  }
  if (auto call = Forward(config)) return call;
  return BackwardFilter(config);
}

std::optional<ConvolutionCall> DnnConvolutionCallFor(
    const HloInstruction& instr, const DnnConvolutionRule& rule) {
  if (rule.min_flops < 0 || instr.opcode() != HloOpcode::kConvolution) {
    return std::nullopt;
  }
  absl::StatusOr<ConvolutionConfig> config = ConvolutionConfigFor(instr);
  if (!config.ok() || ConvolutionFlops(*config) < rule.min_flops) {
    return std::nullopt;
  }
  return DnnConvolutionFor(*config);
}

}  // namespace xla_lite::gpu
