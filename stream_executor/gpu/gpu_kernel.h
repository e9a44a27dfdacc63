#ifndef STREAM_EXECUTOR_GPU_GPU_KERNEL_H_
#define STREAM_EXECUTOR_GPU_GPU_KERNEL_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "stream_executor/gpu/gpu_api.h"
#include "stream_executor/kernel.h"
#include "stream_executor/launch_dim.h"

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

// What every launch checks before the runtime sees it (a stream launch, a
// kernel node): `kernel` was loaded by a GPU executor, `args` match its arity
// and the grid is not empty. `what` ("Launch", "CreateLaunch") starts errors.
absl::StatusOr<const GpuKernel*> CheckLaunch(absl::string_view what,
                                             const LaunchDimensions& dims,
                                             const Kernel& kernel,
                                             const KernelArgs& args);

}  // namespace stream_executor::gpu

#endif  // STREAM_EXECUTOR_GPU_GPU_KERNEL_H_
