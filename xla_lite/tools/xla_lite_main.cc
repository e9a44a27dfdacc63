// The xla_lite command line. Subcommands:
//   info [--platform=NAME]   platforms, devices, options, and a device check
//   run --hlo=FILE --inputs=DIR --steps=K --outputs=DIR [--platform=NAME]
//                            compiles and runs K training steps
//   train --hlo=FILE [--steps=N] [--batch=moving|fixed|staged] [--inputs=DIR]
//                            a training loop with progress and a summary
//   bench --models=DIR[,DIR...] [--modes=NAME,...] [--out=DIR]
//         [--baseline=FILE] [--peers=FILE]
//                            the step-time regression benchmark
//   profile --hlo=FILE [--repeats=N] [--top=N] [--inputs=DIR]
//                            where a step's device time goes, thunk by thunk
//
// XLA_FLAGS applies to every subcommand (read once, here).

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "stream_executor/platform_manager.h"
#include "xla_lite/debug_options_flags.h"
#include "xla_lite/tools/device_check.h"
#include "xla_lite/tools/bench_command.h"
#include "xla_lite/tools/profile_command.h"
#include "xla_lite/tools/run_command.h"
#include "xla_lite/tools/train_command.h"

ABSL_FLAG(std::string, platform, "",
          "host, cuda or rocm; empty picks the first available (GPU first)");
ABSL_FLAG(std::string, hlo, "", "run: the HLO text file to compile");
ABSL_FLAG(int64_t, devices, 1,
          "run, train, bench: devices of the platform to run a "
          "data-parallel step on (global inputs and outputs)");
ABSL_FLAG(std::string, inputs, "",
          "run: directory with input_<i>.npy for each entry parameter i");
ABSL_FLAG(std::string, outputs, "",
          "run: directory to write output_<i>.npy for each result i into");
ABSL_FLAG(int64_t, steps, 0,
          "steps to run, each aliased result feeding its parameter "
          "(0: run 1, train 100, bench 100 synchronized steps)");
ABSL_FLAG(std::string, batch, "moving",
          "train: how the batch reaches each step: moving (a new buffer every "
          "step), fixed (the same buffer) or staged (the stable buffer)");
ABSL_FLAG(uint32_t, seed, 0, "train: seed for arguments when no --inputs");
ABSL_FLAG(bool, allow_nonfinite_loss, false,
          "train: keep going after a NaN or infinite loss (default: stop "
          "with an error naming the step)");
ABSL_FLAG(std::string, models, "",
          "bench: model folders (configs/models/<name>) or HLO files, "
          "comma-separated");
ABSL_FLAG(std::string, modes, "",
          "bench: modes to run, comma-separated (op_by_op, graphs, "
          "cached_copy, cached_staged, cached_fixed); empty: all");
ABSL_FLAG(std::string, out, "", "bench: folder for bench.json/.svg/.md");
ABSL_FLAG(std::string, baseline, "",
          "bench: a bench.json whose medians this run must not exceed");
ABSL_FLAG(double, tolerance, 0.25,
          "bench: allowed slowdown against the baseline (0.25: 25%)");
ABSL_FLAG(std::string, peers, "",
          "bench: JSON lines from tests/peers/run_peers.sh to compare with");
ABSL_FLAG(int64_t, blocks, 20, "bench: pipelined blocks for the median");
ABSL_FLAG(int64_t, block_steps, 50, "bench: steps per pipelined block");
ABSL_FLAG(bool, isolate_modes, true,
          "bench: measure every model and mode in a process of its own (in "
          "one process, later executables run slower: docs/benchmarks.md)");
ABSL_FLAG(bool, bench_child, false,
          "bench: set by bench for a mode it runs in a process of its own");
ABSL_FLAG(int32_t, repeats, 20,
          "profile: back-to-back launches per thunk (amortizes launch cost)");
ABSL_FLAG(int32_t, top, 30, "profile: rows of the table");

int64_t StepsOr(int64_t fallback) {
  int64_t steps = absl::GetFlag(FLAGS_steps);
  return steps == 0 ? fallback : steps;
}

