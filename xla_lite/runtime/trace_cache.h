#ifndef XLA_LITE_RUNTIME_TRACE_CACHE_H_
#define XLA_LITE_RUNTIME_TRACE_CACHE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "stream_executor/device_address.h"
#include "stream_executor/stream.h"

namespace xla_lite::gpu {

// Traced child graphs of one command on one executor, keyed by the device
// addresses the trace baked in.
//
// A library call (a cuBLAS gemm) cannot be recorded node by node, only
// traced under stream capture, and a new address means a new trace. When
// executions cycle through a few buffer sets (double-buffered parameters,
// two streams), keeping one trace per set turns those re-traces into
// lookups. At capacity the least recently used trace goes; a capacity of 0
// keeps nothing and traces on every call.
//
// Not thread-safe: the CommandBufferThunk that owns it serializes calls
// under its per-executor lock, as it does for the command buffer the traces
// go into.
class TraceCache {
 public:
  using Key = std::vector<se::DeviceAddressBase>;
  using TraceFn =
      absl::FunctionRef<absl::StatusOr<std::unique_ptr<se::CapturedGraph>>()>;

  struct Counters {
    int64_t traces = 0;  // Misses that called the trace function.
    int64_t hits = 0;
    int64_t evictions = 0;
  };

  explicit TraceCache(int64_t capacity);
  TraceCache(const TraceCache&) = delete;
  TraceCache& operator=(const TraceCache&) = delete;

  // The trace for `key`, from the cache or from `trace`. A failed trace is
  // returned as is and caches nothing. Shared, because a later call may
  // evict the entry while the caller still adds the graph to a command
  // buffer.
  absl::StatusOr<std::shared_ptr<const se::CapturedGraph>> GetOrTrace(
      const Key& key, TraceFn trace);

  int64_t capacity() const { return capacity_; }
  int64_t size() const { return entries_.size(); }
  const Counters& counters() const { return counters_; }

 private:
  struct Entry {
    Key key;
    std::shared_ptr<const se::CapturedGraph> graph;
  };

  const int64_t capacity_;
  // Most recently used first. Capacities are a handful of entries, so a
  // linear scan beats hashing address vectors.
  std::vector<Entry> entries_;
  Counters counters_;
};

// `run` on `stream` as a captured graph, from `cache` when it has one for
// `key` (the addresses `run` uses), traced now otherwise; with no cache,
// always traced. How every library call is recorded.
absl::StatusOr<std::shared_ptr<const se::CapturedGraph>> TraceLibraryCall(
    TraceCache* cache, se::Stream* stream, const TraceCache::Key& key,
    absl::FunctionRef<absl::Status(se::Stream*)> run);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_TRACE_CACHE_H_
