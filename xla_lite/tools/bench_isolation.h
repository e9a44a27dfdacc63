#ifndef XLA_LITE_TOOLS_BENCH_ISOLATION_H_
#define XLA_LITE_TOOLS_BENCH_ISOLATION_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xla_lite/tools/bench_result.pb.h"

namespace xla_lite {

// One model and mode of `xla_lite bench` measured in a process of its own.
//
// Why: in one process, the step graphs of the third and later executables
// run about 2% slower than those of the first two, whatever they are and
// whatever ran before (the f32 medium transformer on the H200: 1,730 us
// for the first two, 1,769 for the rest; docs/benchmarks.md). The state
// is the driver's: an executor, stream, allocation or graph of its own
// does not reset it. So bench measures each mode as a training process
// runs its one step function, and the order of the modes changes nothing.
//
// Runs `command` (the xla_lite binary and the flags bench was given) with
// --models=`model`, --modes=`mode`, --out=`scratch_dir`,
// --isolate_modes=false, --bench_child, and no peers or baseline appended
// (the last of a repeated flag wins), in the caller's environment (so
// XLA_FLAGS too) and with its stdout and stderr, so that the child's
// progress shows. Returns the child's bench.json; an error names the model
// and mode when the child fails, is killed, or writes no result.
absl::StatusOr<BenchResult> RunBenchChild(
    const std::vector<std::string>& command, const std::string& model,
    const std::string& mode, const std::string& scratch_dir);

}  // namespace xla_lite

#endif  // XLA_LITE_TOOLS_BENCH_ISOLATION_H_
