#include "xla_lite/tools/profile_command.h"

#include <cstdio>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "xla_lite/runtime/thunk_profiler.h"
#include "xla_lite/training/compiled_program.h"
#include "xla_lite/training/training_loop.h"

namespace xla_lite {

absl::Status ProfileCommand(const ProfileFlags& flags, se::Platform* platform,
                            DebugOptions options) {
  if (flags.hlo.empty()) {
    return absl::InvalidArgumentError("profile needs --hlo=FILE");
  }
  if (flags.repeats < 1 || flags.top < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--repeats and --top must be at least 1, got ",
                     flags.repeats, " and ", flags.top));
  }
  options.clear_xla_gpu_enable_command_buffer();
  ASSIGN_OR_RETURN(std::unique_ptr<se::StreamExecutor> executor,
                   CreateExecutor(platform, options));
  ASSIGN_OR_RETURN(CompiledProgram program,
                   CompileHloFile(flags.hlo, executor.get(), options));
  ASSIGN_OR_RETURN(
      std::unique_ptr<TrainingLoop> loop,
      TrainingLoop::Create(program.executable.get(), program.layout,
                           executor.get(), BatchMode::kFixed));
  ASSIGN_OR_RETURN(std::vector<Literal> arguments,
                   ReadOrSeedArguments(flags.inputs, program.layout,
                                       program.executable->signature(), flags.seed));
  RETURN_IF_ERROR(loop->SetArguments(arguments));
  ASSIGN_OR_RETURN(double warm_us, loop->Steps(2));
  gpu::ThunkProfiler profiler(flags.repeats);
  loop->set_profiler(&profiler);
  RETURN_IF_ERROR(loop->Step().status());
  loop->set_profiler(nullptr);
  std::printf("profile %s on %s:%d (%s), op by op; two warm-up steps took "
              "%.1f us\n%s",
              program.name.c_str(), platform->Name().c_str(),
              executor->device_ordinal(),
              executor->GetDeviceDescription().name.c_str(), warm_us,
              profiler.Report(flags.top).c_str());
  return absl::OkStatus();
}

}  // namespace xla_lite
