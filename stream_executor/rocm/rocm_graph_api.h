#ifndef STREAM_EXECUTOR_ROCM_ROCM_GRAPH_API_H_
#define STREAM_EXECUTOR_ROCM_ROCM_GRAPH_API_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "stream_executor/gpu/gpu_api.h"
#include "stream_executor/rocm/rocm_library.h"

namespace stream_executor::rocm {

// The HIP functions behind the node-by-node graph entries of GpuApi
// (graph_create ... graph_exec_child_node_set_params) that `library` does not
// export, by symbol; empty when it exports all of them. Stores nothing, so it
// answers without a device.
std::vector<std::string> MissingHipGraphFunctions(const RocmLibrary& library);

// Resolves those functions from `library` and fills the graph entries and
// graph_traits of `*api`. `hip_runtime_version` is hipRuntimeGetVersion's
// answer (major * 10^7 + minor * 10^5 + patch); entries that older runtimes
// get wrong are filled with a conservative stand-in there (see
// docs/rocm.md). FAILED_PRECONDITION naming every missing symbol, with `*api`
// left untouched. The functions are kept in process-wide storage that the
// entries read, so call this before the table is shared; calls with the same
// library store the same pointers.
absl::Status FillHipGraphEntries(const RocmLibrary& library,
                                 int hip_runtime_version, gpu::GpuApi* api);

}  // namespace stream_executor::rocm

#endif  // STREAM_EXECUTOR_ROCM_ROCM_GRAPH_API_H_
