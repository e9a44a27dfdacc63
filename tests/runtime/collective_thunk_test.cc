// CollectiveThunk on the host platform's two devices, a thread per device
// as a multi-device run drives them: values of each collective, one
// communicator set per device group created once and reused, a device
// that never arrives (the other fails in time, never hangs), a device
// alone (copies), and the recorded path: the collective inside a command
// buffer records on step 2 and then only replays.

#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "stream_executor/platform_manager.h"
#include "xla_lite/debug_options.pb.h"
#include "xla_lite/runtime/buffer_allocations.h"
#include "xla_lite/runtime/collective_cliques.h"
#include "xla_lite/runtime/collective_thunk.h"
#include "xla_lite/runtime/command_buffer_thunk.h"
#include "xla_lite/runtime/execution_stats.h"

namespace xla_lite::testing {
namespace {

namespace se = ::stream_executor;
using gpu::BufferAllocation;
using gpu::BufferAllocations;
using gpu::CollectiveConfig;
using gpu::Thunk;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int kDevices = 2;

class CollectiveThunkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto platform = se::PlatformManager::PlatformWithName("host");
    ASSERT_TRUE(platform.ok());
    for (int d = 0; d < kDevices; ++d) {
      auto executor = (*platform)->ExecutorForDevice(d);
      ASSERT_TRUE(executor.ok());
      executors_.push_back(*executor);
      auto stream = (*executor)->CreateStream();
      ASSERT_TRUE(stream.ok());
      streams_.push_back(std::move(*stream));
    }
    options_.add_xla_gpu_enable_command_buffer(DebugOptions::COLLECTIVES);
    options_.set_xla_gpu_graph_min_graph_size(1);
  }
  void TearDown() override {
    for (auto& [device, mem] : memory_) {
      (void)executors_[device]->Deallocate(&mem);
    }
  }

  std::unique_ptr<gpu::CollectiveCliques> Cliques(absl::Duration timeout) {
    se::CollectiveOptions options;
    options.timeout = timeout;
    return std::make_unique<gpu::CollectiveCliques>(
        executors_, DeviceTopology{1, kDevices}, options);
  }

  // One allocation per device: [source | destination].
  se::DeviceAddressBase Memory(int device, std::vector<float> values) {
    auto mem = executors_[device]->Allocate(values.size() * sizeof(float));
    EXPECT_TRUE(mem.ok());
    std::memcpy(mem->opaque(), values.data(), values.size() * sizeof(float));
    memory_.push_back({device, *mem});
    return *mem;
  }
  static std::vector<float> Read(se::DeviceAddressBase mem) {
    const float* p = static_cast<const float*>(mem.opaque());
    return std::vector<float>(p, p + mem.size() / sizeof(float));
  }

  // Runs `thunk` on every device at once (device d over memory[d]).
  std::vector<absl::Status> RunOnAll(Thunk& thunk,
                                     const std::vector<se::DeviceAddressBase>& memory,
                                     gpu::CollectiveCliques* cliques,
                                     int devices = kDevices) {
    std::vector<absl::Status> status(devices);
    std::vector<std::thread> threads;
    for (int d = 0; d < devices; ++d) {
      threads.emplace_back([&, d] { status[d] = RunOne(thunk, memory[d], cliques, d); });
    }
    for (auto& t : threads) t.join();
    return status;
  }

  absl::Status RunOne(Thunk& thunk, se::DeviceAddressBase memory,
                      gpu::CollectiveCliques* cliques, int d) {
    absl::Status init = thunk.Initialize({executors_[d], streams_[d].get(), &options_});
    if (!init.ok()) return init;
    BufferAllocations buffers({memory}, d);
    gpu::CollectiveExecuteParams collectives{d, cliques};
    Thunk::ExecuteParams params;
    params.buffer_allocations = &buffers;
    params.stream = streams_[d].get();
    params.debug_options = &options_;
    params.stats = &stats_[d];
    params.collectives = cliques != nullptr ? &collectives : nullptr;
    absl::Status run = thunk.ExecuteOnStream(params);
    if (!run.ok()) return run;
    return streams_[d]->BlockHostUntilDone();
  }

  static CollectiveConfig Config(CollectiveConfig::Op op, int64_t in,
                                 int64_t out) {
    CollectiveConfig config;
    config.op = op;
    config.mode = CollectiveGroupMode::kFlattenedId;
    config.replica_groups = {{0, 1}};
    config.source_elements = in;
    config.destination_elements = out;
    return config;
  }

  std::vector<se::StreamExecutor*> executors_;
  std::vector<std::unique_ptr<se::Stream>> streams_;
  std::vector<std::pair<int, se::DeviceAddressBase>> memory_;
  gpu::ExecutionStats stats_[kDevices];
  DebugOptions options_;
};

