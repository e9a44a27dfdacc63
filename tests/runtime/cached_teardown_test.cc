// Frees on the executable's production paths (a run's teardown, dropped
// outputs, the deferred deallocator) with cached allocations: each goes
// through the executor's CachedAllocator, which refuses those of cached
// buffers. A fault-injecting allocator sees every real free.

#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "tests/platform_test_util.h"
#include "tests/runtime/fault_injecting_allocator.h"
#include "tests/runtime/train_step_test_base.h"

namespace xla_lite::testing {
namespace {

using gpu::ExecutionInput;
using gpu::ExecutionOutput;

constexpr float kTolerance = 2e-4f;

class CachedTeardownTest : public TrainStepTest {
 protected:
  void SetUp() override {
    TrainStepTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    allocator_under_test_ = std::make_unique<FaultInjectingAllocator>(executor_);
    executable_ =
        Build(StepOptions(true, DebugOptions::PARAMETER_STABILIZATION_COPY));
    ASSERT_NE(executable_, nullptr);
  }

  // One step's inputs on the device, with the loss they must give.
  struct Step {
    se::ScopedDeviceAddress x, w, b;
    std::vector<float> expected_loss;
  };
  Step MakeStep(uint32_t seed) {
    std::vector<float> batch = Batches(1, seed)[0];
    TrainStepState state = InitialState(seed + 1);
    return {Upload(batch), Upload(state.w), Upload(state.b),
            TrainStepReference(batch, state).loss};
  }

  // Runs `step` with every parameter borrowed: all three results are served
  // from the cache (w and b as protective copies, which they alias).
  absl::StatusOr<ExecutionOutput> RunBorrowed(const Step& step,
                                              bool copy_cached_results) {
    gpu::RunOptions options = Options(allocator_under_test_.get());
    options.copy_cached_results = copy_cached_results;
    std::vector<ExecutionInput> inputs;
    inputs.push_back(ExecutionInput::Borrowed(step.x.cref()));
    inputs.push_back(ExecutionInput::Borrowed(step.w.cref()));
    inputs.push_back(ExecutionInput::Borrowed(step.b.cref()));
    return executable_->ExecuteAsyncOnStream(options, std::move(inputs));
  }

  FaultInjectingAllocator& allocator() { return *allocator_under_test_; }

