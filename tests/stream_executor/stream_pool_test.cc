// The executor's stream pool on every platform: a returned stream is lent
// again, streams lent at once are distinct, a stream comes back idle and a
// stream with failed work or an open capture is not lent again.

#include <atomic>
#include <chrono>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "gtest/gtest.h"
#include "stream_executor/device_address_allocator.h"
#include "stream_executor/platform.h"
#include "stream_executor/stream_pool.h"
#include "tests/platform_test_util.h"

namespace xla_lite::testing {
namespace {

namespace se = ::stream_executor;

class StreamPoolTest : public PlatformTest {
 protected:
  // An executor of the test's own, so that idle counts start at zero.
  void SetUp() override {
    PlatformTest::SetUp();
    if (IsSkipped()) return;
    auto executor = platform_->CreateExecutor(se::StreamExecutorConfig{});
    ASSERT_TRUE(executor.ok()) << executor.status();
    own_ = std::move(*executor);
  }

  se::StreamPool::Ptr Borrow() {
    absl::StatusOr<se::StreamPool::Ptr> stream = own_->BorrowStream();
    EXPECT_TRUE(stream.ok()) << stream.status();
    return stream.ok() ? std::move(*stream) : se::StreamPool::Ptr();
  }

  std::unique_ptr<se::StreamExecutor> own_;
};

TEST_P(StreamPoolTest, ReturnedStreamIsLentAgain) {
  se::StreamPool::Ptr first = Borrow();
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->parent(), own_.get());
  const se::Stream* address = first.get();
  first.reset();
  se::StreamPool::Ptr again = Borrow();
  EXPECT_EQ(again.get(), address);
}

TEST_P(StreamPoolTest, StreamsLentAtOnceAreDistinctAndTheLastReturnedIsFirst) {
  se::StreamPool::Ptr a = Borrow();
  se::StreamPool::Ptr b = Borrow();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a.get(), b.get());
  const se::Stream* last = a.get();
  b.reset();
  a.reset();
  se::StreamPool::Ptr next = Borrow();
  EXPECT_EQ(next.get(), last);
}

TEST_P(StreamPoolTest, ReturnWaitsForTheStreamsWork) {
  std::atomic<bool> done{false};
  se::StreamPool::Ptr stream = Borrow();
  ASSERT_NE(stream, nullptr);
  ASSERT_TRUE(stream
                  ->DoHostCallback([&] {
                    std::this_thread::sleep_for(std::chrono::milliseconds(50));
                    done = true;
                  })
                  .ok());
  stream.reset();
  EXPECT_TRUE(done);
}

TEST_P(StreamPoolTest, StreamWithFailedWorkIsNotLentAgain) {
  se::StreamPool::Ptr failing = Borrow();
  ASSERT_NE(failing, nullptr);
  se::StreamPool::Ptr healthy = Borrow();
  ASSERT_NE(healthy, nullptr);
  const se::Stream* healthy_address = healthy.get();
  healthy.reset();
  ASSERT_TRUE(failing
                  ->DoHostCallbackWithStatus(
                      [] { return absl::InternalError("injected failure"); })
                  .ok());
  failing.reset();
  // Only the healthy stream came back.
  se::StreamPool::Ptr next = Borrow();
  EXPECT_EQ(next.get(), healthy_address);
  ASSERT_TRUE(next->BlockHostUntilDone().ok());
  se::StreamPool::Ptr fresh = Borrow();
  ASSERT_NE(fresh, nullptr);
  EXPECT_TRUE(fresh->BlockHostUntilDone().ok());
}

TEST_P(StreamPoolTest, StreamStillCapturingIsNotLentAgain) {
  se::StreamPool::Ptr capturing = Borrow();
  ASSERT_NE(capturing, nullptr);
  const se::Stream* capturing_address = capturing.get();
  ASSERT_TRUE(capturing->BeginCapture().ok());
  capturing.reset();
  // Takes the destroyed stream's memory, so that the next stream lent
  // cannot have its address unless the pool kept it.
  auto unpooled = own_->CreateStream();
  ASSERT_TRUE(unpooled.ok()) << unpooled.status();
  // The capture ended with its stream: the executor allocates again.
  se::StreamExecutorAllocator allocator(own_.get());
  absl::StatusOr<se::ScopedDeviceAddress> buffer =
      allocator.Allocate(own_->device_ordinal(), 256);
  EXPECT_TRUE(buffer.ok()) << buffer.status();
  se::StreamPool::Ptr next = Borrow();
  ASSERT_NE(next, nullptr);
  EXPECT_NE(next.get(), capturing_address);
  EXPECT_FALSE(next->IsCapturing());
  EXPECT_TRUE(next->BlockHostUntilDone().ok());
}

TEST_P(StreamPoolTest, ThreadsBorrowRunAndReturn) {
  constexpr int kThreads = 8;
  constexpr int kRounds = 50;
  se::StreamExecutorAllocator allocator(own_.get());
  std::vector<se::ScopedDeviceAddress> buffers;
  for (int t = 0; t < kThreads; ++t) {
    auto buffer = allocator.Allocate(own_->device_ordinal(), 4096);
    ASSERT_TRUE(buffer.ok()) << buffer.status();
    buffers.push_back(std::move(*buffer));
  }
  std::atomic<int> failures{0};
  // The streams lent right now: one lent twice at once is a failure.
  absl::Mutex mu;
  std::set<const se::Stream*> lent;
  int lent_twice = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round) {
        absl::StatusOr<se::StreamPool::Ptr> stream = own_->BorrowStream();
        if (!stream.ok()) {
          ++failures;
          continue;
        }
        {
          absl::MutexLock lock(&mu);
          if (!lent.insert(stream->get()).second) ++lent_twice;
        }
        if (!(*stream)->Memset32(buffers[t].ptr(), round, 4096).ok()) {
          ++failures;
        }
        absl::MutexLock lock(&mu);
        lent.erase(stream->get());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(lent_twice, 0);
  for (int t = 0; t < kThreads; ++t) {
    uint32_t value = 0;
    ASSERT_TRUE(own_->SynchronousMemcpyD2H(buffers[t].cref(), 4, &value).ok());
    EXPECT_EQ(value, kRounds - 1) << "thread " << t;
  }
}

TEST_P(StreamPoolTest, ExecutorWithIdleStreamsIsDestroyedCleanly) {
  Borrow().reset();
  Borrow().reset();
  // Without ClearStreamPool in the platform's destructor this aborts.
  own_.reset();
}

INSTANTIATE_FOR_ALL_PLATFORMS(StreamPoolTest);

}  // namespace
}  // namespace xla_lite::testing
