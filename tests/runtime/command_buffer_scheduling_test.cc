// The command buffer scheduling pass: which thunks it wraps, and a
// scheduled executable computing what the op-by-op one does, on every
// platform.

#include "xla_lite/service/command_buffer_scheduling.h"

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tests/runtime/mlp_program.h"
#include "tests/runtime/runtime_test_base.h"
#include "tests/runtime/test_kernels.h"
#include "xla_lite/runtime/command_buffer_thunk.h"
#include "xla_lite/runtime/gpu_executable.h"
#include "xla_lite/runtime/memset_thunk.h"
#include "xla_lite/runtime/sequential_thunk.h"

namespace xla_lite::testing {
namespace {

using gpu::BufferAllocation;
using gpu::CommandBufferThunk;
using gpu::ExecutionInput;
using gpu::ExecutionOutput;
using gpu::GpuExecutable;
using gpu::ScheduleCommandBuffers;
using gpu::Thunk;
using gpu::ThunkSequence;

DebugOptions Enabled(std::vector<DebugOptions::CommandBufferCmdType> types,
                     int min_graph_size) {
  DebugOptions options;
  for (auto type : types) options.add_xla_gpu_enable_command_buffer(type);
  options.set_xla_gpu_graph_min_graph_size(min_graph_size);
  options.set_xla_gpu_command_buffer_trace_cache_size(4);
  return options;
}

DebugOptions AllEnabled(int min_graph_size = 1) {
  return Enabled({DebugOptions::FUSION, DebugOptions::CUBLAS,
                  DebugOptions::MEMCPY, DebugOptions::MEMSET},
                 min_graph_size);
}

// The top level of a schedule, one entry per thunk: the thunk's name, or
// "[a b ...]" for a command buffer of thunks a, b, ...
std::vector<std::string> TopLevel(const ThunkSequence& thunks) {
  std::vector<std::string> shape;
  for (const auto& thunk : thunks) {
    if (thunk->kind() != Thunk::Kind::kCommandBuffer) {
      shape.push_back(thunk->name());
      continue;
    }
    std::string inner;
    for (const auto& nested :
         static_cast<const CommandBufferThunk&>(*thunk).thunks()) {
      inner += (inner.empty() ? "" : " ") + nested->name();
    }
    shape.push_back("[" + inner + "]");
  }
  return shape;
}

using Names = std::vector<std::string>;

// The MLP program is gemm "dot", kernel "bias_relu_scale", memset "zero",
// kernel "column_sum" and memcpy "last_row".
TEST(CommandBufferSchedulingTest, WrapsTheWholeRunWhenAllTypesAreEnabled) {
  ThunkSequence scheduled =
      ScheduleCommandBuffers(BuildMlpProgram().thunks, AllEnabled(2));
  EXPECT_EQ(TopLevel(scheduled),
            Names{"[dot bias_relu_scale zero column_sum last_row]"});
  EXPECT_EQ(scheduled[0]->name(), "command_buffer.0");
}

TEST(CommandBufferSchedulingTest, DisabledTypesStayOpByOp) {
  DebugOptions no_gemm = Enabled(
      {DebugOptions::FUSION, DebugOptions::MEMCPY, DebugOptions::MEMSET}, 1);
  EXPECT_EQ(TopLevel(ScheduleCommandBuffers(BuildMlpProgram().thunks, no_gemm)),
            (Names{"dot", "[bias_relu_scale zero column_sum last_row]"}));

  DebugOptions no_memset = Enabled(
      {DebugOptions::FUSION, DebugOptions::CUBLAS, DebugOptions::MEMCPY}, 1);
  ThunkSequence split =
      ScheduleCommandBuffers(BuildMlpProgram().thunks, no_memset);
  EXPECT_EQ(TopLevel(split),
            (Names{"[dot bias_relu_scale]", "zero", "[column_sum last_row]"}));
  EXPECT_EQ(split[2]->name(), "command_buffer.1");

  EXPECT_EQ(
      TopLevel(
          ScheduleCommandBuffers(BuildMlpProgram().thunks, Enabled({}, 1))),
      (Names{"dot", "bias_relu_scale", "zero", "column_sum", "last_row"}));
}

TEST(CommandBufferSchedulingTest, ShortRunsStayOpByOp) {
  DebugOptions no_memset = Enabled(
      {DebugOptions::FUSION, DebugOptions::CUBLAS, DebugOptions::MEMCPY}, 3);
  EXPECT_EQ(
      TopLevel(ScheduleCommandBuffers(BuildMlpProgram().thunks, no_memset)),
      (Names{"dot", "bias_relu_scale", "zero", "column_sum", "last_row"}));
  EXPECT_EQ(
      TopLevel(ScheduleCommandBuffers(BuildMlpProgram().thunks, AllEnabled(5))),
      Names{"[dot bias_relu_scale zero column_sum last_row]"});
  EXPECT_EQ(
      TopLevel(ScheduleCommandBuffers(BuildMlpProgram().thunks, AllEnabled(6))),
      (Names{"dot", "bias_relu_scale", "zero", "column_sum", "last_row"}));
}

TEST(CommandBufferSchedulingTest, UnrecordableThunksEndRuns) {
  BufferAllocation a = BufferAllocation::Temp(0, 64);
  ThunkSequence inner;
  inner.push_back(
      std::make_unique<gpu::MemsetThunk>("nested", a.GetSlice(), uint8_t{1}));
  ThunkSequence thunks;
  thunks.push_back(
      std::make_unique<gpu::MemsetThunk>("m0", a.GetSlice(0, 8), uint8_t{1}));
  thunks.push_back(
      std::make_unique<gpu::MemsetThunk>("m1", a.GetSlice(8, 8), uint8_t{1}));
  // Six bytes: a byte fill that a 32-bit fill cannot replace.
  thunks.push_back(
      std::make_unique<gpu::MemsetThunk>("odd", a.GetSlice(16, 6), uint8_t{1}));
  thunks.push_back(
      std::make_unique<gpu::MemsetThunk>("m2", a.GetSlice(24, 8), uint8_t{1}));
  thunks.push_back(
      std::make_unique<gpu::SequentialThunk>("sequence", std::move(inner)));
  thunks.push_back(
      std::make_unique<gpu::MemsetThunk>("m3", a.GetSlice(32, 8), uint8_t{1}));
  EXPECT_EQ(TopLevel(ScheduleCommandBuffers(std::move(thunks), AllEnabled(1))),
            (Names{"[m0 m1]", "odd", "[m2]", "sequence", "[m3]"}));
}

class ScheduledExecutableTest : public MlpTest {
 protected:
  std::unique_ptr<GpuExecutable> Build(const DebugOptions& options) {
    GpuExecutable::Params params = MlpExecutableParams(BuildMlpProgram());
    params.thunks = ScheduleCommandBuffers(std::move(params.thunks), options);
    params.debug_options = options;
    auto executable = GpuExecutable::Create(std::move(params));
    EXPECT_TRUE(executable.ok()) << executable.status();
    return executable.ok() ? std::move(*executable) : nullptr;
  }

