#include "xla_lite/runtime/execution_stats.h"

#include "absl/strings/str_format.h"

namespace xla_lite::gpu {

std::string ExecutionStats::ToString() const {
  return absl::StrFormat(
      "executions=%d (failed %d) thunks=%d allocated=%d buffers/%d bytes "
      "freed=%d buffers/%d bytes deallocation_failures=%d donated_reused=%d "
      "parameter_copies=%d (%d bytes) stabilization: copies=%d (%d bytes) "
      "copy_backs=%d (%d bytes) cached_buffers=%d cached_results_copied=%d "
      "constants=%d (%d bytes) "
      "command_buffers: records=%d updates=%d node_updates=%d "
      "instantiations=%d reinstantiations=%d traces=%d trace_cache_hits=%d "
      "launches=%d",
      executions.load(), failed_executions.load(), thunks_executed.load(),
      buffers_allocated.load(), bytes_allocated.load(), buffers_freed.load(),
      bytes_freed.load(), deallocation_failures.load(),
      donated_buffers_reused.load(), parameter_copies.load(),
      parameter_copy_bytes.load(), stabilization_copies.load(),
      stabilization_copy_bytes.load(), stabilization_copy_backs.load(),
      stabilization_copy_back_bytes.load(), cached_buffers_used.load(),
      cached_results_copied.load(), constants_uploaded.load(),
      constant_bytes_uploaded.load(), command_buffer_records.load(),
      command_buffer_updates.load(), command_buffer_node_updates.load(),
      command_buffer_instantiations.load(),
      command_buffer_reinstantiations.load(), command_buffer_traces.load(),
      command_buffer_trace_cache_hits.load(), command_buffer_launches.load());
}

}  // namespace xla_lite::gpu
