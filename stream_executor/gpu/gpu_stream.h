#ifndef STREAM_EXECUTOR_GPU_GPU_STREAM_H_
#define STREAM_EXECUTOR_GPU_GPU_STREAM_H_

#include <cstdint>
#include <memory>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "stream_executor/gpu/gpu_api.h"
#include "stream_executor/stream.h"

namespace stream_executor::gpu {

class GpuExecutor;

// A non-blocking device stream (cudaStream_t, hipStream_t). Work runs in
// order; errors of asynchronous work, including those a host callback
// returns, surface from BlockHostUntilDone.
//
// The destructor waits for the stream's work, so host callbacks, which refer
// to this object, never run after it is gone.
class GpuStream : public Stream {
 public:
  static absl::StatusOr<std::unique_ptr<GpuStream>> Create(
      GpuExecutor* executor);
  ~GpuStream() override;

  absl::Status Memcpy(DeviceAddressBase* dst, const void* host_src,
                      uint64_t size) override;
  absl::Status Memcpy(void* host_dst, const DeviceAddressBase& src,
                      uint64_t size) override;
  absl::Status Memcpy(DeviceAddressBase* dst, const DeviceAddressBase& src,
                      uint64_t size) override;
  absl::Status Memset8(DeviceAddressBase* dst, uint8_t value,
                       uint64_t size) override;
  absl::Status Memset32(DeviceAddressBase* dst, uint32_t pattern,
                        uint64_t size) override;

  // The callback runs on a runtime thread once earlier work is done. Like
  // any CUDA/HIP host function it must not call the GPU runtime. Refused
  // while capturing: the callback runs once, a graph may replay it any
  // number of times.
  absl::Status DoHostCallbackWithStatus(
      absl::AnyInvocable<absl::Status() &&> callback) override;

  absl::Status RecordEvent(Event* event) override;
  absl::Status WaitFor(Event* event) override;
  absl::Status WaitFor(Stream* other) override;
  absl::Status BlockHostUntilDone() override;

  absl::Status Launch(const LaunchDimensions& dims, const Kernel& kernel,
                      const KernelArgs& args) override;

  // Captured in relaxed mode (see GpuApi); EndCapture may run on any thread.
  absl::Status BeginCapture() override;
  absl::StatusOr<std::unique_ptr<CapturedGraph>> EndCapture() override;
  bool IsCapturing() const override;

  void* platform_specific_handle() const override { return handle_; }
  GpuStreamHandle handle() const { return handle_; }

 private:
  struct HostCallback;

  GpuStream(GpuExecutor* executor, GpuStreamHandle handle,
            GpuEventHandle join_event);

  static void RunHostCallback(void* data);
  void SetCallbackError(absl::Status status);
  absl::Status CheckNotCapturing(const char* operation) const;

  GpuExecutor* executor_;
  const GpuApi& api_;
  GpuStreamHandle handle_;
  // Recorded on this stream when another stream waits for it
  // (WaitFor(Stream*)); a wait binds to the record current when it is
  // enqueued, so concurrent waiters may share the event.
  GpuEventHandle join_event_;

  mutable absl::Mutex mu_;
  absl::Status callback_status_ ABSL_GUARDED_BY(mu_);
  bool capturing_ ABSL_GUARDED_BY(mu_) = false;
  std::thread::id capture_thread_ ABSL_GUARDED_BY(mu_);
};

}  // namespace stream_executor::gpu

#endif  // STREAM_EXECUTOR_GPU_GPU_STREAM_H_
