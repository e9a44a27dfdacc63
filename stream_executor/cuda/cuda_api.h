#ifndef STREAM_EXECUTOR_CUDA_CUDA_API_H_
#define STREAM_EXECUTOR_CUDA_CUDA_API_H_

#include "absl/status/statusor.h"
#include "stream_executor/gpu/gpu_api.h"

namespace stream_executor::cuda {

// The GpuApi table over the statically linked CUDA runtime, with the few
// driver functions the runtime lacks (module loading, kernel launch, 32-bit
// memset) reached through cudaGetDriverEntryPointByVersion, so that nothing
// links against libcuda. FAILED_PRECONDITION, with the runtime's reason, when
// no usable driver or device is present. Thread-safe; probes once.
absl::StatusOr<const gpu::GpuApi*> LoadCudaApi();

}  // namespace stream_executor::cuda

#endif  // STREAM_EXECUTOR_CUDA_CUDA_API_H_
