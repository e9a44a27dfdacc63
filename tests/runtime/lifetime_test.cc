// Buffer lifetime: nothing an enqueued execution may still touch is freed
// before the stream has run that work. The host platform poisons freed
// memory (0xDB) and the test allocator tracks live buffers, so the slow
// host kernels below notice a premature free: they sleep first, then check
// that their buffers are live and unpoisoned before computing.

#include <chrono>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "glog/logging.h"
#include "gtest/gtest.h"
#include "tests/runtime/fault_injecting_allocator.h"
#include "tests/runtime/runtime_test_base.h"
#include "xla_lite/runtime/deferred_deallocator.h"
#include "xla_lite/runtime/gpu_executable.h"
#include "xla_lite/runtime/kernel_thunk.h"

namespace xla_lite::testing {
namespace {

using gpu::BufferAllocation;
using gpu::ExecutionInput;
using gpu::GpuExecutable;

constexpr int64_t kN = 512;

// What host kernels saw that they should not have.
class Probe {
 public:
  explicit Probe(const FaultInjectingAllocator* tracker) : tracker_(tracker) {}

  void CheckLive(const char* kernel, const char* what, const void* ptr) {
    if (!tracker_->IsLive(ptr)) {
      Report(absl::StrFormat("%s: %s %p was already freed", kernel, what, ptr));
    }
  }
  void CheckNotPoisoned(const char* kernel, const char* what, const float* p) {
    const uint32_t poison = 0xDBDBDBDB;
    for (int64_t i = 0; i < kN; ++i) {
      if (std::memcmp(&p[i], &poison, sizeof(poison)) == 0) {
        Report(absl::StrFormat("%s: %s[%d] reads freed memory", kernel, what, i));
        return;
      }
    }
  }
  std::vector<std::string> violations() const {
    absl::MutexLock lock(&mu_);
    return violations_;
  }

 private:
  void Report(std::string violation) {
    absl::MutexLock lock(&mu_);
    violations_.push_back(std::move(violation));
  }

  const FaultInjectingAllocator* tracker_;
  mutable absl::Mutex mu_;
  std::vector<std::string> violations_ ABSL_GUARDED_BY(mu_);
};

// t = x * c, after a delay: the host sleeps, the GPU spins on clock64.
se::KernelSpec SlowMultiplyKernel(std::shared_ptr<Probe> probe) {
  se::KernelSpec spec;
  spec.name = "slow_multiply";
  spec.arity = 3;
  spec.cuda_source = absl::StrFormat(R"(
extern "C" __global__ void slow_multiply(const float* x, const float* c,
                                         float* t) {
  long long start = clock64();
  while (clock64() - start < 100000000LL) {}
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < %d) t[i] = x[i] * c[i];
})",
                                     kN);
  spec.host_fn = [probe](const se::KernelArgs& args,
                         const se::LaunchDimensions&) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const float* x = args.ptr<float>(0);
    const float* c = args.ptr<float>(1);
    float* t = args.ptr<float>(2);
    probe->CheckNotPoisoned("slow_multiply", "x", x);
    probe->CheckNotPoisoned("slow_multiply", "constant c", c);
    probe->CheckLive("slow_multiply", "temp t", t);
    for (int64_t i = 0; i < kN; ++i) t[i] = x[i] * c[i];
    return absl::OkStatus();
  };
  return spec;
}

// out = t + 1.
se::KernelSpec IncrementKernel(std::shared_ptr<Probe> probe) {
  se::KernelSpec spec;
  spec.name = "increment";
  spec.arity = 2;
  spec.cuda_source = absl::StrFormat(R"(
extern "C" __global__ void increment(const float* t, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < %d) out[i] = t[i] + 1.0f;
})",
                                     kN);
  spec.host_fn = [probe](const se::KernelArgs& args,
                         const se::LaunchDimensions&) {
    const float* t = args.ptr<float>(0);
    float* out = args.ptr<float>(1);
    probe->CheckLive("increment", "temp t", t);
    probe->CheckNotPoisoned("increment", "temp t", t);
    probe->CheckLive("increment", "output", out);
    for (int64_t i = 0; i < kN; ++i) out[i] = t[i] + 1.0f;
    return absl::OkStatus();
  };
  return spec;
}

