#ifndef STREAM_EXECUTOR_HOST_HOST_PLATFORM_H_
#define STREAM_EXECUTOR_HOST_HOST_PLATFORM_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "stream_executor/platform.h"

namespace stream_executor::host {

// The "host" platform: always available, the embedded default where no GPU
// is, and what CI tests everything on. It exposes kDeviceCount devices so
// multi-device code paths run without a GPU.
class HostPlatform : public Platform {
 public:
  static constexpr int kDeviceCount = 2;

  HostPlatform();
  const std::string& Name() const override { return name_; }
  absl::Status Availability() const override { return absl::OkStatus(); }
  int VisibleDeviceCount() const override { return kDeviceCount; }
  absl::StatusOr<StreamExecutor*> ExecutorForDevice(int ordinal) override;
  absl::StatusOr<std::unique_ptr<StreamExecutor>> CreateExecutor(
      const StreamExecutorConfig& config) override;

 private:
  const std::string name_ = "host";
  absl::Mutex mu_;
  std::vector<std::unique_ptr<StreamExecutor>> executors_ ABSL_GUARDED_BY(mu_);
};

}  // namespace stream_executor::host

#endif  // STREAM_EXECUTOR_HOST_HOST_PLATFORM_H_
