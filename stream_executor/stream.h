#ifndef STREAM_EXECUTOR_STREAM_H_
#define STREAM_EXECUTOR_STREAM_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "stream_executor/device_address.h"
#include "stream_executor/event.h"
#include "stream_executor/kernel.h"
#include "stream_executor/launch_dim.h"

namespace stream_executor {

class StreamExecutor;

// Work recorded by stream capture instead of being run: a CUDA/HIP graph on
// GPU platforms, a list of closures on the host. Command buffers add it as a
// child node (traced library calls such as cuBLAS gemm).
class CapturedGraph {
 public:
  virtual ~CapturedGraph() = default;
  // Number of operations captured; zero is legal (a trace that launched
  // nothing) and every consumer must handle it.
  virtual int64_t num_nodes() const = 0;
};

// An in-order queue of device work. Every call enqueues and returns; errors
// the device reports while running the work (a failing host kernel, a
// callback returning an error) surface from BlockHostUntilDone.
//
// Host memory passed to an asynchronous copy must stay valid until the stream
// has run the copy (BlockHostUntilDone, or an event recorded after it).
class Stream {
 public:
  explicit Stream(StreamExecutor* parent) : parent_(parent) {}
  virtual ~Stream() = default;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  StreamExecutor* parent() const { return parent_; }

  // Host to device, device to host, device to device.
  virtual absl::Status Memcpy(DeviceAddressBase* dst, const void* host_src,
                              uint64_t size) = 0;
  virtual absl::Status Memcpy(void* host_dst, const DeviceAddressBase& src,
                              uint64_t size) = 0;
  virtual absl::Status Memcpy(DeviceAddressBase* dst,
                              const DeviceAddressBase& src, uint64_t size) = 0;

  // Fills `size` bytes with a byte value, or with a 32-bit pattern (`size`
  // must then be a multiple of 4).
  virtual absl::Status Memset8(DeviceAddressBase* dst, uint8_t value,
                               uint64_t size) = 0;
  virtual absl::Status Memset32(DeviceAddressBase* dst, uint32_t pattern,
                                uint64_t size) = 0;
  absl::Status MemZero(DeviceAddressBase* dst, uint64_t size) {
    return Memset8(dst, 0, size);
  }

  // Runs `callback` on a host thread once all earlier work is done. An error
  // it returns is reported by BlockHostUntilDone.
  virtual absl::Status DoHostCallbackWithStatus(
      absl::AnyInvocable<absl::Status() &&> callback) = 0;
  absl::Status DoHostCallback(absl::AnyInvocable<void() &&> callback) {
    return DoHostCallbackWithStatus(
        [cb = std::move(callback)]() mutable -> absl::Status {
          std::move(cb)();
          return absl::OkStatus();
        });
  }

  virtual absl::Status RecordEvent(Event* event) = 0;
  // Later work on this stream waits for the event's latest record.
  virtual absl::Status WaitFor(Event* event) = 0;
  // Later work on this stream waits for all work enqueued on `other` so far.
  virtual absl::Status WaitFor(Stream* other) = 0;

  // Blocks until all enqueued work is done; returns (and clears) the first
  // error any of it reported.
  virtual absl::Status BlockHostUntilDone() = 0;

  virtual absl::Status Launch(const LaunchDimensions& dims,
                              const Kernel& kernel, const KernelArgs& args) = 0;

  // Stream capture: between Begin and End the stream records its work
  // instead of running it. As on CUDA, the stream's executor refuses to
  // allocate while any of its streams is capturing, because an address
  // handed out during capture would be baked into the graph.
  virtual absl::Status BeginCapture() = 0;
  virtual absl::StatusOr<std::unique_ptr<CapturedGraph>> EndCapture() = 0;
  virtual bool IsCapturing() const = 0;

  // Platform handle (cudaStream_t / hipStream_t), for library calls.
  virtual void* platform_specific_handle() const { return nullptr; }

 private:
  StreamExecutor* parent_;
};

}  // namespace stream_executor

#endif  // STREAM_EXECUTOR_STREAM_H_