std::vector<float> Constant() {
  std::vector<float> c(kN);
  for (int64_t i = 0; i < kN; ++i) c[i] = 1.5f + (i % 3);
  return c;
}

// out = x * c + 1 with a constant c and a temp t.
std::unique_ptr<GpuExecutable> BuildExecutable(std::shared_ptr<Probe> probe) {
  Shape vector(PrimitiveType::F32, {kN});
  std::vector<float> c = Constant();
  std::vector<uint8_t> bytes(vector.ByteSize());
  std::memcpy(bytes.data(), c.data(), bytes.size());
  GpuExecutable::Params params;
  params.module_name = "slow";
  params.allocations = {BufferAllocation::Parameter(0, vector.ByteSize(), 0),
                        BufferAllocation::Constant(1, std::move(bytes)),
                        BufferAllocation::Temp(2, vector.ByteSize()),
                        BufferAllocation::Output(3, vector.ByteSize())};
  const auto& a = params.allocations;
  params.thunks.push_back(std::make_unique<gpu::KernelThunk>(
      "slow_multiply", SlowMultiplyKernel(probe), se::LaunchDimensionsFor(kN),
      std::vector<BufferAllocation::Slice>{a[0].GetSlice(), a[1].GetSlice(),
                                           a[2].GetSlice()},
      std::vector<bool>{false, false, true}));
  params.thunks.push_back(std::make_unique<gpu::KernelThunk>(
      "increment", IncrementKernel(probe), se::LaunchDimensionsFor(kN),
      std::vector<BufferAllocation::Slice>{a[2].GetSlice(), a[3].GetSlice()},
      std::vector<bool>{false, true}));
  params.output_allocations = {3};
  params.signature.parameter_shapes = {vector};
  params.signature.output_shapes = {vector};
  auto executable = GpuExecutable::Create(std::move(params));
  CHECK(executable.ok()) << executable.status();
  return std::move(*executable);
}

class LifetimeTest : public RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    std::mt19937 rng(41);
    x_ = RandomFloats(kN, rng);
    dx_ = Upload(x_);
    tracker_ = std::make_unique<FaultInjectingAllocator>(executor_);
    probe_ = std::make_shared<Probe>(tracker_.get());
    executable_ = BuildExecutable(probe_);
  }

  absl::StatusOr<gpu::ExecutionOutput> Execute() {
    std::vector<ExecutionInput> inputs;
    inputs.push_back(ExecutionInput::Borrowed(dx_.cref()));
    return executable_->ExecuteAsyncOnStream(Options(tracker_.get()),
                                             std::move(inputs));
  }

  std::vector<float> Expected() const {
    std::vector<float> c = Constant(), out(kN);
    for (int64_t i = 0; i < kN; ++i) out[i] = x_[i] * c[i] + 1.0f;
    return out;
  }

  std::vector<float> x_;
  se::ScopedDeviceAddress dx_;
  std::unique_ptr<FaultInjectingAllocator> tracker_;
  std::shared_ptr<Probe> probe_;
  std::unique_ptr<GpuExecutable> executable_;
};

TEST_P(LifetimeTest, DestroyingTheExecutableWaitsForItsQueuedWork) {
  auto output = Execute();
  ASSERT_TRUE(output.ok()) << output.status();
  executable_.reset();  // The slow kernel has not read the constant yet.
  EXPECT_TRUE(output->IsReady()) << "the destructor did not wait";
  XLA_LITE_ASSERT_OK(stream_->BlockHostUntilDone());
  EXPECT_EQ(Download<float>(output->result(0)), Expected());
  EXPECT_TRUE(probe_->violations().empty())
      << ::testing::PrintToString(probe_->violations());
}

