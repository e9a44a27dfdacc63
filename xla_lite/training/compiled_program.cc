#include "xla_lite/training/compiled_program.h"

#include <future>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "xla_lite/hlo/hlo_parser.h"
#include "xla_lite/service/compiler.h"

namespace xla_lite {

absl::StatusOr<std::unique_ptr<se::StreamExecutor>> CreateExecutor(
    se::Platform* platform, const DebugOptions& options) {
  se::StreamExecutorConfig config;
  config.kernel_cache_dir = options.xla_gpu_kernel_cache_dir();
  config.allow_tf32 = options.xla_gpu_allow_tf32();
  if (platform->Name() == "host") {
    config.memory_limit_bytes = options.xla_gpu_host_memory_limit_bytes();
  }
  return platform->CreateExecutor(config);
}

absl::StatusOr<CompiledProgram> CompileHloFile(const std::string& path,
                                               se::StreamExecutor* executor,
                                               const DebugOptions& options) {
  // Parsing runs while the libraries load.
  std::future<void> libraries = StartLoadingLibraries(executor, options);
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModuleFile(path));
  CompiledProgram program;
  program.name = module->name();
  program.layout = module->entry_computation_layout();
  absl::StatusOr<std::unique_ptr<gpu::GpuExecutable>> executable =
      Compile(std::move(module), executor, options);
  if (!executable.ok()) {
    return absl::Status(
        executable.status().code(),
        absl::StrCat("compiling ", path, ": ", executable.status().message()));
  }
  program.executable = *std::move(executable);
  return program;
}

}  // namespace xla_lite
