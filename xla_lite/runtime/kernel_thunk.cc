#include "xla_lite/runtime/kernel_thunk.h"

#include <algorithm>
#include <atomic>
#include <thread>
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

absl::StatusOr<const se::Kernel*> KernelThunk::GetKernel(
    se::StreamExecutor* executor) {
  absl::MutexLock lock(&mu_);
  auto it = kernels_.find(executor);
  if (it == kernels_.end()) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: kernel %s was not initialized on device %d", ToString(),
        spec_.name, executor->device_ordinal()));
  }
  return it->second.get();
}

se::KernelArgs KernelThunk::Arguments(const BufferAllocations& buffers) const {
  se::KernelArgs args;
  for (const BufferAllocation::Slice& slice : arguments_) {
    args.AddAddress(buffers.GetDeviceAddress(slice));
  }
  return args;
}

absl::Status KernelThunk::ExecuteOnStream(const ExecuteParams& params) {
  ASSIGN_OR_RETURN(const se::Kernel* kernel, GetKernel(params.executor()));
  VLOG(5) << "launch " << ToString() << " " << launch_dimensions_.ToString();
  return params.stream->Launch(launch_dimensions_, *kernel,
                               Arguments(*params.buffer_allocations));
}

absl::StatusOr<const se::CommandBuffer::Command*> KernelThunk::Record(
    const RecordParams& params, se::CommandBuffer* command_buffer,
    se::CommandBuffer::Dependencies dependencies) {
  ASSIGN_OR_RETURN(const se::Kernel* kernel, GetKernel(params.executor()));
  VLOG(5) << "record launch " << ToString() << " after " << dependencies.size()
          << " commands";
  return command_buffer->CreateLaunch(launch_dimensions_, *kernel,
                                      Arguments(*params.buffer_allocations),
                                      dependencies);
}

absl::Status KernelThunk::UpdateRecorded(
    const RecordParams& params, se::CommandBuffer* command_buffer,
    const se::CommandBuffer::Command* command) {
  ASSIGN_OR_RETURN(const se::Kernel* kernel, GetKernel(params.executor()));
  VLOG(5) << "update launch " << ToString();
  return command_buffer->UpdateLaunch(command, launch_dimensions_, *kernel,
                                      Arguments(*params.buffer_allocations));
}

BufferUses KernelThunk::buffer_uses() const {
  BufferUses uses;
  for (size_t i = 0; i < arguments_.size(); ++i) {
    uses.push_back(written_[i] ? BufferUse::Write(arguments_[i])
                               : BufferUse::Read(arguments_[i]));
  }
  return uses;
}

int64_t CompileThreads(int64_t forced, int64_t kernels) {
  int64_t threads = forced;
  if (threads <= 0) {
    threads = std::clamp<int64_t>(std::thread::hardware_concurrency(), 1, 16);
  }
  return std::min(threads, kernels);
}

void CompileKernels(se::StreamExecutor* executor,
                    absl::Span<const se::KernelSpec* const> specs,
                    int64_t threads, const std::atomic<bool>* stop) {
  if (threads <= 1) return;
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  auto stopped = [&] { return failed || (stop != nullptr && *stop); };
  auto work = [&] {
    for (size_t i = next++; i < specs.size() && !stopped(); i = next++) {
      if (!executor->CompileKernel(*specs[i]).ok()) failed = true;
    }
  };
  std::vector<std::thread> pool;
  for (int64_t i = 1; i < threads; ++i) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
}

}  // namespace xla_lite::gpu
