// se::CommandBuffer on every platform: record once, replay many times, update
// nodes in place, traced child graphs, the state machine.

#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "stream_executor/command_buffer.h"
#include "stream_executor/device_address_allocator.h"
#include "tests/platform_test_util.h"

namespace xla_lite::testing {
namespace {

namespace se = ::stream_executor;
using State = se::CommandBuffer::State;

// y[i] = a * x[i] + y[i]
se::KernelSpec AxpyKernel() {
  se::KernelSpec spec;
  spec.name = "axpy";
  spec.arity = 4;
  spec.cuda_source = R"(
extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
})";
  spec.host_fn = [](const se::KernelArgs& args, const se::LaunchDimensions&) {
    float a = args[0].scalar<float>();
    const float* x = args.ptr<float>(1);
    float* y = args.ptr<float>(2);
    for (int i = 0, n = args[3].scalar<int>(); i < n; ++i) y[i] = a * x[i] + y[i];
    return absl::OkStatus();
  };
  return spec;
}

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
}

INSTANTIATE_FOR_ALL_PLATFORMS(CommandBufferTest);

}  // namespace
}  // namespace xla_lite::testing
