// CommandBufferThunk on every platform: warmup, record once, replay, update
// only what moved, traced gemms through the trace cache, failures that
// leave it able to record again, DOT dumps and concurrent executions.

#include "xla_lite/runtime/command_buffer_thunk.h"

#include <sys/stat.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/runtime/mlp_program.h"
#include "tests/runtime/runtime_test_base.h"
#include "tests/runtime/test_kernels.h"
#include "xla_lite/runtime/buffer_allocations.h"
#include "xla_lite/runtime/kernel_thunk.h"
#include "xla_lite/runtime/memcpy_thunk.h"
#include "xla_lite/runtime/memset_thunk.h"

namespace xla_lite::testing {
namespace {

using gpu::BufferAllocation;
using gpu::BufferAllocations;
using gpu::CommandBufferThunk;
using gpu::ExecutionStats;
using gpu::Thunk;

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], 1e-4 * (1 + std::abs(want[i])))
        << what << " at " << i;
  }
}

// A memset whose Record and UpdateRecorded fail as often as asked.
class FlakyMemsetThunk : public gpu::MemsetThunk {
 public:
  using MemsetThunk::MemsetThunk;

  std::atomic<int> record_failures{0};
  std::atomic<int> update_failures{0};

  absl::StatusOr<const se::CommandBuffer::Command*> Record(
      const RecordParams& params, se::CommandBuffer* command_buffer,
      se::CommandBuffer::Dependencies dependencies) override {
    if (TakeOne(record_failures)) {
      return absl::InternalError("injected record failure");
    }
    return MemsetThunk::Record(params, command_buffer, dependencies);
  }
  absl::Status UpdateRecorded(
      const RecordParams& params, se::CommandBuffer* command_buffer,
      const se::CommandBuffer::Command* command) override {
    if (TakeOne(update_failures)) {
      return absl::InternalError("injected update failure");
    }
    return MemsetThunk::UpdateRecorded(params, command_buffer, command);
  }

 private:
  static bool TakeOne(std::atomic<int>& budget) {
    int left = budget.load();
    while (left > 0 && !budget.compare_exchange_weak(left, left - 1)) {
    }
    return left > 0;
  }
};

class CommandBufferThunkTest : public RuntimeTest {
 protected:
  // Device buffers for every allocation of the MLP program, by index, and
  // the host values of its parameters.
  struct MlpBuffers {
    std::vector<float> x, w, b;
    std::vector<se::ScopedDeviceAddress> mem;
    // Buffers replaced by Move, kept so that no new buffer can reuse an
    // address a command still holds.
    std::vector<se::ScopedDeviceAddress> moved;

    BufferAllocations Get(int device_ordinal) const {
      std::vector<se::DeviceAddressBase> addresses;
      for (const auto& m : mem) addresses.push_back(m.cref());
      return BufferAllocations(std::move(addresses), device_ordinal);
    }
  };

  void SetUp() override {
    RuntimeTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    options_.set_xla_gpu_command_buffer_trace_cache_size(4);
  }

  std::unique_ptr<CommandBufferThunk> MlpCommandBuffer() {
    return std::make_unique<CommandBufferThunk>("mlp",
                                                BuildMlpProgram().thunks);
  }

  MlpBuffers NewMlpBuffers(std::mt19937& rng) {
    MlpProgram program = BuildMlpProgram();
    MlpBuffers buffers;
    buffers.x = RandomFloats(kMlpM * kMlpK, rng);
    buffers.w = RandomFloats(kMlpK * kMlpN, rng);
    buffers.b = RandomFloats(kMlpN, rng);
    for (const BufferAllocation& allocation : program.allocations) {
      switch (allocation.index()) {
        case kMlpX:
          buffers.mem.push_back(Upload(buffers.x));
          break;
        case kMlpW:
          buffers.mem.push_back(Upload(buffers.w));
          break;
        case kMlpB:
          buffers.mem.push_back(Upload(buffers.b));
          break;
        case kMlpScale:
          buffers.mem.push_back(Upload(MlpScale()));
          break;
        default:
          buffers.mem.push_back(Allocate(allocation.size()));
      }
    }
    return buffers;
  }

