#ifndef STREAM_EXECUTOR_STREAM_EXECUTOR_H_
#define STREAM_EXECUTOR_STREAM_EXECUTOR_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "stream_executor/blas.h"
#include "stream_executor/dnn.h"
#include "stream_executor/command_buffer.h"
#include "stream_executor/device_address.h"
#include "stream_executor/device_description.h"
#include "stream_executor/event.h"
#include "stream_executor/kernel.h"
#include "stream_executor/stream.h"
#include "stream_executor/stream_pool.h"

namespace stream_executor {

class Platform;

// Options fixed when an executor is created. The runtime fills them from its
// DebugOptions; stream_executor itself never reads flags or the environment.
struct StreamExecutorConfig {
  int device_ordinal = 0;
  // Cache directory for compiled kernels (NVRTC / hiprtc output); empty keeps
  // the cache in memory only.
  std::string kernel_cache_dir;
  // Lets cuBLAS use TF32 tensor cores for f32 gemm (faster, less precise).
  bool allow_tf32 = false;
  // Device memory this executor may hand out; 0 means the device's own limit.
  // Exceeding it is RESOURCE_EXHAUSTED, never an abort.
  int64_t memory_limit_bytes = 0;
};

// One device: memory, streams, events, kernels and BLAS. Thread-safe.
class StreamExecutor {
 public:
  virtual ~StreamExecutor();
  StreamExecutor(const StreamExecutor&) = delete;
  StreamExecutor& operator=(const StreamExecutor&) = delete;

  virtual const Platform* platform() const = 0;
  virtual int device_ordinal() const = 0;
  virtual const DeviceDescription& GetDeviceDescription() const = 0;

  // Device memory. Allocate fails with RESOURCE_EXHAUSTED past the memory
  // limit and FAILED_PRECONDITION while one of this executor's streams is
  // capturing. A zero-byte request returns a null address.
  virtual absl::StatusOr<DeviceAddressBase> Allocate(uint64_t size) = 0;
  virtual absl::Status Deallocate(DeviceAddressBase* mem) = 0;
  // Bytes currently allocated through this executor.
  virtual int64_t allocated_bytes() const = 0;

  virtual absl::StatusOr<std::unique_ptr<Stream>> CreateStream() = 0;
  // A stream lent by the executor's pool (see StreamPool: why executables
  // run one after another should share one); it comes back when the Ptr
  // dies.
  absl::StatusOr<StreamPool::Ptr> BorrowStream() {
    return stream_pool_.BorrowStream();
  }
  virtual absl::StatusOr<std::unique_ptr<Event>> CreateEvent() = 0;

  // Compiles (or fetches from the cache) and loads a kernel.
  virtual absl::StatusOr<std::unique_ptr<Kernel>> LoadKernel(
      const KernelSpec& spec) = 0;

  // Compiles `spec` into the executor's kernel cache without loading it, so
  // that several threads can compile a program's kernels at once and
  // LoadKernel then finds them; loading stays on the caller's thread, where
  // it is fastest. Thread-safe. Nothing to do where kernels are not
  // compiled (the host).
  virtual absl::Status CompileKernel(const KernelSpec& spec) {
    return absl::OkStatus();
  }

  // The BLAS library of this device, created on first use.
  virtual absl::StatusOr<blas::BlasSupport*> AsBlas() = 0;
  // The workspace a library gemm on this device should be given
  // (GemmCall::workspace); 0 where the BLAS library needs none. Known
  // before the library loads, so that a compiler can plan the workspaces.
  virtual uint64_t GemmWorkspaceBytes() const { return 0; }

  // The DNN library of this device (cuDNN), created on first use;
  // UNIMPLEMENTED or FAILED_PRECONDITION where there is none, and the
  // compiler then keeps to its own kernels.
  virtual absl::StatusOr<dnn::DnnSupport*> AsDnn() {
    return absl::UnimplementedError("this platform has no DNN library");
  }

  // A new, empty command buffer (kCreate). UNIMPLEMENTED on platforms
  // without graph support; callers then run op by op.
  virtual absl::StatusOr<std::unique_ptr<CommandBuffer>> CreateCommandBuffer() {
    return absl::UnimplementedError("this platform has no command buffers");
  }

  // Whether this platform's command buffers record loops
  // (CommandBuffer::CreateWhile): the compiler records a while loop into
  // the step's graph only then, and otherwise keeps it host-driven.
  virtual bool SupportsConditionalCommands() const { return false; }

  // Blocks until all work on all streams of this executor is done.
  virtual absl::Status SynchronizeAllActivity() = 0;

  // Blocking copies, for tests and tools (not for the hot path).
  absl::Status SynchronousMemcpyH2D(const void* host_src, uint64_t size,
                                    DeviceAddressBase* dst);
  absl::Status SynchronousMemcpyD2H(const DeviceAddressBase& src, uint64_t size,
                                    void* host_dst);

 protected:
  StreamExecutor() = default;

  // Destroys the pool's idle streams. Every platform's destructor calls it
  // first, while the streams' device and library state is still alive.
  void ClearStreamPool() { stream_pool_.Clear(); }

 private:
  StreamPool stream_pool_{this};
};

}  // namespace stream_executor

#endif  // STREAM_EXECUTOR_STREAM_EXECUTOR_H_
