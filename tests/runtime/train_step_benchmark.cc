// Step time of the training-step program (train_step_program.h) under each
// way of handling buffer addresses, with a batch in a new buffer every step
// (the case that breaks naive graph replay):
//   BM_TrainStep/op_by_op        no command buffers
//   BM_TrainStep/graphs          command buffers, no cached allocations, no
//                                stabilization: every step updates commands
//   BM_TrainStep/cached_none     cached allocations; the moving batch still
//                                updates the gemms and re-traces them
//   BM_TrainStep/cached_copy     cached allocations + COPY: one copy a step
//   BM_TrainStep/cached_staged   cached allocations + STAGED: the batch is
//                                written into the stable buffer; no copies
// Every iteration ends with BlockHostUntilDone: real time is a whole step
// as a training loop waits for it. Counters are per step.
//
//   train_step_benchmark [--platform=cuda|host] [--benchmark_... flags]

#include <cstring>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "benchmark/benchmark.h"
#include "glog/logging.h"
#include "stream_executor/device_address_allocator.h"
#include "stream_executor/platform_manager.h"
#include "tests/runtime/train_step_program.h"
#include "tests/runtime/train_step_test_base.h"
#include "xla_lite/runtime/gpu_executable.h"

namespace xla_lite::testing {
namespace {

using gpu::ExecutionInput;
using gpu::GpuExecutable;

// More batch buffers than the trace cache holds, so a moving batch misses.
constexpr int kBatchBuffers = 16;

struct Env {
  std::string platform_name = "cuda";
  se::StreamExecutor* executor = nullptr;
  std::unique_ptr<se::Stream> stream;
  std::unique_ptr<se::StreamExecutorAllocator> allocator;
};
Env& env() {
  static Env* e = new Env;
  return *e;
}

enum Mode { kOpByOp, kGraphs, kCachedNone, kCachedCopy, kCachedStaged };
const char* kModeNames[] = {"op_by_op", "graphs", "cached_none", "cached_copy",
                            "cached_staged"};

DebugOptions OptionsFor(Mode mode) {
  switch (mode) {
    case kOpByOp:
      return StepOptions(false, DebugOptions::PARAMETER_STABILIZATION_NONE,
                         false);
    case kGraphs:
      return StepOptions(false, DebugOptions::PARAMETER_STABILIZATION_NONE);
    case kCachedNone:
      return StepOptions(true, DebugOptions::PARAMETER_STABILIZATION_NONE);
    case kCachedCopy:
      return StepOptions(true, DebugOptions::PARAMETER_STABILIZATION_COPY);
    case kCachedStaged:
      return StepOptions(true, DebugOptions::PARAMETER_STABILIZATION_STAGED);
  }
  return DebugOptions();
}

se::ScopedDeviceAddress Upload(const std::vector<float>& host) {
  auto mem = env().allocator->Allocate(env().executor->device_ordinal(),
                                       host.size() * sizeof(float));
  CHECK(mem.ok()) << mem.status();
  CHECK(env()
            .executor
            ->SynchronousMemcpyH2D(host.data(), host.size() * 4, mem->ptr())
            .ok());
  return *std::move(mem);
}

void BM_TrainStep(benchmark::State& state) {
  Mode mode = static_cast<Mode>(state.range(0));
  state.SetLabel(kModeNames[mode]);
  auto executable = GpuExecutable::Create(TrainStepParams(OptionsFor(mode)));
  CHECK(executable.ok()) << executable.status();
  gpu::RunOptions options;
  options.stream = env().stream.get();
  options.allocator = env().allocator.get();

  std::mt19937 rng(7);
  std::vector<float> batch(kStepM * kStepK);
  for (float& v : batch) v = std::uniform_real_distribution<float>(-1, 1)(rng);
  std::vector<se::ScopedDeviceAddress> batches;
  for (int i = 0; i < kBatchBuffers; ++i) batches.push_back(Upload(batch));
  se::DeviceAddressBase staged;
  if (mode == kCachedStaged) {
    auto buffer = (*executable)->StableParameterBuffer(options, kStepParamX);
    CHECK(buffer.ok()) << buffer.status();
    staged = *buffer;
  }
  std::vector<float> w(kStepK * kStepN, 0.01f), b(kStepN, 0.0f);
  se::ScopedDeviceAddress dw = Upload(w), db = Upload(b);

  int64_t step = 0;
  auto run_step = [&] {
    se::DeviceAddressBase x = batches[step++ % kBatchBuffers].cref();
    if (mode == kCachedStaged) {
      // The next batch lands in the stable buffer, on the stream.
      CHECK(options.stream->Memcpy(&staged, x, x.size()).ok());
      x = staged;
    }
    std::vector<ExecutionInput> inputs;
    inputs.push_back(ExecutionInput::Borrowed(x));
    inputs.push_back(ExecutionInput::Donated(std::move(dw)));
    inputs.push_back(ExecutionInput::Donated(std::move(db)));
    auto output =
        (*executable)->ExecuteAsyncOnStream(options, std::move(inputs));
    CHECK(output.ok()) << output.status();
    dw = output->TakeResult(0);
    db = output->TakeResult(1);
    CHECK(options.stream->BlockHostUntilDone().ok());
  };
  // Warmup and record happen before timing starts.
  for (int i = 0; i < 3; ++i) run_step();
  gpu::ExecutionCounters before = (*executable)->stats().Snapshot();
  for (auto _ : state) run_step();
  gpu::ExecutionCounters delta = (*executable)->stats().Snapshot() - before;
  double steps = state.iterations();
  state.counters["updates"] = delta.command_buffer_updates / steps;
  state.counters["traces"] = delta.command_buffer_traces / steps;
  state.counters["copies"] = delta.stabilization_copies / steps;
  state.counters["launches"] = delta.command_buffer_launches / steps;
}
BENCHMARK(BM_TrainStep)->DenseRange(kOpByOp, kCachedStaged)->UseRealTime();

absl::Status Setup() {
  auto platform =
      se::PlatformManager::AvailablePlatformWithName(env().platform_name);
  if (!platform.ok()) return platform.status();
  auto executor = (*platform)->ExecutorForDevice(0);
  if (!executor.ok()) return executor.status();
  env().executor = *executor;
  auto stream = env().executor->CreateStream();
  if (!stream.ok()) return stream.status();
  env().stream = *std::move(stream);
  env().allocator =
      std::make_unique<se::StreamExecutorAllocator>(env().executor);
  return absl::OkStatus();
}

}  // namespace
}  // namespace xla_lite::testing

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--platform=", 11) == 0) {
      xla_lite::testing::env().platform_name = argv[i] + 11;
    }
  }
  benchmark::Initialize(&argc, argv);
  absl::Status status = xla_lite::testing::Setup();
  if (!status.ok()) {
    std::cerr << "train_step_benchmark: " << status << "\n";
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
