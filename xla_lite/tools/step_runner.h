#ifndef XLA_LITE_TOOLS_STEP_RUNNER_H_
#define XLA_LITE_TOOLS_STEP_RUNNER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "stream_executor/device_address_allocator.h"
#include "stream_executor/stream.h"
#include "stream_executor/stream_executor.h"
#include "xla_lite/hlo/hlo_module.h"
#include "xla_lite/hlo/literal.h"
#include "xla_lite/runtime/execution_output.h"
#include "xla_lite/runtime/gpu_executable.h"

namespace xla_lite {

// Runs a compiled step again and again, the way a training loop does: each
// result that aliases a parameter (input_output_alias) becomes that
// parameter's buffer for the next step, donated so the executable updates
// it in place; the other parameters keep their values across steps.
//
// Buffers the executable caches across executions (cached allocations,
// stable parameter buffers) come from the runner's allocator and are
// released when the runner is destroyed.
//
// Host arrays (Literals, row-major over logical dimensions) are converted
// to and from the entry layout, so callers never see physical layouts.
class StepRunner {
 public:
  // `layout` is the module's entry_computation_layout (before compilation);
  // `executable` must outlive the runner. Creates a stream on `executor`.
  static absl::StatusOr<std::unique_ptr<StepRunner>> Create(
      gpu::GpuExecutable* executable, ComputationLayout layout,
      se::StreamExecutor* executor);
  ~StepRunner();

  // Uploads one array per entry parameter. INVALID_ARGUMENT naming the
  // parameter when the count, element type or dimensions disagree.
  absl::Status SetArguments(const std::vector<Literal>& arguments);

  // Enqueues `steps` executions, each fed by the previous one, and waits
  // for them; errors from the device surface here.
  absl::Status Run(int64_t steps);

  // The last step's results, one per output, as logical arrays.
  absl::StatusOr<std::vector<Literal>> DownloadResults();

  int64_t steps_run() const { return steps_run_; }
  se::Stream* stream() const { return stream_.get(); }

 private:
  StepRunner(gpu::GpuExecutable* executable, ComputationLayout layout,
             se::StreamExecutor* executor, std::unique_ptr<se::Stream> stream);

  absl::Status Step();

  gpu::GpuExecutable* executable_;
  ComputationLayout layout_;
  se::StreamExecutor* executor_;
  std::unique_ptr<se::Stream> stream_;
  std::unique_ptr<se::StreamExecutorAllocator> allocator_;
  // Per parameter: the buffer the next step reads.
  std::vector<se::ScopedDeviceAddress> parameters_;
  // Per output: the parameter it feeds, if any.
  std::vector<std::optional<int64_t>> feeds_;
  gpu::ExecutionOutput last_output_;
  int64_t steps_run_ = 0;
};

// `literal` (logical, row-major) as the bytes an array of `layout` stores,
// and back. INVALID_ARGUMENT when the element type or dimensions differ.
absl::StatusOr<std::vector<uint8_t>> ToPhysicalBytes(const Literal& literal,
                                                     const Shape& layout);
absl::StatusOr<Literal> FromPhysicalBytes(const std::vector<uint8_t>& bytes,
                                          const Shape& layout);

}  // namespace xla_lite

#endif  // XLA_LITE_TOOLS_STEP_RUNNER_H_
