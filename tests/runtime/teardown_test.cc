// Teardown under a fault-injecting allocator: every deallocation is tried,
// every failure is reported, nothing else leaks.

#include <memory>
#include <random>
#include <vector>

#include "glog/logging.h"
#include "gtest/gtest.h"
#include "tests/runtime/fault_injecting_allocator.h"
#include "tests/runtime/runtime_test_base.h"
#include "tests/runtime/test_kernels.h"
#include "xla_lite/runtime/gpu_executable.h"
#include "xla_lite/runtime/kernel_thunk.h"
#include "xla_lite/runtime/memset_thunk.h"

namespace xla_lite::testing {
namespace {

using gpu::BufferAllocation;
using gpu::ExecutionInput;
using gpu::GpuExecutable;

constexpr int64_t kN = 256;
constexpr int kTemps = 4;

// out = 2 * t3 + x, after filling temps t0..t3 with 1.0, 2.0, 3.0, 4.0.
// Per run: 4 temps and 1 output from the run's allocator, in that order.
std::unique_ptr<GpuExecutable> BuildExecutable() {
  Shape vector(PrimitiveType::F32, {kN});
  GpuExecutable::Params params;
  params.module_name = "four_temps";
  params.allocations.push_back(BufferAllocation::Parameter(0, vector.ByteSize(), 0));
  for (int i = 0; i < kTemps; ++i) {
    params.allocations.push_back(BufferAllocation::Temp(1 + i, vector.ByteSize()));
  }
  params.allocations.push_back(BufferAllocation::Output(1 + kTemps, vector.ByteSize()));
  const auto& a = params.allocations;
  const uint32_t kFloatBits[kTemps] = {0x3F800000, 0x40000000, 0x40400000,
                                       0x40800000};
  for (int i = 0; i < kTemps; ++i) {
    params.thunks.push_back(std::make_unique<gpu::MemsetThunk>(
        "fill", a[1 + i].GetSlice(), kFloatBits[i]));
  }
  params.thunks.push_back(std::make_unique<gpu::KernelThunk>(
      "axpy", AxpyKernel(kN, 2.0f), se::LaunchDimensionsFor(kN),
      std::vector<BufferAllocation::Slice>{a[kTemps].GetSlice(), a[0].GetSlice(),
                                           a[1 + kTemps].GetSlice()},
      std::vector<bool>{false, false, true}));
  params.output_allocations = {1 + kTemps};
  params.signature.parameter_shapes = {vector};
  params.signature.output_shapes = {vector};
  auto executable = GpuExecutable::Create(std::move(params));
  CHECK(executable.ok()) << executable.status();
  return std::move(*executable);
}

class TeardownTest : public RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    std::mt19937 rng(31);
    x_ = RandomFloats(kN, rng);
    dx_ = Upload(x_);
    faulty_ = std::make_unique<FaultInjectingAllocator>(executor_);
    executable_ = BuildExecutable();
  }

  absl::StatusOr<gpu::ExecutionOutput> Execute() {
    std::vector<ExecutionInput> inputs;
    inputs.push_back(ExecutionInput::Borrowed(dx_.cref()));
    return executable_->ExecuteAsyncOnStream(Options(faulty_.get()),
                                             std::move(inputs));
  }

  void ExpectResult(const gpu::ExecutionOutput& output) {
    XLA_LITE_ASSERT_OK(stream_->BlockHostUntilDone());
    std::vector<float> got = Download<float>(output.result(0));
    for (int64_t i = 0; i < kN; ++i) ASSERT_FLOAT_EQ(got[i], 8.0f + x_[i]) << i;
  }

  std::vector<float> x_;
  se::ScopedDeviceAddress dx_;
  std::unique_ptr<FaultInjectingAllocator> faulty_;
  std::unique_ptr<GpuExecutable> executable_;
};

