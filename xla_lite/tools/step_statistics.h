#ifndef XLA_LITE_TOOLS_STEP_STATISTICS_H_
#define XLA_LITE_TOOLS_STEP_STATISTICS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "xla_lite/runtime/execution_stats.h"

namespace xla_lite {

// The q-quantile (0..1) of `values` by nearest rank; 0 when empty.
double Quantile(std::vector<double> values, double q);

// What the runtime did over a span of steps: the difference of two
// readings of ExecutionStats.
struct RuntimeCounters {
  int64_t executions = 0, records = 0, updates = 0, node_updates = 0,
          traces = 0, trace_cache_hits = 0, launches = 0,
          parameter_copies = 0, parameter_copy_bytes = 0, copy_backs = 0,
          thunks_executed = 0;

  static RuntimeCounters Read(const gpu::ExecutionStats& stats);
  RuntimeCounters operator-(const RuntimeCounters& other) const;
  // "records=1 updates=0 ..." for people; see ToJson for machines.
  std::string ToString() const;
  std::string ToJson() const;
};

}  // namespace xla_lite

#endif  // XLA_LITE_TOOLS_STEP_STATISTICS_H_
