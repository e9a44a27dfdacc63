// se::CommandBuffer on every platform: record once, replay many times, update
// nodes in place, traced child graphs, the state machine.

#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "stream_executor/command_buffer.h"
#include "stream_executor/device_address_allocator.h"
#include "tests/platform_test_util.h"
#include "tests/stream_executor/test_kernels.h"

namespace xla_lite::testing {
namespace {

namespace se = ::stream_executor;
using State = se::CommandBuffer::State;

class CommandBufferTest : public PlatformTest {
 protected:
  void SetUp() override {
    PlatformTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    auto stream = executor_->CreateStream();
    ASSERT_TRUE(stream.ok());
    stream_ = std::move(*stream);
    auto kernel = executor_->LoadKernel(AxpyKernel());
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    kernel_ = std::move(*kernel);
    allocator_ = std::make_unique<se::StreamExecutorAllocator>(executor_);
  }
  se::ScopedDeviceAddress Upload(const std::vector<float>& host) {
    auto mem = allocator_->Allocate(executor_->device_ordinal(), host.size() * 4);
    EXPECT_TRUE(mem.ok()) << mem.status();
    EXPECT_TRUE(stream_->Memcpy(mem->ptr(), host.data(), host.size() * 4).ok());
    EXPECT_TRUE(stream_->BlockHostUntilDone().ok());
    return std::move(*mem);
  }
  std::vector<float> Download(const se::DeviceAddressBase& mem) {
    std::vector<float> host(mem.size() / 4);
    EXPECT_TRUE(stream_->Memcpy(host.data(), mem, mem.size()).ok());
    EXPECT_TRUE(stream_->BlockHostUntilDone().ok());
    return host;
  }
  se::KernelArgs Args(float a, const se::DeviceAddressBase& x,
                      const se::DeviceAddressBase& y, int n) {
    se::KernelArgs args;
    args.AddScalar(a);
    args.AddAddress(x);
    args.AddAddress(y);
    args.AddScalar(n);
    return args;
  }
  std::unique_ptr<se::CommandBuffer> NewCommandBuffer() {
    auto cb = executor_->CreateCommandBuffer();
    EXPECT_TRUE(cb.ok()) << cb.status();
    return cb.ok() ? std::move(*cb) : nullptr;
  }