  // Gives parameter `index` a new buffer holding `values`.
  void Move(MlpBuffers& buffers, MlpAllocation index,
            std::vector<float> values) {
    se::ScopedDeviceAddress fresh = Upload(values);
    buffers.moved.push_back(std::move(buffers.mem[index]));
    buffers.mem[index] = std::move(fresh);
    switch (index) {
      case kMlpX:
        buffers.x = std::move(values);
        break;
      case kMlpW:
        buffers.w = std::move(values);
        break;
      case kMlpB:
        buffers.b = std::move(values);
        break;
      default:
        FAIL() << "allocation " << index << " is not a parameter";
    }
  }

  absl::Status Initialize(Thunk& thunk) {
    return thunk.Initialize({executor_, stream_.get(), &options_});
  }

  // One execution over `buffers`, waited for.
  absl::Status Run(Thunk& thunk, const BufferAllocations& buffers,
                   se::Stream* stream = nullptr) {
    if (stream == nullptr) stream = stream_.get();
    Thunk::ExecuteParams params;
    params.buffer_allocations = &buffers;
    params.stream = stream;
    params.debug_options = &options_;
    params.stats = &stats_;
    absl::Status status = thunk.ExecuteOnStream(params);
    if (!status.ok()) return status;
    return stream->BlockHostUntilDone();
  }

  absl::Status RunMlp(Thunk& thunk, const MlpBuffers& buffers) {
    return Run(thunk, buffers.Get(executor_->device_ordinal()));
  }

  void ExpectMlpResults(const MlpBuffers& buffers, const std::string& what) {
    MlpResults want = MlpReference(buffers.x, buffers.w, buffers.b);
    ExpectNear(Download<float>(buffers.mem[kMlpZ].cref()), want.z, what + " z");
    ExpectNear(Download<float>(buffers.mem[kMlpSums].cref()), want.sums,
               what + " sums");
    ExpectNear(Download<float>(buffers.mem[kMlpLastRow].cref()), want.last_row,
               what + " last_row");
  }

  // The MLP command buffer's first record as dumped into `dir`, or empty
  // (with a failure) when there is none.
  // Records the MLP's command buffer (two runs, results checked) with DOT
  // dumps into a folder named after `name` and the platform; the first
  // record's DOT.
  std::string RecordedMlpDot(const std::string& name, uint32_t seed) {
    // TempDir() is Bazel's TEST_TMPDIR when set, /tmp/ otherwise (GPU host).
    const std::string dir =
        absl::StrCat(::testing::TempDir(), name, "_", GetParam());
    EXPECT_TRUE(mkdir(dir.c_str(), 0755) == 0 || errno == EEXIST) << dir;
    options_.set_xla_gpu_dump_command_buffer_dot_dir(dir);
    std::unique_ptr<CommandBufferThunk> thunk = MlpCommandBuffer();
    absl::Status status = Initialize(*thunk);
    std::mt19937 rng(seed);
    MlpBuffers buffers = NewMlpBuffers(rng);
    if (status.ok()) status = RunMlp(*thunk, buffers);
    if (status.ok()) status = RunMlp(*thunk, buffers);
    EXPECT_TRUE(status.ok()) << status;
    if (!status.ok()) return "";
    ExpectMlpResults(buffers, "recorded");
    const std::string path =
        absl::StrCat(dir, "/mlp.device", executor_->device_ordinal(),
                     ".record1.dot");
    std::ifstream in(path);
    EXPECT_TRUE(in.good()) << "no dump at " << path;
    std::stringstream dot;
    dot << in.rdbuf();
    return dot.str();
  }

  static int64_t Occurrences(const std::string& text, const std::string& what) {
    int64_t count = 0;
    for (size_t at = text.find(what); at != std::string::npos;
         at = text.find(what, at + what.size())) {
      ++count;
    }
    return count;
  }

  DebugOptions options_;
  ExecutionStats stats_;
};

