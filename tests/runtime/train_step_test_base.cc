#include "tests/runtime/train_step_test_base.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "gtest/gtest.h"

namespace xla_lite::testing {

using gpu::ExecutionInput;
using gpu::ExecutionOutput;
using gpu::GpuExecutable;

DebugOptions StepOptions(bool cached_allocs,
                         DebugOptions::ParameterStabilization mode,
                         bool command_buffers) {
  DebugOptions options;
  if (command_buffers) {
    for (auto type : {DebugOptions::FUSION, DebugOptions::CUBLAS,
                      DebugOptions::MEMCPY, DebugOptions::MEMSET}) {
      options.add_xla_gpu_enable_command_buffer(type);
    }
  }
  options.set_xla_gpu_graph_min_graph_size(1);
  options.set_xla_gpu_command_buffer_trace_cache_size(3);
  options.set_xla_gpu_command_buffer_use_cached_allocs(cached_allocs);
  options.set_xla_gpu_command_buffer_parameter_stabilization(mode);
  return options;
}

std::vector<std::vector<float>> TrainStepTest::Batches(int64_t steps,
                                                       uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::vector<float>> batches;
  for (int64_t i = 0; i < steps; ++i) {
    batches.push_back(RandomFloats(kStepM * kStepK, rng));
  }
  return batches;
}

TrainStepState TrainStepTest::InitialState(uint32_t seed) {
  std::mt19937 rng(seed);
  TrainStepState state{RandomFloats(kStepK * kStepN, rng),
                       RandomFloats(kStepN, rng), {}};
  for (float& v : state.w) v *= 0.2f;
  return state;
}

std::unique_ptr<GpuExecutable> TrainStepTest::Build(const DebugOptions& options) {
  auto executable = GpuExecutable::Create(TrainStepParams(options));
  EXPECT_TRUE(executable.ok()) << executable.status();
  return executable.ok() ? std::move(*executable) : nullptr;
}

TrainStepTest::LoopResult TrainStepTest::RunLoop(
    GpuExecutable& executable, const std::vector<std::vector<float>>& batches,
    const TrainStepState& initial, BatchMode mode,
    se::DeviceAddressAllocator* allocator) {
  LoopResult result;
  gpu::RunOptions options = Options(allocator);
  se::ScopedDeviceAddress w = Upload(initial.w), b = Upload(initial.b);
  // Every batch buffer stays alive to the end, so a moving batch really
  // gets a new address every step.
  std::vector<se::ScopedDeviceAddress> moving;
  se::ScopedDeviceAddress fixed = Allocate(kStepM * kStepK * 4);
  se::DeviceAddressBase staged;
  if (mode == BatchMode::kStaged) {
    auto buffer = executable.StableParameterBuffer(options, kStepParamX);
    EXPECT_TRUE(buffer.ok()) << buffer.status();
    if (!buffer.ok()) return result;
    staged = *buffer;
  }
  ExecutionOutput last;
  for (size_t step = 0; step < batches.size(); ++step) {
    const std::vector<float>& batch = batches[step];
    se::DeviceAddressBase x;
    if (mode == BatchMode::kMoving) {
      moving.push_back(Upload(batch));
      x = moving.back().cref();
    } else {
      x = mode == BatchMode::kFixed ? fixed.cref() : staged;
      // On the stream: the previous step may still be reading the buffer.
      EXPECT_TRUE(stream_->Memcpy(&x, batch.data(), x.size()).ok());
    }
    std::vector<ExecutionInput> inputs;
    inputs.push_back(ExecutionInput::Borrowed(x));
    inputs.push_back(ExecutionInput::Donated(std::move(w)));
    inputs.push_back(ExecutionInput::Donated(std::move(b)));
    auto output = executable.ExecuteAsyncOnStream(options, std::move(inputs));
    EXPECT_TRUE(output.ok()) << "step " << step << ": " << output.status();
    if (!output.ok()) return result;
    w = output->TakeResult(0);
    b = output->TakeResult(1);
    last = *std::move(output);
    // The host copies of the batches are read by the stream asynchronously.
    if (mode != BatchMode::kMoving) {
      EXPECT_TRUE(stream_->BlockHostUntilDone().ok());
    }
    if (step == 1) result.after_step2 = executable.stats().Snapshot();
  }
  EXPECT_TRUE(stream_->BlockHostUntilDone().ok());
  result.after_last = executable.stats().Snapshot();
  result.state = {Download<float>(w.cref()), Download<float>(b.cref()),
                  Download<float>(last.result(2))};
  return result;
}

TrainStepState TrainStepTest::Reference(
    const std::vector<std::vector<float>>& batches, TrainStepState state) {
  for (const auto& batch : batches) state = TrainStepReference(batch, state);
  return state;
}

void ExpectNear(const std::vector<float>& actual,
                const std::vector<float>& expected, float tolerance) {
  ASSERT_EQ(actual.size(), expected.size());
  int64_t mismatches = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    float bound = tolerance * std::max(1.0f, std::fabs(expected[i]));
    if (std::fabs(actual[i] - expected[i]) <= bound) continue;
    if (++mismatches <= 5) {
      ADD_FAILURE() << "element " << i << ": " << actual[i] << " vs "
                    << expected[i];
    }
  }
  EXPECT_EQ(mismatches, 0);
}

}  // namespace xla_lite::testing
