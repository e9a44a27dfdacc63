#ifndef STREAM_EXECUTOR_HOST_HOST_STREAM_H_
#define STREAM_EXECUTOR_HOST_HOST_STREAM_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "stream_executor/host/host_ops.h"
#include "stream_executor/stream.h"

namespace stream_executor::host {

class HostExecutor;

// What a host stream recorded while capturing: its operations in order.
class HostCapturedGraph : public CapturedGraph {
 public:
  explicit HostCapturedGraph(std::vector<HostOp> ops) : ops_(std::move(ops)) {}
  int64_t num_nodes() const override { return ops_.size(); }
  const std::vector<HostOp>& ops() const { return ops_; }

 private:
  std::vector<HostOp> ops_;
};

// An in-order stream: one worker thread runs the enqueued operations one
// after another, so work on two streams really runs concurrently and only
// events order it, as on a GPU.
class HostStream : public Stream {
 public:
  explicit HostStream(HostExecutor* executor);
  ~HostStream() override;  // Finishes all enqueued work first.

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
  absl::Status DoHostCallbackWithStatus(
      absl::AnyInvocable<absl::Status() &&> callback) override;
  absl::Status RecordEvent(Event* event) override;
  absl::Status WaitFor(Event* event) override;
  absl::Status WaitFor(Stream* other) override;
  absl::Status BlockHostUntilDone() override;
  absl::Status Launch(const LaunchDimensions& dims, const Kernel& kernel,
                      const KernelArgs& args) override;
  absl::Status BeginCapture() override;
  absl::StatusOr<std::unique_ptr<CapturedGraph>> EndCapture() override;
  bool IsCapturing() const override;

  // Enqueues (or, while capturing, records) one operation. Command buffers
  // replay captured operations through it.
  absl::Status Enqueue(HostOp op);

 private:
  void WorkLoop();
  absl::Status CheckNotCapturing(const char* what) const;

  HostExecutor* executor_;
  mutable absl::Mutex mu_;
  std::deque<HostOp> queue_ ABSL_GUARDED_BY(mu_);
  int64_t enqueued_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t completed_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Status first_error_ ABSL_GUARDED_BY(mu_);
  bool shutdown_ ABSL_GUARDED_BY(mu_) = false;
  bool capturing_ ABSL_GUARDED_BY(mu_) = false;
  std::thread::id capture_thread_ ABSL_GUARDED_BY(mu_);
  std::vector<HostOp> captured_ ABSL_GUARDED_BY(mu_);
  std::thread worker_;
};

}  // namespace stream_executor::host

#endif  // STREAM_EXECUTOR_HOST_HOST_STREAM_H_