TEST_P(TeardownTest, FailingDeallocationIsReportedAndEveryOtherBufferFreed) {
  faulty_->FailDeallocateCalls({2});
  auto output = Execute();
  ASSERT_TRUE(output.ok()) << output.status();
  ExpectResult(*output);
  absl::Status status = executable_->WaitForOutstandingWork();
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal) << status;
  EXPECT_NE(status.message().find("injected failure of deallocation #2"),
            std::string::npos)
      << status;
  EXPECT_EQ(faulty_->frees(), kTemps - 1);
  EXPECT_EQ(faulty_->failed_frees(), 1);
  EXPECT_EQ(executable_->stats().deallocation_failures.load(), 1);
  EXPECT_EQ(executable_->stats().buffers_freed.load(), kTemps - 1);

  // Reported once, not again.
  XLA_LITE_EXPECT_OK(executable_->WaitForOutstandingWork());
  *output = gpu::ExecutionOutput();
  XLA_LITE_EXPECT_OK(executable_->WaitForOutstandingWork());
  EXPECT_EQ(faulty_->frees(), kTemps);
  EXPECT_EQ(faulty_->live(), 1);  // Only the buffer whose free failed.
  XLA_LITE_EXPECT_OK(faulty_->FreeLeaked());
  EXPECT_EQ(faulty_->live(), 0);
}

TEST_P(TeardownTest, EveryFailureIsReportedInOneStatus) {
  faulty_->FailDeallocateCalls({1, 4});
  auto output = Execute();
  ASSERT_TRUE(output.ok()) << output.status();
  ExpectResult(*output);
  absl::Status status = executable_->WaitForOutstandingWork();
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("2 failures"), std::string::npos) << status;
  EXPECT_NE(status.message().find("deallocation #1"), std::string::npos) << status;
  EXPECT_NE(status.message().find("deallocation #4"), std::string::npos) << status;
  EXPECT_EQ(faulty_->frees(), kTemps - 2);
  EXPECT_EQ(faulty_->failed_frees(), 2);
}

TEST_P(TeardownTest, FailuresFreedByALaterExecutionAreNotLost) {
  faulty_->FailDeallocateCalls({1});
  auto first = Execute();
  ASSERT_TRUE(first.ok()) << first.status();
  XLA_LITE_ASSERT_OK(stream_->BlockHostUntilDone());
  // The second execution frees the first one's temps as it starts.
  auto second = Execute();
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(faulty_->failed_frees(), 1);
  ExpectResult(*second);
  absl::Status status = executable_->WaitForOutstandingWork();
  EXPECT_NE(status.message().find("deallocation #1"), std::string::npos) << status;
  EXPECT_EQ(faulty_->frees(), 2 * kTemps - 1);
}

TEST_P(TeardownTest, AllocationFailureMidRunFreesWhatTheRunObtained) {
  faulty_->FailAllocateCalls({3});
  auto output = Execute();
  EXPECT_EQ(output.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(output.status().message().find("allocation #3"), std::string::npos)
      << output.status();
  XLA_LITE_ASSERT_OK(executable_->WaitForOutstandingWork());
  EXPECT_EQ(faulty_->allocations(), 2);
  EXPECT_EQ(faulty_->frees(), 2);
  EXPECT_EQ(faulty_->live(), 0);
  EXPECT_EQ(executable_->stats().failed_executions.load(), 1);
}

TEST_P(TeardownTest, DestroyingTheExecutableFreesAllButTheFailedBuffer) {
  faulty_->FailDeallocateCalls({3});
  {
    auto output = Execute();
    ASSERT_TRUE(output.ok()) << output.status();
  }
  // The failure was never collected: the destructor logs it, and frees the
  // other buffers and the constants regardless.
  executable_.reset();
  EXPECT_EQ(faulty_->frees(), kTemps);  // 3 temps and the dropped output.
  EXPECT_EQ(faulty_->live(), 1);
  XLA_LITE_EXPECT_OK(faulty_->FreeLeaked());
}

INSTANTIATE_FOR_ALL_PLATFORMS(TeardownTest);

}  // namespace
}  // namespace xla_lite::testing
