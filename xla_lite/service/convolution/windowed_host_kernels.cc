#include "xla_lite/service/convolution/windowed_host_kernels.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/service/gemm/gemm_host_kernel.h"

namespace xla_lite::gpu {
namespace {

absl::Status CheckArguments(absl::string_view what, const se::KernelArgs& args,
                            const std::vector<int64_t>& elements) {
  if (args.size() != elements.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "emitted ", what, " takes ", elements.size(), " arguments, got ",
        args.size()));
  }
  for (size_t i = 0; i < elements.size(); ++i) {
    const uint64_t bytes = elements[i] * sizeof(float);
    if (!args[i].is_address() || args[i].address().size() < bytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "emitted ", what, ": argument ", i, " needs ", bytes, " bytes, got ",
          args[i].is_address() ? args[i].address().ToString() : "a scalar"));
    }
  }
  return absl::OkStatus();
}

// The base element tap t of window o reads along `axis`, or -1 on padding
// or a hole.
int64_t BaseIndex(const WindowedAxis& axis, int64_t o, int64_t t) {
  const int64_t p = o * axis.stride + t * axis.window_dilation - axis.pad_low;
  if (p < 0 || p % axis.base_dilation != 0) return -1;
  const int64_t i = p / axis.base_dilation;
  return i < axis.base_size ? i : -1;
}

// Advances the row-major multi-index `taps` over the axes' windows; false
// after the last.
bool NextTap(const std::vector<WindowedAxis>& axes, std::vector<int64_t>& taps) {
  for (int64_t i = static_cast<int64_t>(axes.size()) - 1; i >= 0; --i) {
    if (++taps[i] < axes[i].window) return true;
    taps[i] = 0;
  }
  return false;
}

// The offset into the base of the window at `out` (one position per axis)
// and tap `taps`, or -1 when any axis falls on padding or a hole.
int64_t BaseOffset(const std::vector<WindowedAxis>& axes,
                   const std::vector<int64_t>& out,
                   const std::vector<int64_t>& taps) {
  int64_t offset = 0;
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t index = BaseIndex(axes[i], out[i], taps[i]);
    if (index < 0) return -1;
    offset += index * axes[i].base_stride;
  }
  return offset;
}

std::vector<int64_t> OutPositions(const std::vector<WindowedAxis>& axes,
                                  int64_t o) {
  std::vector<int64_t> positions;
  for (const WindowedAxis& axis : axes) {
    positions.push_back((o / axis.out_stride) % axis.out_size);
  }
  return positions;
}

// The kernel as [tap][input feature][output feature], taps row-major, so
// that the output features are contiguous whatever the dim_labels.
std::vector<float> PackKernel(const ConvolutionConfig& c, const float* rhs) {
  int64_t taps_count = 1;
  for (const WindowedAxis& axis : c.spatial) taps_count *= axis.window;
  std::vector<float> packed(taps_count * c.kernel_inputs * c.out_features);
  std::vector<int64_t> taps(c.spatial.size(), 0);
  int64_t tap = 0;
  do {
    int64_t offset = 0;
    for (size_t i = 0; i < taps.size(); ++i) {
      offset += taps[i] * c.spatial[i].kernel_stride;
    }
    for (int64_t k = 0; k < c.kernel_inputs; ++k) {
      for (int64_t f = 0; f < c.out_features; ++f) {
        packed[(tap * c.kernel_inputs + k) * c.out_features + f] =
            rhs[offset + k * c.rhs_input_stride + f * c.rhs_output_stride];
      }
    }
    ++tap;
  } while (NextTap(c.spatial, taps));
  return packed;
}

// The gemm row (ConvolutionGemm::row_axes) of output batch b at spatial
// positions s.
int64_t GemmRow(const ConvolutionConfig& c, int64_t b,
                const std::vector<int64_t>& s) {
  int64_t row = 0;
  for (int axis : c.gemm.row_axes) {
    row = axis < 0 ? row * c.out_batch + b
                   : row * c.spatial[axis].out_size + s[axis];
  }
  return row;
}