  // The three results of one execution, waited for.
  std::vector<std::vector<float>> Execute(GpuExecutable& executable,
                                          const Arguments& args) {
    auto output = executable.ExecuteAsyncOnStream(Options(), args.Borrowed());
    EXPECT_TRUE(output.ok()) << output.status();
    if (!output.ok()) return {};
    absl::Status done = stream_->BlockHostUntilDone();
    EXPECT_TRUE(done.ok()) << done;
    std::vector<std::vector<float>> results;
    for (int i = 0; i < output->result_count(); ++i) {
      results.push_back(Download<float>(output->result(i)));
    }
    return results;
  }
};

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], 1e-4 * (1 + std::abs(want[i])))
        << what << " at " << i;
  }
}

// Fresh arguments every run, and fresh temps and outputs from the plain
// allocator: addresses move between runs, and the updated command buffer
// must still compute what op by op does.
TEST_P(ScheduledExecutableTest, MatchesOpByOp) {
  std::unique_ptr<GpuExecutable> op_by_op = Build(Enabled({}, 1));
  std::unique_ptr<GpuExecutable> scheduled = Build(AllEnabled(2));
  ASSERT_NE(op_by_op, nullptr);
  ASSERT_NE(scheduled, nullptr);
  ASSERT_EQ(scheduled->thunks().thunks().size(), 1);
  std::mt19937 rng(21);
  constexpr int kRuns = 4;
  for (int run = 0; run < kRuns; ++run) {
    Arguments args = RandomArguments(rng);
    std::vector<std::vector<float>> want = Execute(*op_by_op, args);
    std::vector<std::vector<float>> got = Execute(*scheduled, args);
    ASSERT_EQ(want.size(), 3);
    ASSERT_EQ(got.size(), 3);
    MlpResults reference = MlpReference(args.x, args.w, args.b);
    ExpectNear(want[0], reference.z, "op by op z");
    for (int i = 0; i < 3; ++i) {
      ExpectNear(got[i], want[i], "result " + std::to_string(i));
    }
  }
  const gpu::ExecutionStats& stats = scheduled->stats();
  EXPECT_EQ(stats.executions.load(), kRuns);
  EXPECT_EQ(stats.thunks_executed.load(), 5);  // The warmup only.
  EXPECT_EQ(stats.command_buffer_records.load(), 1);
  EXPECT_EQ(stats.command_buffer_instantiations.load(), 1);
  EXPECT_EQ(stats.command_buffer_launches.load(), kRuns - 1);
  EXPECT_EQ(op_by_op->stats().thunks_executed.load(), 5 * kRuns);
  EXPECT_EQ(op_by_op->stats().command_buffer_launches.load(), 0);
  XLA_LITE_EXPECT_OK(scheduled->WaitForOutstandingWork());
  XLA_LITE_EXPECT_OK(op_by_op->WaitForOutstandingWork());
}

