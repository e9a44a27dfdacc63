#ifndef STREAM_EXECUTOR_PLATFORM_H_
#define STREAM_EXECUTOR_PLATFORM_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "stream_executor/stream_executor.h"

namespace stream_executor {

// A kind of device ("host", "cuda", "rocm") and the executors for its devices.
class Platform {
 public:
  virtual ~Platform() = default;

  virtual const std::string& Name() const = 0;

  // OK when the platform can run work here; otherwise a status saying why not
  // (no driver, no device, library missing). Never crashes.
  virtual absl::Status Availability() const = 0;
  virtual int VisibleDeviceCount() const = 0;

  // The shared executor of a device with default options, created once.
  virtual absl::StatusOr<StreamExecutor*> ExecutorForDevice(int ordinal) = 0;

  // A new executor owned by the caller, with its own options (memory limit,
  // kernel cache directory, TF32).
  virtual absl::StatusOr<std::unique_ptr<StreamExecutor>> CreateExecutor(
      const StreamExecutorConfig& config) = 0;
};

}  // namespace stream_executor

#endif  // STREAM_EXECUTOR_PLATFORM_H_
