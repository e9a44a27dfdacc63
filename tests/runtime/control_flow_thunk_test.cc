// WhileThunk and ConditionalThunk over hand-built thunk sequences, on every
// platform: the loop state lives in allocations that the condition and
// body share, the predicate is computed on the device and read back by
// the host, and the counters say how many iterations and branches ran.
// Inside a CommandBufferThunk, a loop is one loop node where the platform
// has conditional nodes (the device decides every iteration) and runs op
// by op from the host where it has none.

#include <cstdint>
#include <cstring>
#include <memory>
#include <tuple>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tests/runtime/runtime_test_base.h"
#include "tests/runtime/test_kernels.h"
#include "xla_lite/runtime/buffer_allocations.h"
#include "xla_lite/runtime/command_buffer_thunk.h"
#include "xla_lite/runtime/conditional_thunk.h"
#include "xla_lite/runtime/kernel_thunk.h"
#include "xla_lite/runtime/memset_thunk.h"
#include "xla_lite/runtime/sequential_thunk.h"
#include "xla_lite/runtime/while_thunk.h"

namespace xla_lite::testing {
namespace {

using gpu::BufferAllocation;
using gpu::BufferAllocations;
using gpu::SequentialThunk;
using gpu::Thunk;
using gpu::ThunkSequence;

constexpr int64_t kAcc = 4;  // Elements of the accumulated vector.

// One allocation holding every value, at fixed offsets.
struct Layout {
  static constexpr int64_t kI = 0, kN = 4, kJ = 8, kM = 12, kIndex = 16,
                           kPred = 20, kInnerPred = 21, kAccOffset = 64,
                           kOnesOffset = 128, kSize = 192;
  BufferAllocation allocation = BufferAllocation::Temp(0, kSize);
  BufferAllocation::Slice At(int64_t offset, int64_t size) const {
    return allocation.GetSlice(offset, size);
  }
  BufferAllocation::Slice acc() const {
    return At(kAccOffset, kAcc * sizeof(float));
  }
  BufferAllocation::Slice ones() const {
    return At(kOnesOffset, kAcc * sizeof(float));
  }
};

std::unique_ptr<SequentialThunk> Sequence(std::string name,
                                          std::vector<std::unique_ptr<Thunk>> t) {
  ThunkSequence thunks;
  for (auto& thunk : t) thunks.push_back(std::move(thunk));
  return std::make_unique<SequentialThunk>(std::move(name), std::move(thunks));
}

std::unique_ptr<Thunk> LessThan(const Layout& l, int64_t i, int64_t n,
                                int64_t pred) {
  return std::make_unique<gpu::KernelThunk>(
      "lt", LessThanKernel(), se::LaunchDimensions(1, 1),
      std::vector<BufferAllocation::Slice>{l.At(i, 4), l.At(n, 4),
                                           l.At(pred, 1)},
      std::vector<bool>{false, false, true});
}

std::unique_ptr<Thunk> Increment(const Layout& l, int64_t counter) {
  return std::make_unique<gpu::KernelThunk>(
      "inc", IncrementKernel(), se::LaunchDimensions(1, 1),
      std::vector<BufferAllocation::Slice>{l.At(counter, 4)},
      std::vector<bool>{true});
}

// acc += 1, in place.
std::unique_ptr<Thunk> AddOne(const Layout& l) {
  return std::make_unique<gpu::KernelThunk>(
      "acc+1", AxpyKernel(kAcc, 1.0f), se::LaunchDimensions(1, kAcc),
      std::vector<BufferAllocation::Slice>{l.acc(), l.ones(), l.acc()},
      std::vector<bool>{false, false, true});
}

// for (; i < n; ++i) acc += 1.
std::unique_ptr<gpu::WhileThunk> CountingLoop(const Layout& l) {
  std::vector<std::unique_ptr<Thunk>> condition, body;
  condition.push_back(LessThan(l, Layout::kI, Layout::kN, Layout::kPred));
  body.push_back(AddOne(l));
  body.push_back(Increment(l, Layout::kI));
  return std::make_unique<gpu::WhileThunk>(
      "loop", l.At(Layout::kPred, 1), Sequence("cond", std::move(condition)),
      Sequence("body", std::move(body)));
}

class ControlFlowThunkTest : public RuntimeTest {
 protected:
  // Fresh memory: the s32 values at their offsets, acc = `acc`, ones.
  void Reset(const std::vector<std::pair<int64_t, int32_t>>& ints, float acc) {
    std::vector<uint8_t> bytes(Layout::kSize, 0);
    for (const auto& [offset, value] : ints) {
      std::memcpy(bytes.data() + offset, &value, sizeof(value));
    }
    for (int64_t k = 0; k < kAcc; ++k) {
      const float one = 1.0f;
      std::memcpy(bytes.data() + Layout::kAccOffset + k * 4, &acc, 4);
      std::memcpy(bytes.data() + Layout::kOnesOffset + k * 4, &one, 4);
    }
    memory_ = Upload(bytes);
  }