// With gemms kept out, the gemm runs op by op every time next to a command
// buffer of the other four thunks.
TEST_P(ScheduledExecutableTest, DisabledGemmRunsBesideTheCommandBuffer) {
  std::unique_ptr<GpuExecutable> scheduled = Build(Enabled(
      {DebugOptions::FUSION, DebugOptions::MEMCPY, DebugOptions::MEMSET}, 2));
  ASSERT_NE(scheduled, nullptr);
  ASSERT_EQ(scheduled->thunks().thunks().size(), 2);
  std::mt19937 rng(22);
  constexpr int kRuns = 3;
  for (int run = 0; run < kRuns; ++run) {
    Arguments args = RandomArguments(rng);
    std::vector<std::vector<float>> got = Execute(*scheduled, args);
    ASSERT_EQ(got.size(), 3);
    MlpResults want = MlpReference(args.x, args.w, args.b);
    ExpectNear(got[0], want.z, "z");
    ExpectNear(got[1], want.sums, "sums");
    ExpectNear(got[2], want.last_row, "last_row");
  }
  const gpu::ExecutionStats& stats = scheduled->stats();
  EXPECT_EQ(stats.thunks_executed.load(), 4 + kRuns);
  EXPECT_EQ(stats.command_buffer_records.load(), 1);
  EXPECT_EQ(stats.command_buffer_launches.load(), kRuns - 1);
  EXPECT_EQ(stats.command_buffer_traces.load(), 0);
  XLA_LITE_EXPECT_OK(scheduled->WaitForOutstandingWork());
}

// Two threads run one scheduled executable on their own streams, so the
// command buffer switches between their buffers. Gemms stay op by op here:
// tracing one would capture on a stream while the other thread allocates,
// which the host refuses executor-wide.
TEST_P(ScheduledExecutableTest, TwoThreadsShareTheCommandBuffer) {
  std::unique_ptr<GpuExecutable> scheduled = Build(Enabled(
      {DebugOptions::FUSION, DebugOptions::MEMCPY, DebugOptions::MEMSET}, 2));
  ASSERT_NE(scheduled, nullptr);
  constexpr int kThreads = 2, kRuns = 10;
  std::vector<std::unique_ptr<se::Stream>> streams;
  std::vector<Arguments> args;
  std::mt19937 rng(23);
  for (int t = 0; t < kThreads; ++t) {
    auto stream = executor_->CreateStream();
    ASSERT_TRUE(stream.ok()) << stream.status();
    streams.push_back(std::move(*stream));
    args.push_back(RandomArguments(rng));
  }
  auto work = [&](int t) {
    MlpResults want = MlpReference(args[t].x, args[t].w, args[t].b);
    gpu::RunOptions options = Options();
    options.stream = streams[t].get();
    std::vector<float> z(kMlpM * kMlpN), sums(kMlpN);
    for (int run = 0; run < kRuns; ++run) {
      auto output =
          scheduled->ExecuteAsyncOnStream(options, args[t].Borrowed());
      ASSERT_TRUE(output.ok()) << output.status();
      absl::Status status =
          options.stream->Memcpy(z.data(), output->result(0), z.size() * 4);
      if (status.ok()) {
        status = options.stream->Memcpy(sums.data(), output->result(1),
                                        sums.size() * 4);
      }
      if (status.ok()) status = options.stream->BlockHostUntilDone();
      ASSERT_TRUE(status.ok()) << status;
      std::string what = "thread " + std::to_string(t);
      ExpectNear(z, want.z, what + " z");
      ExpectNear(sums, want.sums, what + " sums");
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(work, t);
  for (auto& thread : threads) thread.join();

  const gpu::ExecutionStats& stats = scheduled->stats();
  EXPECT_EQ(stats.executions.load(), kThreads * kRuns);
  EXPECT_EQ(stats.command_buffer_records.load(), 1);
  EXPECT_EQ(stats.command_buffer_launches.load(), kThreads * kRuns - 1);
  EXPECT_EQ(stats.thunks_executed.load(), 4 + kThreads * kRuns);
  XLA_LITE_EXPECT_OK(scheduled->WaitForOutstandingWork());
}

INSTANTIATE_FOR_ALL_PLATFORMS(ScheduledExecutableTest);

}  // namespace
}  // namespace xla_lite::testing
