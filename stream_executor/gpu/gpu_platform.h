#ifndef STREAM_EXECUTOR_GPU_GPU_PLATFORM_H_
#define STREAM_EXECUTOR_GPU_GPU_PLATFORM_H_

#include <map>
#include <memory>
#include <string>

#include "absl/base/call_once.h"
#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "stream_executor/gpu/gpu_api.h"
#include "stream_executor/gpu/gpu_backend.h"
#include "stream_executor/platform.h"

namespace stream_executor::gpu {

// A GPU platform ("cuda", "rocm") over a backend's tables. Nothing is loaded
// or initialized until first asked: registering the platform from a static
// initializer costs nothing and works on machines without a GPU, where the
// platform reports itself unavailable with the backend's reason.
class GpuPlatform : public Platform {
 public:
  explicit GpuPlatform(GpuBackend backend);

  const std::string& Name() const override { return backend_.platform_name; }
  absl::Status Availability() const override;
  int VisibleDeviceCount() const override;
  absl::StatusOr<StreamExecutor*> ExecutorForDevice(int ordinal) override;
  // Destroys the executors ExecutorForDevice made (run at exit). Anything
  // still using one of them must be gone by then.
  void ReleaseSharedExecutors();

  absl::StatusOr<std::unique_ptr<StreamExecutor>> CreateExecutor(
      const StreamExecutorConfig& config) override;

 private:
  // Loads the API table and counts devices, once.
  void Initialize() const;
  absl::Status CheckOrdinal(int ordinal) const;

  const GpuBackend backend_;

  mutable absl::once_flag init_once_;
  // Written once under init_once_, read-only afterwards.
  mutable absl::Status availability_;
  mutable const GpuApi* api_ = nullptr;
  mutable int device_count_ = 0;

  absl::Mutex mu_;
  bool release_registered_ ABSL_GUARDED_BY(mu_) = false;
  std::map<int, std::unique_ptr<StreamExecutor>> executors_
      ABSL_GUARDED_BY(mu_);
};

// Registers the release of shared executors at exit once more, so that it
// also runs before the exit-time teardown of libraries set up since: exit
// handlers run in reverse order of registration, and a BLAS library that
// tears down its device state first leaves its handles' memory behind.
// The first release empties the executors; the later one is a no-op.
void ReleaseSharedExecutorsBeforeLaterTeardowns();

}  // namespace stream_executor::gpu

#endif  // STREAM_EXECUTOR_GPU_GPU_PLATFORM_H_
