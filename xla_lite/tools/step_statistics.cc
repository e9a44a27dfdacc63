#include "xla_lite/tools/step_statistics.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace xla_lite {

double Quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  int64_t rank = static_cast<int64_t>(std::ceil(q * values.size())) - 1;
  return values[std::clamp<int64_t>(rank, 0, values.size() - 1)];
}

RuntimeCounters RuntimeCounters::Read(const gpu::ExecutionStats& s) {
  RuntimeCounters c;
  c.executions = s.executions.load();
  c.records = s.command_buffer_records.load();
  c.updates = s.command_buffer_updates.load();
  c.node_updates = s.command_buffer_node_updates.load();
  c.traces = s.command_buffer_traces.load();
  c.trace_cache_hits = s.command_buffer_trace_cache_hits.load();
  c.launches = s.command_buffer_launches.load();
  // Both kinds of parameter copy: stabilization of moved parameters, and
  // protection of borrowed aliased ones.
  c.parameter_copies =
      s.stabilization_copies.load() + s.parameter_copies.load();
  c.parameter_copy_bytes =
      s.stabilization_copy_bytes.load() + s.parameter_copy_bytes.load();
  c.copy_backs = s.stabilization_copy_backs.load();
  c.thunks_executed = s.thunks_executed.load();
  return c;
}

RuntimeCounters RuntimeCounters::operator-(const RuntimeCounters& o) const {
  RuntimeCounters c;
  c.executions = executions - o.executions;
  c.records = records - o.records;
  c.updates = updates - o.updates;
  c.node_updates = node_updates - o.node_updates;
  c.traces = traces - o.traces;
  c.trace_cache_hits = trace_cache_hits - o.trace_cache_hits;
  c.launches = launches - o.launches;
  c.parameter_copies = parameter_copies - o.parameter_copies;
  c.parameter_copy_bytes = parameter_copy_bytes - o.parameter_copy_bytes;
  c.copy_backs = copy_backs - o.copy_backs;
  c.thunks_executed = thunks_executed - o.thunks_executed;
  return c;
}

std::string RuntimeCounters::ToString() const {
  return absl::StrFormat(
      "records=%d updates=%d (%d nodes) re-traces=%d trace_hits=%d "
      "parameter_copies=%d (%d bytes) copy_backs=%d graph_launches=%d "
      "op_by_op_thunks=%d",
      records, updates, node_updates, traces, trace_cache_hits,
      parameter_copies, parameter_copy_bytes, copy_backs, launches,
      thunks_executed);
}

std::string RuntimeCounters::ToJson() const {
  return absl::StrFormat(
      "{\"executions\": %d, \"records\": %d, \"updates\": %d, "
      "\"node_updates\": %d, \"traces\": %d, \"trace_cache_hits\": %d, "
      "\"graph_launches\": %d, \"parameter_copies\": %d, "
      "\"parameter_copy_bytes\": %d, \"copy_backs\": %d, "
      "\"op_by_op_thunks\": %d}",
      executions, records, updates, node_updates, traces, trace_cache_hits,
      launches, parameter_copies, parameter_copy_bytes, copy_backs,
      thunks_executed);
}

}  // namespace xla_lite
