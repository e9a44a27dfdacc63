#ifndef XLA_LITE_TRAINING_TRAINING_LOOP_H_
#define XLA_LITE_TRAINING_TRAINING_LOOP_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "stream_executor/device_address_allocator.h"
#include "stream_executor/stream.h"
#include "stream_executor/stream_executor.h"
#include "stream_executor/stream_pool.h"
#include "xla_lite/hlo/hlo_module.h"
#include "xla_lite/hlo/literal.h"
#include "xla_lite/runtime/execution_output.h"
#include "xla_lite/runtime/execution_stats.h"
#include "xla_lite/runtime/gpu_executable.h"
#include "xla_lite/training/step_runner.h"

namespace xla_lite {

// How the batch (the parameters no result feeds back) reaches each step.
enum class BatchMode {
  // A different device buffer every step, as a data loader hands out: the
  // case that breaks naive graph replay. The buffers come from a ring
  // larger than any trace cache, so each step's address is new to it.
  kMoving,
  // The same buffer every step.
  kFixed,
  // Written straight into the executable's stable parameter buffer
  // (needs PARAMETER_STABILIZATION_STAGED).
  kStaged,
};
absl::StatusOr<BatchMode> ParseBatchMode(const std::string& name);
const char* BatchModeName(BatchMode mode);

// A compiled training step run the way a training loop runs it: every
// result that aliases a parameter is donated back as that parameter, the
// batch arrives as `BatchMode` says, and each step's wall time is measured.
// Moving and staged batches cost one device-to-device copy a step, the
// loader's copy of the batch into its buffer; fixed ones none.
class TrainingLoop : public StepRunner {
 public:
  // `layout` is the module's entry_computation_layout; `executable` must
  // outlive the loop. Borrows a stream of `executor` (StreamPool), so that
  // loops run one after another share one.
  static absl::StatusOr<std::unique_ptr<TrainingLoop>> Create(
      gpu::GpuExecutable* executable, ComputationLayout layout,
      se::StreamExecutor* executor, BatchMode batch_mode);
  ~TrainingLoop() override;

  // Uploads one array per entry parameter (logical, row-major).
  absl::Status SetArguments(const std::vector<Literal>& arguments);

  // Runs one step and waits for it; returns its wall time in microseconds.
  absl::StatusOr<double> Step() override;
  // Enqueues `count` steps back to back and waits once at the end, as a
  // pipelined training loop does; returns the total in microseconds.
  absl::StatusOr<double> Steps(int64_t count) override;

  // The last step's loss: its first non-aliased scalar result, if any.
  absl::StatusOr<std::optional<float>> Loss() override;
  // The last step's results as logical arrays.
  absl::StatusOr<std::vector<Literal>> Results() override;
  gpu::ExecutionCounters Counters() const override {
    return stats_->Snapshot();
  }

  const gpu::ExecutionStats& stats() const { return *stats_; }
  // The stream the loop's steps run on (borrowed; tests compare it).
  const se::Stream* stream() const { return stream_.get(); }
  int64_t steps_run() const { return steps_run_; }

  // Steps from now on are measured thunk by thunk (RunOptions::profiler),
  // and so are not training steps; null turns it off. `profiler` must
  // outlive the steps.
  void set_profiler(gpu::ThunkProfiler* profiler) { profiler_ = profiler; }
  // The loop's device in a run of several (RunOptions::collectives); must
  // outlive the steps. Null: a device alone.
  void set_collectives(const gpu::CollectiveExecuteParams* collectives) {
    collectives_ = collectives;
  }

 private:
  TrainingLoop(gpu::GpuExecutable* executable, ComputationLayout layout,
               se::StreamExecutor* executor, BatchMode batch_mode,
               se::StreamPool::Ptr stream);

  absl::Status Enqueue();
  absl::StatusOr<se::DeviceAddressBase> BatchBuffer(int64_t parameter);

  gpu::GpuExecutable* const executable_;
  const ComputationLayout layout_;
  se::StreamExecutor* const executor_;
  const BatchMode batch_mode_;
  se::StreamPool::Ptr stream_;
  std::unique_ptr<se::StreamExecutorAllocator> allocator_;
  std::shared_ptr<gpu::ExecutionStats> stats_;

  // Per parameter: the result that feeds it back, if any.
  std::vector<std::optional<int64_t>> fed_by_;
  // Per output: the parameter it feeds, if any.
  std::vector<std::optional<int64_t>> feeds_;
  // Per parameter: the next step's buffer (fed parameters) or the batch's
  // master copy (the others).
  std::vector<se::ScopedDeviceAddress> buffers_;
  // Per batch parameter, moving mode: the ring of buffers.
  std::vector<std::vector<se::ScopedDeviceAddress>> rings_;
  gpu::ExecutionOutput last_output_;
  std::optional<int64_t> loss_output_;
  int64_t steps_run_ = 0;
  const gpu::CollectiveExecuteParams* collectives_ = nullptr;
  gpu::ThunkProfiler* profiler_ = nullptr;
};

// Arguments for `layout` when none are given: fed-back parameters of rank
// 2 or more uniform in +-1/sqrt(fan_in) (fan_in: the first dimension),
// others zero, and so is optimizer state (fed parameters that repeat the
// shapes of the ones before them, as optax's states do); floating-point
// batch parameters uniform in [-1, 1], except that the last of rank 2
// holds one-hot rows (labels); integer batch parameters (tokens, class
// ids, trip counts) uniform in [0, kSeededIntegerRange). Seeded, so runs
// repeat. RESOURCE_EXHAUSTED when an argument exceeds host memory.
inline constexpr int64_t kSeededIntegerRange = 16;
absl::StatusOr<std::vector<Literal>> SeededArguments(
    const ComputationLayout& layout, const gpu::EntrySignature& signature,
    uint32_t seed);

// input_<i>.npy for each parameter of `layout` from `dir`, checked
// against the entry shapes.
absl::StatusOr<std::vector<Literal>> ReadArguments(
    const std::string& dir, const ComputationLayout& layout);

// ReadArguments from `dir` when it is given, else SeededArguments: what
// every command that runs a step starts from.
absl::StatusOr<std::vector<Literal>> ReadOrSeedArguments(
    const std::string& dir, const ComputationLayout& layout,
    const gpu::EntrySignature& signature, uint32_t seed);

}  // namespace xla_lite

#endif  // XLA_LITE_TRAINING_TRAINING_LOOP_H_
