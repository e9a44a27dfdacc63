#include "xla_lite/tools/train_command.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "xla_lite/debug_options_flags.h"
#include "xla_lite/hlo/literal.h"
#include "xla_lite/primitive_util.h"
#include "xla_lite/runtime/execution_stats.h"
#include "xla_lite/training/compiled_program.h"
#include "xla_lite/training/data_parallel_program.h"
#include "xla_lite/training/step_runner.h"
#include "xla_lite/training/step_statistics.h"
#include "xla_lite/training/training_loop.h"

namespace xla_lite {
namespace {

// Draws progress: a bar redrawn in place on a terminal, plain lines
// otherwise (logs, CI), about ten of them per run.
class Progress {
 public:
  explicit Progress(int64_t total)
      : total_(total), terminal_(isatty(fileno(stdout))) {}

  void Update(int64_t done, std::optional<float> loss, double step_us) {
    std::string loss_text =
        loss.has_value() ? absl::StrFormat("loss %.6g", *loss) : "no loss";
    if (terminal_) {
      absl::Time now = absl::Now();
      if (done != total_ && now - last_draw_ < absl::Milliseconds(100)) return;
      last_draw_ = now;
      constexpr int kWidth = 30;
      int filled = static_cast<int>(kWidth * done / total_);
      std::printf("\r[%s%s] step %lld/%lld  %s  %.1f us/step ",
                  std::string(filled, '#').c_str(),
                  std::string(kWidth - filled, '.').c_str(),
                  static_cast<long long>(done), static_cast<long long>(total_),
                  loss_text.c_str(), step_us);
      if (done == total_) std::printf("\n");
    } else if (done == 1 || done == total_ ||
               done % std::max<int64_t>(1, total_ / 10) == 0) {
      std::printf("step %lld/%lld  %s  %.1f us/step\n",
                  static_cast<long long>(done), static_cast<long long>(total_),
                  loss_text.c_str(), step_us);
    }
    std::fflush(stdout);
  }

