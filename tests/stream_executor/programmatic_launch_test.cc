// Programmatic dependent launch in command buffers: kernels whose spec says
// they wait for their producers get programmatic edges from the kernel
// nodes they depend on (CUDA, compute capability 9.0 and up), may launch
// early, and still see every write of the kernel before them.

#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "stream_executor/command_buffer.h"
#include "stream_executor/device_address_allocator.h"
#include "tests/platform_test_util.h"

namespace xla_lite::testing {
namespace {

namespace se = ::stream_executor;

// y[i] = x[i] + 1. With `waits`, the kernel waits for its producers, as the
// compiler's kernels do, after releasing its dependents at once: they
// launch earlier than the compiler's kernels let them (as their blocks
// exit), the harder case for seeing every write.
se::KernelSpec StepKernel(bool waits) {
  se::KernelSpec spec;
  spec.name = waits ? "step_waits" : "step";
  spec.arity = 3;
  spec.waits_for_producers = waits;
  spec.cuda_source = absl::StrCat(
      "extern \"C\" __global__ void ", spec.name,
      R"((const float* x, float* y, int n) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
)",
      waits ? R"(  asm volatile("griddepcontrol.launch_dependents;" :::);
  asm volatile("griddepcontrol.wait;" ::: "memory");
)"
            : "",
      R"(#endif
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x) {
    y[i] = x[i] + 1.0f;
  }
})");
  spec.host_fn = [](const se::KernelArgs& args, const se::LaunchDimensions&) {
    const float* x = args.ptr<float>(0);
    float* y = args.ptr<float>(1);
    for (int i = 0, n = args[2].scalar<int>(); i < n; ++i) y[i] = x[i] + 1.0f;
    return absl::OkStatus();
  };
  return spec;
}

class ProgrammaticLaunchTest : public PlatformTest {
 protected:
  bool HasProgrammaticEdges() const {
    return GetParam() == "cuda" &&
           executor_->GetDeviceDescription().compute_major >= 9;
  }
};

// b0 += 1, then b[k+1] = b[k] + 1 for k < 8, replayed: after replay r every
// b[k] is r + k. A consumer that read before its producer finished would see
// the previous replay's r - 1 + k.
TEST_P(ProgrammaticLaunchTest, ChainSeesEveryProducerWrite) {
  constexpr int kN = 1 << 20, kChain = 8, kReplays = 20;
  auto stream = executor_->CreateStream();
  ASSERT_TRUE(stream.ok()) << stream.status();
  se::StreamExecutorAllocator allocator(executor_);
  for (bool waits : {true, false}) {
    SCOPED_TRACE(waits ? "waits for producers" : "plain kernels");
    auto kernel = executor_->LoadKernel(StepKernel(waits));
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    std::vector<se::ScopedDeviceAddress> b;
    for (int k = 0; k <= kChain; ++k) {
      auto mem = allocator.Allocate(executor_->device_ordinal(), kN * 4);
      ASSERT_TRUE(mem.ok()) << mem.status();
      ASSERT_TRUE((*stream)->Memset32(mem->ptr(), 0, kN * 4).ok());
      b.push_back(std::move(*mem));
    }
    auto cb = executor_->CreateCommandBuffer();
    ASSERT_TRUE(cb.ok()) << cb.status();
    auto dims = se::LaunchDimensionsFor(kN, 256);
    auto launch = [&](int from, int to, se::CommandBuffer::Dependencies deps) {
      se::KernelArgs args;
      args.AddAddress(b[from].cref());
      args.AddAddress(b[to].cref());
      args.AddScalar(kN);
      return (*cb)->CreateLaunch(dims, **kernel, args, deps);
    };
    auto previous = launch(0, 0, {});
    ASSERT_TRUE(previous.ok()) << previous.status();
    for (int k = 0; k < kChain; ++k) {
      previous = launch(k, k + 1, {*previous});
      ASSERT_TRUE(previous.ok()) << previous.status();
    }
    ASSERT_TRUE((*cb)->Finalize().ok());
    EXPECT_EQ((*cb)->counters().programmatic_edges,
              waits && HasProgrammaticEdges() ? kChain : 0);
    std::vector<float> host(kN);
    for (int r = 1; r <= kReplays; ++r) {
      ASSERT_TRUE((*cb)->Submit(stream->get()).ok());
      ASSERT_TRUE((*stream)->Memcpy(host.data(), b[kChain].cref(), kN * 4).ok());
      ASSERT_TRUE((*stream)->BlockHostUntilDone().ok());
      for (int i = 0; i < kN; i += 997) {
        ASSERT_EQ(host[i], static_cast<float>(r + kChain)) << "replay " << r;
      }
    }
  }
}

INSTANTIATE_FOR_ALL_PLATFORMS(ProgrammaticLaunchTest);

}  // namespace
}  // namespace xla_lite::testing
