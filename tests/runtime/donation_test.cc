// input_output_alias and donation: x = 2 * x + y in place, with x aliased to
// output 0 and y copied to output 1.

#include <memory>
#include <random>
#include <vector>

#include "glog/logging.h"
#include "gtest/gtest.h"
#include "tests/runtime/runtime_test_base.h"
#include "tests/runtime/test_kernels.h"
#include "xla_lite/runtime/gpu_executable.h"
#include "xla_lite/runtime/kernel_thunk.h"
#include "xla_lite/runtime/memcpy_thunk.h"

namespace xla_lite::testing {
namespace {

using gpu::BufferAllocation;
using gpu::ExecutionInput;
using gpu::ExecutionOutput;
using gpu::GpuExecutable;
using gpu::InputOutputAlias;

constexpr int64_t kN = 1000;

std::unique_ptr<GpuExecutable> BuildInPlaceAxpy(InputOutputAlias::Kind kind) {
  Shape vector(PrimitiveType::F32, {kN});
  GpuExecutable::Params params;
  params.module_name = "axpy_in_place";
  params.allocations = {BufferAllocation::Parameter(0, vector.ByteSize(), 0),
                        BufferAllocation::Parameter(1, vector.ByteSize(), 1),
                        BufferAllocation::Output(2, vector.ByteSize())};
  const auto& a = params.allocations;
  params.thunks.push_back(std::make_unique<gpu::KernelThunk>(
      "axpy", AxpyKernel(kN, 2.0f), se::LaunchDimensionsFor(kN),
      std::vector<BufferAllocation::Slice>{a[0].GetSlice(), a[1].GetSlice(),
                                           a[0].GetSlice()},
      std::vector<bool>{false, false, true}));
  params.thunks.push_back(std::make_unique<gpu::MemcpyThunk>(
      "copy_y", a[1].GetSlice(), a[2].GetSlice()));
  params.output_allocations = {0, 2};
  params.signature.parameter_shapes = {vector, vector};
  params.signature.output_shapes = {vector, vector};
  params.signature.aliases = {{/*output_index=*/0, /*parameter_number=*/0, kind}};
  auto executable = GpuExecutable::Create(std::move(params));
  CHECK(executable.ok()) << executable.status();
  return std::move(*executable);
}

std::vector<float> Axpy(const std::vector<float>& x, const std::vector<float>& y) {
  std::vector<float> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = 2.0f * x[i] + y[i];
  return out;
}

class DonationTest : public RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    std::mt19937 rng(21);
    x_ = RandomFloats(kN, rng);
    y_ = RandomFloats(kN, rng);
  }

  std::vector<float> x_, y_;
};

TEST_P(DonationTest, DonatedParameterBecomesItsAliasedOutput) {
  for (auto kind : {InputOutputAlias::Kind::kMayAlias,
                    InputOutputAlias::Kind::kMustAlias}) {
    std::unique_ptr<GpuExecutable> executable = BuildInPlaceAxpy(kind);
    se::ScopedDeviceAddress dx = Upload(x_), dy = Upload(y_);
    void* donated_address = dx.cref().opaque();
    std::vector<ExecutionInput> inputs;
    inputs.push_back(ExecutionInput::Donated(std::move(dx)));
    inputs.push_back(ExecutionInput::Borrowed(dy.cref()));
    auto output = executable->ExecuteAsyncOnStream(Options(), std::move(inputs));
    ASSERT_TRUE(output.ok()) << output.status();
    XLA_LITE_ASSERT_OK(stream_->BlockHostUntilDone());
    EXPECT_EQ(output->result(0).opaque(), donated_address);
    EXPECT_EQ(output->aliased_parameter(0), 0);
    EXPECT_FALSE(output->aliased_parameter(1).has_value());
    EXPECT_EQ(Download<float>(output->result(0)), Axpy(x_, y_));
    EXPECT_EQ(Download<float>(output->result(1)), y_);
    EXPECT_EQ(executable->stats().donated_buffers_reused.load(), 1);
    EXPECT_EQ(executable->stats().parameter_copies.load(), 0);
  }
}

TEST_P(DonationTest, BorrowedMayAliasParameterIsCopiedAndKeepsItsContents) {
  std::unique_ptr<GpuExecutable> executable =
      BuildInPlaceAxpy(InputOutputAlias::Kind::kMayAlias);
  se::ScopedDeviceAddress dx = Upload(x_), dy = Upload(y_);
  for (int run = 0; run < 2; ++run) {
    std::vector<ExecutionInput> inputs;
    inputs.push_back(ExecutionInput::Borrowed(dx.cref()));
    inputs.push_back(ExecutionInput::Borrowed(dy.cref()));
    auto output = executable->ExecuteAsyncOnStream(Options(), std::move(inputs));
    ASSERT_TRUE(output.ok()) << output.status();
    XLA_LITE_ASSERT_OK(stream_->BlockHostUntilDone());
    EXPECT_NE(output->result(0).opaque(), dx.cref().opaque());
    EXPECT_FALSE(output->aliased_parameter(0).has_value());
    EXPECT_EQ(Download<float>(output->result(0)), Axpy(x_, y_)) << "run " << run;
    EXPECT_EQ(Download<float>(dx.cref()), x_) << "the caller's x was written";
  }
  EXPECT_EQ(executable->stats().parameter_copies.load(), 2);
  EXPECT_EQ(executable->stats().donated_buffers_reused.load(), 0);
}

