#ifndef STREAM_EXECUTOR_GPU_GPU_DNN_API_H_
#define STREAM_EXECUTOR_GPU_GPU_DNN_API_H_

#include <cstddef>

#include "stream_executor/dnn.h"
#include "stream_executor/gpu/gpu_api.h"

namespace stream_executor::gpu {

using GpuDnnHandle = struct GpuDnnOpaque*;
// One convolution shape's descriptors and chosen algorithm: made once per
// shape, used by any number of calls.
using GpuDnnPlan = struct GpuDnnPlanOpaque*;

// cuDNN (MIOpen would fill the same table). Error codes are 0 for
// success; error_string describes the rest. Calls are validated
// (dnn::ConvolutionCall::Validate) before they reach the table.
struct GpuDnnApi {
  // "cuDNN": used in messages.
  const char* display_name;

  const char* (*error_string)(int error);

  // Creates a handle on the current device.
  int (*create)(GpuDnnHandle* handle);
  int (*destroy)(GpuDnnHandle handle);

  // The descriptors of `call`'s shape (its addresses are not read). On an
  // error `*plan` may still hold what was made, for plan_destroy.
  int (*plan_create)(const dnn::ConvolutionCall& call, GpuDnnPlan* plan);
  int (*plan_destroy)(GpuDnnPlan plan);
  // Times the library's deterministic full-f32 algorithms for `plan` on
  // `stream` (on memory the library allocates itself) and keeps the
  // fastest that needs at most `max_workspace` bytes; `*workspace_bytes`
  // is what plan_run then needs. Not under stream capture.
  int (*plan_choose)(GpuDnnHandle handle, GpuDnnPlan plan,
                     GpuStreamHandle stream, size_t max_workspace,
                     size_t* workspace_bytes);
  // Enqueues `call` (of `plan`'s shape) on `stream` with the chosen
  // algorithm; nothing is allocated, so this can be captured.
  int (*plan_run)(GpuDnnHandle handle, GpuDnnPlan plan, GpuStreamHandle stream,
                  const dnn::ConvolutionCall& call, void* workspace,
                  size_t workspace_bytes);
};

}  // namespace stream_executor::gpu

#endif  // STREAM_EXECUTOR_GPU_GPU_DNN_API_H_
