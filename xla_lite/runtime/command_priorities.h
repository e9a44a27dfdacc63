#ifndef XLA_LITE_RUNTIME_COMMAND_PRIORITIES_H_
#define XLA_LITE_RUNTIME_COMMAND_PRIORITIES_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "xla_lite/runtime/thunk.h"

namespace xla_lite::gpu {

// Which commands of a command buffer launch at high priority.
//
// A training step's graph is one long chain (the forward pass, then each
// layer's input gradients) with side branches that have slack: weight
// gradients and bias sums, which only the optimizer at the end reads.
// Kernels of both share the multiprocessors. With the chain's kernels at
// high priority, their blocks take the room that frees up first and the
// branches fill what is left, so the chain runs closer to its own speed
// (on an H200 the f32 medium transformer's step took 1.3% less time with
// the chain raised than with no priorities, and 0.6% more with the
// priorities reversed; docs/benchmarks.md).
//
// Costs are rough estimates from the thunks' sizes (EstimatedMicros): the
// split needs only their ranking along competing paths.

// Commands whose slack, as a fraction of the longest path, is at most this
// are critical. Of 1%, 2% and 5%, 2% made the shortest step.
inline constexpr double kCriticalSlack = 0.02;

// A rough time on a GPU of about an H100's speed for a gemm of `flops`
// or, for anything else (flops 0), a kernel moving `bytes`, plus a launch.
double EstimatedMicros(double flops, double bytes);

// EstimatedMicros for `thunk`: a library gemm by its flops, anything else
// by the bytes of the slices it uses.
double EstimatedMicros(const Thunk& thunk);

// For a graph of commands with `micros` (each command's estimated time)
// and `dependencies` (per command, the earlier commands it waits for, so
// that creation order is a topological order): whether each command is
// critical, that is, lies on a path at most `max_slack` (a fraction of the
// longest path) shorter than the longest one.
std::vector<bool> CriticalCommands(
    absl::Span<const double> micros,
    absl::Span<const std::vector<int64_t>> dependencies, double max_slack);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_COMMAND_PRIORITIES_H_
