#include "xla_lite/tools/run_command.h"

#include <cstdio>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "xla_lite/hlo/npy.h"
#include "stream_executor/stream_executor.h"
#include "xla_lite/training/compiled_program.h"
#include "xla_lite/training/data_parallel_program.h"
#include "xla_lite/training/training_loop.h"

namespace xla_lite {
namespace {

absl::Status WriteOutputs(const std::string& dir,
                          const std::vector<Literal>& results) {
  RETURN_IF_ERROR(base::CreateDirectories(dir));
  for (int64_t i = 0; i < results.size(); ++i) {
    RETURN_IF_ERROR(
        WriteNpyFile(absl::StrCat(dir, "/output_", i, ".npy"), results[i]));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunDataParallel(const RunFlags& flags, se::Platform* platform,
                             const DebugOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<DataParallelProgram> program,
                   DataParallelProgram::Create(flags.hlo, platform,
                                               flags.devices, options));
  ASSIGN_OR_RETURN(std::vector<Literal> inputs,
                   ReadArguments(flags.inputs, program->global_layout()));
  RETURN_IF_ERROR(program->SetArguments(inputs));
  RETURN_IF_ERROR(program->Steps(flags.steps).status());
  ASSIGN_OR_RETURN(std::vector<Literal> results, program->Results());
  RETURN_IF_ERROR(WriteOutputs(flags.outputs, results));
  std::printf("ran %lld step(s) of %s on %lld %s devices: %zu outputs "
              "written to %s\n",
              static_cast<long long>(flags.steps), program->name().c_str(),
              static_cast<long long>(flags.devices), platform->Name().c_str(),
              results.size(), flags.outputs.c_str());
  return absl::OkStatus();
}

absl::Status RunCommand(const RunFlags& flags, se::Platform* platform,
                        const DebugOptions& options) {
  if (flags.hlo.empty() || flags.inputs.empty() || flags.outputs.empty()) {
    return absl::InvalidArgumentError(
        "run needs --hlo=FILE --inputs=DIR --outputs=DIR");
  }
  if (flags.steps < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--steps must be at least 1, got ", flags.steps));
  }
  if (flags.devices > 1) return RunDataParallel(flags, platform, options);
  ASSIGN_OR_RETURN(std::unique_ptr<se::StreamExecutor> executor,
                   CreateExecutor(platform, options));
  ASSIGN_OR_RETURN(CompiledProgram program,
                   CompileHloFile(flags.hlo, executor.get(), options));
  ASSIGN_OR_RETURN(std::vector<Literal> inputs,
                   ReadArguments(flags.inputs, program.layout));
  ASSIGN_OR_RETURN(std::unique_ptr<TrainingLoop> loop,
                   TrainingLoop::Create(program.executable.get(),
                                        program.layout, executor.get(),
                                        BatchMode::kFixed));
  RETURN_IF_ERROR(loop->SetArguments(inputs));
  RETURN_IF_ERROR(loop->Steps(flags.steps).status());
  ASSIGN_OR_RETURN(std::vector<Literal> results, loop->Results());
  RETURN_IF_ERROR(WriteOutputs(flags.outputs, results));
  std::printf("ran %lld step(s) of %s on %s: %zu outputs written to %s\n",
              static_cast<long long>(flags.steps), program.name.c_str(),
              platform->Name().c_str(), results.size(), flags.outputs.c_str());
  return absl::OkStatus();
}

}  // namespace xla_lite
