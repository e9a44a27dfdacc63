#ifndef STREAM_EXECUTOR_GPU_GPU_STATUS_H_
#define STREAM_EXECUTOR_GPU_GPU_STATUS_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "stream_executor/gpu/gpu_api.h"

namespace stream_executor::gpu {

// Turns a GpuApi error into a status naming the operation and the backend's
// own error name and description. Out-of-memory becomes RESOURCE_EXHAUSTED so
// that callers can tell it from a broken device; everything else is INTERNAL.
absl::Status ToStatus(const GpuApi& api, GpuError error,
                      absl::string_view operation);

// Like ToStatus, with the status code chosen by the caller.
absl::Status ToStatusWithCode(const GpuApi& api, GpuError error,
                              absl::StatusCode code,
                              absl::string_view operation);

}  // namespace stream_executor::gpu

#endif  // STREAM_EXECUTOR_GPU_GPU_STATUS_H_
