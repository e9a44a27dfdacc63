#include "stream_executor/host/host_executor.h"

#include <algorithm>
#include <thread>

#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "stream_executor/host/host_command_buffer.h"
#include "stream_executor/host/host_event.h"
#include "stream_executor/host/host_kernel.h"
#include "stream_executor/host/host_stream.h"

namespace stream_executor::host {

HostExecutor::HostExecutor(const Platform* platform,
                           const StreamExecutorConfig& config)
    : platform_(platform), config_(config), memory_(config.memory_limit_bytes) {
  description_.name = "host";
  description_.arch = "host";
  description_.memory_bytes = config.memory_limit_bytes;
  description_.core_count = std::max(1u, std::thread::hardware_concurrency());
  description_.runtime_version = "host";
}

HostExecutor::~HostExecutor() {
  ClearStreamPool();
  absl::MutexLock lock(&streams_mu_);
  CHECK(streams_.empty()) << "a host executor was destroyed before its "
                          << streams_.size() << " stream(s)";
}

absl::StatusOr<DeviceAddressBase> HostExecutor::Allocate(uint64_t size) {
  RETURN_IF_ERROR(capture_tracker_.CheckMayAllocate(size, device_ordinal()));
  return memory_.Allocate(size, device_ordinal());
}

absl::Status HostExecutor::Deallocate(DeviceAddressBase* mem) {
  RETURN_IF_ERROR(memory_.Deallocate(*mem, device_ordinal()));
  *mem = DeviceAddressBase();
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Stream>> HostExecutor::CreateStream() {
  auto stream = std::make_unique<HostStream>(this);
  RegisterStream(stream.get());
  return stream;
}

absl::StatusOr<std::unique_ptr<Event>> HostExecutor::CreateEvent() {
  return std::make_unique<HostEvent>();
}

absl::StatusOr<std::unique_ptr<Kernel>> HostExecutor::LoadKernel(
    const KernelSpec& spec) {
  if (!spec.host_fn) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "kernel %s has no host implementation; the host platform runs only "
        "kernels with a host closure",
        spec.name));
  }
  return std::make_unique<HostKernel>(spec);
}

absl::StatusOr<std::unique_ptr<CommandBuffer>>
HostExecutor::CreateCommandBuffer() {
  return std::make_unique<HostCommandBuffer>();
}

absl::Status HostExecutor::SynchronizeAllActivity() {
  absl::MutexLock lock(&streams_mu_);
  absl::Status status;
  for (HostStream* stream : streams_) status.Update(stream->BlockHostUntilDone());
  return status;
}

void HostExecutor::RegisterStream(HostStream* stream) {
  absl::MutexLock lock(&streams_mu_);
  streams_.push_back(stream);
}

void HostExecutor::UnregisterStream(HostStream* stream) {
  absl::MutexLock lock(&streams_mu_);
  streams_.erase(std::remove(streams_.begin(), streams_.end(), stream),
                 streams_.end());
}

}  // namespace stream_executor::host