  std::unique_ptr<FaultInjectingAllocator> allocator_under_test_;
  std::unique_ptr<gpu::GpuExecutable> executable_;
};

TEST_P(CachedTeardownTest, TeardownAndDroppedOutputsNeverFreeCachedBuffers) {
  auto batches = Batches(10, 41);
  TrainStepState initial = InitialState(42);
  // Each step tears down the cached temp, and the previous step's output
  // (holding the cached loss) is dropped.
  LoopResult run = RunLoop(*executable_, batches, initial, BatchMode::kMoving,
                           allocator_under_test_.get());
  XLA_LITE_ASSERT_OK(executable_->WaitForOutstandingWork());
  TrainStepState expected = Reference(batches, initial);
  ExpectNear(run.state.w, expected.w, kTolerance);
  ExpectNear(run.state.loss, expected.loss, kTolerance);
  // The temp, the loss and the batch's stable buffer: allocated once, and
  // never freed by the 10 teardowns.
  EXPECT_EQ(allocator().allocations(), 3);
  EXPECT_EQ(allocator().frees(), 0);
  EXPECT_EQ(allocator().live(), 3);
  EXPECT_EQ(executable_->stats().buffers_freed.load(), 0);
  EXPECT_EQ(executable_->stats().deallocation_failures.load(), 0);
  XLA_LITE_EXPECT_OK(executable_->ReleaseCachedAllocations());
  EXPECT_EQ(allocator().frees(), 3);
  EXPECT_EQ(allocator().live(), 0);
}

TEST_P(CachedTeardownTest, CachedResultDonatedBackIsNotFreed) {
  auto batches = Batches(5, 43);
  TrainStepState expected = InitialState(44);
  se::ScopedDeviceAddress x = Upload(batches[0]);
  se::ScopedDeviceAddress w0 = Upload(expected.w);
  se::ScopedDeviceAddress b = Upload(expected.b);
  gpu::RunOptions options = Options(allocator_under_test_.get());
  se::DeviceAddressBase w_view;
  for (size_t step = 0; step < batches.size(); ++step) {
    XLA_LITE_ASSERT_OK(executor_->SynchronousMemcpyH2D(
        batches[step].data(), x.cref().size(), x.ptr()));
    std::vector<ExecutionInput> inputs;
    inputs.push_back(ExecutionInput::Borrowed(x.cref()));
    if (step == 0) {
      // Borrowed: w' is the cache's protective copy, handed out as a view.
      inputs.push_back(ExecutionInput::Borrowed(w0.cref()));
    } else {
      // The caller claims the view as its own and donates it, so the
      // execution's teardown tries to free it through the caller's
      // allocator.
      inputs.push_back(ExecutionInput::Donated(se::ScopedDeviceAddress(
          w_view, executor_->device_ordinal(), allocator_under_test_.get())));
    }
    inputs.push_back(ExecutionInput::Donated(std::move(b)));
    auto output = executable_->ExecuteAsyncOnStream(options, std::move(inputs));
    ASSERT_TRUE(output.ok()) << "step " << step << ": " << output.status();
    XLA_LITE_ASSERT_OK(output->BlockUntilReady());
    expected = TrainStepReference(batches[step], expected);
    ExpectNear(Download<float>(output->result(0)), expected.w, kTolerance);
    ExpectNear(Download<float>(output->result(2)), expected.loss, kTolerance);
    if (step == 0) {
      w_view = output->result(0);
      EXPECT_NE(w_view, w0.cref());
    } else {
      EXPECT_EQ(output->result(0), w_view);
      EXPECT_EQ(output->aliased_parameter(0), kStepParamW);
    }
    se::ScopedDeviceAddress taken = output->TakeResult(0);
    EXPECT_EQ(taken.allocator(), nullptr) << "a view of the cache";
    b = output->TakeResult(1);
  }
  XLA_LITE_ASSERT_OK(executable_->WaitForOutstandingWork());
  // Temp, loss and w's cached copy; none freed by any teardown.
  EXPECT_EQ(allocator().allocations(), 3);
  EXPECT_EQ(allocator().frees(), 0);
  EXPECT_EQ(allocator().failed_frees(), 0);
  EXPECT_TRUE(allocator().IsLive(w_view.opaque()));
  XLA_LITE_EXPECT_OK(executable_->ReleaseCachedAllocations());
  EXPECT_EQ(allocator().frees(), 3);
  EXPECT_EQ(allocator().live(), 0);
}

TEST_P(CachedTeardownTest, OutputHeldAcrossAReleaseIsDroppedSafely) {
  Step step = MakeStep(45);
  auto stale = RunBorrowed(step, false);
  ASSERT_TRUE(stale.ok()) << stale.status();
  XLA_LITE_ASSERT_OK(executable_->ReleaseCachedAllocations());
  const int64_t released = allocator().frees();
  EXPECT_EQ(released, allocator().allocations());
  EXPECT_EQ(allocator().live(), 0);

  // The next execution caches anew; the old output, dropped only now,
  // must not free (or fail to free) anything.
  auto fresh = RunBorrowed(step, false);
  ASSERT_TRUE(fresh.ok()) << fresh.status();
  *stale = ExecutionOutput();
  XLA_LITE_EXPECT_OK(executable_->WaitForOutstandingWork());
  EXPECT_EQ(allocator().frees(), released);
  EXPECT_EQ(allocator().failed_frees(), 0);
  EXPECT_TRUE(allocator().IsLive(fresh->result(2).opaque()));
  ExpectNear(Download<float>(fresh->result(2)), step.expected_loss,
             kTolerance);
}

TEST_P(CachedTeardownTest, OwnedResultsOutliveTheExecutable) {
  Step step = MakeStep(47);
  auto output = RunBorrowed(step, true);
  ASSERT_TRUE(output.ok()) << output.status();
  // Frees the cache; the three owned copies stay the output's.
  executable_.reset();
  EXPECT_EQ(allocator().live(), 3);
  se::ScopedDeviceAddress loss = output->TakeResult(2);
  EXPECT_EQ(loss.allocator(), allocator_under_test_.get());
  ExpectNear(Download<float>(loss.cref()), step.expected_loss, kTolerance);
  *output = ExecutionOutput();  // w' and b', freed once their work is done.
  EXPECT_EQ(allocator().live(), 1);
  XLA_LITE_EXPECT_OK(loss.Free());
  EXPECT_EQ(allocator().live(), 0);
  EXPECT_EQ(allocator().failed_frees(), 0);
}

INSTANTIATE_FOR_ALL_PLATFORMS(CachedTeardownTest);

}  // namespace
}  // namespace xla_lite::testing
