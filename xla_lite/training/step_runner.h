#ifndef XLA_LITE_TRAINING_STEP_RUNNER_H_
#define XLA_LITE_TRAINING_STEP_RUNNER_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "xla_lite/hlo/literal.h"
#include "xla_lite/runtime/execution_stats.h"

namespace xla_lite {

// What `train` and `bench` drive: a training step with its arguments set,
// run on one device (TrainingLoop) or on several (DataParallelProgram).
// The commands measure, show and check the same things either way.
class StepRunner {
 public:
  virtual ~StepRunner() = default;

  // One step, waited for; its wall time in microseconds.
  virtual absl::StatusOr<double> Step() = 0;
  // `count` steps enqueued back to back and waited for once; the total.
  virtual absl::StatusOr<double> Steps(int64_t count) = 0;
  // The last step's loss, if the step returns a scalar that is not fed
  // back.
  virtual absl::StatusOr<std::optional<float>> Loss() = 0;
  // The last step's results as logical (global) arrays.
  virtual absl::StatusOr<std::vector<Literal>> Results() = 0;
  // What the runtime did so far, added up over the devices.
  virtual gpu::ExecutionCounters Counters() const = 0;
};

}  // namespace xla_lite

#endif  // XLA_LITE_TRAINING_STEP_RUNNER_H_
