#ifndef XLA_LITE_RUNTIME_EXECUTION_STATS_H_
#define XLA_LITE_RUNTIME_EXECUTION_STATS_H_

#include <atomic>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace xla_lite::gpu {

// A reading of ExecutionStats at one point in time, or the difference of
// two readings: what the executions in between did. The counters and what
// they count are listed in execution_counters.def.
struct ExecutionCounters {
#define XLA_LITE_COUNTER(name) int64_t name = 0;
#include "xla_lite/runtime/execution_counters.def"

  // A counter's name, as the list spells it, and its member.
  struct Field {
    const char* name;
    int64_t ExecutionCounters::*value;
  };
  // Every counter, in the list's order: what generic code (differences,
  // printing, the bench's JSON) iterates over.
  static absl::Span<const Field> Fields();
  // The name of `value`, which must be one of the counters.
  static absl::string_view NameOf(int64_t ExecutionCounters::*value);

  // Counter by counter.
  ExecutionCounters operator-(const ExecutionCounters& earlier) const;
  ExecutionCounters operator+(const ExecutionCounters& other) const;

  // "executions=2 failed_executions=0 ...": every counter, in order.
  std::string ToString() const;
  // {"executions": 2, "failed_executions": 0, ...}
  std::string ToJson() const;
};

// Counters of what executions did. Thread-safe: runs on several streams, and
// deferred deallocations completing on other threads, add to the same
// object. Every counter only grows; the difference of two Snapshot()s
// measures a span.
struct ExecutionStats {
  ExecutionStats() = default;
  ExecutionStats(const ExecutionStats&) = delete;
  ExecutionStats& operator=(const ExecutionStats&) = delete;

#define XLA_LITE_COUNTER(name) std::atomic<int64_t> name{0};
#include "xla_lite/runtime/execution_counters.def"

  // Each counter read once. Counters that executions update concurrently
  // are not read at one instant.
  ExecutionCounters Snapshot() const;
  // Adds every counter of `delta`: how counts kept elsewhere (a command
  // buffer's, a trace cache's), taken as a difference, are folded in.
  void Add(const ExecutionCounters& delta);

  std::string ToString() const;
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_EXECUTION_STATS_H_
