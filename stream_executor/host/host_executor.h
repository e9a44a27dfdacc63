#ifndef STREAM_EXECUTOR_HOST_HOST_EXECUTOR_H_
#define STREAM_EXECUTOR_HOST_HOST_EXECUTOR_H_

#include <memory>

#include "absl/synchronization/mutex.h"
#include "stream_executor/capture_tracker.h"
#include "stream_executor/device_description.h"
#include "stream_executor/host/host_blas.h"
#include "stream_executor/host/host_memory.h"
#include "stream_executor/stream_executor.h"

namespace stream_executor::host {

class HostStream;

// A "device" made of host memory and worker threads. Several executors may
// exist; each has its own memory accounting and limit.
class HostExecutor : public StreamExecutor {
 public:
  HostExecutor(const Platform* platform, const StreamExecutorConfig& config);
  ~HostExecutor() override;

  const Platform* platform() const override { return platform_; }
  int device_ordinal() const override { return config_.device_ordinal; }
  const DeviceDescription& GetDeviceDescription() const override {
    return description_;
  }

  absl::StatusOr<DeviceAddressBase> Allocate(uint64_t size) override;
  absl::Status Deallocate(DeviceAddressBase* mem) override;
  int64_t allocated_bytes() const override { return memory_.allocated_bytes(); }

  absl::StatusOr<std::unique_ptr<Stream>> CreateStream() override;
  absl::StatusOr<std::unique_ptr<Event>> CreateEvent() override;
  absl::StatusOr<std::unique_ptr<Kernel>> LoadKernel(
      const KernelSpec& spec) override;
  absl::StatusOr<blas::BlasSupport*> AsBlas() override { return &blas_; }
  absl::StatusOr<std::unique_ptr<CommandBuffer>> CreateCommandBuffer() override;
  bool SupportsConditionalCommands() const override { return true; }
  absl::Status SynchronizeAllActivity() override;

  // Threads with a stream capture open; allocation is refused on them.
  CaptureTracker& capture_tracker() { return capture_tracker_; }

 private:
  friend class HostStream;
  void RegisterStream(HostStream* stream);
  void UnregisterStream(HostStream* stream);

  const Platform* platform_;
  const StreamExecutorConfig config_;
  DeviceDescription description_;
  HostMemory memory_;
  HostBlas blas_;

  CaptureTracker capture_tracker_;

  // Held across SynchronizeAllActivity so a stream cannot be destroyed while
  // it is being drained. Separate from mu_: stream work may allocate.
  absl::Mutex streams_mu_;
  std::vector<HostStream*> streams_ ABSL_GUARDED_BY(streams_mu_);
};

}  // namespace stream_executor::host

#endif  // STREAM_EXECUTOR_HOST_HOST_EXECUTOR_H_
