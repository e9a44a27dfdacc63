// The host platform's in-process communicators over its two devices:
// every operation's values, a rank that never arrives (the other fails
// with DEADLINE_EXCEEDED within the timeout, and later operations at
// once), and captured operations replayed as a command buffer replays
// them.

#include <cstring>
#include <memory>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "stream_executor/collectives/communicator.h"
#include "stream_executor/host/host_stream.h"
#include "stream_executor/platform_manager.h"

namespace xla_lite::testing {
namespace {

namespace se = ::stream_executor;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class HostCollectivesTest : public ::testing::Test {
 protected:
  void SetUp() override { SetUpRanks(absl::Seconds(30)); }

  void SetUpRanks(absl::Duration timeout) {
    auto platform = se::PlatformManager::PlatformWithName("host");
    ASSERT_TRUE(platform.ok()) << platform.status();
    std::vector<se::StreamExecutor*> executors;
    for (int d = 0; d < 2; ++d) {
      auto executor = (*platform)->ExecutorForDevice(d);
      ASSERT_TRUE(executor.ok()) << executor.status();
      executors.push_back(*executor);
      auto stream = (*executor)->CreateStream();
      ASSERT_TRUE(stream.ok());
      streams_.push_back(std::move(*stream));
    }
    auto backend = se::CollectivesBackendFor("host");
    ASSERT_TRUE(backend.ok()) << backend.status();
    se::CollectiveOptions options;
    options.timeout = timeout;
    auto comms = (*backend)->CreateCommunicators(executors, options);
    ASSERT_TRUE(comms.ok()) << comms.status();
    comms_ = std::move(*comms);
    executors_ = executors;
  }

  void TearDown() override {
    for (auto& buffer : buffers_) {
      (void)executors_[buffer.first]->Deallocate(&buffer.second);
    }
  }

  se::DeviceAddressBase Buffer(int rank, std::vector<float> values) {
    auto mem = executors_[rank]->Allocate(values.size() * sizeof(float));
    EXPECT_TRUE(mem.ok());
    std::memcpy(mem->opaque(), values.data(), values.size() * sizeof(float));
    buffers_.push_back({rank, *mem});
    return *mem;
  }
  static std::vector<float> Read(se::DeviceAddressBase mem) {
    const float* p = static_cast<const float*>(mem.opaque());
    return std::vector<float>(p, p + mem.size() / sizeof(float));
  }
  void Sync() {
    for (auto& stream : streams_) {
      absl::Status done = stream->BlockHostUntilDone();
      EXPECT_TRUE(done.ok()) << done;
    }
  }