// Where RunConvolution leaves one pixel's sums for a chunk of features:
// in the output, or with split-K each split's in the scratch.
class ConvolutionSink {
 public:
  ConvolutionSink(const ConvolutionConfig& c, float* out, bool partials)
      : c_(c), out_(out), partials_(partials), acc_(c.gemm.n) {}

  // Starts pixel (b, s) at `out_offset` for features [f0, f0 + n).
  void Start(int64_t b, const std::vector<int64_t>& s, int64_t out_offset,
             int64_t f0) {
    out_offset_ = out_offset;
    f0_ = f0;
    split_ = 0;
    if (partials_) {
      scratch_offset_ = ((f0 / c_.gemm.n) * c_.gemm.m + GemmRow(c_, b, s)) *
                        c_.gemm.n;
    }
    std::fill(acc_.begin(), acc_.end(), 0.0f);
  }
  // The accumulator for contraction index `k`, each split's starting at 0
  // as the tiled kernel's blocks do.
  float* At(int64_t k) {
    if (partials_ && k / c_.gemm.split_k != split_) {
      Flush();
      split_ = k / c_.gemm.split_k;
    }
    return acc_.data();
  }
  void Finish() {
    if (partials_) {
      Flush();
      return;
    }
    for (size_t j = 0; j < acc_.size(); ++j) {
      out_[out_offset_ + (f0_ + j) * c_.out_feature_stride] = acc_[j];
    }
  }

 private:
  void Flush() {
    const int64_t split_elements = c_.gemm.groups * c_.gemm.m * c_.gemm.n;
    std::copy(acc_.begin(), acc_.end(),
              out_ + split_ * split_elements + scratch_offset_);
    std::fill(acc_.begin(), acc_.end(), 0.0f);
  }

  const ConvolutionConfig& c_;
  float* out_;
  const bool partials_;
  std::vector<float> acc_;
  int64_t out_offset_ = 0, f0_ = 0, split_ = 0, scratch_offset_ = 0;
};

// Output features run innermost, so that each input element is read once
// per pixel and the packed kernel's rows vectorize; every output element
// still adds its products in the CUDA kernels' order: taps row-major, then
// input features (with split-K, each split's from 0). `partials`: `out` is
// the scratch, zeroed first, as splits on padding alone get no product.
void RunConvolution(const ConvolutionConfig& c, const float* lhs,
                    const float* rhs, float* out, bool partials) {
  const size_t n = c.spatial.size();
  const std::vector<float> packed = PackKernel(c, rhs);
  // Output features in one chunk share their feature and batch group (one
  // of the two counts is 1).
  const int64_t chunk = c.gemm.n;
  if (partials) std::fill(out, out + c.gemm.ScratchElements(), 0.0f);
  ConvolutionSink sink(c, out, partials);
  std::vector<int64_t> s(n), taps(n);
  int64_t pixel_count = c.out_batch;
  for (const WindowedAxis& axis : c.spatial) pixel_count *= axis.out_size;
  for (int64_t p = 0; p < pixel_count; ++p) {
    // (b, s0, s1, ...), row-major.
    int64_t rest = p;
    for (int64_t i = static_cast<int64_t>(n) - 1; i >= 0; --i) {
      s[i] = rest % c.spatial[i].out_size;
      rest /= c.spatial[i].out_size;
    }
    const int64_t b = rest;
    int64_t out_offset = b * c.out_batch_stride;
    for (size_t i = 0; i < n; ++i) out_offset += s[i] * c.spatial[i].out_stride;
    for (int64_t f0 = 0; f0 < c.out_features; f0 += chunk) {
      const float* x =
          lhs +
          ((f0 / c.per_batch_group) * c.out_batch + b) * c.lhs_batch_stride +
          (f0 / c.per_feature_group) * c.kernel_inputs * c.lhs_feature_stride;
      sink.Start(b, s, out_offset, f0);
      std::fill(taps.begin(), taps.end(), 0);
      int64_t window_tap = -1;  // Row-major, padding included.
      do {
        ++window_tap;
        // The tiled kernel multiplies taps on padding or holes by a 0 it
        // loads (so a non-finite kernel element still gives NaN there);
        // the untiled one skips them.
        const int64_t x_offset = BaseOffset(c.spatial, s, taps);
        if (x_offset < 0 && !c.gemm.tiled) continue;
        int64_t tap = 0;
        for (size_t i = 0; i < n; ++i) {
          const WindowedAxis& axis = c.spatial[i];
          tap = tap * axis.window +
                (axis.reversal ? axis.window - 1 - taps[i] : taps[i]);
        }
        const float* w = packed.data() + tap * c.kernel_inputs * c.out_features + f0;
        for (int64_t k = 0; k < c.kernel_inputs; ++k) {
          AddScaledRow(sink.At(window_tap * c.kernel_inputs + k),
                       w + k * c.out_features,
                       x_offset < 0 ? 0.0f
                                    : x[x_offset + k * c.lhs_feature_stride],
                       chunk);
        }
      } while (NextTap(c.spatial, taps));
      sink.Finish();
    }
  }
}

