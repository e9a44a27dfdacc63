#ifndef STREAM_EXECUTOR_CUDA_CUDA_DNN_H_
#define STREAM_EXECUTOR_CUDA_CUDA_DNN_H_

#include "absl/status/statusor.h"
#include "stream_executor/gpu/gpu_dnn_api.h"

namespace stream_executor::cuda {

// The GpuDnnApi table over cuDNN 9's convolution entry points, loaded with
// dlopen on the first call (libcudnn.so.9 by soname, then from
// /usr/local/cuda/lib64 and the distribution's library directory).
// FAILED_PRECONDITION naming the library and dlerror() when it is missing,
// older than 9, or the build had no cuDNN headers. Thread-safe; loads once.
absl::StatusOr<const gpu::GpuDnnApi*> LoadCudnnApi();

}  // namespace stream_executor::cuda

#endif  // STREAM_EXECUTOR_CUDA_CUDA_DNN_H_
