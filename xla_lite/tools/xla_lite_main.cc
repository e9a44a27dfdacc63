// The xla_lite command line. Subcommands:
//   info [--platform=NAME]   platforms, devices, options, and a device check
//
// XLA_FLAGS applies to every subcommand (read once, here).

#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "stream_executor/platform_manager.h"
#include "xla_lite/debug_options_flags.h"
#include "xla_lite/tools/device_check.h"

ABSL_FLAG(std::string, platform, "",
          "host, cuda or rocm; empty picks the first available (GPU first)");

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

int Main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "xla_lite <subcommand> [flags]\n  info   platforms, devices and a device "
      "check\nXLA_FLAGS=\"--name=value ...\" sets DebugOptions.");
  std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  if (args.size() != 2) {
    std::fprintf(stderr, "usage: xla_lite info [--platform=NAME]\n");
    return 2;
  }
  absl::StatusOr<DebugOptions> options = DebugOptionsFromEnvironment();
  absl::Status status = options.status();
  std::string command = args[1];
  if (status.ok() && command == "info") {
    status = Info(*options);
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
