#include "xla_lite/tools/bench_command.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/status_macros.h"
#include "xla_lite/tools/bench_report.h"
#include "xla_lite/tools/compiled_program.h"
#include "xla_lite/tools/step_statistics.h"
#include "xla_lite/tools/training_loop.h"

namespace xla_lite {
namespace {

constexpr char kXlaLiteVersion[] = "0.1.0";

struct ModeSpec {
  const char* name;
  BatchMode batch;
};
constexpr ModeSpec kModes[] = {
    {"op_by_op", BatchMode::kMoving},
    {"graphs", BatchMode::kMoving},
    {"cached_copy", BatchMode::kMoving},
    {"cached_staged", BatchMode::kStaged},
    // The batch the peers train on: the same buffers every step, so no
    // loader copy and no address to stabilize.
    {"cached_fixed", BatchMode::kFixed},
};

DebugOptions OptionsFor(const std::string& mode, DebugOptions options) {
  if (mode == "op_by_op") options.clear_xla_gpu_enable_command_buffer();
  bool cached = absl::StartsWith(mode, "cached_");
  options.set_xla_gpu_command_buffer_use_cached_allocs(cached);
  options.set_xla_gpu_command_buffer_parameter_stabilization(
      mode == "cached_copy" || mode == "cached_fixed"
          ? DebugOptions::PARAMETER_STABILIZATION_COPY
      : mode == "cached_staged" ? DebugOptions::PARAMETER_STABILIZATION_STAGED
                                : DebugOptions::PARAMETER_STABILIZATION_NONE);
  return options;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A model folder or an HLO file: its name, HLO path, peer configuration and
// input folder (empty when it has no inputs).
struct ModelSource {
  std::string name, hlo, config, inputs;
};

ModelSource SourceOf(const std::string& path) {
  ModelSource source;
  if (!std::filesystem::is_directory(path)) {
    source.hlo = path;
    source.name = std::filesystem::path(path).stem().string();
    return source;
  }
  source.hlo = path + "/train_step.hlo";
  source.name = std::filesystem::path(path).filename().string();
  if (std::filesystem::exists(path + "/input_0.npy")) source.inputs = path;
  std::string layers, batch;
  for (absl::string_view line : absl::StrSplit(ReadFile(path + "/model.txt"), '\n')) {
    if (absl::ConsumePrefix(&line, "layers: ")) layers = std::string(line);
    if (absl::ConsumePrefix(&line, "batch: ")) batch = std::string(line);
  }
  if (!layers.empty()) source.config = absl::StrCat(layers, ":", batch);
  return source;
}

BenchCounters PerStep(const RuntimeCounters& c, int64_t steps) {
  BenchCounters out;
  double n = std::max<int64_t>(1, steps);
  out.set_records(c.records / n);
  out.set_updates(c.updates / n);
  out.set_traces(c.traces / n);
  out.set_parameter_copies(c.parameter_copies / n);
  out.set_parameter_copy_bytes(c.parameter_copy_bytes / n);
  out.set_copy_backs(c.copy_backs / n);
  out.set_graph_launches(c.launches / n);
  out.set_op_by_op_thunks(c.thunks_executed / n);
  return out;
}

absl::StatusOr<BenchMode> RunMode(const ModelSource& source,
                                  const ModeSpec& spec,
                                  const BenchFlags& flags,
                                  se::StreamExecutor* executor,
                                  const DebugOptions& base) {
  DebugOptions options = OptionsFor(spec.name, base);
  ASSIGN_OR_RETURN(CompiledProgram program,
                   CompileHloFile(source.hlo, executor, options));
  ASSIGN_OR_RETURN(std::unique_ptr<TrainingLoop> loop,
                   TrainingLoop::Create(program.executable.get(),
                                        program.layout, executor, spec.batch));
  std::vector<Literal> arguments;
  if (source.inputs.empty()) {
    arguments = SeededArguments(program.layout,
                                program.executable->signature(), 0);
  } else {
    ASSIGN_OR_RETURN(arguments, ReadArguments(source.inputs, program.layout));
  }
  RETURN_IF_ERROR(loop->SetArguments(arguments));

  BenchMode mode;
  mode.set_mode(spec.name);
  mode.set_batch(BatchModeName(spec.batch));
  RuntimeCounters after_two;
  for (int64_t step = 0; step < 1 + flags.steps; ++step) {
    ASSIGN_OR_RETURN(double micros, loop->Step());
    if (step == 0) mode.set_first_step_us(micros);
    if (step == 1) after_two = RuntimeCounters::Read(loop->stats());
    mode.add_step_us(micros);
  }
  std::vector<double> per_step;
  for (int64_t block = 0; block < flags.blocks; ++block) {
    ASSIGN_OR_RETURN(double micros, loop->Steps(flags.block_steps));
    per_step.push_back(micros / flags.block_steps);
  }
  RuntimeCounters steady = RuntimeCounters::Read(loop->stats()) - after_two;
  *mode.mutable_steady() = PerStep(steady, steady.executions);
  mode.set_median_us(Quantile(per_step, 0.5));
  mode.set_p10_us(Quantile(per_step, 0.1));
  mode.set_p90_us(Quantile(per_step, 0.9));
  std::printf("  %-14s median %9.1f us  p90 %9.1f us  first %10.0f us  %s\n",
              spec.name, mode.median_us(), mode.p90_us(), mode.first_step_us(),
              steady.ToString().c_str());
  std::fflush(stdout);
  return mode;
}

absl::Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.close();
  if (!out) return absl::PermissionDeniedError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

absl::Status WriteReports(const BenchResult& result, const std::string& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create ", dir, ": ", error.message()));
  }
  ASSIGN_OR_RETURN(std::string json, BenchToJson(result));
  RETURN_IF_ERROR(WriteFile(dir + "/bench.json", json));
  RETURN_IF_ERROR(WriteFile(dir + "/bench.svg", BenchSvg(result)));
  return WriteFile(dir + "/bench.md", BenchTable(result));
}

}  // namespace

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
  ASSIGN_OR_RETURN(std::unique_ptr<se::StreamExecutor> executor,
                   CreateExecutor(platform, options));
  const se::DeviceDescription& device = executor->GetDeviceDescription();
  BenchResult result;
  result.set_platform(platform->Name());
  result.set_device(device.name);
  result.set_runtime_version(device.runtime_version);
  result.set_xla_lite_version(kXlaLiteVersion);
  if (!flags.peers.empty()) {
    ASSIGN_OR_RETURN(std::vector<BenchPeer> peers, ReadPeers(flags.peers));
    for (BenchPeer& peer : peers) *result.add_peers() = std::move(peer);
  }
  for (absl::string_view path : absl::StrSplit(flags.models, ',')) {
    ModelSource source = SourceOf(std::string(path));
    std::printf("bench %s on %s (%s)\n", source.name.c_str(),
                platform->Name().c_str(), device.name.c_str());
    BenchModel* model = result.add_models();
    model->set_name(source.name);
    model->set_hlo(source.hlo);
    model->set_config(source.config);
    for (const ModeSpec& spec : kModes) {
      absl::StatusOr<BenchMode> mode =
          RunMode(source, spec, flags, executor.get(), options);
      if (!mode.ok()) {
        return absl::Status(mode.status().code(),
                            absl::StrCat(source.name, "/", spec.name, ": ",
                                         mode.status().message()));
      }
      *model->add_modes() = *std::move(mode);
    }
  }
  std::printf("\n%s", BenchTable(result).c_str());
  if (!flags.out.empty()) {
    RETURN_IF_ERROR(WriteReports(result, flags.out));
    std::printf("wrote %s/bench.json, bench.svg, bench.md\n", flags.out.c_str());
  }
  RETURN_IF_ERROR(CheckSteadyState(result));
  if (!flags.baseline.empty()) {
    std::ifstream in(flags.baseline);
    if (!in) return absl::NotFoundError("cannot read " + flags.baseline);
    std::stringstream text;
    text << in.rdbuf();
    absl::StatusOr<BenchResult> baseline = BenchFromJson(text.str());
    if (!baseline.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          flags.baseline, ": ", baseline.status().message()));
    }
    RETURN_IF_ERROR(CompareWithBaseline(result, *baseline, flags.tolerance));
    std::printf("no regression against %s (tolerance %.0f%%)\n",
                flags.baseline.c_str(), 100 * flags.tolerance);
  }
  return absl::OkStatus();
}

}  // namespace xla_lite