TEST_P(CommandBufferThunkTest, DependenciesFollowBufferUses) {
  std::unique_ptr<CommandBufferThunk> thunk = MlpCommandBuffer();
  // gemm; bias after gemm (y); zero alone; column_sum after bias (z) and
  // zero (sums); last_row after bias (z). The two readers of z are free.
  std::vector<std::vector<int64_t>> want = {{}, {0}, {}, {1, 2}, {1}};
  EXPECT_EQ(thunk->dependencies(), want);
  EXPECT_EQ(thunk->buffer_uses().size(), 12);
  EXPECT_EQ(thunk->kind(), Thunk::Kind::kCommandBuffer);
}

TEST_P(CommandBufferThunkTest, NeedsInitialize) {
  std::unique_ptr<CommandBufferThunk> thunk = MlpCommandBuffer();
  std::mt19937 rng(1);
  MlpBuffers buffers = NewMlpBuffers(rng);
  absl::Status status = RunMlp(*thunk, buffers);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
}

// Warmup, one record, then 100 replays with stable addresses: nothing but a
// launch per replay, and each replay reads the current contents of x.
TEST_P(CommandBufferThunkTest, RecordsOnceAndReplaysWithStableAddresses) {
  std::unique_ptr<CommandBufferThunk> thunk = MlpCommandBuffer();
  XLA_LITE_ASSERT_OK(Initialize(*thunk));
  std::mt19937 rng(2);
  MlpBuffers buffers = NewMlpBuffers(rng);

  XLA_LITE_ASSERT_OK(RunMlp(*thunk, buffers));
  ExpectMlpResults(buffers, "warmup");
  EXPECT_EQ(stats_.thunks_executed.load(), 5);
  EXPECT_EQ(stats_.command_buffer_records.load(), 0);
  EXPECT_EQ(stats_.command_buffer_launches.load(), 0);

  for (int run = 0; run < 100; ++run) {
    buffers.x = RandomFloats(kMlpM * kMlpK, rng);
    XLA_LITE_ASSERT_OK(executor_->SynchronousMemcpyH2D(
        buffers.x.data(), buffers.x.size() * 4, buffers.mem[kMlpX].ptr()));
    XLA_LITE_ASSERT_OK(RunMlp(*thunk, buffers));
    ExpectMlpResults(buffers, absl::StrCat("replay ", run));
    if (HasFatalFailure()) return;
    if (run == 0) {
      EXPECT_EQ(stats_.command_buffer_records.load(), 1);
      EXPECT_EQ(stats_.command_buffer_traces.load(), 1);
    }
  }
  EXPECT_EQ(stats_.thunks_executed.load(), 5);
  EXPECT_EQ(stats_.command_buffer_records.load(), 1);
  EXPECT_EQ(stats_.command_buffer_instantiations.load(), 1);
  EXPECT_EQ(stats_.command_buffer_launches.load(), 100);
  EXPECT_EQ(stats_.command_buffer_updates.load(), 0);
  EXPECT_EQ(stats_.command_buffer_node_updates.load(), 0);
  EXPECT_EQ(stats_.command_buffer_reinstantiations.load(), 0);
  EXPECT_EQ(stats_.command_buffer_traces.load(), 1);
  EXPECT_EQ(stats_.command_buffer_trace_cache_hits.load(), 0);
}

