#ifndef STREAM_EXECUTOR_CUDA_CUDA_PLATFORM_H_
#define STREAM_EXECUTOR_CUDA_CUDA_PLATFORM_H_

#include "stream_executor/gpu/gpu_backend.h"

namespace stream_executor::cuda {

inline constexpr char kCudaPlatformName[] = "cuda";

// The CUDA tables as a GpuBackend. Linking :cuda_platform registers a
// GpuPlatform over it with PlatformManager.
gpu::GpuBackend CudaBackend();

}  // namespace stream_executor::cuda

#endif  // STREAM_EXECUTOR_CUDA_CUDA_PLATFORM_H_
