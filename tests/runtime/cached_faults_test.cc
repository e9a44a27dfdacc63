// Fault injection around cached allocations: every allocation site failing
// in turn, and deallocations failing at teardown.

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "tests/platform_test_util.h"
#include "tests/runtime/fault_injecting_allocator.h"
#include "tests/runtime/train_step_test_base.h"

namespace xla_lite::testing {
namespace {

using gpu::ExecutionInput;
using gpu::GpuExecutable;

constexpr int kSteps = 4;

class CachedFaultsTest : public TrainStepTest {
 protected:
  // Runs kSteps steps with a new batch buffer each, results copied out of
  // the cache, starting again from the last good state after a failed
  // step. Returns the failures; `state` ends as the last good state.
  std::vector<absl::Status> RunThroughFailures(
      GpuExecutable& executable, se::DeviceAddressAllocator& allocator,
      TrainStepState& state) {
    std::vector<absl::Status> failures;
    auto batches = Batches(kSteps, 31);
    gpu::RunOptions options = Options(&allocator);
    options.copy_cached_results = true;
    std::vector<se::ScopedDeviceAddress> keep;
    for (int step = 0; step < kSteps; ++step) {
      keep.push_back(Upload(batches[step]));
      std::vector<ExecutionInput> inputs;
      inputs.push_back(ExecutionInput::Borrowed(keep.back().cref()));
      inputs.push_back(ExecutionInput::Donated(Upload(state.w)));
      inputs.push_back(ExecutionInput::Donated(Upload(state.b)));
      auto output = executable.ExecuteAsyncOnStream(options, std::move(inputs));
      if (!output.ok()) {
        failures.push_back(output.status());
        continue;
      }
      EXPECT_TRUE(output->BlockUntilReady().ok());
      TrainStepState expected = TrainStepReference(batches[step], state);
      state = {Download<float>(output->result(0)),
               Download<float>(output->result(1)),
               Download<float>(output->result(2))};
      // Kept, so the next step's w and b cannot reuse their addresses: they
      // move every step, whatever the device allocator does.
      keep.push_back(output->TakeResult(0));
      keep.push_back(output->TakeResult(1));
      ExpectNear(state.w, expected.w, 2e-4f);
      ExpectNear(state.loss, expected.loss, 2e-4f);
    }
    return failures;
  }
};

TEST_P(CachedFaultsTest, EachFailingAllocationIsReportedRetriedAndNotLeaked) {
  for (int64_t call = 1;; ++call) {
    SCOPED_TRACE(absl::StrCat("failing allocation call ", call));
    FaultInjectingAllocator allocator(executor_);
    allocator.FailAllocateCalls({call});
    auto executable =
        Build(StepOptions(true, DebugOptions::PARAMETER_STABILIZATION_COPY));
    TrainStepState state = InitialState(32);
    std::vector<absl::Status> failures =
        RunThroughFailures(*executable, allocator, state);
    bool reached = allocator.allocations() + 1 >= call;
    if (!reached || failures.empty()) {
      // The run made fewer calls than `call`: every site has been tried.
      EXPECT_TRUE(failures.empty());
      EXPECT_GE(call, 4) << "too few allocation sites exercised";
      break;
    }
    // One failure, clearly worded; every other step, the retries included,
    // succeeded with the right values (checked in RunThroughFailures).
    ASSERT_EQ(failures.size(), 1);
    EXPECT_FALSE(failures[0].message().empty());
    EXPECT_TRUE(absl::StrContains(failures[0].message(), "train_step") ||
                absl::StrContains(failures[0].message(), "allocation"))
        << failures[0];
    executable.reset();
    EXPECT_EQ(allocator.live(), 0);
    ASSERT_LT(call, 50) << "allocation calls never stop";
  }
}

TEST_P(CachedFaultsTest, FailingDeallocationsAreAllReportedAndTheRestFreed) {
  FaultInjectingAllocator allocator(executor_);
  auto executable =
      Build(StepOptions(true, DebugOptions::PARAMETER_STABILIZATION_COPY));
  TrainStepState state = InitialState(33);
  ASSERT_TRUE(RunThroughFailures(*executable, allocator, state).empty());
  XLA_LITE_ASSERT_OK(executable->WaitForOutstandingWork());
  // Temp and loss are cached, and stable buffers for x, w and b (each
  // step uploads new ones); fail two of the five frees.
  ASSERT_EQ(allocator.live(), 5);
  int64_t calls = allocator.frees() + allocator.failed_frees();
  allocator.FailDeallocateCalls({calls + 1, calls + 3});
  absl::Status released = executable->ReleaseCachedAllocations();
  ASSERT_FALSE(released.ok());
  EXPECT_TRUE(absl::StrContains(released.message(), "2 failures")) << released;
  EXPECT_EQ(allocator.failed_frees(), 2);
  EXPECT_EQ(allocator.live(), 2);
  XLA_LITE_EXPECT_OK(allocator.FreeLeaked());
  EXPECT_EQ(allocator.live(), 0);
  // Which two failed depends on the cache's order; each failure names its
  // allocation, so exactly two of the five names appear.
  int named = 0;
  for (const char* index :
       {"cached allocation 0 ", "cached allocation 1 ", "cached allocation 2 ",
        "cached allocation 4 ", "cached allocation 5 "}) {
    named += absl::StrContains(released.message(), index);
  }
  EXPECT_EQ(named, 2) << released;
}

TEST_P(CachedFaultsTest, DestructorFreesEverythingItCan) {
  FaultInjectingAllocator allocator(executor_);
  auto executable =
      Build(StepOptions(true, DebugOptions::PARAMETER_STABILIZATION_COPY));
  TrainStepState state = InitialState(34);
  ASSERT_TRUE(RunThroughFailures(*executable, allocator, state).empty());
  XLA_LITE_ASSERT_OK(executable->WaitForOutstandingWork());
  int64_t calls = allocator.frees() + allocator.failed_frees();
  allocator.FailDeallocateCalls({calls + 2});
  executable.reset();  // Logs the failure with its allocation and size.
  EXPECT_EQ(allocator.failed_frees(), 1);
  EXPECT_EQ(allocator.live(), 1);
  XLA_LITE_EXPECT_OK(allocator.FreeLeaked());
}

TEST_P(CachedFaultsTest, FailedExecutionReturnsOnlyAfterItsWork) {
  TrainStepState state = InitialState(35);
  se::ScopedDeviceAddress x = Upload(Batches(1, 31)[0]);
  auto inputs = [&] {
    std::vector<ExecutionInput> inputs;
    inputs.push_back(ExecutionInput::Borrowed(x.cref()));
    inputs.push_back(ExecutionInput::Donated(Upload(state.w)));
    inputs.push_back(ExecutionInput::Donated(Upload(state.b)));
    return inputs;
  };
  // The last allocation of a first step is a result copy, made after every
  // thunk, the copy of the borrowed batch included, was enqueued.
  int64_t step_calls = 0;
  {
    FaultInjectingAllocator counting(executor_);
    auto executable =
        Build(StepOptions(true, DebugOptions::PARAMETER_STABILIZATION_COPY));
    gpu::RunOptions options = Options(&counting);
    options.copy_cached_results = true;
    auto output = executable->ExecuteAsyncOnStream(options, inputs());
    ASSERT_TRUE(output.ok()) << output.status();
    XLA_LITE_ASSERT_OK(output->BlockUntilReady());
    step_calls = counting.allocations();
  }
  ASSERT_GE(step_calls, 1);
  FaultInjectingAllocator allocator(executor_);
  auto executable =
      Build(StepOptions(true, DebugOptions::PARAMETER_STABILIZATION_COPY));
  gpu::RunOptions options = Options(&allocator);
  options.copy_cached_results = true;
  std::vector<ExecutionInput> failing_inputs = inputs();

  // The stream is held until well after the failure is known; the
  // execution must not return before its queued work (reading x) has run.
  absl::Notification gate;
  std::atomic<bool> opened{false};
  XLA_LITE_ASSERT_OK(
      stream_->DoHostCallback([&gate] { gate.WaitForNotification(); }));
  std::thread opener([&] {
    absl::SleepFor(absl::Milliseconds(100));
    opened = true;
    gate.Notify();
  });
  allocator.FailAllocateCalls({step_calls});
  auto output =
      executable->ExecuteAsyncOnStream(options, std::move(failing_inputs));
  bool returned_after_opening = opened;
  opener.join();
  ASSERT_FALSE(output.ok());
  EXPECT_TRUE(returned_after_opening)
      << "a failed execution returned with its work still queued";
  x = se::ScopedDeviceAddress();  // Freed at once, as a caller would.
  XLA_LITE_EXPECT_OK(executable->WaitForOutstandingWork());
  executable.reset();
  EXPECT_EQ(allocator.live(), 0);
}

INSTANTIATE_FOR_ALL_PLATFORMS(CachedFaultsTest);

}  // namespace
}  // namespace xla_lite::testing
