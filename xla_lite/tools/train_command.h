#ifndef XLA_LITE_TOOLS_TRAIN_COMMAND_H_
#define XLA_LITE_TOOLS_TRAIN_COMMAND_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "stream_executor/platform.h"
#include "xla_lite/debug_options.pb.h"

namespace xla_lite {

struct TrainFlags {
  std::string hlo;     // The training step, HLO text.
  std::string inputs;  // Optional: input_<i>.npy per entry parameter.
  int64_t steps = 100;
  std::string batch = "moving";  // moving, fixed or staged (TrainingLoop).
  uint32_t seed = 0;   // For arguments when no --inputs.
  // Above 1: a data-parallel step (shard_map) over that many devices of
  // the platform; inputs and outputs are the global arrays.
  int64_t devices = 1;
  // Keep going after a NaN or infinite loss instead of stopping there.
  bool allow_nonfinite_loss = false;
};

// `xla_lite train`: compiles the step for `platform`'s device 0 (or
// partitions it over `devices` devices), runs it
// `steps` times as a training loop does, shows progress (a bar on a
// terminal, a line every tenth of the run otherwise) with the loss and the
// step time, and ends with a summary: loss first and last, step time
// (first, median, p90) and what the runtime did after the first two steps.
// A batch of "staged" turns on PARAMETER_STABILIZATION_STAGED.
// A NaN or infinite loss stops the run at that step with FAILED_PRECONDITION
// naming the step and the first input (else results) holding non-finite
// values, unless allow_nonfinite_loss.
absl::Status TrainCommand(const TrainFlags& flags, se::Platform* platform,
                          DebugOptions options);

}  // namespace xla_lite

#endif  // XLA_LITE_TOOLS_TRAIN_COMMAND_H_
