#include "stream_executor/gpu/gpu_kernel.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "stream_executor/gpu/gpu_status.h"

namespace stream_executor::gpu {

absl::StatusOr<std::unique_ptr<GpuModule>> GpuModule::Load(const GpuApi& api,
                                                           const void* image) {
  GpuModuleHandle handle = nullptr;
  RETURN_IF_ERROR(
      ToStatus(api, api.module_load_data(&handle, image), "module load"));
  return std::unique_ptr<GpuModule>(new GpuModule(api, handle));
}

GpuModule::~GpuModule() {
  absl::Status status =
      ToStatus(api_, api_.module_unload(handle_), "module unload");
  if (!status.ok()) LOG(ERROR) << status;
}

absl::StatusOr<GpuFunctionHandle> GpuModule::GetFunction(
    const std::string& name) const {
  GpuFunctionHandle function = nullptr;
  GpuError error = api_.module_get_function(&function, handle_, name.c_str());
  if (error != kGpuSuccess) {
    return ToStatusWithCode(
        api_, error, absl::StatusCode::kNotFound,
        absl::StrCat("lookup of kernel '", name,
                     "' (is it declared extern \"C\" __global__?)"));
  }
  return function;
}

absl::StatusOr<const GpuKernel*> CheckLaunch(absl::string_view what,
                                             const LaunchDimensions& dims,
                                             const Kernel& kernel,
                                             const KernelArgs& args) {
  auto* gpu_kernel = dynamic_cast<const GpuKernel*>(&kernel);
  if (gpu_kernel == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": kernel '", kernel.name(),
                     "' was not loaded by a GPU executor"));
  }
  RETURN_IF_ERROR(CheckLaunchArgs(what, dims, kernel, args));
  return gpu_kernel;
}

}  // namespace stream_executor::gpu
