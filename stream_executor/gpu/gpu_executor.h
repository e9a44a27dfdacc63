#ifndef STREAM_EXECUTOR_GPU_GPU_EXECUTOR_H_
#define STREAM_EXECUTOR_GPU_GPU_EXECUTOR_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "stream_executor/blas.h"
#include "stream_executor/capture_tracker.h"
#include "stream_executor/gpu/gpu_api.h"
#include "stream_executor/gpu/gpu_backend.h"
#include "stream_executor/gpu/gpu_kernel.h"
#include "stream_executor/gpu/gpu_kernel_cache.h"
#include "stream_executor/stream_executor.h"

namespace stream_executor::gpu {

class GpuStream;

// One GPU device as seen through a backend's tables: memory with an optional
// budget, streams, events, kernels compiled at run time and BLAS.
//
// Executors share the device's primary context; every entry point makes the
// device current on the calling thread first, so executors may be used from
// any thread and devices may be mixed on one thread.
class GpuExecutor : public StreamExecutor {
 public:
  static absl::StatusOr<std::unique_ptr<GpuExecutor>> Create(
      const Platform* platform, const GpuBackend& backend, const GpuApi& api,
      const StreamExecutorConfig& config);
  ~GpuExecutor() override;

  const Platform* platform() const override { return platform_; }
  int device_ordinal() const override { return config_.device_ordinal; }
  const DeviceDescription& GetDeviceDescription() const override {
    return description_;
  }

  // RESOURCE_EXHAUSTED past config.memory_limit_bytes (checked before the
  // runtime is asked) or when the device is out of memory.
  absl::StatusOr<DeviceAddressBase> Allocate(uint64_t size) override;
  // INVALID_ARGUMENT for an address this executor did not hand out.
  absl::Status Deallocate(DeviceAddressBase* mem) override;
  int64_t allocated_bytes() const override;

  absl::StatusOr<std::unique_ptr<Stream>> CreateStream() override;
  absl::StatusOr<std::unique_ptr<Event>> CreateEvent() override;
  absl::Status CompileKernel(const KernelSpec& spec) override;
  absl::StatusOr<std::unique_ptr<Kernel>> LoadKernel(
      const KernelSpec& spec) override;
  absl::StatusOr<blas::BlasSupport*> AsBlas() override;
  // GpuBlas::kWorkspaceBytes where the backend has a BLAS library.
  uint64_t GemmWorkspaceBytes() const override;
  absl::StatusOr<dnn::DnnSupport*> AsDnn() override;
  // A GPU graph; see GpuCommandBuffer.
  absl::StatusOr<std::unique_ptr<CommandBuffer>> CreateCommandBuffer() override;
  // Waits for every stream of this executor that is not capturing.
  absl::Status SynchronizeAllActivity() override;
  // Loops and branches recorded as conditional nodes: where the backend's
  // table has them (GpuApi::graph_add_conditional_node).
  bool SupportsConditionalCommands() const override;

  // `name` from the backend's GpuApi::conditional_kernels, loaded on first
  // use. UNIMPLEMENTED where the backend has none.
  absl::StatusOr<GpuFunctionHandle> ConditionalKernel(const std::string& name);

  const GpuApi& api() const { return api_; }
  const StreamExecutorConfig& config() const { return config_; }
  // Compilation and cache counters, for tests and tools.
  GpuKernelCacheStats kernel_cache_stats() const {
    return kernel_cache_.stats();
  }

  // Makes this device current on the calling thread.
  absl::Status Activate() const;

  // Bookkeeping for GpuStream.
  void RegisterStream(GpuStream* stream);
  void UnregisterStream(GpuStream* stream);
  // Threads with a stream capture open; allocation is refused on them.
  CaptureTracker& capture_tracker() { return capture_tracker_; }

 private:
  GpuExecutor(const Platform* platform, const GpuBackend& backend,
              const GpuApi& api, const StreamExecutorConfig& config,
              DeviceDescription description);

  absl::StatusOr<GpuModule*> GetOrLoadModule(const GpuKernelImage& image);

  const Platform* const platform_;
  const GpuBackend backend_;
  const GpuApi& api_;
  const StreamExecutorConfig config_;
  const DeviceDescription description_;

  GpuKernelCache kernel_cache_;

  CaptureTracker capture_tracker_;

  // Allocation bookkeeping.
  mutable absl::Mutex mu_;
  absl::flat_hash_map<void*, uint64_t> allocations_ ABSL_GUARDED_BY(mu_);
  int64_t allocated_bytes_ ABSL_GUARDED_BY(mu_) = 0;

  absl::Mutex streams_mu_;
  absl::flat_hash_set<GpuStream*> streams_ ABSL_GUARDED_BY(streams_mu_);

  // Modules by image key, loaded once per executor.
  absl::Mutex modules_mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<GpuModule>> modules_
      ABSL_GUARDED_BY(modules_mu_);

  absl::Mutex blas_mu_;
  std::unique_ptr<blas::BlasSupport> blas_ ABSL_GUARDED_BY(blas_mu_);

  absl::Mutex dnn_mu_;
  std::unique_ptr<dnn::DnnSupport> dnn_ ABSL_GUARDED_BY(dnn_mu_);
};

}  // namespace stream_executor::gpu

#endif  // STREAM_EXECUTOR_GPU_GPU_EXECUTOR_H_
