#include "xla_lite/service/convolution/windowed_config.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "xla_lite/hlo/hlo_computation.h"
#include "xla_lite/service/kernel_program.h"

namespace xla_lite::gpu {
namespace {

absl::Status Unsupported(const HloInstruction& instr, absl::string_view why) {
  return absl::UnimplementedError(absl::StrCat(
      "instruction ", instr.name(), ": ", HloOpcodeString(instr.opcode()),
      " is not supported by the xla_lite compiler (", why, ")"));
}

absl::Status CheckF32(const HloInstruction& instr) {
  for (const HloInstruction* operand : instr.operands()) {
    if (operand->shape().element_type() != PrimitiveType::F32) {
      return Unsupported(instr, "the emitted kernels take f32 only");
    }
  }
  if (instr.shape().element_type() != PrimitiveType::F32) {
    return Unsupported(instr, "the emitted kernels take f32 only");
  }
  return absl::OkStatus();
}

WindowedAxis AxisFor(const WindowDimension& w, int64_t base_size,
                     int64_t out_size) {
  WindowedAxis axis;
  axis.out_size = out_size;
  axis.base_size = base_size;
  axis.window = w.size;
  axis.stride = w.stride;
  axis.pad_low = w.padding_low;
  axis.base_dilation = w.base_dilation;
  axis.window_dilation = w.window_dilation;
  axis.reversal = w.window_reversal;
  return axis;
}

// The binary op of a (T, T) -> T or -> pred computation applied to its
// parameters in order, or null.
const HloInstruction* ParameterOp(const HloComputation* computation) {
  if (computation == nullptr || computation->num_parameters() != 2) {
    return nullptr;
  }
  const HloInstruction* root = computation->root_instruction();
  if (root == nullptr || root->operand_count() != 2 ||
      root->operand(0) != computation->parameter_instruction(0) ||
      root->operand(1) != computation->parameter_instruction(1)) {
    return nullptr;
  }
  return root;
}

absl::StatusOr<double> ConstantInit(const HloInstruction& instr,
                                    int64_t operand) {
  const HloInstruction* init = instr.operand(operand);
  if (init->opcode() != HloOpcode::kConstant) {
    return Unsupported(instr, "its init value must be a constant");
  }
  return init->literal().GetAsDouble(0);
}

std::string AxesString(const std::vector<WindowedAxis>& axes) {
  return absl::StrJoin(axes, " ", [](std::string* out, const WindowedAxis& a) {
    absl::StrAppend(out, "[", a.base_size, "->", a.out_size, " w", a.window,
                    " s", a.stride, " p", a.pad_low, " d", a.base_dilation,
                    "/", a.window_dilation, a.reversal ? " rev" : "", "]");
  });
}

}  // namespace

std::string ConvolutionConfig::ToString() const {
  return absl::StrCat("conv b", out_batch, " f", out_features, " c",
                      kernel_inputs, " groups ", out_features /
                      per_feature_group, "/", out_features / per_batch_group,
                      " ", AxesString(spatial));
}

std::string PoolingConfig::ToString() const {
  return absl::StrCat("pool ", reducer == Reducer::kAdd ? "add" : "max",
                      " init ", init, " ", AxesString(axes));
}

absl::StatusOr<ConvolutionConfig> ConvolutionConfigFor(
    const HloInstruction& conv) {
  RETURN_IF_ERROR(CheckF32(conv));
  const ConvolutionDimensionNumbers& d = conv.convolution_dimension_numbers();
  const Shape& lhs = conv.operand(0)->shape();
  const Shape& rhs = conv.operand(1)->shape();
  const Shape& out = conv.shape();
  const std::vector<int64_t> ls = RowMajorStrides(lhs.dimensions()),
                             rs = RowMajorStrides(rhs.dimensions()),
                             os = RowMajorStrides(out.dimensions());
  ConvolutionConfig config;
  config.out_batch = out.dimensions(d.output_batch_dimension);
  config.out_features = out.dimensions(d.output_feature_dimension);
  config.kernel_inputs = rhs.dimensions(d.kernel_input_feature_dimension);
  config.per_feature_group = config.out_features / conv.feature_group_count();
  config.per_batch_group = config.out_features / conv.batch_group_count();
  config.lhs_batch_stride = ls[d.input_batch_dimension];
  config.lhs_feature_stride = ls[d.input_feature_dimension];
  config.rhs_input_stride = rs[d.kernel_input_feature_dimension];
  config.rhs_output_stride = rs[d.kernel_output_feature_dimension];
  config.out_batch_stride = os[d.output_batch_dimension];
  config.out_feature_stride = os[d.output_feature_dimension];
  for (size_t i = 0; i < d.input_spatial_dimensions.size(); ++i) {
    WindowedAxis axis =
        AxisFor(conv.window()[i], lhs.dimensions(d.input_spatial_dimensions[i]),
                out.dimensions(d.output_spatial_dimensions[i]));
    axis.base_stride = ls[d.input_spatial_dimensions[i]];
    axis.kernel_stride = rs[d.kernel_spatial_dimensions[i]];
    axis.out_stride = os[d.output_spatial_dimensions[i]];
    config.spatial.push_back(axis);
  }
  config.lhs_elements = lhs.ElementCount();
  config.rhs_elements = rhs.ElementCount();
  config.out_elements = out.ElementCount();
  return config;
}

absl::StatusOr<PoolingConfig> PoolingConfigFor(const HloInstruction& pooling) {
  RETURN_IF_ERROR(CheckF32(pooling));
  const bool scatter = pooling.opcode() == HloOpcode::kSelectAndScatter;
  PoolingConfig config;
  ASSIGN_OR_RETURN(config.init, ConstantInit(pooling, scatter ? 2 : 1));
  const HloInstruction* combine = ParameterOp(pooling.to_apply());
  const HloOpcode combiner =
      combine == nullptr ? HloOpcode::kTuple : combine->opcode();
  if (combiner == HloOpcode::kMaximum && !scatter) {
    config.reducer = PoolingConfig::Reducer::kMax;
  } else if (combiner != HloOpcode::kAdd) {
    return Unsupported(pooling, scatter ? "scatter must be add"
                                        : "the reducer must be add or maximum");
  }
  if (scatter) {
    const HloInstruction* select = ParameterOp(pooling.select());
    if (select == nullptr || select->opcode() != HloOpcode::kCompare) {
      return Unsupported(pooling, "select must compare its parameters");
    }
    switch (select->comparison_direction()) {
      case ComparisonDirection::kGe:
        config.select = PoolingConfig::Select::kGe;
        break;
      case ComparisonDirection::kGt:
        config.select = PoolingConfig::Select::kGt;
        break;
      case ComparisonDirection::kLe:
        config.select = PoolingConfig::Select::kLe;
        break;
      case ComparisonDirection::kLt:
        config.select = PoolingConfig::Select::kLt;
        break;
      default:
        return Unsupported(pooling, "select must be GE, GT, LE or LT");
    }
  }
  const Shape& operand = pooling.operand(0)->shape();
  const Shape& windows = scatter ? pooling.operand(1)->shape() : pooling.shape();
  const std::vector<int64_t> bs = RowMajorStrides(operand.dimensions()),
                             ws = RowMajorStrides(windows.dimensions());
  for (int64_t i = 0; i < operand.rank(); ++i) {
    WindowedAxis axis = AxisFor(pooling.window()[i], operand.dimensions(i),
                                windows.dimensions(i));
    if (scatter && (axis.base_dilation != 1 || axis.window_dilation != 1)) {
      return Unsupported(pooling, "dilated select-and-scatter windows");
    }
    axis.base_stride = bs[i];
    axis.out_stride = ws[i];
    config.axes.push_back(axis);
  }
  config.operand_elements = operand.ElementCount();
  config.out_elements = pooling.shape().ElementCount();
  return config;
}

}  // namespace xla_lite::gpu