// Moving b updates the one command that reads it; moving the output z
// updates the three that touch it; moving x re-traces the gemm.
TEST_P(CommandBufferThunkTest, MovedBufferUpdatesOnlyItsCommands) {
  std::unique_ptr<CommandBufferThunk> thunk = MlpCommandBuffer();
  XLA_LITE_ASSERT_OK(Initialize(*thunk));
  std::mt19937 rng(3);
  MlpBuffers buffers = NewMlpBuffers(rng);
  XLA_LITE_ASSERT_OK(RunMlp(*thunk, buffers));
  XLA_LITE_ASSERT_OK(RunMlp(*thunk, buffers));
  ExpectMlpResults(buffers, "recorded");

  Move(buffers, kMlpB, RandomFloats(kMlpN, rng));
  XLA_LITE_ASSERT_OK(RunMlp(*thunk, buffers));
  ExpectMlpResults(buffers, "b moved");
  EXPECT_EQ(stats_.command_buffer_updates.load(), 1);
  EXPECT_EQ(stats_.command_buffer_node_updates.load(), 1);
  EXPECT_EQ(stats_.command_buffer_traces.load(), 1);

  se::ScopedDeviceAddress z = Allocate(buffers.mem[kMlpZ].cref().size());
  buffers.moved.push_back(std::exchange(buffers.mem[kMlpZ], std::move(z)));
  XLA_LITE_ASSERT_OK(RunMlp(*thunk, buffers));
  ExpectMlpResults(buffers, "z moved");
  EXPECT_EQ(stats_.command_buffer_updates.load(), 2);
  EXPECT_EQ(stats_.command_buffer_node_updates.load(), 4);

  XLA_LITE_ASSERT_OK(RunMlp(*thunk, buffers));
  EXPECT_EQ(stats_.command_buffer_updates.load(), 2);
  EXPECT_EQ(stats_.command_buffer_node_updates.load(), 4);

  Move(buffers, kMlpX, RandomFloats(kMlpM * kMlpK, rng));
  XLA_LITE_ASSERT_OK(RunMlp(*thunk, buffers));
  ExpectMlpResults(buffers, "x moved");
  EXPECT_EQ(stats_.command_buffer_updates.load(), 3);
  EXPECT_EQ(stats_.command_buffer_node_updates.load(), 5);
  EXPECT_EQ(stats_.command_buffer_traces.load(), 2);
  EXPECT_EQ(stats_.command_buffer_trace_cache_hits.load(), 0);
  EXPECT_EQ(stats_.command_buffer_records.load(), 1);
  EXPECT_EQ(stats_.command_buffer_instantiations.load(), 1);
  EXPECT_EQ(stats_.command_buffer_launches.load(), 5);
  if (IsHost()) {
    EXPECT_EQ(stats_.command_buffer_reinstantiations.load(), 0);
  }
}

// Three x buffers through a trace cache of two: a set seen before is a hit,
// a new one is a trace that evicts the least recently used.
TEST_P(CommandBufferThunkTest, TracedGemmUsesAnLruOfTraces) {
  options_.set_xla_gpu_command_buffer_trace_cache_size(2);
  std::unique_ptr<CommandBufferThunk> thunk = MlpCommandBuffer();
  XLA_LITE_ASSERT_OK(Initialize(*thunk));
  std::mt19937 rng(4);
  MlpBuffers buffers = NewMlpBuffers(rng);
  std::vector<std::vector<float>> x(3);
  std::vector<se::ScopedDeviceAddress> dx(3);
  for (int i = 0; i < 3; ++i) {
    x[i] = RandomFloats(kMlpM * kMlpK, rng);
    dx[i] = Upload(x[i]);
  }
  struct Step {
    int x;
    int64_t traces, hits;
  };
  // Warmup and record with x0, then: x1 new; x0 hit; x2 new, evicts x1;
  // x0 hit; x1 new again, evicts x2; x1 unchanged, no lookup at all.
  std::vector<Step> steps = {{0, 0, 0}, {0, 1, 0}, {1, 2, 0}, {0, 2, 1},
                             {2, 3, 1}, {0, 3, 2}, {1, 4, 2}, {1, 4, 2}};
  for (size_t s = 0; s < steps.size(); ++s) {
    const Step& step = steps[s];
    // Lend x_i to the buffers for one execution.
    buffers.x = x[step.x];
    std::swap(buffers.mem[kMlpX], dx[step.x]);
    XLA_LITE_ASSERT_OK(RunMlp(*thunk, buffers));
    ExpectMlpResults(buffers, absl::StrCat("step ", s));
    std::swap(buffers.mem[kMlpX], dx[step.x]);
    EXPECT_EQ(stats_.command_buffer_traces.load(), step.traces) << s;
    EXPECT_EQ(stats_.command_buffer_trace_cache_hits.load(), step.hits) << s;
  }
  EXPECT_EQ(stats_.command_buffer_records.load(), 1);
  EXPECT_EQ(stats_.command_buffer_updates.load(), 5);
  EXPECT_EQ(stats_.command_buffer_node_updates.load(), 5);
}

