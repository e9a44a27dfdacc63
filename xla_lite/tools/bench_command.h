#ifndef XLA_LITE_TOOLS_BENCH_COMMAND_H_
#define XLA_LITE_TOOLS_BENCH_COMMAND_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "stream_executor/platform.h"
#include "xla_lite/debug_options.pb.h"
#include "xla_lite/tools/bench_isolation.h"

namespace xla_lite {

struct BenchFlags {
  // Comma-separated model folders (configs/models/<name>: train_step.hlo,
  // model.txt, optional input_<i>.npy) or HLO files.
  std::string models;
  // Comma-separated mode names (op_by_op, graphs, cached_copy, ...); empty
  // runs them all.
  std::string modes;
  int64_t steps = 100;       // Synchronized steps, the chart's series.
  int64_t blocks = 20;       // Pipelined blocks for the median ...
  int64_t block_steps = 50;  // ... of this many steps each.
  std::string out;           // Folder for bench.json, bench.svg, bench.md.
  std::string baseline;      // A bench.json to compare medians against.
  double tolerance = 0.25;
  std::string peers;         // tests/peers/run_peers.sh output (JSON lines).
  // Above 1: data-parallel steps (shard_map modules) over that many
  // devices; step times are the slowest device's.
  int64_t devices = 1;
  // With a program, every model and mode is measured in a process of its
  // own (bench_isolation.h says why and how): the xla_lite binary with the
  // command line it was given. The children take their DebugOptions from
  // XLA_FLAGS, not from BenchCommand's `options`.
  BenchChildCommand isolate;
  // Set in such a child: it prints its progress but no table, and leaves
  // the counter checks to its parent.
  bool child = false;
};

// `xla_lite bench`: the step-time regression benchmark. For every model and
// mode (op_by_op; graphs: command buffers without cached allocations or
// stabilization; cached_copy; cached_staged; cached_fixed: see
// docs/benchmarks.md) it compiles the step, runs the first step, a
// synchronized series, and pipelined blocks, and records step times and the
// runtime's counters. Writes JSON, an SVG chart and a Markdown table, checks
// the counters that must be exact, and compares medians with the baseline:
// any failure is a non-OK status (and a non-zero exit).
absl::Status BenchCommand(const BenchFlags& flags, se::Platform* platform,
                          const DebugOptions& options);

}  // namespace xla_lite

#endif  // XLA_LITE_TOOLS_BENCH_COMMAND_H_
