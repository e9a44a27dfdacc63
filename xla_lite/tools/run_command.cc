#include "xla_lite/tools/run_command.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "xla_lite/hlo/hlo_parser.h"
#include "xla_lite/hlo/npy.h"
#include "stream_executor/stream_executor.h"
#include "xla_lite/service/compiler.h"
#include "xla_lite/tools/training_loop.h"

namespace xla_lite {
namespace {

absl::StatusOr<std::vector<Literal>> ReadInputs(const std::string& dir,
                                                const ComputationLayout& layout) {
  std::vector<Literal> inputs;
  for (int64_t p = 0; p < layout.parameter_shapes.size(); ++p) {
    std::string path = absl::StrCat(dir, "/input_", p, ".npy");
    absl::StatusOr<Literal> literal = ReadNpyFile(path);
    if (!literal.ok()) {
      return absl::Status(literal.status().code(),
                          absl::StrCat("input for parameter ", p, ": ",
                                       literal.status().message()));
    }
    const Shape& expected = layout.parameter_shapes[p];
    if (!literal->shape().Compatible(expected)) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, " holds ", literal->shape().ToString(), " but entry parameter ",
          p, " is ", expected.ToString()));
    }
    inputs.push_back(*std::move(literal));
  }
  return inputs;
}

absl::Status WriteOutputs(const std::string& dir,
                          const std::vector<Literal>& results) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create ", dir, ": ", error.message()));
  }
  for (int64_t i = 0; i < results.size(); ++i) {
    RETURN_IF_ERROR(
        WriteNpyFile(absl::StrCat(dir, "/output_", i, ".npy"), results[i]));
  }
  return absl::OkStatus();
}

}  // namespace

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
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module,
                   ParseHloModuleFile(flags.hlo));
  ComputationLayout layout = module->entry_computation_layout();
  std::string name = module->name();
  ASSIGN_OR_RETURN(std::vector<Literal> inputs,
                   ReadInputs(flags.inputs, layout));
  // The executor takes the options that belong to the platform layer.
  se::StreamExecutorConfig config;
  config.kernel_cache_dir = options.xla_gpu_kernel_cache_dir();
  config.allow_tf32 = options.xla_gpu_allow_tf32();
  if (platform->Name() == "host") {
    config.memory_limit_bytes = options.xla_gpu_host_memory_limit_bytes();
  }
  ASSIGN_OR_RETURN(std::unique_ptr<se::StreamExecutor> owned_executor,
                   platform->CreateExecutor(config));
  se::StreamExecutor* executor = owned_executor.get();
  absl::StatusOr<std::unique_ptr<gpu::GpuExecutable>> executable =
      Compile(std::move(module), executor, options);
  if (!executable.ok()) {
    return absl::Status(executable.status().code(),
                        absl::StrCat("compiling ", flags.hlo, ": ",
                                     executable.status().message()));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<TrainingLoop> loop,
                   TrainingLoop::Create(executable->get(), layout, executor,
                                        BatchMode::kFixed));
  RETURN_IF_ERROR(loop->SetArguments(inputs));
  RETURN_IF_ERROR(loop->Steps(flags.steps).status());
  ASSIGN_OR_RETURN(std::vector<Literal> results, loop->Results());
  RETURN_IF_ERROR(WriteOutputs(flags.outputs, results));
  std::printf("ran %lld step(s) of %s on %s: %zu outputs written to %s\n",
              static_cast<long long>(flags.steps), name.c_str(),
              platform->Name().c_str(), results.size(), flags.outputs.c_str());
  return absl::OkStatus();
}

}  // namespace xla_lite
