#include "xla_lite/runtime/kernel_thunk.h"

#include <utility>

#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "glog/logging.h"

namespace xla_lite::gpu {

KernelThunk::KernelThunk(std::string name, se::KernelSpec spec,
                         se::LaunchDimensions launch_dimensions,
                         std::vector<BufferAllocation::Slice> arguments,
                         std::vector<bool> written)
    : Thunk(Kind::kKernel, std::move(name)),
      spec_(std::move(spec)),
      launch_dimensions_(launch_dimensions),
      arguments_(std::move(arguments)),
      written_(std::move(written)) {
  CHECK_EQ(arguments_.size(), written_.size()) << ToString();
}

absl::Status KernelThunk::Initialize(const InitializeParams& params) {
  absl::MutexLock lock(&mu_);
  if (kernels_.contains(params.executor)) return absl::OkStatus();
  ASSIGN_OR_RETURN(std::unique_ptr<se::Kernel> kernel,
                   params.executor->LoadKernel(spec_));
  VLOG(5) << "loaded kernel " << spec_.name << " on device "
          << params.executor->device_ordinal();
  kernels_.emplace(params.executor, std::move(kernel));
  return absl::OkStatus();
}

absl::Status KernelThunk::ExecuteOnStream(const ExecuteParams& params) {
  const se::Kernel* kernel = nullptr;
  {
    absl::MutexLock lock(&mu_);
    auto it = kernels_.find(params.executor());
    if (it == kernels_.end()) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "%s: kernel %s was not initialized on device %d", ToString(),
          spec_.name, params.executor()->device_ordinal()));
    }
    kernel = it->second.get();
  }
  se::KernelArgs args;
  for (const BufferAllocation::Slice& slice : arguments_) {
    args.AddAddress(params.buffer_allocations->GetDeviceAddress(slice));
  }
  VLOG(5) << "launch " << ToString() << " " << launch_dimensions_.ToString();
  return params.stream->Launch(launch_dimensions_, *kernel, args);
}

BufferUses KernelThunk::buffer_uses() const {
  BufferUses uses;
  for (size_t i = 0; i < arguments_.size(); ++i) {
    uses.push_back(written_[i] ? BufferUse::Write(arguments_[i])
                               : BufferUse::Read(arguments_[i]));
  }
  return uses;
}

}  // namespace xla_lite::gpu
