// NCCL/RCCL collectives: the run-time loader (a missing library is a
// clear error, so binaries without it still start), the unique id
// exchange of the multi-process mode over TCP on localhost (and its
// timeout), and, where a GPU and NCCL exist, a communicator of one rank
// whose all-reduce is a copy (skipped without them).

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "stream_executor/collectives/communicator.h"
#include "stream_executor/collectives/unique_id_exchange.h"
#include "stream_executor/gpu/nccl_api.h"
#include "stream_executor/platform_manager.h"

namespace xla_lite::testing {
namespace {

namespace se = ::stream_executor;
using ::testing::HasSubstr;

TEST(NcclApiTest, MissingLibraryIsAClearError) {
  auto api = se::gpu::LoadNcclApi("TESTCCL", {"libxla_lite_no_such_ccl.so.9"});
  ASSERT_FALSE(api.ok());
  EXPECT_EQ(api.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(api.status().message(), HasSubstr("TESTCCL"));
}

// A port nobody listens on right now.
int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

TEST(UniqueIdExchangeTest, RankZeroSendsItsIdToEveryRank) {
  const int port = FreePort();
  const std::string id(128, 'x');
  std::vector<absl::StatusOr<std::string>> got(3, std::string());
  std::vector<std::thread> ranks;
  // The others start first: they retry until rank 0 listens.
  for (int r = 2; r >= 0; --r) {
    ranks.emplace_back([&, r] {
      se::RendezvousConfig config;
      config.rank = r;
      config.world_size = 3;
      config.port = port;
      config.timeout = absl::Seconds(20);
      got[r] = se::ExchangeUniqueId(config, r == 0 ? id : "");
    });
    if (r == 1) absl::SleepFor(absl::Milliseconds(100));
  }
  for (auto& t : ranks) t.join();
  for (int r = 0; r < 3; ++r) {
    ASSERT_TRUE(got[r].ok()) << "rank " << r << ": " << got[r].status();
    EXPECT_EQ(*got[r], id) << r;
  }
}

TEST(UniqueIdExchangeTest, MissingRankZeroTimesOut) {
  se::RendezvousConfig config;
  config.rank = 1;
  config.world_size = 2;
  config.port = FreePort();
  config.timeout = absl::Milliseconds(300);
  const absl::Time start = absl::Now();
  auto got = se::ExchangeUniqueId(config, "");
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(got.status().message(), HasSubstr("did not answer"));
}

TEST(UniqueIdExchangeTest, MissingPeerTimesOutOnRankZero) {
  se::RendezvousConfig config;
  config.world_size = 2;
  config.port = FreePort();
  config.timeout = absl::Milliseconds(300);
  auto got = se::ExchangeUniqueId(config, "id");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(got.status().message(), HasSubstr("only 0 of 1"));
}

// One GPU: a communicator of one rank; its all-reduce is a copy.
TEST(NcclOneGpuTest, AllReduceOfOneRankCopies) {
  for (const char* name : {"cuda", "rocm"}) {
    auto platform = se::PlatformManager::PlatformWithName(name);
    if (!platform.ok() || !(*platform)->Availability().ok()) continue;
    auto backend = se::CollectivesBackendFor(name);
    ASSERT_TRUE(backend.ok()) << backend.status();
    auto executor = (*platform)->ExecutorForDevice(0);
    ASSERT_TRUE(executor.ok());
    std::vector<se::StreamExecutor*> one = {*executor};
    auto comms = (*backend)->CreateCommunicators(one, {});
    if (!comms.ok() &&
        comms.status().code() == absl::StatusCode::kFailedPrecondition) {
      GTEST_SKIP() << "no collectives library: " << comms.status();
    }
    ASSERT_TRUE(comms.ok()) << comms.status();
    auto stream = (*executor)->CreateStream();
    ASSERT_TRUE(stream.ok());
    std::vector<float> host = {1, 2, 3, 4};
    auto send = (*executor)->Allocate(16);
    auto recv = (*executor)->Allocate(16);
    ASSERT_TRUE(send.ok() && recv.ok());
    ASSERT_TRUE((*stream)->Memcpy(&*send, host.data(), 16).ok());
    ASSERT_TRUE((*comms)[0]->AllReduce(*send, *recv,
                                       se::CollectiveDataType::kF32, 4,
                                       se::ReductionKind::kSum,
                                       stream->get()).ok());
    std::vector<float> out(4);
    ASSERT_TRUE((*stream)->Memcpy(out.data(), *recv, 16).ok());
    ASSERT_TRUE((*stream)->BlockHostUntilDone().ok());
    EXPECT_EQ(out, host);
    (void)(*executor)->Deallocate(&*send);
    (void)(*executor)->Deallocate(&*recv);
    return;
  }
  GTEST_SKIP() << "no GPU platform available here";
}

}  // namespace
}  // namespace xla_lite::testing
