#include "xla_lite/runtime/trace_cache.h"

#include <algorithm>
#include <utility>

#include "base/status_macros.h"
#include "glog/logging.h"
#include "stream_executor/command_buffer.h"

namespace xla_lite::gpu {

TraceCache::TraceCache(int64_t capacity)
    : capacity_(std::max<int64_t>(capacity, 0)) {}

absl::StatusOr<std::shared_ptr<const se::CapturedGraph>> TraceCache::GetOrTrace(
    const Key& key, TraceFn trace) {
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [&](const Entry& entry) { return entry.key == key; });
  if (it != entries_.end()) {
    ++counters_.hits;
    std::rotate(entries_.begin(), it, it + 1);
    return entries_.front().graph;
  }
  ASSIGN_OR_RETURN(std::unique_ptr<se::CapturedGraph> traced, trace());
  ++counters_.traces;
  std::shared_ptr<const se::CapturedGraph> graph = std::move(traced);
  VLOG(5) << "trace cache: traced " << graph->num_nodes() << " nodes, "
          << entries_.size() << "/" << capacity_ << " entries";
  if (capacity_ == 0) return graph;
  if (entries_.size() == capacity_) {
    entries_.pop_back();
    ++counters_.evictions;
  }
  entries_.insert(entries_.begin(), Entry{key, graph});
  return graph;
}

absl::StatusOr<std::shared_ptr<const se::CapturedGraph>> TraceLibraryCall(
    TraceCache* cache, se::Stream* stream, const TraceCache::Key& key,
    absl::FunctionRef<absl::Status(se::Stream*)> run) {
  auto trace = [&]() -> absl::StatusOr<std::unique_ptr<se::CapturedGraph>> {
    return se::TraceIntoGraph(stream, [&](se::Stream* s) { return run(s); });
  };
  if (cache == nullptr) {
    ASSIGN_OR_RETURN(std::unique_ptr<se::CapturedGraph> graph, trace());
    return std::shared_ptr<const se::CapturedGraph>(std::move(graph));
  }
  return cache->GetOrTrace(key, trace);
}

}  // namespace xla_lite::gpu