TEST_F(CollectiveThunkTest, AllReduceAndAllGatherOnTwoDevices) {
  auto cliques = Cliques(absl::Seconds(30));
  BufferAllocation a = BufferAllocation::Temp(0, 6 * sizeof(float));
  const int64_t f = sizeof(float);
  gpu::CollectiveThunk reduce("ar", Config(CollectiveConfig::Op::kAllReduce, 2, 2),
                              a.GetSlice(0, 2 * f), a.GetSlice(2 * f, 2 * f));
  gpu::CollectiveThunk gather("ag", Config(CollectiveConfig::Op::kAllGather, 1, 2),
                              a.GetSlice(0, f), a.GetSlice(4 * f, 2 * f));
  std::vector<se::DeviceAddressBase> memory = {Memory(0, {1, 2, 0, 0, 0, 0}),
                                               Memory(1, {10, 20, 0, 0, 0, 0})};
  for (const absl::Status& s : RunOnAll(reduce, memory, cliques.get())) {
    ASSERT_TRUE(s.ok()) << s;
  }
  for (const absl::Status& s : RunOnAll(gather, memory, cliques.get())) {
    ASSERT_TRUE(s.ok()) << s;
  }
  EXPECT_THAT(Read(memory[0]), ElementsAre(1, 2, 11, 22, 1, 10));
  EXPECT_THAT(Read(memory[1]), ElementsAre(10, 20, 11, 22, 1, 10));
  // Both thunks and both runs used the one communicator set of {0,1}.
  EXPECT_EQ(cliques->cliques_created(), 1);
}

TEST_F(CollectiveThunkTest, DeviceThatNeverArrivesFailsTheOtherInTime) {
  auto cliques = Cliques(absl::Milliseconds(200));
  BufferAllocation a = BufferAllocation::Temp(0, 2 * sizeof(float));
  gpu::CollectiveThunk reduce("ar", Config(CollectiveConfig::Op::kAllReduce, 1, 1),
                              a.GetSlice(0, 4), a.GetSlice(4, 4));
  se::DeviceAddressBase memory = Memory(0, {1, 0});
  const absl::Time start = absl::Now();
  absl::Status status = RunOne(reduce, memory, cliques.get(), 0);
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
  EXPECT_THAT(status.message(), HasSubstr("did not arrive"));
}

TEST_F(CollectiveThunkTest, AloneAllReduceIsACopy) {
  BufferAllocation a = BufferAllocation::Temp(0, 4 * sizeof(float));
  gpu::CollectiveThunk reduce("ar", Config(CollectiveConfig::Op::kAllReduce, 2, 2),
                              a.GetSlice(0, 8), a.GetSlice(8, 8));
  se::DeviceAddressBase memory = Memory(0, {3, 4, 0, 0});
  ASSERT_TRUE(RunOne(reduce, memory, nullptr, 0).ok());
  EXPECT_THAT(Read(memory), ElementsAre(3, 4, 3, 4));
}

TEST_F(CollectiveThunkTest, RecordedInACommandBufferThenReplayedOnly) {
  auto cliques = Cliques(absl::Seconds(30));
  BufferAllocation a = BufferAllocation::Temp(0, 2 * sizeof(float));
  gpu::ThunkSequence body;
  body.push_back(std::make_unique<gpu::CollectiveThunk>(
      "ar", Config(CollectiveConfig::Op::kAllReduce, 1, 1), a.GetSlice(0, 4),
      a.GetSlice(4, 4)));
  gpu::CommandBufferThunk command_buffer("cb", std::move(body));
  std::vector<se::DeviceAddressBase> memory = {Memory(0, {1, 0}),
                                               Memory(1, {2, 0})};
  gpu::ExecutionCounters after_two[kDevices];
  for (int step = 1; step <= 5; ++step) {
    for (const absl::Status& s : RunOnAll(command_buffer, memory, cliques.get())) {
      ASSERT_TRUE(s.ok()) << "step " << step << ": " << s;
    }
    for (int d = 0; d < kDevices; ++d) {
      EXPECT_THAT(Read(memory[d]), ElementsAre(d + 1, 3)) << "step " << step;
      if (step == 2) after_two[d] = stats_[d].Snapshot();
    }
  }
  for (int d = 0; d < kDevices; ++d) {
    const gpu::ExecutionCounters steady = stats_[d].Snapshot() - after_two[d];
    EXPECT_EQ(steady.command_buffer_records, 0) << d;
    EXPECT_EQ(steady.command_buffer_updates, 0) << d;
    EXPECT_EQ(steady.command_buffer_launches, 3) << d;
    EXPECT_GE(stats_[d].Snapshot().command_buffer_records, 1) << d;
  }
}

}  // namespace
}  // namespace xla_lite::testing
