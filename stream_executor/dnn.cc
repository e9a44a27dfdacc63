#include "stream_executor/dnn.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"

namespace stream_executor::dnn {
namespace {

constexpr int64_t kMaxInt = std::numeric_limits<int32_t>::max();

absl::Status Invalid(const ConvolutionCall& call, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("convolution ", call.ShapeString(), ": ", what));
}

absl::Status CheckLayout(const ConvolutionCall& call, const char* name,
                         const TensorLayout& layout,
                         const DeviceAddressBase& data) {
  const size_t rank = call.padding.size() + 2;
  if (layout.dims.size() != rank || layout.strides.size() != rank) {
    return Invalid(call, absl::StrCat(name, " has ", layout.dims.size(),
                                      " dimensions and ", layout.strides.size(),
                                      " strides, expected ", rank));
  }
  for (size_t i = 0; i < rank; ++i) {
    if (layout.dims[i] < 1 || layout.dims[i] > kMaxInt ||
        layout.strides[i] < 1 || layout.strides[i] > kMaxInt) {
      return Invalid(
          call, absl::StrCat(name, " dimension ", i, " (size ", layout.dims[i],
                             ", stride ", layout.strides[i],
                             ") is not in [1, 2^31)"));
    }
  }
  const int64_t span = layout.SpanElements();
  if (span > kMaxInt) {
    return Invalid(call,
                   absl::StrCat(name, " spans ", span,
                                " elements, more than the library's int"));
  }
  if (data.size() < static_cast<uint64_t>(span) * sizeof(float)) {
    return Invalid(
        call, absl::StrCat(name, " holds ", data.size(),
                           " bytes, the layout needs ", span * sizeof(float)));
  }
  return absl::OkStatus();
}

}  // namespace

int64_t TensorLayout::SpanElements() const {
  int64_t last = 0;
  for (size_t i = 0; i < dims.size() && i < strides.size(); ++i) {
    last += (dims[i] - 1) * strides[i];
  }
  return last + 1;
}

std::string TensorLayout::ToString() const {
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]{",
                      absl::StrJoin(strides, ","), "}");
}

absl::Status ConvolutionCall::Validate() const {
  const int spatial = spatial_dims();
  if (spatial > kMaxSpatialDims || strides.size() != padding.size() ||
      dilations.size() != padding.size()) {
    return Invalid(*this, absl::StrCat("expected at most ", kMaxSpatialDims,
                                       " spatial dimensions, each with a "
                                       "padding, stride and dilation"));
  }
  RETURN_IF_ERROR(CheckLayout(*this, "input", input, input_data));
  RETURN_IF_ERROR(CheckLayout(*this, "filter", filter, filter_data));
  RETURN_IF_ERROR(CheckLayout(*this, "output", output, output_data));
  if (groups < 1 || filter.dims[1] * groups != input.dims[1] ||
      filter.dims[0] % groups != 0) {
    return Invalid(*this, absl::StrCat("groups = ", groups,
                                       " must divide the output features and "
                                       "times the filter's input features "
                                       "give the input's"));
  }
  if (output.dims[0] != input.dims[0] || output.dims[1] != filter.dims[0]) {
    return Invalid(*this,
                   "the output's batch and features must be the "
                   "input's batch and the filter's output features");
  }
  for (int i = 0; i < spatial; ++i) {
    if (padding[i] < 0 || padding[i] > kMaxInt || strides[i] < 1 ||
        strides[i] > kMaxInt || dilations[i] < 1 || dilations[i] > kMaxInt) {
      return Invalid(*this, absl::StrCat("spatial dimension ", i,
                                         " has a negative padding or a "
                                         "stride or dilation out of range"));
    }
    const int64_t extent = (filter.dims[i + 2] - 1) * dilations[i] + 1;
    const int64_t out =
        (input.dims[i + 2] + 2 * padding[i] - extent) / strides[i] + 1;
    if (input.dims[i + 2] + 2 * padding[i] < extent ||
        output.dims[i + 2] != out) {
      return Invalid(*this,
                     absl::StrCat("spatial dimension ", i, ": output ",
                                  output.dims[i + 2], ", expected ", out));
    }
  }
  return absl::OkStatus();
}

std::string ConvolutionCall::ShapeString() const {
  return absl::StrCat(
      kind == ConvolutionKind::kForward ? "forward" : "backward-filter", " x",
      input.ToString(), " w", filter.ToString(), " y", output.ToString(),
      " pad ", absl::StrJoin(padding, "x"), " stride ",
      absl::StrJoin(strides, "x"), " dilation ", absl::StrJoin(dilations, "x"),
      flip ? " flipped" : "",
      groups > 1 ? absl::StrCat(" groups ", groups) : "");
}

std::string ConvolutionCall::ToString() const {
  return absl::StrCat(ShapeString(), " at x=", input_data.ToString(),
                      " w=", filter_data.ToString(),
                      " y=", output_data.ToString());
}

}  // namespace stream_executor::dnn
