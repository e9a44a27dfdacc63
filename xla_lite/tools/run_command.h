#ifndef XLA_LITE_TOOLS_RUN_COMMAND_H_
#define XLA_LITE_TOOLS_RUN_COMMAND_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "stream_executor/platform.h"
#include "xla_lite/debug_options.pb.h"

namespace xla_lite {

struct RunFlags {
  std::string hlo;      // HLO text file.
  std::string inputs;   // Directory with input_<i>.npy per entry parameter.
  std::string outputs;  // Directory for output_<i>.npy per result.
  int64_t steps = 1;
  // More than 1: the module's data-parallel step (a shard_map's global
  // view, or a replicated program) on that many devices; inputs and
  // outputs are the global arrays.
  int64_t devices = 1;
};

// `xla_lite run`: compiles the module for `platform`'s device 0, runs
// `steps` steps feeding each aliased result back into its parameter
// (donated; the other parameters keep their values), and writes the last
// step's results. Errors name the file or parameter at fault.
absl::Status RunCommand(const RunFlags& flags, se::Platform* platform,
                        const DebugOptions& options);

}  // namespace xla_lite

#endif  // XLA_LITE_TOOLS_RUN_COMMAND_H_
