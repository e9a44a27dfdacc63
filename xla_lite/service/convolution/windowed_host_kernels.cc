#include "xla_lite/service/convolution/windowed_host_kernels.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "glog/logging.h"

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

void RunConvolution(const ConvolutionConfig& c, const float* lhs,
                    const float* rhs, float* out) {
  std::vector<int64_t> taps(c.spatial.size());
  for (int64_t o = 0; o < c.out_elements; ++o) {
    const int64_t b = (o / c.out_batch_stride) % c.out_batch;
    const int64_t f = (o / c.out_feature_stride) % c.out_features;
    const float* x =
        lhs + ((f / c.per_batch_group) * c.out_batch + b) * c.lhs_batch_stride +
        (f / c.per_feature_group) * c.kernel_inputs * c.lhs_feature_stride;
    const float* w = rhs + f * c.rhs_output_stride;
    const std::vector<int64_t> s = OutPositions(c.spatial, o);
    float acc = 0.0f;
    std::fill(taps.begin(), taps.end(), 0);
    do {
      const int64_t x_offset = BaseOffset(c.spatial, s, taps);
      if (x_offset < 0) continue;
      int64_t w_offset = 0;
      for (size_t i = 0; i < taps.size(); ++i) {
        const WindowedAxis& axis = c.spatial[i];
        const int64_t tap =
            axis.reversal ? axis.window - 1 - taps[i] : taps[i];
        w_offset += tap * axis.kernel_stride;
      }
      for (int64_t k = 0; k < c.kernel_inputs; ++k) {
        acc += x[x_offset + k * c.lhs_feature_stride] *
               w[w_offset + k * c.rhs_input_stride];
      }
    } while (NextTap(c.spatial, taps));
    out[o] = acc;
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
                   args.ptr<float>(2));
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
