#ifndef XLA_LITE_TOOLS_BENCH_ISOLATION_H_
#define XLA_LITE_TOOLS_BENCH_ISOLATION_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "xla_lite/tools/bench_result.pb.h"

namespace xla_lite {

// `xla_lite bench` with every model and mode measured in a process of its
// own.
//
// Why: in one process, the step graphs of the third and later executables
// run about 2% slower than those of the first two on a shared stream
// (StreamPool), whatever ran before (the f32 medium transformer on the
// H200: 1,730 us for the first two, 1,769 for the rest;
// docs/benchmarks.md). Nothing the runtime owns resets it: an executor,
// stream, allocation or graph of its own does not. So bench measures each
// mode as a training process runs its one step function, and the order of
// the modes changes nothing.
//
// How: the xla_lite binary runs again once per model and mode, with the
// command line it was given and, appended before any `--` (the last of a
// repeated flag wins), --models, --modes, --out (a scratch folder),
// --platform, --isolate_modes=false, --bench_child, and empty --peers= and
// --baseline=. A child takes its DebugOptions from XLA_FLAGS, as main
// does, and shares the caller's environment, stdout and stderr, so that its
// progress shows. The caller checks the merged counters and baseline.
struct BenchChildCommand {
  std::string program;            // What to start (main: /proc/self/exe).
  std::vector<std::string> argv;  // Its argv, argv[0] included.
};

// Every model of `models` (comma-separated) in every mode of `modes`, each
// in a child, merged into `result` in that order. The children write into
// a scratch folder (under `out` when given, else the temporary directory)
// that is removed afterwards. Stops at the first failing child, with an
// error naming its model and mode (it failed, was killed, or wrote no
// result).
absl::Status RunIsolated(const BenchChildCommand& command,
                         const std::string& platform,
                         const std::string& models,
                         const std::vector<std::string>& modes,
                         const std::string& out, BenchResult& result);

}  // namespace xla_lite

#endif  // XLA_LITE_TOOLS_BENCH_ISOLATION_H_
