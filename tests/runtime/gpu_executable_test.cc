// A hand-built executable (a gemm, two kernels, a memset and a memcpy over
// parameters, a constant, a temp and three outputs) against a plain C++
// reference, on every platform.

#include "xla_lite/runtime/gpu_executable.h"

#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "glog/logging.h"
#include "gtest/gtest.h"
#include "tests/runtime/mlp_program.h"
#include "tests/runtime/runtime_test_base.h"
#include "tests/runtime/test_kernels.h"
#include "xla_lite/runtime/kernel_preload.h"

namespace xla_lite::testing {
namespace {

using gpu::ExecutionInput;
using gpu::ExecutionOutput;
using gpu::GpuExecutable;

// The program of mlp_program.h, as an executable.
std::unique_ptr<GpuExecutable> BuildExecutable(
    se::KernelSpec bias_kernel = BiasReluScaleKernel(kMlpM, kMlpN)) {
  auto executable = GpuExecutable::Create(
      MlpExecutableParams(BuildMlpProgram(std::move(bias_kernel))));
  CHECK(executable.ok()) << executable.status();
  return std::move(*executable);
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want,
                const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], 1e-4 * (1 + std::abs(want[i])))
        << what << " at " << i;
  }
}

class GpuExecutableTest : public MlpTest {
 protected:
  void ExpectResults(const ExecutionOutput& output, const Arguments& args) {
    ASSERT_EQ(output.result_count(), 3);
    MlpResults want = MlpReference(args.x, args.w, args.b);
    ExpectNear(Download<float>(output.result(0)), want.z, "z");
    ExpectNear(Download<float>(output.result(1)), want.sums, "sums");
    ExpectNear(Download<float>(output.result(2)), want.last_row, "last_row");
  }
};

TEST_P(GpuExecutableTest, ComputesKnownFunctionTwiceWithDifferentArguments) {
  std::unique_ptr<GpuExecutable> executable =
      BuildExecutable();
  std::mt19937 rng(11);
  std::vector<ExecutionOutput> outputs;
  for (int run = 0; run < 2; ++run) {
    Arguments args = RandomArguments(rng);
    auto output = executable->ExecuteAsyncOnStream(Options(), args.Borrowed());
    ASSERT_TRUE(output.ok()) << output.status();
    XLA_LITE_ASSERT_OK(stream_->BlockHostUntilDone());
    EXPECT_TRUE(output->IsReady());
    ExpectResults(*output, args);
    for (int i = 0; i < 3; ++i) {
      EXPECT_FALSE(output->aliased_parameter(i).has_value());
    }
    outputs.push_back(std::move(*output));
  }
  EXPECT_NE(outputs[0].result(0).opaque(), outputs[1].result(0).opaque());

  const gpu::ExecutionStats& stats = executable->stats();
  EXPECT_EQ(stats.executions.load(), 2);
  EXPECT_EQ(stats.thunks_executed.load(), 10);
  EXPECT_EQ(stats.buffers_allocated.load(), 8);  // A temp and 3 outputs each.
  EXPECT_EQ(stats.constants_uploaded.load(), 1);
  EXPECT_EQ(stats.parameter_copies.load(), 0);
  XLA_LITE_ASSERT_OK(executable->WaitForOutstandingWork());
  EXPECT_EQ(stats.buffers_freed.load(), 2);  // The temps; outputs are held.
  outputs.clear();
  XLA_LITE_ASSERT_OK(executable->WaitForOutstandingWork());
  EXPECT_EQ(stats.buffers_freed.load(), 8);
  EXPECT_EQ(stats.bytes_freed.load(), stats.bytes_allocated.load());
  EXPECT_NE(stats.ToString().find("executions=2"), std::string::npos);
  executable.reset();
  EXPECT_EQ(HeldBytes(), 0);
}

// With the compiler's kernel preload: the first run waits for it and
// computes the same results; an executable destroyed before it ran stops
// its preload and leaves nothing held. (TSan runs this suite.)
TEST_P(GpuExecutableTest, RunsAfterItsKernelPreloadAndStopsIt) {
  for (bool run : {true, false}) {
    SCOPED_TRACE(run ? "runs" : "destroyed before it runs");
    GpuExecutable::Params params =
        MlpExecutableParams(BuildMlpProgram(BiasReluScaleKernel(kMlpM, kMlpN)));
    params.kernel_preload = std::make_shared<gpu::KernelPreload>(
        executor_, gpu::KernelSpecsUnder(params.thunks), 2);
    auto executable = GpuExecutable::Create(std::move(params));
    ASSERT_TRUE(executable.ok()) << executable.status();
    if (run) {
      std::mt19937 rng(13);
      Arguments args = RandomArguments(rng);
      auto output =
          (*executable)->ExecuteAsyncOnStream(Options(), args.Borrowed());
      ASSERT_TRUE(output.ok()) << output.status();
      XLA_LITE_ASSERT_OK(stream_->BlockHostUntilDone());
      ExpectResults(*output, args);
    }
    executable->reset();
    EXPECT_EQ(HeldBytes(), 0);
  }
}

