#ifndef XLA_LITE_TOOLS_PROFILE_COMMAND_H_
#define XLA_LITE_TOOLS_PROFILE_COMMAND_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "stream_executor/platform.h"
#include "xla_lite/debug_options.pb.h"

namespace xla_lite {

struct ProfileFlags {
  std::string hlo;     // The training step, HLO text.
  std::string inputs;  // Optional: input_<i>.npy per entry parameter.
  uint32_t seed = 0;   // For arguments when no --inputs.
  int repeats = 20;    // Back-to-back launches per thunk.
  int top = 30;        // Rows of the table.
};

// `xla_lite profile`: where a step's device time goes. Compiles the step
// with command buffers off (so every kernel and gemm is its own thunk),
// runs two warm-up steps, then one step measured thunk by thunk
// (gpu::ThunkProfiler), and prints the longest thunks and the time per
// kind. The step and a replayed graph differ in launch cost only.
absl::Status ProfileCommand(const ProfileFlags& flags, se::Platform* platform,
                            DebugOptions options);

}  // namespace xla_lite

#endif  // XLA_LITE_TOOLS_PROFILE_COMMAND_H_
