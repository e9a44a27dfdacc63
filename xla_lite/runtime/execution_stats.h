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
  // Leaf thunks enqueued one by one (a SequentialThunk counts its children,
  // not itself; a CommandBufferThunk counts them when it runs op by op).
  // Thunks replayed from a command buffer count as command_buffer_launches.
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

  // Parameter stabilization (CommandBufferThunk): entry parameters whose
  // address moved, copied into their stable buffers before a launch, and
  // results copied back from a stable buffer into the caller's donated one.
  std::atomic<int64_t> stabilization_copies{0};
  std::atomic<int64_t> stabilization_copy_bytes{0};
  std::atomic<int64_t> stabilization_copy_backs{0};
  std::atomic<int64_t> stabilization_copy_back_bytes{0};

  // Buffers served from the executable's cache of stable allocations
  // instead of the run's allocator, and the results among them copied out
  // because the caller asked to own them.
  std::atomic<int64_t> cached_buffers_used{0};
  std::atomic<int64_t> cached_results_copied{0};

  // Constants are counted apart: they live as long as the executable.
  std::atomic<int64_t> constants_uploaded{0};
  std::atomic<int64_t> constant_bytes_uploaded{0};

  // Command buffers (CommandBufferThunk). A replay with stable addresses
  // adds one launch and nothing else.
  //
  // Command buffers recorded from scratch: the first per executor, and one
  // after each failed record or update, which discards the command buffer.
  std::atomic<int64_t> command_buffer_records{0};
  // Executions that changed recorded commands because addresses moved.
  std::atomic<int64_t> command_buffer_updates{0};
  // Commands changed by those updates (se::CommandBuffer node updates).
  std::atomic<int64_t> command_buffer_node_updates{0};
  // Executable graphs built by a Finalize after recording.
  std::atomic<int64_t> command_buffer_instantiations{0};
  // Updates the platform refused in place and rebuilt instead (the slow
  // path of an update).
  std::atomic<int64_t> command_buffer_reinstantiations{0};
  // Library calls (gemms) traced under stream capture, and traces found in
  // the trace cache instead.
  std::atomic<int64_t> command_buffer_traces{0};
  std::atomic<int64_t> command_buffer_trace_cache_hits{0};
  // Command buffers submitted to a stream.
  std::atomic<int64_t> command_buffer_launches{0};

  std::string ToString() const;
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_EXECUTION_STATS_H_