  std::unique_ptr<se::Stream> stream_;
  std::unique_ptr<se::Kernel> kernel_;
  std::unique_ptr<se::StreamExecutorAllocator> allocator_;
};

constexpr int kN = 1000;

// memset(y, 0) -> y += 2x -> y += 2x -> copy(z, y): replayed 100 times, each
// replay must start from the memset, so z == 4x every time.
TEST_P(CommandBufferTest, RecordOnceReplayMany) {
  std::vector<float> x(kN);
  std::mt19937 rng(2);
  for (float& v : x) v = std::uniform_real_distribution<float>(-1, 1)(rng);
  auto dx = Upload(x), dy = Upload(std::vector<float>(kN)),
       dz = Upload(std::vector<float>(kN));
  auto cb = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  auto dims = se::LaunchDimensionsFor(kN, 128);
  auto zero = cb->CreateMemset(dy.cref(), 0, kN * 4, {});
  ASSERT_TRUE(zero.ok()) << zero.status();
  auto first = cb->CreateLaunch(dims, *kernel_, Args(2, dx.cref(), dy.cref(), kN), {*zero});
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = cb->CreateLaunch(dims, *kernel_, Args(2, dx.cref(), dy.cref(), kN), {*first});
  ASSERT_TRUE(second.ok());
  auto copy = cb->CreateMemcpyD2D(dz.cref(), dy.cref(), kN * 4, {*second});
  ASSERT_TRUE(copy.ok()) << copy.status();
  ASSERT_TRUE(cb->Finalize().ok());
  for (int run = 0; run < 100; ++run) ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  std::vector<float> z = Download(dz.cref());
  for (int i = 0; i < kN; ++i) ASSERT_FLOAT_EQ(z[i], 4 * x[i]) << i;
  se::CommandBuffer::Counters c = cb->counters();
  EXPECT_EQ(c.nodes, 4);
  EXPECT_EQ(c.instantiations, 1);
  EXPECT_EQ(c.node_updates, 0);
  EXPECT_EQ(c.submits, 100);
}

TEST_P(CommandBufferTest, UpdateMovesOneArgument) {
  std::vector<float> x1(kN, 1.0f), x2(kN, 5.0f);
  auto dx1 = Upload(x1), dx2 = Upload(x2), dy = Upload(std::vector<float>(kN));
  auto cb = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  auto dims = se::LaunchDimensionsFor(kN, 128);
  auto zero = cb->CreateMemset(dy.cref(), 0, kN * 4, {});
  ASSERT_TRUE(zero.ok());
  auto launch = cb->CreateLaunch(dims, *kernel_, Args(3, dx1.cref(), dy.cref(), kN), {*zero});
  ASSERT_TRUE(launch.ok());
  ASSERT_TRUE(cb->Finalize().ok());
  ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  EXPECT_FLOAT_EQ(Download(dy.cref())[7], 3.0f);

  ASSERT_TRUE(cb->Update().ok());
  ASSERT_TRUE(cb->UpdateLaunch(*launch, dims, *kernel_, Args(3, dx2.cref(), dy.cref(), kN)).ok());
  ASSERT_TRUE(cb->Finalize().ok());
  ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  EXPECT_FLOAT_EQ(Download(dy.cref())[7], 15.0f);
  se::CommandBuffer::Counters c = cb->counters();
  EXPECT_EQ(c.node_updates, 1);
  EXPECT_EQ(c.instantiations, 1);
}

TEST_P(CommandBufferTest, TracedGemmAsChild) {
  auto blas = executor_->AsBlas();
  ASSERT_TRUE(blas.ok()) << blas.status();
  const int n = 16;
  std::vector<float> a(n * n), b(n * n);
  for (int i = 0; i < n * n; ++i) a[i] = (i % 7) * 0.5f, b[i] = (i % 5) - 2.0f;
  auto da = Upload(a), db = Upload(b), dc = Upload(std::vector<float>(n * n));
  se::blas::GemmCall call;
  call.m = call.n = call.k = n;
  call.a = da.cref(), call.b = db.cref(), call.c = dc.cref();
  call.lda = call.ldb = call.ldc = n;
  auto graph = se::TraceIntoGraph(stream_.get(), [&](se::Stream* s) {
    return (*blas)->Gemm(s, call);
  });
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_GE((*graph)->num_nodes(), 1);
  auto cb = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  ASSERT_TRUE(cb->CreateChild(**graph, {}).ok());
  ASSERT_TRUE(cb->Finalize().ok());
  ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  std::vector<float> c = Download(dc.cref());
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      double want = 0;
      for (int p = 0; p < n; ++p) want += a[p * n + i] * b[j * n + p];
      ASSERT_NEAR(c[j * n + i], want, 1e-4) << i << "," << j;
    }
  }
}

TEST_P(CommandBufferTest, EmptyTraceAndEmptyBufferAreLegal) {
  auto graph = se::TraceIntoGraph(stream_.get(), [](se::Stream*) {
    return absl::OkStatus();
  });
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ((*graph)->num_nodes(), 0);
  auto cb = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  ASSERT_TRUE(cb->CreateChild(**graph, {}).ok());
  ASSERT_TRUE(cb->Finalize().ok());
  ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  auto empty = NewCommandBuffer();
  ASSERT_NE(empty, nullptr);
  ASSERT_TRUE(empty->Finalize().ok());
  ASSERT_TRUE(empty->Submit(stream_.get()).ok());
  EXPECT_TRUE(stream_->BlockHostUntilDone().ok());
}