// A byte fill records as its byte replicated into a 32-bit pattern, and
// empty fills and copies record as barriers that still order their
// neighbours. The buffer is reset before the recorded run, so only the
// command buffer can have written what is read back.
TEST_P(CommandBufferThunkTest, MemsetAndMemcpyRecordWhatTheyExecute) {
  constexpr int64_t kWords = 16;
  BufferAllocation a = BufferAllocation::Temp(0, kWords * 4);
  EXPECT_FALSE(
      gpu::MemsetThunk("odd", a.GetSlice(0, 6), uint8_t{1}).IsRecordable());
  EXPECT_FALSE(gpu::MemsetThunk("unaligned", a.GetSlice(2, 8), uint8_t{1})
                   .IsRecordable());
  gpu::ThunkSequence thunks;
  thunks.push_back(std::make_unique<gpu::MemsetThunk>(
      "bytes", a.GetSlice(0, 16), uint8_t{0xAB}));
  thunks.push_back(std::make_unique<gpu::MemsetThunk>(
      "empty_fill", a.GetSlice(16, 0), uint8_t{0xCD}));
  thunks.push_back(std::make_unique<gpu::MemsetThunk>(
      "words", a.GetSlice(16, 16), uint32_t{0xCAFEF00D}));
  thunks.push_back(std::make_unique<gpu::MemcpyThunk>(
      "empty_copy", a.GetSlice(0, 0), a.GetSlice(32, 0)));
  thunks.push_back(std::make_unique<gpu::MemcpyThunk>("copy", a.GetSlice(12, 8),
                                                      a.GetSlice(40, 8)));
  CommandBufferThunk thunk("small", std::move(thunks));
  EXPECT_EQ(thunk.dependencies()[4], (std::vector<int64_t>{0, 2}));
  XLA_LITE_ASSERT_OK(Initialize(thunk));
  se::ScopedDeviceAddress mem = Upload(std::vector<uint32_t>(kWords, 7));
  BufferAllocations buffers({mem.cref()}, executor_->device_ordinal());
  XLA_LITE_ASSERT_OK(Run(thunk, buffers));
  XLA_LITE_ASSERT_OK(executor_->SynchronousMemcpyH2D(
      std::vector<uint32_t>(kWords, 7).data(), kWords * 4, mem.ptr()));
  XLA_LITE_ASSERT_OK(Run(thunk, buffers));
  EXPECT_EQ(stats_.command_buffer_launches.load(), 1);

  std::vector<uint32_t> want(kWords, 7);
  for (int i = 0; i < 4; ++i) want[i] = 0xABABABAB;
  for (int i = 4; i < 8; ++i) want[i] = 0xCAFEF00D;
  want[10] = 0xABABABAB;
  want[11] = 0xCAFEF00D;
  EXPECT_EQ(Download<uint32_t>(mem.cref()), want);
}

class FlakyCommandBufferTest : public CommandBufferThunkTest {
 protected:
  static constexpr int64_t kN = 256;
  static constexpr int64_t kBytes = kN * sizeof(float);

  // out = 2 * x + y, then fill = 1.5f from a memset that fails on demand.
  void SetUp() override {
    CommandBufferThunkTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    std::vector<BufferAllocation> a;
    for (int i = 0; i < 4; ++i) a.push_back(BufferAllocation::Temp(i, kBytes));
    gpu::ThunkSequence thunks;
    thunks.push_back(std::make_unique<gpu::KernelThunk>(
        "axpy", AxpyKernel(kN, 2.0f), se::LaunchDimensionsFor(kN),
        std::vector<BufferAllocation::Slice>{a[0].GetSlice(), a[1].GetSlice(),
                                             a[2].GetSlice()},
        std::vector<bool>{false, false, true}));
    auto flaky = std::make_unique<FlakyMemsetThunk>(
        "flaky_fill", a[3].GetSlice(), uint32_t{0x3FC00000});
    flaky_ = flaky.get();
    thunks.push_back(std::move(flaky));
    thunk_ = std::make_unique<CommandBufferThunk>("flaky", std::move(thunks));
    XLA_LITE_ASSERT_OK(Initialize(*thunk_));
    std::mt19937 rng(5);
    x_ = RandomFloats(kN, rng);
    y_ = RandomFloats(kN, rng);
    mem_.push_back(Upload(x_));
    mem_.push_back(Upload(y_));
    mem_.push_back(Allocate(kBytes));
    mem_.push_back(Allocate(kBytes));
  }

