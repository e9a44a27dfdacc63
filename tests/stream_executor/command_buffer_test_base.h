#ifndef TESTS_STREAM_EXECUTOR_COMMAND_BUFFER_TEST_BASE_H_
#define TESTS_STREAM_EXECUTOR_COMMAND_BUFFER_TEST_BASE_H_

// What the command buffer suites share: a stream, the axpy kernel, device
// buffers read back through the stream, and traced fills as child graphs.

#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "stream_executor/command_buffer.h"
#include "stream_executor/device_address_allocator.h"
#include "tests/platform_test_util.h"
#include "tests/stream_executor/test_kernels.h"

namespace xla_lite::testing {

// The bits a 32-bit memset writes to produce `value`.
inline uint32_t FloatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

class CommandBufferTestBase : public PlatformTest {
 protected:
  using CommandBuffer = se::CommandBuffer;
  using Command = CommandBuffer::Command;
  using State = CommandBuffer::State;

  // One fill of a traced child graph.
  struct Fill {
    se::DeviceAddressBase dst;
    float value;
  };

  void SetUp() override {
    PlatformTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    auto stream = executor_->CreateStream();
    ASSERT_TRUE(stream.ok()) << stream.status();
    stream_ = std::move(*stream);
    auto kernel = executor_->LoadKernel(AxpyKernel());
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    kernel_ = std::move(*kernel);
    allocator_ =
        std::make_unique<se::StreamExecutorAllocator>(executor_);
  }

  se::ScopedDeviceAddress Upload(const std::vector<float>& host) {
    auto mem =
        allocator_->Allocate(executor_->device_ordinal(), host.size() * 4);
    EXPECT_TRUE(mem.ok()) << mem.status();
    if (!mem.ok()) return {};
    EXPECT_TRUE(stream_->Memcpy(mem->ptr(), host.data(), host.size() * 4).ok());
    EXPECT_TRUE(stream_->BlockHostUntilDone().ok());
    return std::move(*mem);
  }
  se::ScopedDeviceAddress Filled(int64_t n, float value) {
    return Upload(std::vector<float>(n, value));
  }
  std::vector<float> Download(const se::DeviceAddressBase& mem) {
    std::vector<float> host(mem.size() / 4);
    EXPECT_TRUE(stream_->Memcpy(host.data(), mem, mem.size()).ok());
    absl::Status done = stream_->BlockHostUntilDone();
    EXPECT_TRUE(done.ok()) << done;
    return host;
  }

  // Arguments of the axpy kernel: y[i] += a * x[i] for i < n.
  static se::KernelArgs Args(
      float a, const se::DeviceAddressBase& x,
      const se::DeviceAddressBase& y, int n) {
    se::KernelArgs args;
    args.AddScalar(a);
    args.AddAddress(x);
    args.AddAddress(y);
    args.AddScalar(n);
    return args;
  }

  std::unique_ptr<CommandBuffer> NewCommandBuffer() {
    auto cb = executor_->CreateCommandBuffer();
    EXPECT_TRUE(cb.ok()) << cb.status();
    return cb.ok() ? std::move(*cb) : nullptr;
  }

  // A child graph of one 32-bit fill per entry, captured on the stream; an
  // empty list captures an empty graph.
  std::unique_ptr<se::CapturedGraph> TraceFills(
      const std::vector<Fill>& fills) {
    auto graph = se::TraceIntoGraph(
        stream_.get(), [&](se::Stream* s) {
          for (Fill fill : fills) {
            absl::Status status =
                s->Memset32(&fill.dst, FloatBits(fill.value), fill.dst.size());
            if (!status.ok()) return status;
          }
          return absl::OkStatus();
        });
    EXPECT_TRUE(graph.ok()) << graph.status();
    if (!graph.ok()) return nullptr;
    EXPECT_EQ((*graph)->num_nodes(), static_cast<int64_t>(fills.size()));
    return std::move(*graph);
  }

  std::unique_ptr<se::Stream> stream_;
  std::unique_ptr<se::Kernel> kernel_;
  std::unique_ptr<se::StreamExecutorAllocator> allocator_;
};

}  // namespace xla_lite::testing

#endif  // TESTS_STREAM_EXECUTOR_COMMAND_BUFFER_TEST_BASE_H_
