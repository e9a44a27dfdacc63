#include "stream_executor/gpu/gpu_platform.h"

#include <cstdlib>
#include <vector>

#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "stream_executor/gpu/gpu_executor.h"
#include "stream_executor/gpu/gpu_status.h"

namespace stream_executor::gpu {

GpuPlatform::GpuPlatform(GpuBackend backend) : backend_(std::move(backend)) {
  CHECK(backend_.load_api != nullptr)
      << "platform " << backend_.platform_name << " has no API loader";
}

void GpuPlatform::Initialize() const {
  absl::call_once(init_once_, [this] {
    absl::StatusOr<const GpuApi*> api = backend_.load_api();
    if (!api.ok()) {
      availability_ = api.status();
    } else {
      int count = 0;
      absl::Status status = ToStatusWithCode(
          **api, (*api)->get_device_count(&count),
          absl::StatusCode::kFailedPrecondition, "device count");
      if (status.ok() && count == 0) {
        status = absl::FailedPreconditionError(
            absl::StrCat("no ", (*api)->display_name, " device is visible"));
      }
      availability_ = status;
      if (status.ok()) {
        api_ = *api;
        device_count_ = count;
      }
    }
    if (availability_.ok()) {
      VLOG(1) << "Platform " << backend_.platform_name << ": " << device_count_
              << " devices";
    } else {
      VLOG(1) << "Platform " << backend_.platform_name
              << " is unavailable: " << availability_;
    }
  });
}

absl::Status GpuPlatform::Availability() const {
  Initialize();
  return availability_;
}

int GpuPlatform::VisibleDeviceCount() const {
  Initialize();
  return device_count_;
}

absl::Status GpuPlatform::CheckOrdinal(int ordinal) const {
  RETURN_IF_ERROR(Availability());
  if (ordinal < 0 || ordinal >= device_count_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "device ordinal ", ordinal, " is out of range: platform ",
        backend_.platform_name, " has ", device_count_, " devices"));
  }
  return absl::OkStatus();
}

namespace {

// Shared executors own device state (the BLAS handle and its workspace,
// loaded modules) that would otherwise live until the process dies, where
// compute-sanitizer reports it as leaked. They are destroyed at exit by a
// handler registered when the first one is made, that is after the GPU
// runtime initialized, so it runs before the runtime's own teardown.
absl::Mutex exit_mu(absl::kConstInit);
std::vector<GpuPlatform*>* platforms_to_release ABSL_GUARDED_BY(exit_mu) =
    nullptr;

void ReleaseSharedExecutorsAtExit() {
  std::vector<GpuPlatform*> platforms;
  {
    absl::MutexLock lock(&exit_mu);
    platforms = *platforms_to_release;
  }
  for (GpuPlatform* platform : platforms) platform->ReleaseSharedExecutors();
}

void ReleaseAtExit(GpuPlatform* platform) {
  absl::MutexLock lock(&exit_mu);
  if (platforms_to_release == nullptr) {
    platforms_to_release = new std::vector<GpuPlatform*>;
    std::atexit(&ReleaseSharedExecutorsAtExit);
  }
  platforms_to_release->push_back(platform);
}

}  // namespace

void ReleaseSharedExecutorsBeforeLaterTeardowns() {
  absl::MutexLock lock(&exit_mu);
  if (platforms_to_release != nullptr) {
    std::atexit(&ReleaseSharedExecutorsAtExit);
  }
}

void GpuPlatform::ReleaseSharedExecutors() {
  std::map<int, std::unique_ptr<StreamExecutor>> executors;
  {
    absl::MutexLock lock(&mu_);
    executors.swap(executors_);
  }
  VLOG(1) << "Platform " << backend_.platform_name << ": releasing "
          << executors.size() << " shared executor(s)";
}

absl::StatusOr<StreamExecutor*> GpuPlatform::ExecutorForDevice(int ordinal) {
  RETURN_IF_ERROR(CheckOrdinal(ordinal));
  absl::MutexLock lock(&mu_);
  auto it = executors_.find(ordinal);
  if (it != executors_.end()) return it->second.get();
  StreamExecutorConfig config;
  config.device_ordinal = ordinal;
  ASSIGN_OR_RETURN(std::unique_ptr<GpuExecutor> executor,
                   GpuExecutor::Create(this, backend_, *api_, config));
  StreamExecutor* raw = executor.get();
  if (executors_.empty() && !release_registered_) {
    release_registered_ = true;
    ReleaseAtExit(this);
  }
  executors_.emplace(ordinal, std::move(executor));
  return raw;
}

absl::StatusOr<std::unique_ptr<StreamExecutor>> GpuPlatform::CreateExecutor(
    const StreamExecutorConfig& config) {
  RETURN_IF_ERROR(CheckOrdinal(config.device_ordinal));
  ASSIGN_OR_RETURN(std::unique_ptr<GpuExecutor> executor,
                   GpuExecutor::Create(this, backend_, *api_, config));
  return std::unique_ptr<StreamExecutor>(std::move(executor));
}

}  // namespace stream_executor::gpu