  absl::Status RunOnce() {
    std::vector<se::DeviceAddressBase> addresses;
    for (const auto& m : mem_) addresses.push_back(m.cref());
    return Run(*thunk_,
               BufferAllocations(addresses, executor_->device_ordinal()));
  }

  void ExpectResults(const std::string& what) {
    std::vector<float> want(kN), fill(kN, 1.5f);
    for (int64_t i = 0; i < kN; ++i) want[i] = 2.0f * x_[i] + y_[i];
    ExpectNear(Download<float>(mem_[2].cref()), want, what + " out");
    ExpectNear(Download<float>(mem_[3].cref()), fill, what + " fill");
  }

  std::unique_ptr<CommandBufferThunk> thunk_;
  FlakyMemsetThunk* flaky_ = nullptr;
  std::vector<float> x_, y_;
  std::vector<se::ScopedDeviceAddress> mem_;
};

// The record fails after the first command was created: nothing of that
// attempt survives, and the next execution records from scratch.
TEST_P(FlakyCommandBufferTest, FailedRecordIsRetried) {
  XLA_LITE_ASSERT_OK(RunOnce());
  flaky_->record_failures = 1;
  absl::Status failed = RunOnce();
  EXPECT_EQ(failed.code(), absl::StatusCode::kInternal) << failed;
  EXPECT_NE(failed.message().find("flaky_fill"), std::string::npos) << failed;
  EXPECT_EQ(stats_.command_buffer_records.load(), 0);
  EXPECT_EQ(stats_.command_buffer_instantiations.load(), 0);
  EXPECT_EQ(stats_.command_buffer_launches.load(), 0);

  XLA_LITE_ASSERT_OK(RunOnce());
  ExpectResults("recorded after a failure");
  EXPECT_EQ(stats_.command_buffer_records.load(), 1);
  EXPECT_EQ(stats_.command_buffer_instantiations.load(), 1);
  EXPECT_EQ(stats_.command_buffer_launches.load(), 1);
}

// A failed update discards the half-updated command buffer; the next
// execution records a new one at the new addresses.
TEST_P(FlakyCommandBufferTest, FailedUpdateRecordsAgain) {
  XLA_LITE_ASSERT_OK(RunOnce());
  XLA_LITE_ASSERT_OK(RunOnce());
  EXPECT_EQ(stats_.command_buffer_records.load(), 1);

  se::ScopedDeviceAddress old_fill = std::exchange(mem_[3], Allocate(kBytes));
  flaky_->update_failures = 1;
  absl::Status failed = RunOnce();
  EXPECT_EQ(failed.code(), absl::StatusCode::kInternal) << failed;
  EXPECT_EQ(stats_.command_buffer_updates.load(), 0);
  EXPECT_EQ(stats_.command_buffer_launches.load(), 1);

  XLA_LITE_ASSERT_OK(RunOnce());
  ExpectResults("recorded after a failed update");
  XLA_LITE_ASSERT_OK(RunOnce());
  EXPECT_EQ(stats_.command_buffer_records.load(), 2);
  EXPECT_EQ(stats_.command_buffer_instantiations.load(), 2);
  EXPECT_EQ(stats_.command_buffer_updates.load(), 0);
  EXPECT_EQ(stats_.command_buffer_launches.load(), 3);
}

TEST_P(CommandBufferThunkTest, DumpsEachRecordAsDot) {
  const std::string dot = RecordedMlpDot("dot", 6);
  EXPECT_NE(dot.find("digraph"), std::string::npos) << dot;
  EXPECT_EQ(Occurrences(dot, "->"), 4) << dot;
}