TEST_P(DonationTest, MustAliasWithoutDonationIsInvalidArgument) {
  std::unique_ptr<GpuExecutable> executable =
      BuildInPlaceAxpy(InputOutputAlias::Kind::kMustAlias);
  se::ScopedDeviceAddress dx = Upload(x_), dy = Upload(y_);
  std::vector<ExecutionInput> inputs;
  inputs.push_back(ExecutionInput::Borrowed(dx.cref()));
  inputs.push_back(ExecutionInput::Borrowed(dy.cref()));
  auto output = executable->ExecuteAsyncOnStream(Options(), std::move(inputs));
  EXPECT_EQ(output.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(output.status().message().find("parameter 0"), std::string::npos)
      << output.status();
  EXPECT_NE(output.status().message().find("must alias"), std::string::npos)
      << output.status();
  XLA_LITE_ASSERT_OK(stream_->BlockHostUntilDone());
  EXPECT_EQ(Download<float>(dx.cref()), x_);
}

TEST_P(DonationTest, ParameterOfTheWrongSizeIsNamed) {
  std::unique_ptr<GpuExecutable> executable =
      BuildInPlaceAxpy(InputOutputAlias::Kind::kMayAlias);
  se::ScopedDeviceAddress dx = Upload(x_);
  se::ScopedDeviceAddress short_y = Upload(std::vector<float>(kN - 1));
  std::vector<ExecutionInput> inputs;
  inputs.push_back(ExecutionInput::Donated(std::move(dx)));
  inputs.push_back(ExecutionInput::Borrowed(short_y.cref()));
  auto output = executable->ExecuteAsyncOnStream(Options(), std::move(inputs));
  EXPECT_EQ(output.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(output.status().message().find("parameter 1 (f32[1000])"),
            std::string::npos)
      << output.status();
  // The donated x is the executable's now, and freed after the failure.
  XLA_LITE_ASSERT_OK(executable->WaitForOutstandingWork());
  short_y = se::ScopedDeviceAddress();
  EXPECT_EQ(HeldBytes(), 0);
}

TEST_P(DonationTest, DonatedParameterThatAliasesNothingIsFreedAfterTheRun) {
  std::unique_ptr<GpuExecutable> executable =
      BuildInPlaceAxpy(InputOutputAlias::Kind::kMayAlias);
  se::ScopedDeviceAddress dx = Upload(x_), dy = Upload(y_);
  std::vector<ExecutionInput> inputs;
  inputs.push_back(ExecutionInput::Borrowed(dx.cref()));
  inputs.push_back(ExecutionInput::Donated(std::move(dy)));
  auto output = executable->ExecuteAsyncOnStream(Options(), std::move(inputs));
  ASSERT_TRUE(output.ok()) << output.status();
  XLA_LITE_ASSERT_OK(executable->WaitForOutstandingWork());
  // Nothing else of the run is torn down: x was copied into output 0.
  EXPECT_EQ(executable->stats().buffers_freed.load(), 1);
  EXPECT_EQ(executable->stats().bytes_freed.load(), kN * sizeof(float));
  EXPECT_EQ(Download<float>(output->result(1)), y_);
}

TEST_P(DonationTest, ResultsDonatedBackKeepOneBufferAcrossSteps) {
  std::unique_ptr<GpuExecutable> executable =
      BuildInPlaceAxpy(InputOutputAlias::Kind::kMustAlias);
  se::ScopedDeviceAddress state = Upload(x_), dy = Upload(y_);
  void* address = state.cref().opaque();
  std::vector<float> want = x_;
  for (int step = 0; step < 3; ++step) {
    std::vector<ExecutionInput> inputs;
    inputs.push_back(ExecutionInput::Donated(std::move(state)));
    inputs.push_back(ExecutionInput::Borrowed(dy.cref()));
    auto output = executable->ExecuteAsyncOnStream(Options(), std::move(inputs));
    ASSERT_TRUE(output.ok()) << output.status();
    // Donated again before the step ran: stream order keeps this safe.
    state = output->TakeResult(0);
    EXPECT_EQ(state.cref().opaque(), address) << "step " << step;
    want = Axpy(want, y_);
  }
  XLA_LITE_ASSERT_OK(stream_->BlockHostUntilDone());
  std::vector<float> got = Download<float>(state.cref());
  for (int64_t i = 0; i < kN; ++i) ASSERT_FLOAT_EQ(got[i], want[i]) << i;
  state = se::ScopedDeviceAddress();
  dy = se::ScopedDeviceAddress();
  XLA_LITE_ASSERT_OK(executable->WaitForOutstandingWork());
  EXPECT_EQ(HeldBytes(), 0);
}

INSTANTIATE_FOR_ALL_PLATFORMS(DonationTest);

}  // namespace
}  // namespace xla_lite::testing
