#ifndef STREAM_EXECUTOR_GPU_GPU_KERNEL_H_
#define STREAM_EXECUTOR_GPU_GPU_KERNEL_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "stream_executor/gpu/gpu_api.h"
#include "stream_executor/kernel.h"

namespace stream_executor::gpu {

// A loaded module (CUmodule, hipModule_t), unloaded when destroyed. Modules
// belong to their executor, which keeps them until it is destroyed: kernels
// only borrow functions from them.
class GpuModule {
 public:
  // Loads `image` on the current device.
  static absl::StatusOr<std::unique_ptr<GpuModule>> Load(const GpuApi& api,
                                                         const void* image);
  ~GpuModule();
  GpuModule(const GpuModule&) = delete;
  GpuModule& operator=(const GpuModule&) = delete;

  // NOT_FOUND when the module has no function of that name.
  absl::StatusOr<GpuFunctionHandle> GetFunction(const std::string& name) const;

 private:
  GpuModule(const GpuApi& api, GpuModuleHandle handle)
      : api_(api), handle_(handle) {}

  const GpuApi& api_;
  GpuModuleHandle handle_;
};

// A function of a module loaded on one executor.
class GpuKernel : public Kernel {
 public:
  GpuKernel(std::string name, int arity, GpuFunctionHandle function)
      : Kernel(std::move(name), arity), function_(function) {}

  GpuFunctionHandle function() const { return function_; }

 private:
  GpuFunctionHandle function_;
};

}  // namespace stream_executor::gpu

#endif  // STREAM_EXECUTOR_GPU_GPU_KERNEL_H_
