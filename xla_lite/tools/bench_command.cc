#include "xla_lite/tools/bench_command.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "xla_lite/runtime/execution_stats.h"
#include "xla_lite/tools/bench_isolation.h"
#include "xla_lite/tools/bench_report.h"
#include "xla_lite/training/compiled_program.h"
#include "xla_lite/training/data_parallel_program.h"
#include "xla_lite/training/step_statistics.h"
#include "xla_lite/training/training_loop.h"

namespace xla_lite {
namespace {

constexpr char kXlaLiteVersion[] = "0.1.0";

// What each mode runs, in the order bench runs them.
struct ModeSetup {
  BenchMode::Mode mode;
  bool command_buffers;
  bool cached_allocations;
  DebugOptions::ParameterStabilization stabilization;
  BatchMode batch;
};
constexpr ModeSetup kModeSetups[] = {
    {BenchMode::op_by_op, false, false,
     DebugOptions::PARAMETER_STABILIZATION_NONE, BatchMode::kMoving},
    {BenchMode::graphs, true, false, DebugOptions::PARAMETER_STABILIZATION_NONE,
     BatchMode::kMoving},
    {BenchMode::cached_copy, true, true,
     DebugOptions::PARAMETER_STABILIZATION_COPY, BatchMode::kMoving},
    {BenchMode::cached_staged, true, true,
     DebugOptions::PARAMETER_STABILIZATION_STAGED, BatchMode::kStaged},
    // The batch the peers train on: the same buffers every step, so no
    // loader copy and no address to stabilize.
    {BenchMode::cached_fixed, true, true,
     DebugOptions::PARAMETER_STABILIZATION_COPY, BatchMode::kFixed},
};

DebugOptions OptionsFor(const ModeSetup& setup, DebugOptions options) {
  if (!setup.command_buffers) options.clear_xla_gpu_enable_command_buffer();
  options.set_xla_gpu_command_buffer_use_cached_allocs(
      setup.cached_allocations);
  options.set_xla_gpu_command_buffer_parameter_stabilization(
      setup.stabilization);
  return options;
}

// The modes `flags` asks for, in the order given; all when empty.
absl::StatusOr<std::vector<ModeSetup>> ModesOf(const BenchFlags& flags) {
  if (flags.modes.empty()) {
    return std::vector<ModeSetup>(std::begin(kModeSetups),
                                  std::end(kModeSetups));
  }
  std::vector<ModeSetup> modes;
  for (absl::string_view name : absl::StrSplit(flags.modes, ',')) {
    ASSIGN_OR_RETURN(BenchMode::Mode mode, ParseBenchMode(std::string(name)));
    for (const ModeSetup& setup : kModeSetups) {
      if (setup.mode == mode) modes.push_back(setup);
    }
  }
  return modes;
}

// A model folder or an HLO file: its name, HLO path, peer configuration and
// input folder (empty when it has no inputs).
struct ModelSource {
  std::string name, hlo, config, inputs;
};

// model.txt is optional: without it there is no peer configuration.
absl::StatusOr<ModelSource> SourceOf(const std::string& path) {
  ModelSource source;
  if (!std::filesystem::is_directory(path)) {
    source.hlo = path;
    source.name = std::filesystem::path(path).stem().string();
    return source;
  }
  source.hlo = path + "/train_step.hlo";
  source.name = std::filesystem::path(path).filename().string();
  if (std::filesystem::exists(path + "/input_0.npy")) source.inputs = path;
  absl::StatusOr<std::string> text =
      base::ReadFileToString(path + "/model.txt");
  if (absl::IsNotFound(text.status())) return source;
  if (!text.ok()) return text.status();
  std::string layers, batch;
  for (absl::string_view line : absl::StrSplit(*text, '\n')) {
    if (absl::ConsumePrefix(&line, "layers: ")) layers = std::string(line);
    if (absl::ConsumePrefix(&line, "batch: ")) batch = std::string(line);
  }
  if (!layers.empty()) source.config = absl::StrCat(layers, ":", batch);
  return source;
}

// A mode's compiled step with its arguments set, on one device or on
// flags.devices; the runner it holds uses the rest.
struct PreparedStep {
  CompiledProgram program;
  std::unique_ptr<TrainingLoop> loop;
  std::unique_ptr<DataParallelProgram> data_parallel;
  StepRunner* runner = nullptr;
  // Parsing, verifying and compiling (BenchMode::compile_us): not seeding
  // and uploading the arguments, which for the medium transformer's 3.3M
  // parameters took as long as compiling its step.
  double compile_us = 0;
};

absl::StatusOr<PreparedStep> Prepare(const ModelSource& source,
                                     const ModeSetup& setup,
                                     const BenchFlags& flags,
                                     se::Platform* platform,
                                     se::StreamExecutor* executor,
                                     const DebugOptions& options) {
  PreparedStep step;
  const absl::Time compile_start = absl::Now();
  auto compiled = [&] {
    step.compile_us = absl::ToDoubleMicroseconds(absl::Now() - compile_start);
  };
  if (flags.devices > 1) {
    ASSIGN_OR_RETURN(step.data_parallel,
                     DataParallelProgram::Create(
                         source.hlo, platform, flags.devices, options,
                         setup.batch));
    compiled();
    ASSIGN_OR_RETURN(std::vector<Literal> arguments,
                     ReadOrSeedArguments(source.inputs,
                                         step.data_parallel->global_layout(),
                                         step.data_parallel->signature(), 0));
    RETURN_IF_ERROR(step.data_parallel->SetArguments(arguments));
    step.runner = step.data_parallel.get();
    return step;
  }
  ASSIGN_OR_RETURN(step.program, CompileHloFile(source.hlo, executor, options));
  compiled();
  ASSIGN_OR_RETURN(step.loop,
                   TrainingLoop::Create(step.program.executable.get(),
                                        step.program.layout, executor,
                                        setup.batch));
  ASSIGN_OR_RETURN(std::vector<Literal> arguments,
                   ReadOrSeedArguments(source.inputs, step.program.layout,
                                       step.program.executable->signature(),
                                       0));
  RETURN_IF_ERROR(step.loop->SetArguments(arguments));
  step.runner = step.loop.get();
  return step;
}

absl::StatusOr<BenchMode> RunMode(const ModelSource& source,
                                  const ModeSetup& setup,
                                  const BenchFlags& flags,
                                  se::Platform* platform,
                                  se::StreamExecutor* executor,
                                  const DebugOptions& base) {
  DebugOptions options = OptionsFor(setup, base);
  ASSIGN_OR_RETURN(PreparedStep prepared,
                   Prepare(source, setup, flags, platform, executor, options));
  StepRunner* loop = prepared.runner;

  BenchMode measured;
  measured.set_mode(setup.mode);
  measured.set_batch(BatchModeName(setup.batch));
  measured.set_compile_us(prepared.compile_us);
  gpu::ExecutionCounters after_two;
  for (int64_t step = 0; step < 1 + flags.steps; ++step) {
    ASSIGN_OR_RETURN(double micros, loop->Step());
    if (step == 0) measured.set_first_step_us(micros);
    if (step == 1) after_two = loop->Counters();
    measured.add_step_us(micros);
  }
  std::vector<double> per_step;
  for (int64_t block = 0; block < flags.blocks; ++block) {
    ASSIGN_OR_RETURN(double micros, loop->Steps(flags.block_steps));
    per_step.push_back(micros / flags.block_steps);
  }
  gpu::ExecutionCounters steady = loop->Counters() - after_two;
  SetSteadyCounters(steady, steady.executions, &measured);
  measured.set_median_us(Quantile(per_step, 0.5));
  measured.set_p10_us(Quantile(per_step, 0.1));
  measured.set_p90_us(Quantile(per_step, 0.9));
  std::printf(
      "  %-14s median %9.1f us  p90 %9.1f us  compile %8.0f us  "
      "first %10.0f us\n    after step 2: %s\n",
      BenchModeName(setup.mode).c_str(), measured.median_us(),
      measured.p90_us(), measured.compile_us(), measured.first_step_us(),
      steady.ToString().c_str());
  std::fflush(stdout);
  return measured;
}

// Every mode of one model folder or HLO file; errors name model and mode.
absl::StatusOr<BenchModel> RunModel(const std::string& path,
                                    const std::vector<ModeSetup>& modes,
                                    const BenchFlags& flags,
                                    se::Platform* platform,
                                    se::StreamExecutor* executor,
                                    const DebugOptions& options) {
  ASSIGN_OR_RETURN(ModelSource source, SourceOf(path));
  std::printf("bench %s on %s%s\n", source.name.c_str(),
              flags.devices > 1 ? absl::StrCat(flags.devices, " x ").c_str()
                                : "",
              executor->GetDeviceDescription().name.c_str());
  BenchModel model;
  model.set_name(source.name);
  model.set_hlo(source.hlo);
  model.set_config(source.config);
  for (const ModeSetup& setup : modes) {
    absl::StatusOr<BenchMode> measured =
        RunMode(source, setup, flags, platform, executor, options);
    if (!measured.ok()) {
      return absl::Status(
          measured.status().code(),
          absl::StrCat(source.name, "/", BenchModeName(setup.mode), ": ",
                       measured.status().message()));
    }
    *model.add_modes() = *std::move(measured);
  }
  return model;
}

absl::Status WriteReports(const BenchResult& result, const std::string& dir) {
  RETURN_IF_ERROR(base::CreateDirectories(dir));
  ASSIGN_OR_RETURN(std::string json, BenchToJson(result));
  RETURN_IF_ERROR(base::WriteFileAtomically(dir + "/bench.json", json));
  RETURN_IF_ERROR(
      base::WriteFileAtomically(dir + "/bench.svg", BenchSvg(result)));
  return base::WriteFileAtomically(dir + "/bench.md", BenchTable(result));
}

}  // namespace

// Far past any benchmark; keeps step counts and their products exact.
constexpr int64_t kMaxSteps = int64_t{1} << 30;

absl::Status BenchCommand(const BenchFlags& flags, se::Platform* platform,
                          const DebugOptions& options) {
  if (flags.models.empty()) {
    return absl::InvalidArgumentError(
        "bench needs --models=DIR_OR_HLO[,...] (e.g. configs/models/mlp_softmax)");
  }
  if (flags.steps < 1 || flags.blocks < 1 || flags.block_steps < 1) {
    return absl::InvalidArgumentError(
        "--steps, --blocks and --block_steps must be at least 1");
  }
  if (flags.steps > kMaxSteps || flags.blocks > kMaxSteps ||
      flags.block_steps > kMaxSteps) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--steps, --blocks and --block_steps must be at most ", kMaxSteps));
  }
  if (flags.devices < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--devices must be at least 1, got ", flags.devices));
  }
  if (!std::isfinite(flags.tolerance) || flags.tolerance < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--tolerance must be a finite fraction >= 0, got ", flags.tolerance));
  }
  ASSIGN_OR_RETURN(std::vector<ModeSetup> modes, ModesOf(flags));
  // Files are read and the output folder made first, so that a wrong path
  // fails before the long run.
  if (!flags.out.empty()) {
    RETURN_IF_ERROR(base::CreateDirectories(flags.out));
    if (access(flags.out.c_str(), W_OK) != 0) {
      return absl::ErrnoToStatus(
          errno, absl::StrCat("--out=", flags.out, " is not writable"));
    }
  }
  std::optional<BenchResult> baseline;
  if (!flags.baseline.empty()) {
    ASSIGN_OR_RETURN(baseline, ReadBenchResult(flags.baseline));
  }
  BenchResult result;
  if (!flags.peers.empty()) {
    ASSIGN_OR_RETURN(std::vector<BenchPeer> peers, ReadPeers(flags.peers));
    for (BenchPeer& peer : peers) *result.add_peers() = std::move(peer);
  }
  result.set_xla_lite_version(kXlaLiteVersion);
  if (!flags.isolate.program.empty()) {
    std::vector<std::string> names;
    for (const ModeSetup& setup : modes) {
      names.push_back(BenchModeName(setup.mode));
    }
    RETURN_IF_ERROR(RunIsolated(flags.isolate, platform->Name(), flags.models,
                                names, flags.out, result));
  } else {
    ASSIGN_OR_RETURN(std::unique_ptr<se::StreamExecutor> executor,
                     CreateExecutor(platform, options));
    const se::DeviceDescription& device = executor->GetDeviceDescription();
    result.set_platform(platform->Name());
    result.set_device(device.name);
    result.set_runtime_version(device.runtime_version);
    for (absl::string_view path : absl::StrSplit(flags.models, ',')) {
      ASSIGN_OR_RETURN(*result.add_models(),
                       RunModel(std::string(path), modes, flags, platform,
                                executor.get(), options));
    }
  }
  if (!flags.child) std::printf("\n%s", BenchTable(result).c_str());
  if (!flags.out.empty()) {
    RETURN_IF_ERROR(WriteReports(result, flags.out));
    if (!flags.child) {
      std::printf("wrote %s/bench.json, bench.svg, bench.md\n",
                  flags.out.c_str());
    }
  }
  // A child's counters are checked with the others, in its parent.
  if (flags.child) return absl::OkStatus();
  RETURN_IF_ERROR(CheckSteadyState(result));
  if (baseline.has_value()) {
    RETURN_IF_ERROR(CompareWithBaseline(result, *baseline, flags.tolerance));
    std::printf("no regression against %s (tolerance %.0f%%)\n",
                flags.baseline.c_str(), 100 * flags.tolerance);
  }
  return absl::OkStatus();
}

}  // namespace xla_lite
