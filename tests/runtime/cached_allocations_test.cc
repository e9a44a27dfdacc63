// Cached stable allocations and parameter stabilization, end to end: a
// training-step-shaped executable run for many steps the way a training
// loop runs it.

#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "tests/platform_test_util.h"
#include "tests/runtime/fault_injecting_allocator.h"
#include "tests/runtime/train_step_test_base.h"

namespace xla_lite::testing {
namespace {

using gpu::ExecutionInput;
using gpu::GpuExecutable;

constexpr int64_t kSteps = 200;
constexpr float kReferenceTolerance = 2e-4f;
constexpr float kSameProgramTolerance = 1e-6f;

class CachedAllocationsTest : public TrainStepTest {
 protected:
  // The same steps op by op, with nothing cached: what every configuration
  // must compute.
  TrainStepState OpByOp(const std::vector<std::vector<float>>& batches,
                        const TrainStepState& initial) {
    auto executable = Build(StepOptions(
        false, DebugOptions::PARAMETER_STABILIZATION_NONE, false));
    return RunLoop(*executable, batches, initial, BatchMode::kMoving).state;
  }

  void ExpectSameResults(const TrainStepState& actual,
                         const TrainStepState& expected) {
    ExpectNear(actual.w, expected.w, kSameProgramTolerance);
    ExpectNear(actual.b, expected.b, kSameProgramTolerance);
    ExpectNear(actual.loss, expected.loss, kSameProgramTolerance);
  }
};

TEST_P(CachedAllocationsTest, OpByOpMatchesTheReference) {
  auto batches = Batches(5, 1);
  TrainStepState initial = InitialState(2);
  TrainStepState actual = OpByOp(batches, initial);
  TrainStepState expected = Reference(batches, initial);
  ExpectNear(actual.w, expected.w, kReferenceTolerance);
  ExpectNear(actual.b, expected.b, kReferenceTolerance);
  ExpectNear(actual.loss, expected.loss, kReferenceTolerance);
}

TEST_P(CachedAllocationsTest, CopyModeReplaysWithOneCopyPerMovedBatch) {
  auto batches = Batches(kSteps, 3);
  TrainStepState initial = InitialState(4);
  auto executable =
      Build(StepOptions(true, DebugOptions::PARAMETER_STABILIZATION_COPY));
  LoopResult run = RunLoop(*executable, batches, initial, BatchMode::kMoving);
  gpu::ExecutionCounters steady = run.after_last - run.after_step2;
  EXPECT_EQ(run.after_step2.command_buffer_records, 1);
  EXPECT_EQ(steady.command_buffer_records, 0);
  EXPECT_EQ(steady.command_buffer_updates, 0);
  EXPECT_EQ(steady.command_buffer_traces, 0);
  // Only the batch moves: w and b are donated and come back in place.
  EXPECT_EQ(steady.stabilization_copies, kSteps - 2);
  EXPECT_EQ(steady.stabilization_copy_backs, 0);
  EXPECT_EQ(steady.command_buffer_launches, kSteps - 2);
  ExpectSameResults(run.state, OpByOp(batches, initial));
}

TEST_P(CachedAllocationsTest, StagedModeCopiesNothing) {
  auto batches = Batches(kSteps, 5);
  TrainStepState initial = InitialState(6);
  auto executable =
      Build(StepOptions(true, DebugOptions::PARAMETER_STABILIZATION_STAGED));
  LoopResult run = RunLoop(*executable, batches, initial, BatchMode::kStaged);
  gpu::ExecutionCounters steady = run.after_last - run.after_step2;
  EXPECT_EQ(run.after_last.stabilization_copies, 0);
  EXPECT_EQ(run.after_last.command_buffer_records, 1);
  EXPECT_EQ(steady.command_buffer_updates, 0);
  EXPECT_EQ(steady.command_buffer_traces, 0);
  ExpectSameResults(run.state, OpByOp(batches, initial));
}

TEST_P(CachedAllocationsTest, FixedBatchNeedsNoCopies) {
  auto batches = Batches(20, 7);
  TrainStepState initial = InitialState(8);
  auto executable =
      Build(StepOptions(true, DebugOptions::PARAMETER_STABILIZATION_COPY));
  LoopResult run = RunLoop(*executable, batches, initial, BatchMode::kFixed);
  EXPECT_EQ(run.after_last.stabilization_copies, 0);
  EXPECT_EQ((run.after_last - run.after_step2).command_buffer_updates, 0);
  ExpectSameResults(run.state, OpByOp(batches, initial));
}

TEST_P(CachedAllocationsTest, WithoutStabilizationEveryStepUpdatesAndRetraces) {
  auto batches = Batches(20, 9);
  TrainStepState initial = InitialState(10);
  auto executable =
      Build(StepOptions(true, DebugOptions::PARAMETER_STABILIZATION_NONE));
  LoopResult run = RunLoop(*executable, batches, initial, BatchMode::kMoving);
  gpu::ExecutionCounters steady = run.after_last - run.after_step2;
  EXPECT_EQ(steady.command_buffer_records, 0);
  EXPECT_EQ(steady.command_buffer_updates, 18);
  // Both gemms read the batch; a new address is a new trace.
  EXPECT_EQ(steady.command_buffer_traces, 2 * 18);
  EXPECT_EQ(run.after_last.stabilization_copies, 0);
  ExpectSameResults(run.state, OpByOp(batches, initial));
}

TEST_P(CachedAllocationsTest, WithoutCachedAllocationsTempsMoveEveryStep) {
  auto batches = Batches(20, 11);
  TrainStepState initial = InitialState(12);
  auto executable =
      Build(StepOptions(false, DebugOptions::PARAMETER_STABILIZATION_COPY));
  // A fixed batch: only the run's own allocations can move.
  LoopResult run = RunLoop(*executable, batches, initial, BatchMode::kFixed);
  gpu::ExecutionCounters steady = run.after_last - run.after_step2;
  EXPECT_GT(steady.command_buffer_updates, 0);
  ExpectSameResults(run.state, OpByOp(batches, initial));
}

TEST_P(CachedAllocationsTest, MovedDonatedParameterIsCopiedInAndBack) {
  auto batches = Batches(6, 13);
  TrainStepState initial = InitialState(14);
  auto executable =
      Build(StepOptions(true, DebugOptions::PARAMETER_STABILIZATION_COPY));
  gpu::RunOptions options = Options();
  se::ScopedDeviceAddress x = Upload(batches[0]);
  TrainStepState expected = initial;
  std::vector<float> w = initial.w, b = initial.b;
  std::vector<se::ScopedDeviceAddress> keep;
  for (size_t step = 0; step < batches.size(); ++step) {
    XLA_LITE_ASSERT_OK(executor_->SynchronousMemcpyH2D(
        batches[step].data(), x.cref().size(), x.ptr()));
    // A fresh buffer for w every step: its address always moves.
    se::ScopedDeviceAddress dw = Upload(w), db = Upload(b);
    void* w_address = dw.cref().opaque();
    std::vector<ExecutionInput> inputs;
    inputs.push_back(ExecutionInput::Borrowed(x.cref()));
    inputs.push_back(ExecutionInput::Donated(std::move(dw)));
    inputs.push_back(ExecutionInput::Donated(std::move(db)));
    auto output = executable->ExecuteAsyncOnStream(options, std::move(inputs));
    ASSERT_TRUE(output.ok()) << output.status();
    XLA_LITE_ASSERT_OK(output->BlockUntilReady());
    // The result is the caller's donated buffer, holding the new w.
    EXPECT_EQ(output->result(0).opaque(), w_address);
    w = Download<float>(output->result(0));
    b = Download<float>(output->result(1));
    expected = TrainStepReference(batches[step], expected);
    keep.push_back(output->TakeResult(0));
    keep.push_back(output->TakeResult(1));
  }
  ExpectNear(w, expected.w, kReferenceTolerance);
  ExpectNear(b, expected.b, kReferenceTolerance);
  gpu::ExecutionCounters total = executable->stats().Snapshot();
  // From the record on (step 2), w and b are stabilized: in and back.
  EXPECT_EQ(total.stabilization_copies, 2 * (batches.size() - 1));
  EXPECT_EQ(total.stabilization_copy_backs, 2 * (batches.size() - 1));
  EXPECT_EQ(total.command_buffer_records, 1);
  EXPECT_EQ(total.command_buffer_updates, 0);
}

TEST_P(CachedAllocationsTest, CachedResultsAreViewsUnlessCopiesAreAsked) {
  auto batches = Batches(3, 15);
  TrainStepState initial = InitialState(16);
  auto executable =
      Build(StepOptions(true, DebugOptions::PARAMETER_STABILIZATION_COPY));
  se::ScopedDeviceAddress x = Upload(batches[0]);
  auto run_once = [&](bool copy) {
    gpu::RunOptions options = Options();
    options.copy_cached_results = copy;
    std::vector<ExecutionInput> inputs;
    inputs.push_back(ExecutionInput::Borrowed(x.cref()));
    inputs.push_back(ExecutionInput::Donated(Upload(initial.w)));
    inputs.push_back(ExecutionInput::Donated(Upload(initial.b)));
    auto output = executable->ExecuteAsyncOnStream(options, std::move(inputs));
    EXPECT_TRUE(output.ok()) << output.status();
    EXPECT_TRUE(output->BlockUntilReady().ok());
    return *std::move(output);
  };
  gpu::ExecutionOutput first = run_once(false);
  gpu::ExecutionOutput second = run_once(false);
  // The loss comes from the cache: the same buffer both times, not owned.
  EXPECT_EQ(first.result(2).opaque(), second.result(2).opaque());
  se::ScopedDeviceAddress view = second.TakeResult(2);
  EXPECT_EQ(view.allocator(), nullptr);
  gpu::ExecutionOutput owned = run_once(true);
  EXPECT_NE(owned.result(2).opaque(), view.cref().opaque());
  se::ScopedDeviceAddress loss = owned.TakeResult(2);
  EXPECT_NE(loss.allocator(), nullptr);
  TrainStepState expected = TrainStepReference(batches[0], initial);
  ExpectNear(Download<float>(loss.cref()), expected.loss, kReferenceTolerance);
  EXPECT_EQ(executable->stats().cached_results_copied.load(), 1);
}

TEST_P(CachedAllocationsTest, StableBufferOnlyWhenStaged) {
  auto executable =
      Build(StepOptions(true, DebugOptions::PARAMETER_STABILIZATION_COPY));
  auto buffer = executable->StableParameterBuffer(Options(), kStepParamX);
  EXPECT_EQ(buffer.status().code(), absl::StatusCode::kFailedPrecondition);
  auto staged =
      Build(StepOptions(true, DebugOptions::PARAMETER_STABILIZATION_STAGED));
  EXPECT_EQ(staged->StableParameterBuffer(Options(), 7).status().code(),
            absl::StatusCode::kInvalidArgument);
  auto first = staged->StableParameterBuffer(Options(), kStepParamX);
  auto again = staged->StableParameterBuffer(Options(), kStepParamX);
  ASSERT_TRUE(first.ok() && again.ok());
  EXPECT_EQ(first->opaque(), again->opaque());
  EXPECT_EQ(first->size(), kStepM * kStepK * 4);
}

TEST_P(CachedAllocationsTest, ReleaseFreesEveryCachedBuffer) {
  FaultInjectingAllocator allocator(executor_);
  auto batches = Batches(5, 17);
  auto executable =
      Build(StepOptions(true, DebugOptions::PARAMETER_STABILIZATION_COPY));
  RunLoop(*executable, batches, InitialState(18), BatchMode::kMoving,
          &allocator);
  // Temp, loss and the batch's stable buffer.
  EXPECT_EQ(allocator.live(), 3);
  XLA_LITE_EXPECT_OK(executable->ReleaseCachedAllocations());
  EXPECT_EQ(allocator.live(), 0);
  // The executable still works after a release, caching anew (the new
  // loop's w and b get stable buffers too when the device allocator gave
  // them other addresses than the first loop's).
  LoopResult again = RunLoop(*executable, batches, InitialState(18),
                             BatchMode::kMoving, &allocator);
  ExpectSameResults(again.state, OpByOp(batches, InitialState(18)));
  EXPECT_GE(allocator.live(), 3);
  executable.reset();
  EXPECT_EQ(allocator.live(), 0);
}

INSTANTIATE_FOR_ALL_PLATFORMS(CachedAllocationsTest);

}  // namespace
}  // namespace xla_lite::testing
