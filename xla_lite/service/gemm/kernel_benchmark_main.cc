#include "xla_lite/service/gemm/kernel_benchmark_main.h"

#include <cstring>
#include <iostream>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "benchmark/benchmark.h"
#include "stream_executor/platform_manager.h"

namespace xla_lite::gpu {
namespace {

absl::Status SetUpEnv() {
  KernelBenchmarkEnv& env = GetKernelBenchmarkEnv();
  absl::StatusOr<se::Platform*> platform =
      env.platform_name.empty()
          ? se::PlatformManager::DefaultPlatform()
          : se::PlatformManager::AvailablePlatformWithName(env.platform_name);
  if (!platform.ok()) return platform.status();
  env.platform_name = (*platform)->Name();
  absl::StatusOr<se::StreamExecutor*> executor =
      (*platform)->ExecutorForDevice(0);
  if (!executor.ok()) return executor.status();
  env.executor = *executor;
  absl::StatusOr<std::unique_ptr<se::Stream>> stream =
      env.executor->CreateStream();
  if (!stream.ok()) return stream.status();
  env.stream = std::move(*stream);
  env.allocator = std::make_unique<se::StreamExecutorAllocator>(env.executor);
  return absl::OkStatus();
}

void TearDownEnv() {
  KernelBenchmarkEnv& env = GetKernelBenchmarkEnv();
  env.allocator.reset();
  env.stream.reset();
}

}  // namespace

KernelBenchmarkEnv& GetKernelBenchmarkEnv() {
  static KernelBenchmarkEnv* env = new KernelBenchmarkEnv;
  return *env;
}

int RunKernelBenchmarks(int argc, char** argv, const char* name) {
  KernelBenchmarkEnv& env = GetKernelBenchmarkEnv();
  // --platform is ours; everything else goes to the benchmark library.
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    constexpr char kFlag[] = "--platform=";
    if (i > 0 && std::strncmp(argv[i], kFlag, sizeof(kFlag) - 1) == 0) {
      env.platform_name = argv[i] + sizeof(kFlag) - 1;
    } else {
      rest.push_back(argv[i]);
    }
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  if (benchmark::ReportUnrecognizedArguments(rest_argc, rest.data())) return 1;
  absl::Status status = SetUpEnv();
  if (!status.ok()) {
    std::cerr << name << ": cannot run on platform '" << env.platform_name
              << "': " << status << "\n";
    return 1;
  }
  benchmark::AddCustomContext("platform", env.platform_name);
  benchmark::AddCustomContext("device",
                              env.executor->GetDeviceDescription().name);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  TearDownEnv();
  return 0;
}

}  // namespace xla_lite::gpu
