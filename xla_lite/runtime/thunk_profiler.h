#ifndef XLA_LITE_RUNTIME_THUNK_PROFILER_H_
#define XLA_LITE_RUNTIME_THUNK_PROFILER_H_

// Where a step's device time goes, thunk by thunk, on any platform and
// without an external profiler.
//
// An execution given a profiler (RunOptions::profiler) has every leaf thunk
// measured: the stream is drained, the thunk is enqueued `repeats` times,
// and the stream drained again; the entry's time is the wall time over the
// repeats. Launch cost is thus amortized over the repeats, and a thunk's
// time is its device time wherever that exceeds the launch cost, which is
// what decides where a step's time goes. Loops and conditionals are not
// repeated (a loop would rerun on its own updated state): their bodies'
// leaves are measured, once per iteration. A thunk recorded into a command
// buffer is measured as part of its CommandBufferThunk: profile with
// command buffers off (DebugOptions) for a per-kernel table.
//
// Repeats re-run in-place updates (an accumulating gemm adds its product
// again), so a profiled execution's results are not a step's results:
// profile a copy of the training state, never a run whose results are used.
//
// A command buffer runs a thunk once the thunks it depends on are done, so
// its replay takes at least the longest chain of dependent thunks, not
// their sum. The profiler notes each thunk's dependencies as a command
// buffer recorded from the same sequence would (CommandDependencies over
// buffer uses, in the order of first measurement) and reports that chain:
// the thunks whose speed decides a replay's time. A loop's body counts once.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "xla_lite/runtime/command_dependencies.h"
#include "xla_lite/runtime/thunk.h"

namespace xla_lite::gpu {

class ThunkProfiler {
 public:
  struct Entry {
    std::string name;  // The thunk's name: its HLO instruction.
    Thunk::Kind kind = Thunk::Kind::kKernel;
    int64_t executions = 0;   // Measured executions (not repeats).
    double total_us = 0;      // Per repeat, summed over executions.
  };

  // The longest chain of dependent thunks, each at its mean time per
  // execution.
  struct CriticalPath {
    double us = 0;
    double serial_us = 0;        // All thunks one after another.
    std::vector<Entry> entries;  // The chain, first to last.
  };

  explicit ThunkProfiler(int repeats);

  // Runs `execute` (which enqueues `thunk` on `stream`) `repeats` times
  // between two drains of `stream` and adds the time per repeat to
  // `thunk`'s entry.
  absl::Status Measure(const Thunk& thunk, se::Stream& stream,
                       absl::FunctionRef<absl::Status()> execute);

  // The entries, longest total first.
  std::vector<Entry> Entries() const;
  CriticalPath FindCriticalPath() const;
  // A table of the entries: rank, time, share, kind and name, the `limit`
  // longest, then the time per kind, then the critical path's `limit`
  // longest thunks in the path's order.
  std::string Report(int limit) const;

 private:
  const int repeats_;
  mutable absl::Mutex mu_;
  // In the order of first measurement.
  std::vector<Entry> entries_ ABSL_GUARDED_BY(mu_);
  // waits_for_[i]: the entries entries_[i] depends on.
  std::vector<std::vector<int64_t>> waits_for_ ABSL_GUARDED_BY(mu_);
  CommandDependencies dependencies_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<const Thunk*, int> index_ ABSL_GUARDED_BY(mu_);
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_THUNK_PROFILER_H_