namespace xla_lite {
namespace {

namespace se = ::stream_executor;

absl::StatusOr<se::Platform*> ChosenPlatform() {
  std::string name = absl::GetFlag(FLAGS_platform);
  if (name.empty()) return se::PlatformManager::DefaultPlatform();
  return se::PlatformManager::AvailablePlatformWithName(name);
}

void PrintPlatforms() {
  for (const std::string& name : se::PlatformManager::ListPlatformNames()) {
    se::Platform* platform = *se::PlatformManager::PlatformWithName(name);
    absl::Status available = platform->Availability();
    std::printf("platform %-5s %s\n", name.c_str(),
                available.ok()
                    ? absl::StrCat(platform->VisibleDeviceCount(), " device(s)").c_str()
                    : absl::StrCat("unavailable: ", available.message()).c_str());
  }
}

absl::Status Info(const DebugOptions& options) {
  PrintPlatforms();
  std::string flags = DebugOptionsToFlags(options);
  std::printf("options: %s\n", flags.empty() ? "(defaults)" : flags.c_str());
  ASSIGN_OR_RETURN(se::Platform * platform, ChosenPlatform());
  ASSIGN_OR_RETURN(se::StreamExecutor * executor, platform->ExecutorForDevice(0));
  const se::DeviceDescription& d = executor->GetDeviceDescription();
  std::printf("device  %s:0 %s (%s, %d cores, runtime %s)\n",
              platform->Name().c_str(), d.name.c_str(), d.arch.c_str(),
              d.core_count, d.runtime_version.c_str());
  ASSIGN_OR_RETURN(DeviceCheckResult check, RunDeviceCheck(executor));
  std::printf("check   kernel max error %.3g, gemm %dx%dx%d max error %.3g: OK\n",
              check.kernel_max_error, check.gemm_size, check.gemm_size,
              check.gemm_size, check.gemm_max_error);
  return absl::OkStatus();
}

absl::Status Run(const DebugOptions& options) {
  RunFlags flags;
  flags.hlo = absl::GetFlag(FLAGS_hlo);
  flags.inputs = absl::GetFlag(FLAGS_inputs);
  flags.outputs = absl::GetFlag(FLAGS_outputs);
  flags.steps = StepsOr(1);
  flags.devices = absl::GetFlag(FLAGS_devices);
  ASSIGN_OR_RETURN(se::Platform * platform, ChosenPlatform());
  return RunCommand(flags, platform, options);
}

absl::Status Train(const DebugOptions& options) {
  TrainFlags flags;
  flags.hlo = absl::GetFlag(FLAGS_hlo);
  flags.inputs = absl::GetFlag(FLAGS_inputs);
  flags.steps = StepsOr(100);
  flags.batch = absl::GetFlag(FLAGS_batch);
  flags.seed = absl::GetFlag(FLAGS_seed);
  flags.allow_nonfinite_loss = absl::GetFlag(FLAGS_allow_nonfinite_loss);
  flags.devices = absl::GetFlag(FLAGS_devices);
  ASSIGN_OR_RETURN(se::Platform * platform, ChosenPlatform());
  return TrainCommand(flags, platform, options);
}

// `command_line`: as main received it.
absl::Status Bench(const DebugOptions& options,
                   std::vector<std::string> command_line) {
  BenchFlags flags;
  flags.models = absl::GetFlag(FLAGS_models);
  flags.modes = absl::GetFlag(FLAGS_modes);
  flags.steps = StepsOr(100);
  flags.blocks = absl::GetFlag(FLAGS_blocks);
  flags.block_steps = absl::GetFlag(FLAGS_block_steps);
  flags.out = absl::GetFlag(FLAGS_out);
  flags.baseline = absl::GetFlag(FLAGS_baseline);
  flags.tolerance = absl::GetFlag(FLAGS_tolerance);
  flags.peers = absl::GetFlag(FLAGS_peers);
  flags.devices = absl::GetFlag(FLAGS_devices);
  flags.child = absl::GetFlag(FLAGS_bench_child);
  if (absl::GetFlag(FLAGS_isolate_modes)) {
    // This binary again, with the command line it was given.
    flags.isolate.program = "/proc/self/exe";
    flags.isolate.argv = std::move(command_line);
  }
  ASSIGN_OR_RETURN(se::Platform * platform, ChosenPlatform());
  return BenchCommand(flags, platform, options);
}

absl::Status Profile(const DebugOptions& options) {
  ProfileFlags flags;
  flags.hlo = absl::GetFlag(FLAGS_hlo);
  flags.inputs = absl::GetFlag(FLAGS_inputs);
  flags.seed = absl::GetFlag(FLAGS_seed);
  flags.repeats = absl::GetFlag(FLAGS_repeats);
  flags.top = absl::GetFlag(FLAGS_top);
  ASSIGN_OR_RETURN(se::Platform * platform, ChosenPlatform());
  return ProfileCommand(flags, platform, options);
}

constexpr char kUsage[] =
    "xla_lite <subcommand> [flags]\n  info   platforms, devices and a device "
    "check\n  run    --hlo=FILE --inputs=DIR --steps=K --outputs=DIR: compile "
    "and run K steps\n  train  --hlo=FILE [--steps=N] [--batch=moving|fixed|"
    "staged]: a training loop\n  bench  --models=DIR[,...] [--out=DIR] "
    "[--baseline=FILE] [--peers=FILE]: step-time benchmark\n  profile --hlo=FILE "
    "[--repeats=N] [--top=N]: device time per thunk\n"
    "XLA_FLAGS=\"--name=value ...\" sets DebugOptions.";

// Asked for help (--help, -h or the word help): the usage and this tool's
// flags on stdout. Abseil's own --help exits 1, as for an error.
bool WantsHelp(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (arg == "--help" || arg == "-help" || arg == "-h" ||
        (i == 1 && arg == "help")) {
      return true;
    }
  }
  return false;
}

void PrintHelp() {
  std::printf("usage: %s\n\nflags:\n", kUsage);
  std::vector<absl::CommandLineFlag*> flags;
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    if (absl::StrContains(flag->Filename(), "xla_lite_main")) {
      flags.push_back(flag);
    }
  }
  std::sort(flags.begin(), flags.end(), [](const auto* a, const auto* b) {
    return a->Name() < b->Name();
  });
  for (const absl::CommandLineFlag* flag : flags) {
    std::printf("  --%s (default \"%s\")\n      %s\n",
                std::string(flag->Name()).c_str(),
                flag->DefaultValue().c_str(), flag->Help().c_str());
  }
}

