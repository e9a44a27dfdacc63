#ifndef XLA_LITE_RUNTIME_EXECUTION_STATS_H_
#define XLA_LITE_RUNTIME_EXECUTION_STATS_H_

#include <atomic>
#include <cstdint>
#include <string>

namespace xla_lite::gpu {

// Counters of what executions did. Thread-safe: runs on several streams, and
// deferred deallocations completing on other threads, add to the same
// object. Every counter only grows; compare two readings to measure a span.
struct ExecutionStats {
  ExecutionStats() = default;
  ExecutionStats(const ExecutionStats&) = delete;
  ExecutionStats& operator=(const ExecutionStats&) = delete;

  std::atomic<int64_t> executions{0};
  std::atomic<int64_t> failed_executions{0};
  // Leaf thunks enqueued (a SequentialThunk counts its children, not itself).
  std::atomic<int64_t> thunks_executed{0};

  // Temps, outputs and parameter copies taken from the run's allocator.
  std::atomic<int64_t> buffers_allocated{0};
  std::atomic<int64_t> bytes_allocated{0};
  // Buffers of executions the runtime freed: temps, donated parameters it did
  // not reuse, results dropped with their ExecutionOutput.
  std::atomic<int64_t> buffers_freed{0};
  std::atomic<int64_t> bytes_freed{0};
  std::atomic<int64_t> deallocation_failures{0};

  // Results that reuse a donated parameter's buffer.
  std::atomic<int64_t> donated_buffers_reused{0};
  // Aliased parameters that were not donated and so were copied first.
  std::atomic<int64_t> parameter_copies{0};
  std::atomic<int64_t> parameter_copy_bytes{0};

  // Constants are counted apart: they live as long as the executable.
  std::atomic<int64_t> constants_uploaded{0};
  std::atomic<int64_t> constant_bytes_uploaded{0};

  std::string ToString() const;
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_EXECUTION_STATS_H_
