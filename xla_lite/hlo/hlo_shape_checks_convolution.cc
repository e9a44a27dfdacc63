// Shape inference for convolution, reduce-window and select-and-scatter,
// following XLA's: window fields in range, dim_labels naming every
// dimension once, group counts dividing the dimensions they split, and
// the result shape those imply, every size computed without overflow.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "xla_lite/hlo/hlo_shape_checker.h"
#include "xla_lite/hlo/hlo_window.h"

namespace xla_lite::verifier_internal {
namespace {

// The output size of each window dimension over `base_sizes`.
absl::StatusOr<std::vector<int64_t>> WindowedSizes(
    const Checker& c, const std::vector<int64_t>& base_sizes) {
  const Window& window = c.instr().window();
  if (window.size() != base_sizes.size()) {
    return c.Error(absl::StrCat("expected a window of ", base_sizes.size(),
                                " dimensions, got ", window.size(), " ({",
                                WindowToString(window), "})"));
  }
  std::vector<int64_t> sizes;
  for (size_t i = 0; i < window.size(); ++i) {
    absl::StatusOr<int64_t> size = WindowedOutputSize(base_sizes[i], window[i]);
    if (!size.ok()) {
      return c.Error(absl::StrCat("window dimension ", i, ": ",
                                  size.status().message()));
    }
    sizes.push_back(*size);
  }
  return sizes;
}

// `dims` (one role each, spatial last) name every dimension of an array of
// `rank` once.
absl::Status CheckLabels(const Checker& c, std::vector<int64_t> dims,
                         int64_t rank, absl::string_view what) {
  if (static_cast<int64_t>(dims.size()) != rank) {
    return c.Error(absl::StrCat("expected dim_labels to name the ", rank,
                                " dimensions of the ", what, ", got ",
                                dims.size()));
  }
  return c.DimensionList(dims, rank, absl::StrCat(what, " dim_labels"));
}

absl::Status CheckDivides(const Checker& c, absl::string_view count_name,
                          int64_t count, absl::string_view what,
                          int64_t size) {
  if (size % count == 0) return absl::OkStatus();
  return c.Error(absl::StrCat("expected ", count_name, " ", count,
                              " to divide the ", what, " (", size, ")"));
}

absl::Status CheckGroups(const Checker& c, int64_t input_batch,
                         int64_t input_features, int64_t kernel_input_features,
                         int64_t output_features) {
  const int64_t fgc = c.instr().feature_group_count();
  const int64_t bgc = c.instr().batch_group_count();
  if (fgc < 1 || bgc < 1) {
    return c.Error(absl::StrCat("expected group counts >= 1, got ",
                                "feature_group_count=", fgc,
                                " batch_group_count=", bgc));
  }
  if (fgc > 1 && bgc > 1) {
    return c.Error(absl::StrCat(
        "expected feature_group_count or batch_group_count to be 1, got ",
        fgc, " and ", bgc));
  }
  RETURN_IF_ERROR(CheckDivides(c, "feature_group_count", fgc,
                               "input feature dimension", input_features));
  RETURN_IF_ERROR(CheckDivides(c, "feature_group_count", fgc,
                               "kernel output feature dimension",
                               output_features));
  RETURN_IF_ERROR(CheckDivides(c, "batch_group_count", bgc,
                               "input batch dimension", input_batch));
  RETURN_IF_ERROR(CheckDivides(c, "batch_group_count", bgc,
                               "kernel output feature dimension",
                               output_features));
  if (input_features / fgc != kernel_input_features) {
    return c.Error(absl::StrCat(
        "expected the kernel input feature dimension (", kernel_input_features,
        ") to be the input features (", input_features,
        ") / feature_group_count (", fgc, ")"));
  }
  return absl::OkStatus();
}

absl::Status CheckConvolution(const Checker& c) {
  RETURN_IF_ERROR(c.OperandCount(2));
  RETURN_IF_ERROR(c.AllArrays());
  const Shape& lhs = c.operand_shape(0);
  const Shape& rhs = c.operand_shape(1);
  if (lhs.element_type() != rhs.element_type()) {
    return c.Error(absl::StrCat("expected operands of one element type, got ",
                                lhs.ToString(), " and ", rhs.ToString()));
  }
  const ConvolutionDimensionNumbers& d =
      c.instr().convolution_dimension_numbers();
  auto with_spatial = [](int64_t a, int64_t b, std::vector<int64_t> spatial) {
    spatial.insert(spatial.begin(), {a, b});
    return spatial;
  };
  const int64_t output_rank = c.instr().shape().rank();
  RETURN_IF_ERROR(CheckLabels(
      c,
      with_spatial(d.input_batch_dimension, d.input_feature_dimension,
                   d.input_spatial_dimensions),
      lhs.rank(), "lhs"));
  RETURN_IF_ERROR(CheckLabels(c,
                              with_spatial(d.kernel_input_feature_dimension,
                                           d.kernel_output_feature_dimension,
                                           d.kernel_spatial_dimensions),
                              rhs.rank(), "rhs"));
  RETURN_IF_ERROR(CheckLabels(
      c,
      with_spatial(d.output_batch_dimension, d.output_feature_dimension,
                   d.output_spatial_dimensions),
      output_rank, "output"));
  const int64_t output_features =
      rhs.dimensions(d.kernel_output_feature_dimension);
  RETURN_IF_ERROR(CheckGroups(c, lhs.dimensions(d.input_batch_dimension),
                              lhs.dimensions(d.input_feature_dimension),
                              rhs.dimensions(d.kernel_input_feature_dimension),
                              output_features));
  std::vector<int64_t> base;
  for (size_t i = 0; i < d.input_spatial_dimensions.size(); ++i) {
    base.push_back(lhs.dimensions(d.input_spatial_dimensions[i]));
    const int64_t taps = rhs.dimensions(d.kernel_spatial_dimensions[i]);
    if (i < c.instr().window().size() && c.instr().window()[i].size != taps) {
      return c.Error(absl::StrCat("expected window size ", taps,
                                  " (kernel spatial dimension ", i,
                                  ") in window dimension ", i, ", got ",
                                  c.instr().window()[i].size));
    }
  }
  ASSIGN_OR_RETURN(std::vector<int64_t> spatial, WindowedSizes(c, base));
  std::vector<int64_t> dims(output_rank);
  dims[d.output_batch_dimension] =
      lhs.dimensions(d.input_batch_dimension) / c.instr().batch_group_count();
  dims[d.output_feature_dimension] = output_features;
  for (size_t i = 0; i < spatial.size(); ++i) {
    dims[d.output_spatial_dimensions[i]] = spatial[i];
  }
  // As for dot, the result type may differ from the operands'.
  return c.Result(Shape::Array(c.instr().shape().element_type(), dims));
}

absl::Status CheckReduceWindow(const Checker& c) {
  const int64_t count = c.instr().operand_count();
  if (count >= 4 && count % 2 == 0) {
    return c.Unimplemented(absl::StrCat(
        "variadic reduce-window (", count / 2,
        " operands and inits) is not supported; expected 2 operands"));
  }
  RETURN_IF_ERROR(c.OperandCount(2));
  RETURN_IF_ERROR(c.AllArrays());
  const Shape& operand = c.operand_shape(0);
  RETURN_IF_ERROR(
      c.SameAs(1, Shape::Array(operand.element_type(), {}), "init value"));
  RETURN_IF_ERROR(
      c.ScalarBinaryComputation(c.instr().to_apply(), operand.element_type()));
  ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                   WindowedSizes(c, operand.dimensions()));
  return c.Result(Shape::Array(operand.element_type(), dims));
}

// select is (T, T) -> pred.
absl::Status CheckSelectComputation(const Checker& c, PrimitiveType type) {
  const HloComputation* select = c.instr().select();
  if (select == nullptr) return c.Error("expected select=, got none");
  const Shape scalar = Shape::Array(type, {});
  const auto& params = select->parameter_instructions();
  const HloInstruction* root = select->root_instruction();
  bool ok = params.size() == 2 && root != nullptr &&
            root->shape().Compatible(Shape::Array(PrimitiveType::PRED, {}));
  for (const HloInstruction* param : params) {
    ok = ok && param != nullptr && param->shape().Compatible(scalar);
  }
  if (ok) return absl::OkStatus();
  return c.Error(absl::StrCat("expected select '", select->name(), "' to be (",
                              scalar.ToString(), ", ", scalar.ToString(),
                              ") -> pred[]"));
}

absl::Status CheckSelectAndScatter(const Checker& c) {
  RETURN_IF_ERROR(c.OperandCount(3));
  RETURN_IF_ERROR(c.AllArrays());
  const Shape& operand = c.operand_shape(0);
  const PrimitiveType type = operand.element_type();
  RETURN_IF_ERROR(c.SameAs(2, Shape::Array(type, {}), "init value"));
  RETURN_IF_ERROR(CheckSelectComputation(c, type));
  RETURN_IF_ERROR(c.ScalarBinaryComputation(c.instr().to_apply(), type));
  ASSIGN_OR_RETURN(std::vector<int64_t> windows,
                   WindowedSizes(c, operand.dimensions()));
  RETURN_IF_ERROR(c.SameAs(1, Shape::Array(type, windows),
                           "source (one element per window)"));
  return c.Result(operand);
}

}  // namespace

absl::Status CheckWindowed(const Checker& c) {
  switch (c.instr().opcode()) {
    case HloOpcode::kConvolution:
      return CheckConvolution(c);
    case HloOpcode::kReduceWindow:
      return CheckReduceWindow(c);
    case HloOpcode::kSelectAndScatter:
      return CheckSelectAndScatter(c);
    default:
      return c.Error("expected a windowed opcode");
  }
}

}  // namespace xla_lite::verifier_internal