TEST_P(CommandBufferTest, StateMachineRejectsCallsInTheWrongState) {
  auto dy = Upload(std::vector<float>(kN));
  auto cb = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  EXPECT_EQ(cb->state(), State::kCreate);
  EXPECT_EQ(cb->Submit(stream_.get()).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(cb->Update().code(), absl::StatusCode::kFailedPrecondition);
  auto memset = cb->CreateMemset(dy.cref(), 0, kN * 4, {});
  ASSERT_TRUE(memset.ok());
  ASSERT_TRUE(cb->Finalize().ok());
  EXPECT_EQ(cb->state(), State::kFinalized);
  absl::Status late = cb->CreateMemset(dy.cref(), 0, 16, {}).status();
  EXPECT_EQ(late.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(late.message().find("finalized"), std::string::npos) << late;
  EXPECT_EQ(cb->UpdateMemset(*memset, dy.cref(), 1, 16).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(cb->Finalize().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(cb->Update().ok());
  EXPECT_EQ(cb->state(), State::kUpdate);
  EXPECT_EQ(cb->Submit(stream_.get()).code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(cb->UpdateMemset(*memset, dy.cref(), 0x3F800000, kN * 4).ok());
  ASSERT_TRUE(cb->Finalize().ok());
  ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  EXPECT_FLOAT_EQ(Download(dy.cref())[kN - 1], 1.0f);
}

TEST_P(CommandBufferTest, DotNamesNodesAndEdges) {
  auto dy = Upload(std::vector<float>(16));
  auto cb = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  auto a = cb->CreateMemset(dy.cref(), 0, 64, {});
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(cb->CreateBarrier({*a}).ok());
  std::string dot = cb->ToDot();
  EXPECT_NE(dot.find("digraph"), std::string::npos) << dot;
  EXPECT_NE(dot.find("->"), std::string::npos) << dot;
  EXPECT_NE(dot.find("memset 64"), std::string::npos) << dot;
  EXPECT_NE(dot.find("barrier"), std::string::npos) << dot;
}

// The float whose bits a 32-bit memset writes.
uint32_t FloatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

// An update applied in place must also reach whatever the platform rebuilds
// the executable from: here a zero-byte memset grown to a real one forces
// GPU platforms to re-instantiate after an in-place kernel update.
TEST_P(CommandBufferTest, InPlaceUpdateSurvivesReinstantiation) {
  auto dx1 = Upload(std::vector<float>(kN, 1.0f));
  auto dx2 = Upload(std::vector<float>(kN, 5.0f));
  auto dy = Upload(std::vector<float>(kN)), dz = Upload(std::vector<float>(kN));
  auto cb = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  auto dims = se::LaunchDimensionsFor(kN, 128);
  auto zero = cb->CreateMemset(dy.cref(), 0, kN * 4, {});
  ASSERT_TRUE(zero.ok()) << zero.status();
  auto launch = cb->CreateLaunch(dims, *kernel_, Args(1, dx1.cref(), dy.cref(), kN), {*zero});
  ASSERT_TRUE(launch.ok()) << launch.status();
  auto fill = cb->CreateMemset(dz.cref(), 0, 0, {});
  ASSERT_TRUE(fill.ok()) << fill.status();
  ASSERT_TRUE(cb->Finalize().ok());
  ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  EXPECT_FLOAT_EQ(Download(dy.cref())[3], 1.0f);

  ASSERT_TRUE(cb->Update().ok());
  ASSERT_TRUE(cb->UpdateLaunch(*launch, dims, *kernel_, Args(1, dx2.cref(), dy.cref(), kN)).ok());
  ASSERT_TRUE(cb->Finalize().ok());
  ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  EXPECT_FLOAT_EQ(Download(dy.cref())[3], 5.0f);

  ASSERT_TRUE(cb->Update().ok());
  ASSERT_TRUE(cb->UpdateMemset(*fill, dz.cref(), FloatBits(7.0f), kN * 4).ok());
  ASSERT_TRUE(cb->Finalize().ok());
  ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  EXPECT_FLOAT_EQ(Download(dy.cref())[3], 5.0f);
  EXPECT_FLOAT_EQ(Download(dz.cref())[kN - 1], 7.0f);
  se::CommandBuffer::Counters c = cb->counters();
  EXPECT_EQ(c.node_updates, 2);
  EXPECT_EQ(c.instantiations, 1);
  if (!IsHost()) {
    EXPECT_EQ(c.reinstantiations, 1);
  }
}

// Traced children: one of the same shape (in place on GPUs), a forced
// re-instantiation that must keep it, then one of another shape (refused in
// place on GPUs). The traces die right after each call: nodes copy them.
TEST_P(CommandBufferTest, ChildUpdatesInPlaceAndByReinstantiation) {
  auto ones = Upload(std::vector<float>(kN, 1.0f));
  auto dy = Upload(std::vector<float>(kN)), dz = Upload(std::vector<float>(kN)),
       dw = Upload(std::vector<float>(kN));
  auto trace = [&](float y, float w) {
    auto graph = se::TraceIntoGraph(stream_.get(), [&](se::Stream* s) {
      absl::Status status = s->Memset32(dy.ptr(), FloatBits(y), kN * 4);
      if (status.ok() && w != 0) status = s->Memset32(dw.ptr(), FloatBits(w), kN * 4);
      return status;
    });
    EXPECT_TRUE(graph.ok()) << graph.status();
    return graph.ok() ? std::move(*graph) : nullptr;
  };
  auto cb = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  auto dims = se::LaunchDimensionsFor(kN, 128);
  absl::StatusOr<const se::CommandBuffer::Command*> child;
  {
    auto graph = trace(1.0f, 0);
    ASSERT_NE(graph, nullptr);
    child = cb->CreateChild(*graph, {});
    ASSERT_TRUE(child.ok()) << child.status();
  }
  auto launch = cb->CreateLaunch(dims, *kernel_, Args(1, ones.cref(), dy.cref(), kN), {*child});
  ASSERT_TRUE(launch.ok()) << launch.status();
  auto fill = cb->CreateMemset(dz.cref(), 0, 0, {});
  ASSERT_TRUE(fill.ok());
  ASSERT_TRUE(cb->Finalize().ok());
  ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  EXPECT_FLOAT_EQ(Download(dy.cref())[0], 2.0f);

  auto same_shape = trace(2.0f, 0);
  ASSERT_NE(same_shape, nullptr);
  ASSERT_TRUE(cb->Update().ok());
  ASSERT_TRUE(cb->UpdateChild(*child, *same_shape).ok());
  same_shape.reset();
  ASSERT_TRUE(cb->Finalize().ok());
  ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  EXPECT_FLOAT_EQ(Download(dy.cref())[0], 3.0f);

  ASSERT_TRUE(cb->Update().ok());
  ASSERT_TRUE(cb->UpdateMemset(*fill, dz.cref(), FloatBits(7.0f), kN * 4).ok());
  ASSERT_TRUE(cb->Finalize().ok());
  ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  EXPECT_FLOAT_EQ(Download(dy.cref())[0], 3.0f);
  EXPECT_FLOAT_EQ(Download(dz.cref())[0], 7.0f);

  auto other_shape = trace(3.0f, 4.0f);
  ASSERT_NE(other_shape, nullptr);
  ASSERT_TRUE(cb->Update().ok());
  ASSERT_TRUE(cb->UpdateChild(*child, *other_shape).ok());
  other_shape.reset();
  ASSERT_TRUE(cb->Finalize().ok());
  ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  EXPECT_FLOAT_EQ(Download(dy.cref())[kN - 1], 4.0f);
  EXPECT_FLOAT_EQ(Download(dw.cref())[kN - 1], 4.0f);
  se::CommandBuffer::Counters c = cb->counters();
  EXPECT_EQ(c.node_updates, 3);
  if (!IsHost()) {
    EXPECT_EQ(c.reinstantiations, 2);
  }
  // GPU labels follow updates; the host keeps the labels of creation.
  if (!IsHost()) {
    EXPECT_NE(cb->ToDot().find("child (2 nodes)"), std::string::npos) << cb->ToDot();
  }
}

// An empty trace still orders its dependents, and may become non-empty (and
// empty again) on update.
TEST_P(CommandBufferTest, EmptyChildOrdersAndGrows) {
  auto ones = Upload(std::vector<float>(kN, 1.0f));
  auto dy = Upload(std::vector<float>(kN, 9.0f));
  auto trace = [&](bool fill) {
    auto graph = se::TraceIntoGraph(stream_.get(), [&](se::Stream* s) {
      return fill ? s->Memset32(dy.ptr(), FloatBits(5.0f), kN * 4) : absl::OkStatus();
    });
    EXPECT_TRUE(graph.ok()) << graph.status();
    return graph.ok() ? std::move(*graph) : nullptr;
  };
  auto cb = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  auto dims = se::LaunchDimensionsFor(kN, 128);
  auto zero = cb->CreateMemset(dy.cref(), 0, kN * 4, {});
  ASSERT_TRUE(zero.ok());
  auto empty = trace(false);
  ASSERT_NE(empty, nullptr);
  auto child = cb->CreateChild(*empty, {*zero});
  ASSERT_TRUE(child.ok()) << child.status();
  empty.reset();
  auto launch = cb->CreateLaunch(dims, *kernel_, Args(1, ones.cref(), dy.cref(), kN), {*child});
  ASSERT_TRUE(launch.ok());
  ASSERT_TRUE(cb->Finalize().ok());
  ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  EXPECT_FLOAT_EQ(Download(dy.cref())[1], 1.0f);

  for (bool fill : {true, false, true}) {
    auto graph = trace(fill);
    ASSERT_NE(graph, nullptr);
    ASSERT_TRUE(cb->Update().ok());
    ASSERT_TRUE(cb->UpdateChild(*child, *graph).ok());
    ASSERT_TRUE(cb->Finalize().ok());
    ASSERT_TRUE(cb->Submit(stream_.get()).ok());
    EXPECT_FLOAT_EQ(Download(dy.cref())[1], fill ? 6.0f : 1.0f) << fill;
  }
}

TEST_P(CommandBufferTest, ZeroByteCopyGrowsAndShrinks) {
  std::vector<float> y(kN);
  for (int i = 0; i < kN; ++i) y[i] = i;
  auto dy = Upload(y), dz = Upload(std::vector<float>(kN, -1.0f));
  auto cb = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  auto copy = cb->CreateMemcpyD2D(dz.cref(), dy.cref(), 0, {});
  ASSERT_TRUE(copy.ok()) << copy.status();
  ASSERT_TRUE(cb->Finalize().ok());
  ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  EXPECT_FLOAT_EQ(Download(dz.cref())[1], -1.0f);
  for (uint64_t size : {uint64_t{kN * 4}, uint64_t{0}, uint64_t{16}}) {
    ASSERT_TRUE(cb->Update().ok());
    ASSERT_TRUE(cb->UpdateMemcpyD2D(*copy, dz.cref(), dy.cref(), size).ok());
    ASSERT_TRUE(cb->Finalize().ok());
    ASSERT_TRUE(cb->Submit(stream_.get()).ok());
    EXPECT_FLOAT_EQ(Download(dz.cref())[1], 1.0f) << size;
  }
  ASSERT_TRUE(cb->Update().ok());
  EXPECT_EQ(cb->UpdateMemcpyD2D(*copy, dz.cref(), dy.cref(), kN * 8).code(),
            absl::StatusCode::kInvalidArgument);
}

// Platforms copy kernel arguments when a node is created or updated.
TEST_P(CommandBufferTest, KernelArgsMayDieAfterTheCall) {
  auto dx = Upload(std::vector<float>(kN, 2.0f));
  auto dy = Upload(std::vector<float>(kN)), dw = Upload(std::vector<float>(kN));
  auto cb = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  auto dims = se::LaunchDimensionsFor(kN, 128);
  auto args = std::make_unique<se::KernelArgs>(Args(3, dx.cref(), dy.cref(), kN));
  auto launch = cb->CreateLaunch(dims, *kernel_, *args, {});
  ASSERT_TRUE(launch.ok());
  args = std::make_unique<se::KernelArgs>(Args(100, dx.cref(), dw.cref(), 1));
  ASSERT_TRUE(cb->Finalize().ok());
  args.reset();
  ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  EXPECT_FLOAT_EQ(Download(dy.cref())[kN - 1], 6.0f);
  EXPECT_FLOAT_EQ(Download(dw.cref())[0], 0.0f);

  ASSERT_TRUE(cb->Update().ok());
  args = std::make_unique<se::KernelArgs>(Args(-1, dx.cref(), dy.cref(), kN));
  ASSERT_TRUE(cb->UpdateLaunch(*launch, dims, *kernel_, *args).ok());
  args = std::make_unique<se::KernelArgs>(Args(100, dx.cref(), dw.cref(), 1));
  ASSERT_TRUE(cb->Finalize().ok());
  args.reset();
  ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  EXPECT_FLOAT_EQ(Download(dy.cref())[kN - 1], 4.0f);
  EXPECT_FLOAT_EQ(Download(dw.cref())[0], 0.0f);
}

// Launches already queued keep the parameters they were submitted with, also
// when the executable is replaced while they are still in flight.
TEST_P(CommandBufferTest, UpdatesDoNotReachQueuedLaunches) {
  auto dx1 = Upload(std::vector<float>(kN, 1.0f));
  auto dx2 = Upload(std::vector<float>(kN, 5.0f));
  auto dy = Upload(std::vector<float>(kN)), dz = Upload(std::vector<float>(kN));
  auto cb = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  auto dims = se::LaunchDimensionsFor(kN, 128);
  auto launch = cb->CreateLaunch(dims, *kernel_, Args(1, dx1.cref(), dy.cref(), kN), {});
  ASSERT_TRUE(launch.ok());
  auto fill = cb->CreateMemset(dz.cref(), 0, 0, {});
  ASSERT_TRUE(fill.ok());
  ASSERT_TRUE(cb->Finalize().ok());
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  ASSERT_TRUE(cb->Update().ok());
  ASSERT_TRUE(cb->UpdateLaunch(*launch, dims, *kernel_, Args(1, dx2.cref(), dy.cref(), kN)).ok());
  ASSERT_TRUE(cb->Finalize().ok());
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  ASSERT_TRUE(cb->Update().ok());
  ASSERT_TRUE(cb->UpdateLaunch(*launch, dims, *kernel_, Args(1, dx1.cref(), dy.cref(), kN)).ok());
  ASSERT_TRUE(cb->UpdateMemset(*fill, dz.cref(), 0, kN * 4).ok());
  ASSERT_TRUE(cb->Finalize().ok());
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  EXPECT_FLOAT_EQ(Download(dy.cref())[kN / 2], 20 * 1 + 20 * 5 + 20 * 1);
  EXPECT_EQ(cb->counters().submits, 60);
}

TEST_P(CommandBufferTest, UpdateRejectsForeignOrMismatchedCommands) {
  auto dy = Upload(std::vector<float>(16));
  auto cb = NewCommandBuffer(), other = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  ASSERT_NE(other, nullptr);
  auto memset = cb->CreateMemset(dy.cref(), 0, 64, {});
  auto foreign = other->CreateMemset(dy.cref(), 0, 64, {});
  ASSERT_TRUE(memset.ok() && foreign.ok());
  EXPECT_EQ(cb->CreateBarrier({*foreign}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(cb->CreateMemset(dy.cref(), 0, 6, {}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(cb->CreateMemset(dy.cref(), 0, 128, {}).status().code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(cb->Finalize().ok());
  ASSERT_TRUE(cb->Update().ok());
  EXPECT_EQ(cb->UpdateMemset(*foreign, dy.cref(), 0, 64).code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(cb->Finalize().ok());
  ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  EXPECT_TRUE(stream_->BlockHostUntilDone().ok());
}

INSTANTIATE_FOR_ALL_PLATFORMS(CommandBufferTest);

}  // namespace
}  // namespace xla_lite::testing
