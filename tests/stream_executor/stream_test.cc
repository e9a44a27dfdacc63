// Stream semantics every platform must honour: ordering, copies, memsets,
// callbacks, events, capture.

#include <chrono>
#include <cstring>
#include <numeric>
#include <random>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "stream_executor/device_address_allocator.h"
#include "tests/platform_test_util.h"

namespace xla_lite::testing {
namespace {

namespace se = ::stream_executor;

class StreamTest : public PlatformTest {
 protected:
  se::ScopedDeviceAddress Alloc(uint64_t bytes) {
    auto mem = allocator().Allocate(executor_->device_ordinal(), bytes);
    EXPECT_TRUE(mem.ok()) << mem.status();
    return std::move(*mem);
  }
  se::StreamExecutorAllocator& allocator() {
    if (!allocator_) allocator_ = std::make_unique<se::StreamExecutorAllocator>(executor_);
    return *allocator_;
  }
  std::unique_ptr<se::Stream> NewStream() {
    auto stream = executor_->CreateStream();
    EXPECT_TRUE(stream.ok()) << stream.status();
    return std::move(*stream);
  }
  std::unique_ptr<se::StreamExecutorAllocator> allocator_;
};

// Writes `value` to out[0] after a delay long enough that a missing
// dependency would be observed: the host sleeps, the GPU spins on clock64.
se::KernelSpec SlowWriteKernel() {
  se::KernelSpec spec;
  spec.name = "slow_write";
  spec.arity = 2;
  spec.cuda_source = R"(
extern "C" __global__ void slow_write(float* out, float value) {
  long long start = clock64();
  while (clock64() - start < 20000000LL) {}
  out[0] = value;
})";
  spec.host_fn = [](const se::KernelArgs& args, const se::LaunchDimensions&) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    args.ptr<float>(0)[0] = args[1].scalar<float>();
    return absl::OkStatus();
  };
  return spec;
}

TEST_P(StreamTest, MemcpyRoundTrip) {
  std::mt19937 rng(1);
  for (uint64_t size : {uint64_t{1}, uint64_t{13}, uint64_t{4096}, uint64_t{1} << 20}) {
    std::vector<uint8_t> in(size), out(size, 0);
    for (auto& b : in) b = rng();
    auto a = Alloc(size), b = Alloc(size);
    auto stream = NewStream();
    ASSERT_TRUE(stream->Memcpy(a.ptr(), in.data(), size).ok());
    ASSERT_TRUE(stream->Memcpy(b.ptr(), a.cref(), size).ok());
    ASSERT_TRUE(stream->Memcpy(out.data(), b.cref(), size).ok());
    ASSERT_TRUE(stream->BlockHostUntilDone().ok());
    EXPECT_EQ(in, out) << "size " << size;
  }
}