int Main(int argc, char** argv) {
  absl::SetProgramUsageMessage(kUsage);
  if (WantsHelp(argc, argv)) {
    PrintHelp();
    return 0;
  }
  std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  if (args.size() != 2) {
    std::fprintf(stderr,
                 "usage: xla_lite info [--platform=NAME]\n"
                 "       xla_lite run --hlo=FILE --inputs=DIR --steps=K "
                 "--outputs=DIR [--platform=NAME]\n"
                 "       xla_lite train --hlo=FILE [--steps=N] "
                 "[--batch=moving|fixed|staged] [--inputs=DIR]\n"
                 "       xla_lite bench --models=DIR[,DIR...] [--out=DIR] "
                 "[--baseline=FILE] [--peers=FILE]\n"
                 "       xla_lite profile --hlo=FILE [--repeats=N] [--top=N] "
                 "[--inputs=DIR]\n");
    return 2;
  }
  absl::StatusOr<DebugOptions> options = DebugOptionsFromEnvironment();
  absl::Status status = options.status();
  std::string command = args[1];
  if (status.ok() && command == "info") {
    status = Info(*options);
  } else if (status.ok() && command == "run") {
    status = Run(*options);
  } else if (status.ok() && command == "train") {
    status = Train(*options);
  } else if (status.ok() && command == "bench") {
    status = Bench(*options, std::vector<std::string>(argv, argv + argc));
  } else if (status.ok() && command == "profile") {
    status = Profile(*options);
  } else if (status.ok()) {
    status = absl::InvalidArgumentError("unknown subcommand: " + command);
  }
  if (!status.ok()) {
    std::fprintf(stderr, "xla_lite %s: %s\n", command.c_str(),
                 status.ToString().c_str());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace xla_lite

int main(int argc, char** argv) { return xla_lite::Main(argc, argv); }
