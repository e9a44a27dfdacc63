#ifndef STREAM_EXECUTOR_ROCM_ROCM_API_H_
#define STREAM_EXECUTOR_ROCM_ROCM_API_H_

#include "absl/status/statusor.h"
#include "stream_executor/gpu/gpu_api.h"

namespace stream_executor::rocm {

// The GpuApi table over the HIP runtime, loaded with dlopen on the first call
// (kHipRuntimeSonames, then /opt/rocm/lib). FAILED_PRECONDITION naming the
// library when it is missing, or with HIP's reason (and a hint about /dev/kfd)
// when no usable device is present. Thread-safe; probes once.
//
// Fields the table does not know yet are left null (the table is
// value-initialized and filled by name); so are the graph entries when the
// runtime lacks a graph function (FillHipGraphEntries), leaving command
// buffers UNIMPLEMENTED while everything else works.
absl::StatusOr<const gpu::GpuApi*> LoadRocmApi();

}  // namespace stream_executor::rocm

#endif  // STREAM_EXECUTOR_ROCM_ROCM_API_H_