 private:
  const int64_t total_;
  const bool terminal_;
  absl::Time last_draw_ = absl::InfinitePast();
};

std::string LossText(std::optional<float> loss) {
  if (!loss.has_value()) return "n/a";
  // printf writes "-nan" for a NaN with its sign bit set; the sign of a
  // NaN means nothing.
  if (std::isnan(*loss)) return "nan";
  return absl::StrFormat("%.6g", *loss);
}

// The first of `literals` holding a NaN or an infinity, or -1.
int64_t FirstNonFinite(const std::vector<Literal>& literals) {
  for (int64_t i = 0; i < literals.size(); ++i) {
    const Literal& literal = literals[i];
    if (!primitive_util::IsFloatingPointType(literal.shape().element_type())) {
      continue;
    }
    for (int64_t e = 0; e < literal.element_count(); ++e) {
      if (!std::isfinite(literal.GetAsDouble(e))) return i;
    }
  }
  return -1;
}

// Stops the run at a non-finite loss, saying where it came from when that
// is cheap to tell: an argument that already held one, else the results.
absl::Status NonFiniteLossError(int64_t step, float loss,
                                const std::vector<Literal>& arguments,
                                StepRunner& runner) {
  std::string origin;
  if (int64_t input = FirstNonFinite(arguments); input >= 0) {
    origin = absl::StrCat("; input ", input, " holds non-finite values");
  } else if (absl::StatusOr<std::vector<Literal>> results = runner.Results();
             results.ok() && FirstNonFinite(*results) >= 0) {
    origin = absl::StrCat("; the inputs are finite, result ",
                          FirstNonFinite(*results),
                          " is the first that is not");
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "step ", step, ": the loss is ", LossText(loss), origin,
      " (--allow_nonfinite_loss keeps going)"));
}

// The steps, the progress and the summary, whatever runs them.
// `compile_ms`: parsing and compiling the step, for the summary's account
// of what comes before step 3 (the first replay).
absl::Status TrainSteps(const TrainFlags& flags, StepRunner& runner,
                        const std::vector<Literal>& arguments,
                        double compile_ms) {
  Progress progress(flags.steps);
  std::vector<double> times;
  std::optional<float> first_loss, last_loss;
  gpu::ExecutionCounters after_two;
  for (int64_t step = 1; step <= flags.steps; ++step) {
    absl::StatusOr<double> micros = runner.Step();
    if (!micros.ok()) {
      return absl::Status(micros.status().code(),
                          absl::StrCat("step ", step, ": ",
                                       micros.status().message()));
    }
    times.push_back(*micros);
    ASSIGN_OR_RETURN(last_loss, runner.Loss());
    if (last_loss.has_value() && !std::isfinite(*last_loss) &&
        !flags.allow_nonfinite_loss) {
      progress.Update(step, last_loss, *micros);
      return NonFiniteLossError(step, *last_loss, arguments, runner);
    }
    if (step == 1) first_loss = last_loss;
    if (step == 2) after_two = runner.Counters();
    progress.Update(step, last_loss, *micros);
  }
  gpu::ExecutionCounters total = runner.Counters();
  std::vector<double> steady(times.begin() + std::min<size_t>(1, times.size()),
                             times.end());
  std::printf("summary: loss %s -> %s\n", LossText(first_loss).c_str(),
              LossText(last_loss).c_str());
  std::printf("  step time: first %.1f us, median %.1f us, p90 %.1f us\n",
              times.front(), Quantile(steady, 0.5), Quantile(steady, 0.9));
  if (times.size() >= 2) {
    // Step 1 initializes and warms up, step 2 records the command
    // buffers: with the compile, what a user waits for before replays.
    std::printf(
        "  until replay: compile %.1f ms + step 1 %.1f ms + step 2 %.1f ms "
        "= %.1f ms\n",
        compile_ms, times[0] / 1e3, times[1] / 1e3,
        compile_ms + (times[0] + times[1]) / 1e3);
  }
  std::printf("  runtime, all steps: %s\n", total.ToString().c_str());
  if (flags.steps > 2) {
    std::printf("  runtime after step 2: %s\n",
                (total - after_two).ToString().c_str());
  }
  return absl::OkStatus();
}

// `where`: "cuda:0 (NVIDIA H100 ...)", "2 host devices".
void PrintHeader(const TrainFlags& flags, const std::string& name,
                 const std::string& where, BatchMode batch,
                 const DebugOptions& options) {
  std::string flag_text = DebugOptionsToFlags(options);
  std::printf("train %s on %s, %lld steps, %s batch\noptions: %s\n",
              name.c_str(), where.c_str(),
              static_cast<long long>(flags.steps), BatchModeName(batch),
              flag_text.empty() ? "(defaults)" : flag_text.c_str());
}

absl::Status TrainOneDevice(const TrainFlags& flags, se::Platform* platform,
                            BatchMode batch, const DebugOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<se::StreamExecutor> executor,
                   CreateExecutor(platform, options));
  const absl::Time compile_start = absl::Now();
  ASSIGN_OR_RETURN(CompiledProgram program,
                   CompileHloFile(flags.hlo, executor.get(), options));
  const double compile_ms =
      absl::ToDoubleMilliseconds(absl::Now() - compile_start);
  ASSIGN_OR_RETURN(std::unique_ptr<TrainingLoop> loop,
                   TrainingLoop::Create(program.executable.get(),
                                        program.layout, executor.get(), batch));
  ASSIGN_OR_RETURN(std::vector<Literal> arguments,
                   ReadOrSeedArguments(flags.inputs, program.layout,
                                       program.executable->signature(),
                                       flags.seed));
  RETURN_IF_ERROR(loop->SetArguments(arguments));
  const se::DeviceDescription& device = executor->GetDeviceDescription();
  PrintHeader(flags, program.name,
              absl::StrCat(platform->Name(), ":", executor->device_ordinal(),
                           " (", device.name, ")"),
              batch, options);
  return TrainSteps(flags, *loop, arguments, compile_ms);
}

absl::Status TrainDataParallel(const TrainFlags& flags, se::Platform* platform,
                               BatchMode batch, const DebugOptions& options) {
  const absl::Time compile_start = absl::Now();
  ASSIGN_OR_RETURN(std::unique_ptr<DataParallelProgram> program,
                   DataParallelProgram::Create(flags.hlo, platform,
                                               flags.devices, options, batch));
  const double compile_ms =
      absl::ToDoubleMilliseconds(absl::Now() - compile_start);
  ASSIGN_OR_RETURN(std::vector<Literal> arguments,
                   ReadOrSeedArguments(flags.inputs, program->global_layout(),
                                       program->signature(), flags.seed));
  RETURN_IF_ERROR(program->SetArguments(arguments));
  PrintHeader(flags, program->name(),
              absl::StrCat(flags.devices, " ", platform->Name(), " devices"),
              batch, options);
  return TrainSteps(flags, *program, arguments, compile_ms);
}

}  // namespace

absl::Status TrainCommand(const TrainFlags& flags, se::Platform* platform,
                          DebugOptions options) {
  if (flags.hlo.empty()) {
    return absl::InvalidArgumentError("train needs --hlo=FILE");
  }
  if (flags.steps < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--steps must be at least 1, got ", flags.steps));
  }
  ASSIGN_OR_RETURN(BatchMode batch, ParseBatchMode(flags.batch));
  if (batch == BatchMode::kStaged) {
    options.set_xla_gpu_command_buffer_parameter_stabilization(
        DebugOptions::PARAMETER_STABILIZATION_STAGED);
  }
  if (flags.devices < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--devices must be at least 1, got ", flags.devices));
  }
  if (flags.devices > 1) {
    return TrainDataParallel(flags, platform, batch, options);
  }
  return TrainOneDevice(flags, platform, batch, options);
}

}  // namespace xla_lite