TEST_P(StreamTest, MemcpyLargerThanBufferIsRejected) {
  auto a = Alloc(16);
  std::vector<uint8_t> host(32);
  auto stream = NewStream();
  EXPECT_EQ(stream->Memcpy(a.ptr(), host.data(), 32).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_P(StreamTest, Memsets) {
  auto a = Alloc(64);
  auto stream = NewStream();
  std::vector<uint8_t> bytes(64);
  ASSERT_TRUE(stream->Memset8(a.ptr(), 0xAB, 64).ok());
  ASSERT_TRUE(stream->Memcpy(bytes.data(), a.cref(), 64).ok());
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());
  EXPECT_EQ(bytes, std::vector<uint8_t>(64, 0xAB));

  std::vector<uint32_t> words(16);
  ASSERT_TRUE(stream->Memset32(a.ptr(), 0xDEADBEEF, 64).ok());
  ASSERT_TRUE(stream->Memcpy(words.data(), a.cref(), 64).ok());
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());
  EXPECT_EQ(words, std::vector<uint32_t>(16, 0xDEADBEEF));

  ASSERT_TRUE(stream->MemZero(a.ptr(), 64).ok());
  ASSERT_TRUE(stream->Memcpy(words.data(), a.cref(), 64).ok());
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());
  EXPECT_EQ(words, std::vector<uint32_t>(16, 0));

  EXPECT_EQ(stream->Memset32(a.ptr(), 1, 6).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_P(StreamTest, HostCallbacksRunInOrderAndReportErrors) {
  auto a = Alloc(sizeof(float));
  auto stream = NewStream();
  float value = 3.5f, seen = 0;
  ASSERT_TRUE(stream->Memcpy(a.ptr(), &value, sizeof(float)).ok());
  float out = 0;
  ASSERT_TRUE(stream->Memcpy(&out, a.cref(), sizeof(float)).ok());
  ASSERT_TRUE(stream->DoHostCallback([&] { seen = out; }).ok());
  ASSERT_TRUE(stream->DoHostCallbackWithStatus([] {
                return absl::DataLossError("callback failed");
              }).ok());
  absl::Status status = stream->BlockHostUntilDone();
  EXPECT_EQ(seen, 3.5f);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << status;
  // The error is reported once; the stream stays usable.
  EXPECT_TRUE(stream->BlockHostUntilDone().ok());
}

TEST_P(StreamTest, EventOrdersTwoStreams) {
  auto kernel = executor_->LoadKernel(SlowWriteKernel());
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  auto buf = Alloc(sizeof(float));
  auto producer = NewStream(), consumer = NewStream();
  float zero = 0;
  ASSERT_TRUE(producer->Memcpy(buf.ptr(), &zero, sizeof(float)).ok());
  ASSERT_TRUE(producer->BlockHostUntilDone().ok());

  se::KernelArgs args;
  args.AddAddress(buf.cref());
  args.AddScalar(42.0f);
  ASSERT_TRUE(producer->Launch(se::LaunchDimensions(1, 1), **kernel, args).ok());
  auto event = executor_->CreateEvent();
  ASSERT_TRUE(event.ok());
  ASSERT_TRUE(producer->RecordEvent(event->get()).ok());
  ASSERT_TRUE(consumer->WaitFor(event->get()).ok());
  float out = -1;
  ASSERT_TRUE(consumer->Memcpy(&out, buf.cref(), sizeof(float)).ok());
  ASSERT_TRUE(consumer->BlockHostUntilDone().ok());
  EXPECT_EQ(out, 42.0f) << "the consumer ran before the producer's event";
  EXPECT_TRUE((*event)->IsComplete());
  ASSERT_TRUE(producer->BlockHostUntilDone().ok());
}

TEST_P(StreamTest, WaitForStream) {
  auto kernel = executor_->LoadKernel(SlowWriteKernel());
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  auto buf = Alloc(sizeof(float));
  auto producer = NewStream(), consumer = NewStream();
  se::KernelArgs args;
  args.AddAddress(buf.cref());
  args.AddScalar(7.0f);
  ASSERT_TRUE(producer->Launch(se::LaunchDimensions(1, 1), **kernel, args).ok());
  ASSERT_TRUE(consumer->WaitFor(producer.get()).ok());
  float out = -1;
  ASSERT_TRUE(consumer->Memcpy(&out, buf.cref(), sizeof(float)).ok());
  ASSERT_TRUE(consumer->BlockHostUntilDone().ok());
  EXPECT_EQ(out, 7.0f);
}

TEST_P(StreamTest, WaitOnNeverRecordedEventDoesNotBlock) {
  auto event = executor_->CreateEvent();
  ASSERT_TRUE(event.ok());
  auto stream = NewStream();
  ASSERT_TRUE(stream->WaitFor(event->get()).ok());
  EXPECT_TRUE(stream->BlockHostUntilDone().ok());
}

TEST_P(StreamTest, CaptureRefusesAllocationAndRecordsWork) {
  auto buf = Alloc(256);
  auto stream = NewStream();
  ASSERT_TRUE(stream->BeginCapture().ok());
  EXPECT_TRUE(stream->IsCapturing());
  auto refused = executor_->Allocate(128);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition)
      << refused.status();
  ASSERT_TRUE(stream->Memset32(buf.ptr(), 0x01020304, 256).ok());
  auto graph = stream->EndCapture();
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_GE((*graph)->num_nodes(), 1);
  EXPECT_FALSE(stream->IsCapturing());

  // Captured work did not run.
  std::vector<uint32_t> words(64, 0);
  ASSERT_TRUE(stream->MemZero(buf.ptr(), 256).ok());
  ASSERT_TRUE(stream->Memcpy(words.data(), buf.cref(), 256).ok());
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());
  EXPECT_EQ(words, std::vector<uint32_t>(64, 0));

  // Allocation works again once capture ended.
  auto after = executor_->Allocate(128);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_TRUE(executor_->Deallocate(&*after).ok());
}

// Only the capturing thread's allocations could end up in the graph; a
// capture must not make unrelated work on the same device fail.
TEST_P(StreamTest, OtherThreadsAllocateWhileAStreamCaptures) {
  auto stream = NewStream();
  ASSERT_TRUE(stream->BeginCapture().ok());
  absl::StatusOr<se::DeviceAddressBase> other;
  std::thread([&] { other = executor_->Allocate(256); }).join();
  EXPECT_EQ(executor_->Allocate(256).status().code(),
            absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(stream->EndCapture().ok());
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_TRUE(executor_->Deallocate(&*other).ok());
}

TEST_P(StreamTest, EmptyCaptureIsLegal) {
  auto stream = NewStream();
  ASSERT_TRUE(stream->BeginCapture().ok());
  auto graph = stream->EndCapture();
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ((*graph)->num_nodes(), 0);
}

TEST_P(StreamTest, EndCaptureWithoutBeginFails) {
  auto stream = NewStream();
  EXPECT_EQ(stream->EndCapture().status().code(),
            absl::StatusCode::kFailedPrecondition);
}

INSTANTIATE_FOR_ALL_PLATFORMS(StreamTest);

}  // namespace
}  // namespace xla_lite::testing
