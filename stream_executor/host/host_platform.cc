#include "stream_executor/host/host_platform.h"

#include "absl/strings/str_format.h"
#include "glog/logging.h"
#include "stream_executor/host/host_executor.h"
#include "stream_executor/platform_manager.h"

namespace stream_executor::host {

HostPlatform::HostPlatform() : executors_(kDeviceCount) {}

absl::StatusOr<StreamExecutor*> HostPlatform::ExecutorForDevice(int ordinal) {
  if (ordinal < 0 || ordinal >= kDeviceCount) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "host platform has devices 0..%d, not %d", kDeviceCount - 1, ordinal));
  }
  absl::MutexLock lock(&mu_);
  if (executors_[ordinal] == nullptr) {
    StreamExecutorConfig config;
    config.device_ordinal = ordinal;
    executors_[ordinal] = std::make_unique<HostExecutor>(this, config);
  }
  return executors_[ordinal].get();
}

absl::StatusOr<std::unique_ptr<StreamExecutor>> HostPlatform::CreateExecutor(
    const StreamExecutorConfig& config) {
  if (config.device_ordinal < 0 || config.device_ordinal >= kDeviceCount) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "host platform has devices 0..%d, not %d", kDeviceCount - 1,
        config.device_ordinal));
  }
  return std::make_unique<HostExecutor>(this, config);
}

namespace {

const bool kRegistered = [] {
  absl::Status status =
      PlatformManager::RegisterPlatform(std::make_unique<HostPlatform>());
  CHECK(status.ok()) << status;
  return true;
}();

}  // namespace
}  // namespace stream_executor::host
