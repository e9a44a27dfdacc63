#ifndef XLA_LITE_SERVICE_GEMM_KERNEL_BENCHMARK_MAIN_H_
#define XLA_LITE_SERVICE_GEMM_KERNEL_BENCHMARK_MAIN_H_

// What the emitted-kernel benchmarks (gemm_kernel_benchmark,
// conv_kernel_benchmark) share: the device they run on and their main.

#include <memory>
#include <string>

#include "stream_executor/device_address_allocator.h"
#include "stream_executor/stream_executor.h"

namespace xla_lite::gpu {

// Device 0 of --platform=NAME (cuda, rocm, host), else of the default
// platform, with a stream and an allocator; set up by RunKernelBenchmarks.
struct KernelBenchmarkEnv {
  std::string platform_name;  // Empty: the default platform.
  se::StreamExecutor* executor = nullptr;
  std::unique_ptr<se::Stream> stream;
  std::unique_ptr<se::StreamExecutorAllocator> allocator;
};
KernelBenchmarkEnv& GetKernelBenchmarkEnv();

// main() of a benchmark binary called `name`: takes --platform, passes the
// other flags to the benchmark library, sets the environment up, runs the
// registered benchmarks and tears it down. 1 when the platform cannot run.
int RunKernelBenchmarks(int argc, char** argv, const char* name);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_GEMM_KERNEL_BENCHMARK_MAIN_H_
