#ifndef STREAM_EXECUTOR_DNN_H_
#define STREAM_EXECUTOR_DNN_H_

// A platform's deep-learning library (cuDNN) for what the emitted kernels
// do less well: f32 convolutions in the two forms the training step of a
// convnet reduces to.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "stream_executor/device_address.h"

namespace stream_executor {

class Stream;

namespace dnn {

// The library's convolutions take at most this many spatial dimensions.
inline constexpr int kMaxSpatialDims = 3;

// An f32 array as the library sees it: dims[0] the batch (a filter's output
// features), dims[1] the features (a filter's input features per group),
// then the spatial dimensions; strides in elements, in any order, so that
// the caller's layout is described rather than changed.
struct TensorLayout {
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;

  // Elements from the first to one past the last addressed.
  int64_t SpanElements() const;
  std::string ToString() const;
};

enum class ConvolutionKind {
  // y[n, k, o] = sum over c, t of x[n, g * C + c, o * stride + t * dilation
  // - padding] * w[k, c, t] (t reversed with `flip`), g = k's group.
  kForward,
  // w[k, c, t] = sum over n, o of the same products of x and y: the filter
  // gradient, written to `filter`.
  kBackwardFilter,
};

// One convolution, f32 in and out with f32 products and sums (no TF32),
// by a deterministic algorithm. Padding is the same on both sides of each
// spatial dimension, as the library takes it; the output's spatial sizes
// are what that implies.
struct ConvolutionCall {
  ConvolutionKind kind = ConvolutionKind::kForward;
  TensorLayout input;   // x: [N, C, spatial...]
  TensorLayout filter;  // w: [K, C / groups, window...]
  TensorLayout output;  // y: [N, K, out spatial...]
  std::vector<int64_t> padding, strides, dilations;  // One per spatial dim.
  // A true convolution (the window reversed) rather than a
  // cross-correlation.
  bool flip = false;
  int64_t groups = 1;
  DeviceAddressBase input_data, filter_data, output_data;

  int spatial_dims() const { return static_cast<int>(padding.size()); }
  // Checks the dimensions against each other, that every size and stride
  // fits the library's int, and that each buffer covers its layout, so
  // platforms never read or write out of bounds.
  absl::Status Validate() const;
  // Everything but the addresses: the key of a prepared shape.
  std::string ShapeString() const;
  std::string ToString() const;
};

class DnnSupport {
 public:
  virtual ~DnnSupport() = default;

  // Chooses, once per distinct ShapeString, the algorithm later calls of
  // that shape use (timing the library's deterministic ones on `stream`,
  // which must not be capturing), and returns the workspace bytes each
  // call of the shape needs. The addresses are not read.
  virtual absl::StatusOr<uint64_t> PrepareConvolution(
      Stream* stream, const ConvolutionCall& call) = 0;
  // Enqueues `call` on `stream` with `workspace` (at least the prepared
  // bytes, used by this call alone while it runs: two calls that may run
  // at once need two workspaces). Its shape must have been prepared, so
  // that nothing is allocated or timed here and the call can be captured.
  virtual absl::Status Convolution(Stream* stream, const ConvolutionCall& call,
                                   DeviceAddressBase workspace) = 0;
};

}  // namespace dnn
}  // namespace stream_executor

#endif  // STREAM_EXECUTOR_DNN_H_
