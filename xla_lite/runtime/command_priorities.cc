#include "xla_lite/runtime/command_priorities.h"

#include <algorithm>

#include "glog/logging.h"
#include "xla_lite/runtime/gemm_thunk.h"

namespace xla_lite::gpu {
namespace {

// About an H100's f32 gemm rate and a small kernel's achieved bandwidth,
// per microsecond, and what a launch in a graph costs on top.
constexpr double kFlopsPerMicro = 25e6;
constexpr double kBytesPerMicro = 1.5e6;
constexpr double kLaunchMicros = 3;

}  // namespace

double EstimatedMicros(double flops, double bytes) {
  return (flops > 0 ? flops / kFlopsPerMicro : bytes / kBytesPerMicro) +
         kLaunchMicros;
}

double EstimatedMicros(const Thunk& thunk) {
  if (const auto* gemm = dynamic_cast<const GemmThunk*>(&thunk)) {
    const GemmConfig& config = gemm->config();
    return EstimatedMicros(2.0 * config.batch * config.m * config.n * config.k,
                           0);
  }
  double bytes = 0;
  for (const BufferUse& use : thunk.buffer_uses()) bytes += use.slice.size();
  return EstimatedMicros(0, bytes);
}

std::vector<bool> CriticalCommands(
    absl::Span<const double> micros,
    absl::Span<const std::vector<int64_t>> dependencies, double max_slack) {
  CHECK_EQ(micros.size(), dependencies.size());
  const int64_t n = micros.size();
  // The longest paths ending at each command (`until`, its own time
  // included) and starting at it (`from`).
  std::vector<double> until(n, 0), from(n, 0);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t d : dependencies[i]) {
      CHECK_LT(d, i) << "dependencies must point to earlier commands";
      until[i] = std::max(until[i], until[d]);
    }
    until[i] += micros[i];
  }
  double longest = 0;
  for (int64_t i = n - 1; i >= 0; --i) {
    from[i] += micros[i];
    longest = std::max(longest, from[i]);
    for (int64_t d : dependencies[i]) from[d] = std::max(from[d], from[i]);
  }
  std::vector<bool> critical(n);
  for (int64_t i = 0; i < n; ++i) {
    const double through = until[i] + from[i] - micros[i];
    critical[i] = longest - through <= max_slack * longest;
  }
  return critical;
}

}  // namespace xla_lite::gpu
