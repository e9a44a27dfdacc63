// Many threads executing one executable with cached allocations and
// parameter stabilization: run under ThreadSanitizer in CI
// (//tests:concurrency_tests). Executions sharing cached buffers on a device
// are ordered by the executable, so every result must be right, and
// teardown must return every buffer.

#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tests/platform_test_util.h"
#include "tests/runtime/fault_injecting_allocator.h"
#include "tests/runtime/train_step_test_base.h"

namespace xla_lite::testing {
namespace {

using gpu::ExecutionInput;
using gpu::GpuExecutable;

constexpr int kThreads = 8;
constexpr int kExecutions = 500;

class CachedConcurrencyTest : public TrainStepTest {
 protected:
  // One thread's loop: its own stream on `executor`, its own inputs, w and
  // b borrowed (so each execution starts from the same state and has one
  // right answer), results copied out of the cache so they are the
  // thread's own.
  void ThreadLoop(GpuExecutable& executable, se::StreamExecutor* executor,
                  se::DeviceAddressAllocator& allocator, uint32_t seed) {
    auto stream = executor->CreateStream();
    ASSERT_TRUE(stream.ok()) << stream.status();
    std::vector<float> x = Batches(1, seed)[0];
    TrainStepState state = InitialState(seed + 1);
    TrainStepState expected = TrainStepReference(x, state);
    se::ScopedDeviceAddress dx = UploadTo(executor, allocator, x),
                            dw = UploadTo(executor, allocator, state.w),
                            db = UploadTo(executor, allocator, state.b);
    gpu::RunOptions options;
    options.stream = stream->get();
    options.allocator = &allocator;
    options.copy_cached_results = true;
    for (int i = 0; i < kExecutions; ++i) {
      std::vector<ExecutionInput> inputs;
      inputs.push_back(ExecutionInput::Borrowed(dx.cref()));
      inputs.push_back(ExecutionInput::Borrowed(dw.cref()));
      inputs.push_back(ExecutionInput::Borrowed(db.cref()));
      auto output = executable.ExecuteAsyncOnStream(options, std::move(inputs));
      ASSERT_TRUE(output.ok()) << output.status();
      ASSERT_TRUE(output->BlockUntilReady().ok());
      // Every execution's results, checked: a race on a shared buffer
      // would show up as a wrong value here.
      std::vector<float> w(state.w.size()), loss(kStepN);
      ASSERT_TRUE(executor
                      ->SynchronousMemcpyD2H(output->result(0),
                                             w.size() * 4, w.data())
                      .ok());
      ASSERT_TRUE(executor
                      ->SynchronousMemcpyD2H(output->result(2), kStepN * 4,
                                             loss.data())
                      .ok());
      ExpectNear(w, expected.w, 2e-4f);
      ExpectNear(loss, expected.loss, 2e-4f);
      if (HasFailure()) return;
    }
  }

  se::ScopedDeviceAddress UploadTo(se::StreamExecutor* executor,
                                   se::DeviceAddressAllocator& allocator,
                                   const std::vector<float>& host) {
    auto mem = allocator.Allocate(executor->device_ordinal(), host.size() * 4);
    EXPECT_TRUE(mem.ok()) << mem.status();
    EXPECT_TRUE(executor
                    ->SynchronousMemcpyH2D(host.data(), host.size() * 4,
                                           mem->ptr())
                    .ok());
    return *std::move(mem);
  }

  void RunThreads(const std::vector<se::StreamExecutor*>& executors) {
    std::vector<std::unique_ptr<FaultInjectingAllocator>> allocators;
    for (se::StreamExecutor* executor : executors) {
      allocators.push_back(std::make_unique<FaultInjectingAllocator>(executor));
    }
    auto executable =
        Build(StepOptions(true, DebugOptions::PARAMETER_STABILIZATION_COPY));
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      size_t device = t % executors.size();
      threads.emplace_back([&, t, device] {
        ThreadLoop(*executable, executors[device], *allocators[device],
                   100 + t);
      });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(executable->stats().executions.load(), kThreads * kExecutions);
    EXPECT_EQ(executable->stats().failed_executions.load(), 0);
    XLA_LITE_EXPECT_OK(executable->ReleaseCachedAllocations());
    executable.reset();
    for (const auto& allocator : allocators) {
      EXPECT_EQ(allocator->live(), 0);
      EXPECT_GT(allocator->allocations(), 0);
    }
  }
};

TEST_P(CachedConcurrencyTest, EightThreadsOnOneDevice) {
  RunThreads({executor_});
}

TEST_P(CachedConcurrencyTest, EightThreadsOnTwoDevices) {
  auto second = platform_->ExecutorForDevice(1);
  if (!second.ok()) GTEST_SKIP() << "one device only: " << second.status();
  RunThreads({executor_, *second});
}

INSTANTIATE_FOR_ALL_PLATFORMS(CachedConcurrencyTest);

}  // namespace
}  // namespace xla_lite::testing