  std::vector<se::StreamExecutor*> executors_;
  std::vector<std::unique_ptr<se::Stream>> streams_;
  std::vector<std::unique_ptr<se::Communicator>> comms_;
  std::vector<std::pair<int, se::DeviceAddressBase>> buffers_;
};

TEST_F(HostCollectivesTest, AllReduceAllGatherReduceScatterPermute) {
  const auto f32 = se::CollectiveDataType::kF32;
  se::DeviceAddressBase send[2] = {Buffer(0, {1, 2}), Buffer(1, {10, 20})};
  se::DeviceAddressBase sum[2] = {Buffer(0, {0, 0}), Buffer(1, {0, 0})};
  se::DeviceAddressBase all[2] = {Buffer(0, {0, 0, 0, 0}),
                                  Buffer(1, {0, 0, 0, 0})};
  se::DeviceAddressBase part[2] = {Buffer(0, {0}), Buffer(1, {0})};
  se::DeviceAddressBase moved[2] = {Buffer(0, {7, 7}), Buffer(1, {7, 7})};
  for (int r = 0; r < 2; ++r) {
    se::Stream* s = streams_[r].get();
    ASSERT_TRUE(comms_[r]->AllReduce(send[r], sum[r], f32, 2,
                                     se::ReductionKind::kSum, s).ok());
    ASSERT_TRUE(comms_[r]->AllGather(send[r], all[r], f32, 2, s).ok());
    ASSERT_TRUE(comms_[r]->ReduceScatter(send[r], part[r], f32, 1,
                                         se::ReductionKind::kMax, s).ok());
    std::optional<int> source, target;
    if (r == 0) target = 1;
    if (r == 1) source = 0;
    ASSERT_TRUE(comms_[r]->CollectivePermute(send[r], moved[r], f32, 2, source,
                                             target, s).ok());
  }
  Sync();
  for (int r = 0; r < 2; ++r) {
    EXPECT_THAT(Read(sum[r]), ElementsAre(11, 22));
    EXPECT_THAT(Read(all[r]), ElementsAre(1, 2, 10, 20));
  }
  EXPECT_THAT(Read(part[0]), ElementsAre(10));
  EXPECT_THAT(Read(part[1]), ElementsAre(20));
  EXPECT_THAT(Read(moved[0]), ElementsAre(0, 0));
  EXPECT_THAT(Read(moved[1]), ElementsAre(1, 2));
}

TEST_F(HostCollectivesTest, RankThatNeverArrivesFailsTheOtherInTime) {
  streams_.clear();
  comms_.clear();
  SetUpRanks(absl::Milliseconds(200));
  se::DeviceAddressBase a = Buffer(0, {1});
  ASSERT_TRUE(comms_[0]->AllReduce(a, a, se::CollectiveDataType::kF32, 1,
                                   se::ReductionKind::kSum,
                                   streams_[0].get()).ok());
  const absl::Time start = absl::Now();
  absl::Status status = streams_[0]->BlockHostUntilDone();
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
  EXPECT_THAT(status.message(), HasSubstr("rank(s) 1 of 2 did not arrive"));
  EXPECT_EQ(comms_[1]->HealthCheck().code(),
            absl::StatusCode::kDeadlineExceeded);
  // The late rank fails at once instead of waiting for a partner.
  se::DeviceAddressBase b = Buffer(1, {1});
  ASSERT_TRUE(comms_[1]->AllReduce(b, b, se::CollectiveDataType::kF32, 1,
                                   se::ReductionKind::kSum,
                                   streams_[1].get()).ok());
  EXPECT_EQ(streams_[1]->BlockHostUntilDone().code(),
            absl::StatusCode::kDeadlineExceeded);
}

TEST_F(HostCollectivesTest, AbortFailsPendingOperations) {
  se::DeviceAddressBase a = Buffer(0, {1});
  ASSERT_TRUE(comms_[0]->AllReduce(a, a, se::CollectiveDataType::kF32, 1,
                                   se::ReductionKind::kSum,
                                   streams_[0].get()).ok());
  absl::SleepFor(absl::Milliseconds(20));
  ASSERT_TRUE(comms_[1]->Abort(absl::AbortedError("rank 1 failed")).ok());
  absl::Status status = streams_[0]->BlockHostUntilDone();
  EXPECT_EQ(status.code(), absl::StatusCode::kAborted) << status;
}

// Stream capture records the operation; replaying it twice (as a command
// buffer's submits do) meets the other rank's replays and sums again.
TEST_F(HostCollectivesTest, CapturedAllReduceReplays) {
  se::DeviceAddressBase buf[2] = {Buffer(0, {1}), Buffer(1, {2})};
  std::vector<std::unique_ptr<se::CapturedGraph>> graphs;
  for (int r = 0; r < 2; ++r) {
    ASSERT_TRUE(streams_[r]->BeginCapture().ok());
    ASSERT_TRUE(comms_[r]->AllReduce(buf[r], buf[r],
                                     se::CollectiveDataType::kF32, 1,
                                     se::ReductionKind::kSum,
                                     streams_[r].get()).ok());
    auto graph = streams_[r]->EndCapture();
    ASSERT_TRUE(graph.ok()) << graph.status();
    EXPECT_EQ((*graph)->num_nodes(), 1);
    graphs.push_back(std::move(*graph));
  }
  EXPECT_THAT(Read(buf[0]), ElementsAre(1));  // captured, not run
  for (int replay = 0; replay < 2; ++replay) {
    for (int r = 0; r < 2; ++r) {
      auto* stream = static_cast<se::host::HostStream*>(streams_[r].get());
      for (const auto& op :
           static_cast<se::host::HostCapturedGraph*>(graphs[r].get())->ops()) {
        ASSERT_TRUE(stream->Enqueue(op).ok());
      }
    }
    Sync();
  }
  EXPECT_THAT(Read(buf[0]), ElementsAre(6));  // (1+2) then (3+3)
  EXPECT_THAT(Read(buf[1]), ElementsAre(6));
}

TEST(HostCollectivesRegistryTest, UnknownPlatformIsNotFound) {
  auto backend = se::CollectivesBackendFor("tpu");
  EXPECT_EQ(backend.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(backend.status().message(), HasSubstr("'tpu'"));
}

}  // namespace
}  // namespace xla_lite::testing