TEST_P(GpuExecutableTest, RunsOnTwoStreamsAtOnce) {
  std::unique_ptr<GpuExecutable> executable =
      BuildExecutable();
  auto second = executor_->CreateStream();
  ASSERT_TRUE(second.ok()) << second.status();
  std::mt19937 rng(12);
  Arguments a = RandomArguments(rng), b = RandomArguments(rng);
  gpu::RunOptions options_b = Options();
  options_b.stream = second->get();
  auto out_a = executable->ExecuteAsyncOnStream(Options(), a.Borrowed());
  auto out_b = executable->ExecuteAsyncOnStream(options_b, b.Borrowed());
  ASSERT_TRUE(out_a.ok()) << out_a.status();
  ASSERT_TRUE(out_b.ok()) << out_b.status();
  XLA_LITE_ASSERT_OK(stream_->BlockHostUntilDone());
  XLA_LITE_ASSERT_OK((*second)->BlockHostUntilDone());
  ExpectResults(*out_a, a);
  ExpectResults(*out_b, b);
}

TEST_P(GpuExecutableTest, ConstantsAndKernelsAreSetUpOncePerExecutor) {
  std::unique_ptr<GpuExecutable> executable =
      BuildExecutable();
  std::mt19937 rng(13);
  Arguments args = RandomArguments(rng);
  for (int run = 0; run < 3; ++run) {
    auto output = executable->ExecuteAsyncOnStream(Options(), args.Borrowed());
    ASSERT_TRUE(output.ok()) << output.status();
    XLA_LITE_ASSERT_OK(stream_->BlockHostUntilDone());
    ExpectResults(*output, args);
  }
  EXPECT_EQ(executable->stats().constants_uploaded.load(), 1);

  if (platform_->VisibleDeviceCount() < 2) {
    GTEST_SKIP() << "one device: the second-executor half needs two";
  }
  auto executor1 = platform_->ExecutorForDevice(1);
  ASSERT_TRUE(executor1.ok()) << executor1.status();
  auto stream1 = (*executor1)->CreateStream();
  ASSERT_TRUE(stream1.ok()) << stream1.status();
  se::StreamExecutorAllocator allocator1(*executor1);
  std::vector<se::ScopedDeviceAddress> device1_args;
  std::vector<ExecutionInput> inputs;
  for (const std::vector<float>* host : {&args.x, &args.w, &args.b}) {
    auto mem = allocator1.Allocate(1, host->size() * sizeof(float));
    ASSERT_TRUE(mem.ok()) << mem.status();
    XLA_LITE_ASSERT_OK((*executor1)->SynchronousMemcpyH2D(
        host->data(), host->size() * sizeof(float), mem->ptr()));
    inputs.push_back(ExecutionInput::Borrowed(mem->cref()));
    device1_args.push_back(std::move(*mem));
  }
  gpu::RunOptions options;
  options.stream = stream1->get();
  options.allocator = &allocator1;
  auto output = executable->ExecuteAsyncOnStream(options, std::move(inputs));
  ASSERT_TRUE(output.ok()) << output.status();
  XLA_LITE_ASSERT_OK((*stream1)->BlockHostUntilDone());
  MlpResults want = MlpReference(args.x, args.w, args.b);
  std::vector<float> z(kMlpM * kMlpN);
  XLA_LITE_ASSERT_OK((*executor1)->SynchronousMemcpyD2H(
      output->result(0), z.size() * sizeof(float), z.data()));
  ExpectNear(z, want.z, "z on device 1");
  EXPECT_EQ(executable->stats().constants_uploaded.load(), 2);
  *output = ExecutionOutput();
  XLA_LITE_EXPECT_OK(executable->WaitForOutstandingWork());
}

TEST_P(GpuExecutableTest, FailedInitializationIsReportedAndFreesDonations) {
  se::KernelSpec unloadable;  // Neither host closure nor CUDA source.
  unloadable.name = "bias_relu_scale";
  unloadable.arity = 4;
  std::unique_ptr<GpuExecutable> executable = BuildExecutable(unloadable);
  std::mt19937 rng(14);
  Arguments args = RandomArguments(rng);
  std::vector<ExecutionInput> inputs = args.Borrowed();
  inputs[0] = ExecutionInput::Donated(std::move(args.dx));
  auto output = executable->ExecuteAsyncOnStream(Options(), std::move(inputs));
  ASSERT_FALSE(output.ok());
  EXPECT_NE(output.status().message().find("bias_relu_scale"), std::string::npos)
      << output.status();
  EXPECT_EQ(executable->stats().failed_executions.load(), 1);
  XLA_LITE_ASSERT_OK(executable->WaitForOutstandingWork());
  args.dw = se::ScopedDeviceAddress();
  args.db = se::ScopedDeviceAddress();
  EXPECT_EQ(HeldBytes(), 0) << "the donated x was not freed";
}

TEST_P(GpuExecutableTest, RunOptionsAreChecked) {
  std::unique_ptr<GpuExecutable> executable =
      BuildExecutable();
  std::mt19937 rng(15);
  Arguments args = RandomArguments(rng);
  gpu::RunOptions no_allocator = Options();
  no_allocator.allocator = nullptr;
  EXPECT_EQ(executable->ExecuteAsyncOnStream(no_allocator, args.Borrowed())
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  gpu::RunOptions wrong_device = Options();
  wrong_device.device_ordinal = executor_->device_ordinal() + 1;
  EXPECT_EQ(executable->ExecuteAsyncOnStream(wrong_device, args.Borrowed())
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  std::vector<ExecutionInput> two = args.Borrowed();
  two.pop_back();
  auto status = executable->ExecuteAsyncOnStream(Options(), std::move(two)).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("expected 3 arguments, got 2"),
            std::string::npos)
      << status;
}

INSTANTIATE_FOR_ALL_PLATFORMS(GpuExecutableTest);

}  // namespace
}  // namespace xla_lite::testing
