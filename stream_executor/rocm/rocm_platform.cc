#include "stream_executor/rocm/rocm_platform.h"

#include <memory>

#include "glog/logging.h"
#include "stream_executor/gpu/gpu_backend.h"
#include "stream_executor/gpu/gpu_platform.h"
#include "stream_executor/platform_manager.h"
#include "stream_executor/rocm/rocm_api.h"
#include "stream_executor/rocm/rocm_blas.h"
#include "stream_executor/rocm/rocm_hiprtc.h"

namespace stream_executor::rocm {
namespace {

// Registration opens no ROCm library: the platform loads them when first
// asked, so this runs safely on machines without ROCm or an AMD GPU.
[[maybe_unused]] const bool kRocmPlatformRegistered = [] {
  absl::Status status = PlatformManager::RegisterPlatform(
      std::make_unique<gpu::GpuPlatform>(gpu::GpuBackend{
          .platform_name = kRocmPlatformName,
          .load_api = &LoadRocmApi,
          .load_compiler = &LoadHiprtcApi,
          .load_blas = &LoadHipblasApi,
      }));
  LOG_IF(ERROR, !status.ok()) << "Registering the ROCm platform: " << status;
  return status.ok();
}();

}  // namespace
}  // namespace stream_executor::rocm