// Adds each (group, row, column)'s partial sums in split order, as the
// CUDA sum kernel does, and stores the sum in the output.
void RunConvolutionSplitSum(const ConvolutionConfig& c, const float* scratch,
                            float* out) {
  const ConvolutionGemm& g = c.gemm;
  const int64_t split_elements = g.groups * g.m * g.n;
  std::vector<int64_t> positions(c.spatial.size());
  for (int64_t row = 0; row < g.m; ++row) {
    int64_t rest = row, out_offset = 0;
    for (size_t i = g.row_axes.size(); i-- > 0;) {
      const int axis = g.row_axes[i];
      const int64_t size =
          axis < 0 ? c.out_batch : c.spatial[axis].out_size;
      const int64_t stride =
          axis < 0 ? c.out_batch_stride : c.spatial[axis].out_stride;
      out_offset += (rest % size) * stride;
      rest /= size;
    }
    for (int64_t f = 0; f < c.out_features; ++f) {
      const int64_t o = ((f / g.n) * g.m + row) * g.n + f % g.n;
      float acc = 0.0f;
      for (int64_t split = 0; split < g.splits; ++split) {
        acc = acc + scratch[split * split_elements + o];
      }
      out[out_offset + f * c.out_feature_stride] = acc;
    }
  }
}

void RunReduceWindow(const PoolingConfig& c, const float* operand,
                     float* out) {
  std::vector<int64_t> taps(c.axes.size());
  for (int64_t o = 0; o < c.out_elements; ++o) {
    const std::vector<int64_t> s = OutPositions(c.axes, o);
    float acc = static_cast<float>(c.init);
    std::fill(taps.begin(), taps.end(), 0);
    do {
      const int64_t at = BaseOffset(c.axes, s, taps);
      if (at < 0) continue;
      const float x = operand[at];
      if (c.reducer == PoolingConfig::Reducer::kAdd) {
        acc = acc + x;
      } else {
        // maximum propagates NaN from either side, as the evaluator does.
        acc = (x > acc || x != x) ? x : acc;
      }
    } while (NextTap(c.axes, taps));
    out[o] = acc;
  }
}

bool Keeps(PoolingConfig::Select select, float selected, float candidate) {
  switch (select) {
    case PoolingConfig::Select::kGe:
      return selected >= candidate;
    case PoolingConfig::Select::kGt:
      return selected > candidate;
    case PoolingConfig::Select::kLe:
      return selected <= candidate;
    case PoolingConfig::Select::kLt:
      return selected < candidate;
  }
  return true;
}

// The operand offset window `s` selects, or -1 when it lies on padding.
int64_t Selected(const PoolingConfig& c, const float* operand,
                 const std::vector<int64_t>& s, std::vector<int64_t>& taps) {
  int64_t selected = -1;
  std::fill(taps.begin(), taps.end(), 0);
  do {
    const int64_t at = BaseOffset(c.axes, s, taps);
    if (at < 0) continue;
    if (selected < 0 || !Keeps(c.select, operand[selected], operand[at])) {
      selected = at;
    }
  } while (NextTap(c.axes, taps));
  return selected;
}

