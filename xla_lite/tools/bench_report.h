#ifndef XLA_LITE_TOOLS_BENCH_REPORT_H_
#define XLA_LITE_TOOLS_BENCH_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "xla_lite/runtime/execution_stats.h"
#include "xla_lite/tools/bench_result.pb.h"

namespace xla_lite {

// A mode's name as bench.json and the tables spell it ("op_by_op"), and
// back: the proto enum's own names, the one mapping. INVALID_ARGUMENT
// listing the modes for an unknown name.
const std::string& BenchModeName(BenchMode::Mode mode);
absl::StatusOr<BenchMode::Mode> ParseBenchMode(const std::string& name);

// `counters` (a difference over `steps` steps) per step into `mode`'s
// steady-state map, every nonzero counter under its ExecutionCounters name.
void SetSteadyCounters(const gpu::ExecutionCounters& counters, int64_t steps,
                       BenchMode* mode);
// One counter of that map, per step (0 when absent), e.g.
// SteadyPerStep(mode, &gpu::ExecutionCounters::command_buffer_updates).
double SteadyPerStep(const BenchMode& mode,
                     int64_t gpu::ExecutionCounters::*counter);

// A Markdown table: per model, every mode's step time (median, p10, p90,
// first step) and steady-state counters per step, then the peers measured
// on the same configuration.
std::string BenchTable(const BenchResult& result);

// An SVG chart, one panel per model: step time of every step of every mode
// on a log scale, so the first-step spike and the steady state both show;
// peers' medians as dashed lines.
std::string BenchSvg(const BenchResult& result);

// The counters that must be exact: with cached allocations (the cached_*
// modes) no records, updates or re-traces in the steady state, and no
// parameter copies where the batch does not move (cached_staged,
// cached_fixed); without them (graphs, with a moving batch) an update every
// step. FAILED_PRECONDITION listing every violation.
absl::Status CheckSteadyState(const BenchResult& result);

// Medians against `baseline`'s for every model and mode both have:
// FAILED_PRECONDITION listing each that is slower by more than `tolerance`
// (0.2: 20%).
absl::Status CompareWithBaseline(const BenchResult& result,
                                 const BenchResult& baseline, double tolerance);

// JSON with the proto's field names, map keys in sorted order so that two
// results diff line by line.
absl::StatusOr<std::string> BenchToJson(const BenchResult& result);
absl::StatusOr<BenchResult> BenchFromJson(const std::string& json);
// A bench.json file (a baseline); errors name the path.
absl::StatusOr<BenchResult> ReadBenchResult(const std::string& path);
// One JSON object per line, as tests/peers/run_peers.sh writes; lines with
// an "error" are skipped.
absl::StatusOr<std::vector<BenchPeer>> ReadPeers(const std::string& path);

}  // namespace xla_lite

#endif  // XLA_LITE_TOOLS_BENCH_REPORT_H_
