#ifndef XLA_LITE_RUNTIME_KERNEL_THUNK_H_
#define XLA_LITE_RUNTIME_KERNEL_THUNK_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "stream_executor/kernel.h"
#include "stream_executor/launch_dim.h"
#include "xla_lite/runtime/thunk.h"

namespace xla_lite::gpu {

// Launches one kernel whose parameters are device addresses of slices, in
// order. Sizes and constants are baked into the kernel by the emitter, as in
// XLA, so a launch takes no scalar arguments.
class KernelThunk : public Thunk {
 public:
  // `written[i]` says whether the kernel writes argument i; it must have one
  // entry per argument.
  KernelThunk(std::string name, se::KernelSpec spec,
              se::LaunchDimensions launch_dimensions,
              std::vector<BufferAllocation::Slice> arguments,
              std::vector<bool> written);

  absl::Status Initialize(const InitializeParams& params) override;
  absl::Status ExecuteOnStream(const ExecuteParams& params) override;
  BufferUses buffer_uses() const override;

  bool IsRecordable() const override { return true; }
  absl::StatusOr<const se::CommandBuffer::Command*> Record(
      const RecordParams& params, se::CommandBuffer* command_buffer,
      se::CommandBuffer::Dependencies dependencies) override;
  absl::Status UpdateRecorded(
      const RecordParams& params, se::CommandBuffer* command_buffer,
      const se::CommandBuffer::Command* command) override;

  const se::KernelSpec& spec() const { return spec_; }
  const se::LaunchDimensions& launch_dimensions() const {
    return launch_dimensions_;
  }
  const std::vector<BufferAllocation::Slice>& arguments() const {
    return arguments_;
  }

 private:
  // The kernel Initialize loaded on `executor`.
  absl::StatusOr<const se::Kernel*> GetKernel(se::StreamExecutor* executor);
  se::KernelArgs Arguments(const BufferAllocations& buffers) const;

  const se::KernelSpec spec_;
  const se::LaunchDimensions launch_dimensions_;
  const std::vector<BufferAllocation::Slice> arguments_;
  const std::vector<bool> written_;

  // Loaded once per executor; entries are never removed, so a pointer taken
  // under the lock stays valid for the thunk's lifetime.
  absl::Mutex mu_;
  absl::flat_hash_map<se::StreamExecutor*, std::unique_ptr<se::Kernel>>
      kernels_ ABSL_GUARDED_BY(mu_);
};

// Threads for compiling `kernels` kernels: `forced`
// (xla_gpu_force_compilation_parallelism), or one per core up to 16 when 0.
int64_t CompileThreads(int64_t forced, int64_t kernels);

// Compiles `specs` into `executor`'s kernel cache `threads` at a time, so
// that the loads after it (one by one, in order) find them compiled: a
// kernel missing from the caches takes the runtime compiler about 0.1 s on
// a GPU host, and a training step has a hundred or more. Loading stays
// serial: on the H100, modules loaded from 16 threads made a warm first
// step slower, not faster. A failure (or `stop`, when given and set) only
// stops the batch; initialization's in-order loads meet the first failing
// kernel again and report it, so the error does not depend on thread
// timing.
void CompileKernels(se::StreamExecutor* executor,
                    absl::Span<const se::KernelSpec* const> specs,
                    int64_t threads, const std::atomic<bool>* stop = nullptr);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_KERNEL_THUNK_H_