  absl::Status Run(Thunk& thunk) {
    absl::Status status =
        thunk.Initialize({executor_, stream_.get(), &options_});
    if (!status.ok()) return status;
    BufferAllocations buffers({memory_.cref()}, executor_->device_ordinal());
    Thunk::ExecuteParams params;
    params.buffer_allocations = &buffers;
    params.stream = stream_.get();
    params.debug_options = &options_;
    params.stats = &stats_;
    status = thunk.ExecuteOnStream(params);
    if (!status.ok()) return status;
    return stream_->BlockHostUntilDone();
  }

  int32_t Int(int64_t offset) {
    std::vector<uint8_t> bytes = Download<uint8_t>(memory_.cref());
    int32_t value;
    std::memcpy(&value, bytes.data() + offset, sizeof(value));
    return value;
  }
  std::vector<float> Acc() {
    std::vector<float> all = Download<float>(memory_.cref());
    return std::vector<float>(all.begin() + Layout::kAccOffset / 4,
                              all.begin() + Layout::kAccOffset / 4 + kAcc);
  }

  DebugOptions options_;
  gpu::ExecutionStats stats_;
  se::ScopedDeviceAddress memory_;
};

TEST_P(ControlFlowThunkTest, TripCountComesFromTheDevice) {
  Layout l;
  std::unique_ptr<gpu::WhileThunk> loop = CountingLoop(l);
  // The same thunk twice, with other trip counts: 3, then 5.
  for (int32_t n : {3, 5}) {
    Reset({{Layout::kI, 0}, {Layout::kN, n}}, 0.5f);
    const int64_t before = stats_.loop_iterations;
    XLA_LITE_ASSERT_OK(Run(*loop));
    EXPECT_EQ(Int(Layout::kI), n);
    EXPECT_EQ(Acc(), std::vector<float>(kAcc, 0.5f + n));
    EXPECT_EQ(stats_.loop_iterations - before, n);
  }
  // Each iteration runs the condition's thunk and the body's two, and
  // each run ends with one more condition.
  EXPECT_EQ(stats_.thunks_executed, (3 + 5) * 3 + 2);
}

TEST_P(ControlFlowThunkTest, ZeroTripLoopRunsOnlyTheCondition) {
  Layout l;
  std::unique_ptr<gpu::WhileThunk> loop = CountingLoop(l);
  Reset({{Layout::kI, 7}, {Layout::kN, 7}}, 2.0f);
  XLA_LITE_ASSERT_OK(Run(*loop));
  EXPECT_EQ(Int(Layout::kI), 7);
  EXPECT_EQ(Acc(), std::vector<float>(kAcc, 2.0f));
  EXPECT_EQ(stats_.loop_iterations, 0);
  EXPECT_EQ(stats_.thunks_executed, 1);
}

TEST_P(ControlFlowThunkTest, NestedLoops) {
  // for (i = 0; i < n; ++i) for (j = 0; j < m; ++j) acc += 1.
  Layout l;
  std::vector<std::unique_ptr<Thunk>> inner_cond, inner_body, outer_cond,
      outer_body;
  inner_cond.push_back(LessThan(l, Layout::kJ, Layout::kM, Layout::kInnerPred));
  inner_body.push_back(AddOne(l));
  inner_body.push_back(Increment(l, Layout::kJ));
  outer_cond.push_back(LessThan(l, Layout::kI, Layout::kN, Layout::kPred));
  outer_body.push_back(std::make_unique<gpu::MemsetThunk>(
      "j=0", l.At(Layout::kJ, 4), uint32_t{0}));
  outer_body.push_back(std::make_unique<gpu::WhileThunk>(
      "inner", l.At(Layout::kInnerPred, 1),
      Sequence("inner_cond", std::move(inner_cond)),
      Sequence("inner_body", std::move(inner_body))));
  outer_body.push_back(Increment(l, Layout::kI));
  gpu::WhileThunk outer("outer", l.At(Layout::kPred, 1),
                        Sequence("outer_cond", std::move(outer_cond)),
                        Sequence("outer_body", std::move(outer_body)));
  Reset({{Layout::kN, 3}, {Layout::kM, 4}, {Layout::kJ, 99}}, 0.0f);
  XLA_LITE_ASSERT_OK(Run(outer));
  EXPECT_EQ(Acc(), std::vector<float>(kAcc, 12.0f));
  EXPECT_EQ(Int(Layout::kI), 3);
  EXPECT_EQ(Int(Layout::kJ), 4);
  EXPECT_EQ(stats_.loop_iterations, 3 + 3 * 4);
}

std::unique_ptr<gpu::CommandBufferThunk> Recorded(std::unique_ptr<Thunk> t) {
  ThunkSequence thunks;
  thunks.push_back(std::move(t));
  return std::make_unique<gpu::CommandBufferThunk>("graph", std::move(thunks));
}

TEST_P(ControlFlowThunkTest, RecordedLoopRunsInsideTheGraph) {
  Layout l;
  auto graph = Recorded(CountingLoop(l));
  const bool loop_nodes = executor_->SupportsConditionalCommands();
  // The first execution warms up op by op; the second records; the third
  // and fourth run on new memory (the loop node's addresses updated) and
  // on the same memory (nothing to update), with other trip counts.
  const std::vector<std::pair<int32_t, bool>> runs = {
      {3, true}, {5, true}, {0, true}, {4, false}};
  for (int run = 0; run < runs.size(); ++run) {
    const auto [n, fresh_memory] = runs[run];
    SCOPED_TRACE(run);
    if (fresh_memory) {
      Reset({{Layout::kI, 0}, {Layout::kN, n}}, 0.5f);
    } else {
      const int32_t i_and_n[2] = {0, n};  // kI and kN are adjacent
      se::DeviceAddressBase ints = memory_.cref().GetByteSlice(Layout::kI, 8);
      XLA_LITE_ASSERT_OK(executor_->SynchronousMemcpyH2D(i_and_n, 8, &ints));
    }
    const float acc = fresh_memory ? 0.5f : Acc()[0];
    const gpu::ExecutionCounters before = stats_.Snapshot();
    XLA_LITE_ASSERT_OK(Run(*graph));
    const gpu::ExecutionCounters delta = stats_.Snapshot() - before;
    EXPECT_EQ(Int(Layout::kI), n);
    EXPECT_EQ(Acc(), std::vector<float>(kAcc, acc + n));
    if (run == 0 || !loop_nodes) {
      EXPECT_EQ(delta.loop_iterations, n) << "host-driven";
      EXPECT_EQ(delta.command_buffer_launches, 0);
    } else {
      // The host saw no iteration: one launch ran them all.
      EXPECT_EQ(delta.loop_iterations, 0);
      EXPECT_EQ(delta.command_buffer_launches, 1);
      EXPECT_EQ(delta.command_buffer_records, run == 1 ? 1 : 0);
      EXPECT_EQ(delta.command_buffer_updates, run == 2 ? 1 : 0);
    }
  }
}

TEST_P(ControlFlowThunkTest, RecordedNestedLoops) {
  if (!executor_->SupportsConditionalCommands()) {
    GTEST_SKIP() << "no conditional nodes on this platform";
  }
  // for (i = 0; i < n; ++i) { j = 0; for (; j < m; ++j) acc += 1; }
  Layout l;
  std::vector<std::unique_ptr<Thunk>> outer_body;
  outer_body.push_back(std::make_unique<gpu::MemsetThunk>(
      "j=0", l.At(Layout::kJ, 4), uint32_t{0}));
  std::vector<std::unique_ptr<Thunk>> inner_cond, inner_body, outer_cond;
  inner_cond.push_back(LessThan(l, Layout::kJ, Layout::kM, Layout::kInnerPred));
  inner_body.push_back(AddOne(l));
  inner_body.push_back(Increment(l, Layout::kJ));
  outer_body.push_back(std::make_unique<gpu::WhileThunk>(
      "inner", l.At(Layout::kInnerPred, 1),
      Sequence("inner_cond", std::move(inner_cond)),
      Sequence("inner_body", std::move(inner_body))));
  outer_body.push_back(Increment(l, Layout::kI));
  outer_cond.push_back(LessThan(l, Layout::kI, Layout::kN, Layout::kPred));
  auto graph = Recorded(std::make_unique<gpu::WhileThunk>(
      "outer", l.At(Layout::kPred, 1), Sequence("outer_cond", std::move(outer_cond)),
      Sequence("outer_body", std::move(outer_body))));
  for (int run = 0; run < 3; ++run) {
    Reset({{Layout::kN, 3}, {Layout::kM, 4}, {Layout::kJ, 99}}, 0.0f);
    const gpu::ExecutionCounters before = stats_.Snapshot();
    XLA_LITE_ASSERT_OK(Run(*graph));
    const gpu::ExecutionCounters delta = stats_.Snapshot() - before;
    EXPECT_EQ(Acc(), std::vector<float>(kAcc, 12.0f)) << run;
    EXPECT_EQ(Int(Layout::kI), 3);
    EXPECT_EQ(Int(Layout::kJ), 4);
    EXPECT_EQ(delta.loop_iterations, run == 0 ? 3 + 3 * 4 : 0) << run;
  }
}

TEST_P(ControlFlowThunkTest, RecordedLoopStopsAtTheBound) {
  if (!executor_->SupportsConditionalCommands()) {
    GTEST_SKIP() << "no conditional nodes on this platform";
  }
  Layout l;
  auto graph = Recorded(CountingLoop(l));
  options_.set_xla_gpu_max_loop_iterations(10);
  Reset({{Layout::kI, 0}, {Layout::kN, 5}}, 0.0f);
  XLA_LITE_ASSERT_OK(Run(*graph));  // warm-up, op by op
  Reset({{Layout::kI, 0}, {Layout::kN, 10}}, 0.0f);
  XLA_LITE_ASSERT_OK(Run(*graph));  // recorded; exactly at the bound
  EXPECT_EQ(Int(Layout::kI), 10);
  Reset({{Layout::kI, 0}, {Layout::kN, 1000}}, 0.0f);
  absl::Status status = Run(*graph);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
  EXPECT_EQ(Int(Layout::kI), 10) << "stopped after 10 iterations";
}

// Branch 0 adds one, branch 1 zeroes acc, branch 2 counts i up.
std::vector<std::unique_ptr<SequentialThunk>> Branches(const Layout& l,
                                                       int count) {
  std::vector<std::unique_ptr<SequentialThunk>> branches;
  std::vector<std::unique_ptr<Thunk>> add, zero, count_up;
  add.push_back(AddOne(l));
  zero.push_back(
      std::make_unique<gpu::MemsetThunk>("zero", l.acc(), uint32_t{0}));
  count_up.push_back(Increment(l, Layout::kI));
  branches.push_back(Sequence("add", std::move(add)));
  branches.push_back(Sequence("zero", std::move(zero)));
  if (count == 3) branches.push_back(Sequence("count", std::move(count_up)));
  return branches;
}

TEST_P(ControlFlowThunkTest, PredConditionalTakesBothBranchesAcrossSteps) {
  Layout l;
  gpu::ConditionalThunk cond("cond", l.At(Layout::kPred, 1), Branches(l, 2));
  // Three steps on the same memory: true (+1), true (+1), false (zero).
  Reset({}, 5.0f);
  const std::vector<std::pair<uint8_t, float>> steps = {
      {1, 6.0f}, {1, 7.0f}, {0, 0.0f}};
  for (const auto& [pred, expected] : steps) {
    se::DeviceAddressBase pred_address =
        memory_.cref().GetByteSlice(Layout::kPred, 1);
    XLA_LITE_ASSERT_OK(
        executor_->SynchronousMemcpyH2D(&pred, 1, &pred_address));
    XLA_LITE_ASSERT_OK(Run(cond));
    EXPECT_EQ(Acc(), std::vector<float>(kAcc, expected)) << int{pred};
  }
  EXPECT_EQ(stats_.conditional_branches, 3);
}

TEST_P(ControlFlowThunkTest, IndexOutOfRangeRunsTheLastBranch) {
  Layout l;
  gpu::ConditionalThunk cond("switch", l.At(Layout::kIndex, 4), Branches(l, 3));
  EXPECT_EQ(cond.BranchFor(0), 0);
  EXPECT_EQ(cond.BranchFor(1), 1);
  EXPECT_EQ(cond.BranchFor(2), 2);
  EXPECT_EQ(cond.BranchFor(3), 2);
  EXPECT_EQ(cond.BranchFor(-1), 2);
  // On the device: index 7 counts i up, index 0 adds one.
  Reset({{Layout::kIndex, 7}}, 1.0f);
  XLA_LITE_ASSERT_OK(Run(cond));
  EXPECT_EQ(Int(Layout::kI), 1);
  EXPECT_EQ(Acc(), std::vector<float>(kAcc, 1.0f));
  Reset({{Layout::kIndex, 0}}, 1.0f);
  XLA_LITE_ASSERT_OK(Run(cond));
  EXPECT_EQ(Int(Layout::kI), 0);
  EXPECT_EQ(Acc(), std::vector<float>(kAcc, 2.0f));
}

// Recorded once, a branch node picks its branch on the device every
// execution: the steps below take branch 0, 1, 2 and an out-of-range
// index (the last branch) without recording again.
TEST_P(ControlFlowThunkTest, RecordedConditionalPicksOnTheDevice) {
  Layout l;
  auto graph = Recorded(std::make_unique<gpu::ConditionalThunk>(
      "switch", l.At(Layout::kIndex, 4), Branches(l, 3)));
  const bool branch_nodes = executor_->SupportsConditionalCommands();
  Reset({}, 1.0f);
  // index -> (acc, i) after the step.
  const std::vector<std::tuple<int32_t, float, int32_t>> steps = {
      {0, 2.0f, 0}, {0, 3.0f, 0}, {2, 3.0f, 1}, {1, 0.0f, 1}, {9, 0.0f, 2},
      {0, 1.0f, 2}};
  for (int step = 0; step < steps.size(); ++step) {
    const auto [index, acc, i] = steps[step];
    SCOPED_TRACE(step);
    se::DeviceAddressBase selector =
        memory_.cref().GetByteSlice(Layout::kIndex, 4);
    XLA_LITE_ASSERT_OK(executor_->SynchronousMemcpyH2D(&index, 4, &selector));
    const gpu::ExecutionCounters before = stats_.Snapshot();
    XLA_LITE_ASSERT_OK(Run(*graph));
    const gpu::ExecutionCounters delta = stats_.Snapshot() - before;
    EXPECT_EQ(Acc(), std::vector<float>(kAcc, acc));
    EXPECT_EQ(Int(Layout::kI), i);
    const bool host_driven = step == 0 || !branch_nodes;
    EXPECT_EQ(delta.conditional_branches, host_driven ? 1 : 0);
    EXPECT_EQ(delta.command_buffer_records, !host_driven && step == 1 ? 1 : 0);
  }
}

INSTANTIATE_FOR_ALL_PLATFORMS(ControlFlowThunkTest);

}  // namespace
}  // namespace xla_lite::testing
