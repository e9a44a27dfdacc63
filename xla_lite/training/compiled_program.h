#ifndef XLA_LITE_TRAINING_COMPILED_PROGRAM_H_
#define XLA_LITE_TRAINING_COMPILED_PROGRAM_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "stream_executor/platform.h"
#include "stream_executor/stream_executor.h"
#include "xla_lite/debug_options.pb.h"
#include "xla_lite/hlo/hlo_module.h"
#include "xla_lite/runtime/gpu_executable.h"

namespace xla_lite {

// A device of `platform` set up with the options that belong to the
// platform layer (kernel cache, TF32, host memory limit).
absl::StatusOr<std::unique_ptr<se::StreamExecutor>> CreateExecutor(
    se::Platform* platform, const DebugOptions& options);

// An HLO file compiled for one executor, with what a TrainingLoop needs
// to feed it: the module's name and entry layout.
struct CompiledProgram {
  std::string name;
  ComputationLayout layout;
  std::unique_ptr<gpu::GpuExecutable> executable;
};

// Parses, verifies and compiles `path`; errors name the file.
absl::StatusOr<CompiledProgram> CompileHloFile(const std::string& path,
                                               se::StreamExecutor* executor,
                                               const DebugOptions& options);

}  // namespace xla_lite

#endif  // XLA_LITE_TRAINING_COMPILED_PROGRAM_H_
