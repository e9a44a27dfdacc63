// What one step of N small kernels costs, run four ways:
//   BM_OpByOp/N          N launches on a stream
//   BM_GraphReplay/N     one Submit of a command buffer recorded once
//   BM_GraphUpdate/N     Update + UpdateLaunch of all N kernel nodes (another
//                        buffer address every step) + Finalize + Submit
//   BM_GraphRebuild/N    a fresh command buffer each step: N CreateLaunch +
//                        Finalize (instantiation) + Submit, then destroyed
// Each kernel is one block of 256 threads doing y[i] += 1 and depends on the
// one before, as on a stream. Every iteration ends with BlockHostUntilDone,
// so the reported real time is the host's wall time for a whole step:
// recording or updating, enqueueing, running on the device and waiting for
// it, as a training step pays it. "per_kernel" is that time divided by N.
//
//   command_buffer_benchmark [--platform=cuda|host] [--benchmark_... flags]

#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "benchmark/benchmark.h"
#include "stream_executor/command_buffer.h"
#include "stream_executor/device_address_allocator.h"
#include "stream_executor/platform_manager.h"
#include "stream_executor/stream_executor.h"

namespace stream_executor {
namespace {

constexpr int kThreads = 256;

KernelSpec AddOneKernel() {
  KernelSpec spec;
  spec.name = "add_one";
  spec.arity = 2;
  spec.cuda_source = R"(
extern "C" __global__ void add_one(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += 1.0f;
})";
  spec.host_fn = [](const KernelArgs& args, const LaunchDimensions&) {
    float* y = args.ptr<float>(0);
    for (int i = 0, n = args[1].scalar<int>(); i < n; ++i) y[i] += 1.0f;
    return absl::OkStatus();
  };
  return spec;
}

// The device, stream and kernel every benchmark shares, set up once by main.
struct Env {
  std::string platform_name = "cuda";
  StreamExecutor* executor = nullptr;
  std::unique_ptr<Stream> stream;
  std::unique_ptr<Kernel> kernel;
  std::unique_ptr<StreamExecutorAllocator> allocator;
  // Two buffers, so that each update step moves the kernels' argument.
  std::vector<ScopedDeviceAddress> buffers;
};

Env& GetEnv() {
  static Env* env = new Env;
  return *env;
}

absl::Status SetUpEnv() {
  Env& env = GetEnv();
  auto platform = PlatformManager::AvailablePlatformWithName(env.platform_name);
  if (!platform.ok()) return platform.status();
  auto executor = (*platform)->ExecutorForDevice(0);
  if (!executor.ok()) return executor.status();
  env.executor = *executor;
  auto stream = env.executor->CreateStream();
  if (!stream.ok()) return stream.status();
  env.stream = std::move(*stream);
  auto kernel = env.executor->LoadKernel(AddOneKernel());
  if (!kernel.ok()) return kernel.status();
  env.kernel = std::move(*kernel);
  env.allocator = std::make_unique<StreamExecutorAllocator>(env.executor);
  for (int i = 0; i < 2; ++i) {
    auto buffer = env.allocator->Allocate(0, kThreads * sizeof(float));
    if (!buffer.ok()) return buffer.status();
    absl::Status zero =
        env.stream->MemZero(buffer->ptr(), buffer->cref().size());
    if (!zero.ok()) return zero;
    env.buffers.push_back(std::move(*buffer));
  }
  return env.stream->BlockHostUntilDone();
}

// Frees what SetUpEnv made while the executor is still alive.
void TearDownEnv() {
  Env& env = GetEnv();
  env.buffers.clear();
  env.allocator.reset();
  env.kernel.reset();
  env.stream.reset();
}

KernelArgs Args(int step) {
  KernelArgs args;
  args.AddAddress(GetEnv().buffers[step % 2].cref());
  args.AddScalar(kThreads);
  return args;
}

const LaunchDimensions& Dims() {
  static const LaunchDimensions* dims = new LaunchDimensions(1, kThreads);
  return *dims;
}

// Records `n` chained launches; `nodes` receives them for updates.
absl::StatusOr<std::unique_ptr<CommandBuffer>> Record(
    int n, std::vector<const CommandBuffer::Command*>* nodes) {
  Env& env = GetEnv();
  auto cb = env.executor->CreateCommandBuffer();
  if (!cb.ok()) return cb.status();
  const CommandBuffer::Command* last = nullptr;
  for (int i = 0; i < n; ++i) {
    std::vector<const CommandBuffer::Command*> deps;
    if (last != nullptr) deps.push_back(last);
    auto node = (*cb)->CreateLaunch(Dims(), *env.kernel, Args(0), deps);
    if (!node.ok()) return node.status();
    last = *node;
    if (nodes != nullptr) nodes->push_back(last);
  }
  absl::Status finalized = (*cb)->Finalize();
  if (!finalized.ok()) return finalized;
  return std::move(*cb);
}

bool Check(benchmark::State& state, const absl::Status& status) {
  if (status.ok()) return true;
  std::string message(status.ToString());
  state.SkipWithError(message.c_str());
  return false;
}

void SetCounters(benchmark::State& state) {
  state.counters["per_kernel"] =
      benchmark::Counter(static_cast<double>(state.range(0)),
                         benchmark::Counter::kIsIterationInvariantRate |
                             benchmark::Counter::kInvert);
}

void BM_OpByOp(benchmark::State& state) {
  Env& env = GetEnv();
  const int n = static_cast<int>(state.range(0));
  KernelArgs args = Args(0);
  for (auto _ : state) {
    for (int i = 0; i < n; ++i) {
      if (!Check(state, env.stream->Launch(Dims(), *env.kernel, args))) return;
    }
    if (!Check(state, env.stream->BlockHostUntilDone())) return;
  }
  SetCounters(state);
}

void BM_GraphReplay(benchmark::State& state) {
  Env& env = GetEnv();
  auto cb = Record(static_cast<int>(state.range(0)), nullptr);
  if (!Check(state, cb.status())) return;
  for (auto _ : state) {
    if (!Check(state, (*cb)->Submit(env.stream.get()))) return;
    if (!Check(state, env.stream->BlockHostUntilDone())) return;
  }
  SetCounters(state);
}

void BM_GraphUpdate(benchmark::State& state) {
  Env& env = GetEnv();
  std::vector<const CommandBuffer::Command*> nodes;
  auto cb = Record(static_cast<int>(state.range(0)), &nodes);
  if (!Check(state, cb.status())) return;
  int step = 0;
  for (auto _ : state) {
    KernelArgs args = Args(++step);
    if (!Check(state, (*cb)->Update())) return;
    for (const CommandBuffer::Command* node : nodes) {
      if (!Check(state, (*cb)->UpdateLaunch(node, Dims(), *env.kernel, args))) {
        return;
      }
    }
    if (!Check(state, (*cb)->Finalize())) return;
    if (!Check(state, (*cb)->Submit(env.stream.get()))) return;
    if (!Check(state, env.stream->BlockHostUntilDone())) return;
  }
  state.counters["reinstantiations"] =
      static_cast<double>((*cb)->counters().reinstantiations);
  SetCounters(state);
}

void BM_GraphRebuild(benchmark::State& state) {
  Env& env = GetEnv();
  for (auto _ : state) {
    auto cb = Record(static_cast<int>(state.range(0)), nullptr);
    if (!Check(state, cb.status())) return;
    if (!Check(state, (*cb)->Submit(env.stream.get()))) return;
    if (!Check(state, env.stream->BlockHostUntilDone())) return;
  }
  SetCounters(state);
}

#define COMMAND_BUFFER_BENCHMARK(fn)                                \
  BENCHMARK(fn)->Arg(10)->Arg(100)->Arg(1000)->UseRealTime()->Unit( \
      benchmark::kMicrosecond)

COMMAND_BUFFER_BENCHMARK(BM_OpByOp);
COMMAND_BUFFER_BENCHMARK(BM_GraphReplay);
COMMAND_BUFFER_BENCHMARK(BM_GraphUpdate);
COMMAND_BUFFER_BENCHMARK(BM_GraphRebuild);

}  // namespace
}  // namespace stream_executor

int main(int argc, char** argv) {
  // --platform is ours; everything else goes to the benchmark library.
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    constexpr char kFlag[] = "--platform=";
    if (i > 0 && std::strncmp(argv[i], kFlag, sizeof(kFlag) - 1) == 0) {
      stream_executor::GetEnv().platform_name = argv[i] + sizeof(kFlag) - 1;
    } else {
      rest.push_back(argv[i]);
    }
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  if (benchmark::ReportUnrecognizedArguments(rest_argc, rest.data())) return 1;
  absl::Status status = stream_executor::SetUpEnv();
  if (!status.ok()) {
    std::cerr << "command_buffer_benchmark: cannot run on platform '"
              << stream_executor::GetEnv().platform_name << "': " << status
              << "\n";
    return 1;
  }
  benchmark::AddCustomContext("platform",
                              stream_executor::GetEnv().platform_name);
  benchmark::AddCustomContext(
      "device",
      stream_executor::GetEnv().executor->GetDeviceDescription().name);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  stream_executor::TearDownEnv();
  return 0;
}
