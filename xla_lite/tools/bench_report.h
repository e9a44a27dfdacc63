#ifndef XLA_LITE_TOOLS_BENCH_REPORT_H_
#define XLA_LITE_TOOLS_BENCH_REPORT_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "xla_lite/tools/bench_result.pb.h"

namespace xla_lite {

// A Markdown table: per model, every mode's step time (median, p10, p90,
// first step) and steady-state counters per step, then the peers measured
// on the same configuration.
std::string BenchTable(const BenchResult& result);

// An SVG chart, one panel per model: step time of every step of every mode
// on a log scale, so the first-step spike and the steady state both show;
// peers' medians as dashed lines.
std::string BenchSvg(const BenchResult& result);

// The counters that must be exact: with cached allocations (cached_copy,
// cached_staged) no records, updates or re-traces in the steady state;
// without them (graphs, with a moving batch) an update every step.
// FAILED_PRECONDITION listing every violation.
absl::Status CheckSteadyState(const BenchResult& result);

// Medians against `baseline`'s for every model and mode both have:
// FAILED_PRECONDITION listing each that is slower by more than `tolerance`
// (0.2: 20%).
absl::Status CompareWithBaseline(const BenchResult& result,
                                 const BenchResult& baseline, double tolerance);

absl::StatusOr<std::string> BenchToJson(const BenchResult& result);
absl::StatusOr<BenchResult> BenchFromJson(const std::string& json);
// One JSON object per line, as tests/peers/run_peers.sh writes; lines with
// an "error" are skipped.
absl::StatusOr<std::vector<BenchPeer>> ReadPeers(const std::string& path);

}  // namespace xla_lite

#endif  // XLA_LITE_TOOLS_BENCH_REPORT_H_