// The scatter in gather form, as the CUDA kernel runs it: windows in
// row-major order each add their source element to the one they select.
void RunSelectAndScatter(const PoolingConfig& c, const float* operand,
                         const float* source, float* out) {
  for (int64_t e = 0; e < c.out_elements; ++e) {
    out[e] = static_cast<float>(c.init);
  }
  int64_t windows = 1;
  for (const WindowedAxis& axis : c.axes) windows *= axis.out_size;
  std::vector<int64_t> taps(c.axes.size());
  for (int64_t w = 0; w < windows; ++w) {
    int64_t source_offset = 0, rest = w;
    std::vector<int64_t> s(c.axes.size());
    for (int64_t i = static_cast<int64_t>(c.axes.size()) - 1; i >= 0; --i) {
      s[i] = rest % c.axes[i].out_size;
      rest /= c.axes[i].out_size;
      source_offset += s[i] * c.axes[i].out_stride;
    }
    const int64_t selected = Selected(c, operand, s, taps);
    if (selected >= 0) out[selected] = out[selected] + source[source_offset];
  }
}

}  // namespace

se::HostKernelFn ConvolutionHostKernel(const ConvolutionConfig& config) {
  return [config](const se::KernelArgs& args,
                  const se::LaunchDimensions&) -> absl::Status {
    RETURN_IF_ERROR(CheckArguments(
        "convolution", args,
        {config.lhs_elements, config.rhs_elements, config.out_elements}));
    VLOG(3) << "host " << config.ToString();
    RunConvolution(config, args.ptr<const float>(0), args.ptr<const float>(1),
                   args.ptr<float>(2), /*partials=*/false);
    return absl::OkStatus();
  };
}

se::HostKernelFn ConvolutionPartialsHostKernel(
    const ConvolutionConfig& config) {
  CHECK_GT(config.gemm.splits, 1) << config.ToString();
  return [config](const se::KernelArgs& args,
                  const se::LaunchDimensions&) -> absl::Status {
    RETURN_IF_ERROR(CheckArguments("convolution", args,
                                   {config.lhs_elements, config.rhs_elements,
                                    config.gemm.ScratchElements()}));
    VLOG(3) << "host partials " << config.ToString();
    RunConvolution(config, args.ptr<const float>(0), args.ptr<const float>(1),
                   args.ptr<float>(2), /*partials=*/true);
    return absl::OkStatus();
  };
}

se::HostKernelFn ConvolutionSplitSumHostKernel(
    const ConvolutionConfig& config) {
  CHECK_GT(config.gemm.splits, 1) << config.ToString();
  return [config](const se::KernelArgs& args,
                  const se::LaunchDimensions&) -> absl::Status {
    RETURN_IF_ERROR(CheckArguments(
        "convolution split-K sum", args,
        {config.gemm.ScratchElements(), config.out_elements}));
    RunConvolutionSplitSum(config, args.ptr<const float>(0),
                           args.ptr<float>(1));
    return absl::OkStatus();
  };
}

se::HostKernelFn ReduceWindowHostKernel(const PoolingConfig& config) {
  return [config](const se::KernelArgs& args,
                  const se::LaunchDimensions&) -> absl::Status {
    RETURN_IF_ERROR(CheckArguments(
        "reduce-window", args, {config.operand_elements, config.out_elements}));
    RunReduceWindow(config, args.ptr<const float>(0), args.ptr<float>(1));
    return absl::OkStatus();
  };
}

se::HostKernelFn SelectAndScatterHostKernel(const PoolingConfig& config) {
  int64_t windows = 1;
  for (const WindowedAxis& axis : config.axes) windows *= axis.out_size;
  return [config, windows](const se::KernelArgs& args,
                           const se::LaunchDimensions&) -> absl::Status {
    RETURN_IF_ERROR(CheckArguments(
        "select-and-scatter", args,
        {config.operand_elements, windows, config.out_elements}));
    RunSelectAndScatter(config, args.ptr<const float>(0),
                        args.ptr<const float>(1), args.ptr<float>(2));
    return absl::OkStatus();
  };
}

}  // namespace xla_lite::gpu
