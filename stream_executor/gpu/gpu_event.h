#ifndef STREAM_EXECUTOR_GPU_GPU_EVENT_H_
#define STREAM_EXECUTOR_GPU_GPU_EVENT_H_

#include <memory>

#include "absl/status/statusor.h"
#include "stream_executor/event.h"
#include "stream_executor/gpu/gpu_api.h"

namespace stream_executor::gpu {

class GpuExecutor;

// A timing-disabled device event, destroyed with this object.
class GpuEvent : public Event {
 public:
  static absl::StatusOr<std::unique_ptr<GpuEvent>> Create(
      GpuExecutor* executor);
  ~GpuEvent() override;
  GpuEvent(const GpuEvent&) = delete;
  GpuEvent& operator=(const GpuEvent&) = delete;

  absl::Status Synchronize() override;
  // A failing query is logged and reported as complete, so that polling
  // loops end and the following Synchronize reports the error.
  bool IsComplete() override;

  GpuExecutor* executor() const { return executor_; }
  GpuEventHandle handle() const { return handle_; }

 private:
  GpuEvent(GpuExecutor* executor, GpuEventHandle handle)
      : executor_(executor), handle_(handle) {}

  GpuExecutor* executor_;
  GpuEventHandle handle_;
};

}  // namespace stream_executor::gpu

#endif  // STREAM_EXECUTOR_GPU_GPU_EVENT_H_
