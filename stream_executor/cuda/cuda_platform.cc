#include "stream_executor/cuda/cuda_platform.h"

#include <memory>

#include "glog/logging.h"
#include "stream_executor/cuda/cuda_api.h"
#include "stream_executor/cuda/cuda_blas.h"
#include "stream_executor/cuda/cuda_dnn.h"
#include "stream_executor/cuda/cuda_nvrtc.h"
#include "stream_executor/gpu/gpu_platform.h"
#include "stream_executor/platform_manager.h"

namespace stream_executor::cuda {

gpu::GpuBackend CudaBackend() {
  gpu::GpuBackend backend;
  backend.platform_name = kCudaPlatformName;
  backend.load_api = &LoadCudaApi;
  backend.load_compiler = &LoadNvrtcApi;
  backend.load_blas = &LoadCublasApi;
  backend.load_dnn = &LoadCudnnApi;
  return backend;
}

namespace {

// Registration touches no CUDA library: the platform loads them when first
// asked, so this runs safely on machines without a GPU.
bool RegisterCudaPlatform() {
  absl::Status status = PlatformManager::RegisterPlatform(
      std::make_unique<gpu::GpuPlatform>(CudaBackend()));
  if (!status.ok()) LOG(ERROR) << "Registering the CUDA platform: " << status;
  return status.ok();
}

[[maybe_unused]] const bool kCudaPlatformRegistered = RegisterCudaPlatform();

}  // namespace
}  // namespace stream_executor::cuda