TEST_P(LifetimeTest, DroppedOutputIsFreedOnlyAfterTheWork) {
  // A first execution loads kernels and constants, so that nothing below
  // needs the device to be idle (GPU module loading may synchronize).
  XLA_LITE_ASSERT_OK(Execute());
  XLA_LITE_ASSERT_OK(stream_->BlockHostUntilDone());
  XLA_LITE_ASSERT_OK(executable_->WaitForOutstandingWork());
  const int64_t frees_before = tracker_->frees();

  // Holds the stream until the test opens it, so "not freed yet" is certain.
  absl::Notification gate;
  absl::Cleanup open_gate = [&gate] {
    if (!gate.HasBeenNotified()) gate.Notify();
  };
  XLA_LITE_ASSERT_OK(stream_->DoHostCallback([&gate] { gate.WaitForNotification(); }));
  {
    auto output = Execute();
    ASSERT_TRUE(output.ok()) << output.status();
  }
  EXPECT_EQ(tracker_->frees(), frees_before) << "freed while the work was queued";
  EXPECT_EQ(tracker_->live(), 2);  // The temp and the dropped output.
  gate.Notify();
  XLA_LITE_ASSERT_OK(stream_->BlockHostUntilDone());
  XLA_LITE_ASSERT_OK(executable_->WaitForOutstandingWork());
  EXPECT_EQ(tracker_->frees(), frees_before + 2);
  EXPECT_EQ(tracker_->live(), 0);
  EXPECT_TRUE(probe_->violations().empty())
      << ::testing::PrintToString(probe_->violations());
}

TEST_P(LifetimeTest, DroppingOutputAndExecutableAtOnceIsSafe) {
  {
    auto output = Execute();
    ASSERT_TRUE(output.ok()) << output.status();
  }
  executable_.reset();
  XLA_LITE_ASSERT_OK(stream_->BlockHostUntilDone());
  EXPECT_EQ(tracker_->live(), 0);
  EXPECT_TRUE(probe_->violations().empty())
      << ::testing::PrintToString(probe_->violations());
  dx_ = se::ScopedDeviceAddress();
  EXPECT_EQ(HeldBytes(), 0) << "the constant was not freed";
}

TEST_P(LifetimeTest, DeferredDeallocatorHoldsBuffersUntilTheirEvent) {
  std::vector<se::ScopedDeviceAddress> buffers;
  for (int i = 0; i < 3; ++i) {
    auto mem = tracker_->Allocate(executor_->device_ordinal(), 1024);
    ASSERT_TRUE(mem.ok()) << mem.status();
    buffers.push_back(std::move(*mem));
  }
  auto event = executor_->CreateEvent();
  ASSERT_TRUE(event.ok()) << event.status();
  std::shared_ptr<se::Event> done = std::move(*event);

  absl::Notification gate;
  absl::Cleanup open_gate = [&gate] {
    if (!gate.HasBeenNotified()) gate.Notify();
  };
  XLA_LITE_ASSERT_OK(stream_->DoHostCallback([&gate] { gate.WaitForNotification(); }));
  XLA_LITE_ASSERT_OK(stream_->RecordEvent(done.get()));
  auto stats = std::make_shared<gpu::ExecutionStats>();
  gpu::DeferredDeallocator deallocator;
  deallocator.Defer(done, std::move(buffers), stats);
  deallocator.Poll();
  EXPECT_EQ(tracker_->frees(), 0);
  EXPECT_EQ(deallocator.outstanding_batches(), 1);
  gate.Notify();
  XLA_LITE_ASSERT_OK(deallocator.WaitAndFreeAll());
  EXPECT_EQ(tracker_->frees(), 3);
  EXPECT_EQ(deallocator.outstanding_batches(), 0);
  EXPECT_EQ(stats->bytes_freed.load(), 3 * 1024);
}

INSTANTIATE_FOR_ALL_PLATFORMS(LifetimeTest);

}  // namespace
}  // namespace xla_lite::testing