// The commands on the longest path (the gemm, the bias, and the column
// sum or last row after it; not the lone memset) are recorded at high
// priority with xla_gpu_command_buffer_priorities, and none without.
TEST_P(CommandBufferThunkTest, LongestPathIsRecordedAtHighPriority) {
  std::unique_ptr<CommandBufferThunk> probe = MlpCommandBuffer();
  const std::vector<bool>& critical = probe->critical();
  ASSERT_EQ(critical.size(), 5);
  EXPECT_TRUE(critical[0] && critical[1]);
  EXPECT_FALSE(critical[2]);
  EXPECT_TRUE(critical[3] || critical[4]);
  const int64_t want = absl::c_count(critical, true);
  for (const bool on : {true, false}) {
    SCOPED_TRACE(on);
    options_.set_xla_gpu_command_buffer_priorities(on);
    const std::string dot =
        RecordedMlpDot(absl::StrCat("priority_", on), 7);
    EXPECT_EQ(Occurrences(dot, "style=bold"), on ? want : 0) << dot;
  }
}

// Two threads, each with its own stream and buffers, share one command
// buffer: every execution must see its own addresses, whatever the other
// thread updated in between.
TEST_P(CommandBufferThunkTest, ConcurrentExecutionsOnTwoStreams) {
  std::unique_ptr<CommandBufferThunk> thunk = MlpCommandBuffer();
  XLA_LITE_ASSERT_OK(Initialize(*thunk));
  constexpr int kThreads = 2, kRuns = 20;
  std::vector<MlpBuffers> buffers;
  std::vector<std::unique_ptr<se::Stream>> streams;
  std::mt19937 rng(7);
  for (int t = 0; t < kThreads; ++t) {
    buffers.push_back(NewMlpBuffers(rng));
    auto stream = executor_->CreateStream();
    ASSERT_TRUE(stream.ok()) << stream.status();
    streams.push_back(std::move(*stream));
  }
  std::vector<MlpResults> want;
  for (const MlpBuffers& b : buffers) {
    want.push_back(MlpReference(b.x, b.w, b.b));
  }

  auto work = [&](int t) {
    se::Stream* stream = streams[t].get();
    BufferAllocations allocations = buffers[t].Get(executor_->device_ordinal());
    std::vector<float> z(kMlpM * kMlpN), sums(kMlpN);
    for (int run = 0; run < kRuns; ++run) {
      absl::Status status = Run(*thunk, allocations, stream);
      if (status.ok()) {
        status = stream->Memcpy(z.data(), buffers[t].mem[kMlpZ].cref(),
                                z.size() * 4);
      }
      if (status.ok()) {
        status = stream->Memcpy(sums.data(), buffers[t].mem[kMlpSums].cref(),
                                sums.size() * 4);
      }
      if (status.ok()) status = stream->BlockHostUntilDone();
      ASSERT_TRUE(status.ok()) << status;
      std::string what = absl::StrCat("thread ", t, " run ", run);
      ExpectNear(z, want[t].z, what + " z");
      ExpectNear(sums, want[t].sums, what + " sums");
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(work, t);
  for (auto& thread : threads) thread.join();

  const int64_t updates = stats_.command_buffer_updates.load();
  EXPECT_EQ(stats_.thunks_executed.load(), 5);
  EXPECT_EQ(stats_.command_buffer_records.load(), 1);
  EXPECT_EQ(stats_.command_buffer_launches.load(), kThreads * kRuns - 1);
  // The threads share no buffer, so an update changes all five commands
  // and looks up one gemm trace.
  EXPECT_EQ(stats_.command_buffer_node_updates.load(), 5 * updates);
  EXPECT_LE(stats_.command_buffer_traces.load(), 2);
  EXPECT_EQ(stats_.command_buffer_traces.load() +
                stats_.command_buffer_trace_cache_hits.load(),
            1 + updates);
}

INSTANTIATE_FOR_ALL_PLATFORMS(CommandBufferThunkTest);
INSTANTIATE_FOR_ALL_PLATFORMS(FlakyCommandBufferTest);

}  // namespace
}  // namespace xla_lite::testing
