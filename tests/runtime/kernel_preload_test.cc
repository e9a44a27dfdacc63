// The compiler's kernel preloading: every KernelThunk of a program is
// found, control flow's and command buffers' included, in program order,
// and once PreloadKernels has run, loading a kernel again is a lookup of
// the executor's caches (no compilation, no disk read).

#include "xla_lite/runtime/kernel_preload.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "stream_executor/gpu/gpu_executor.h"
#include "tests/runtime/runtime_test_base.h"
#include "tests/runtime/test_kernels.h"
#include "xla_lite/runtime/command_buffer_thunk.h"
#include "xla_lite/runtime/conditional_thunk.h"
#include "xla_lite/runtime/kernel_thunk.h"
#include "xla_lite/runtime/sequential_thunk.h"
#include "xla_lite/runtime/while_thunk.h"

namespace xla_lite::testing {
namespace {

using gpu::BufferAllocation;
using gpu::SequentialThunk;
using gpu::Thunk;
using gpu::ThunkSequence;

// A program of every container kind, and its kernels' names in program
// order. No thunk runs, so the slices only need to exist.
struct Program {
  BufferAllocation allocation = BufferAllocation::Temp(0, 64);
  ThunkSequence thunks;
  std::vector<std::string> kernels;

  std::unique_ptr<Thunk> Kernel(se::KernelSpec spec, std::string name) {
    spec.name = name;
    kernels.push_back(name);
    return std::make_unique<gpu::KernelThunk>(
        name, std::move(spec), se::LaunchDimensions(1, 1),
        std::vector<BufferAllocation::Slice>{allocation.GetSlice(0, 4)},
        std::vector<bool>{true});
  }
  std::unique_ptr<SequentialThunk> Sequence(std::string name,
                                            std::unique_ptr<Thunk> thunk) {
    ThunkSequence sequence;
    sequence.push_back(std::move(thunk));
    return std::make_unique<SequentialThunk>(std::move(name),
                                             std::move(sequence));
  }
};

Program EveryContainer() {
  Program p;
  p.thunks.push_back(p.Kernel(IncrementKernel(), "top"));
  {
    ThunkSequence recorded;
    recorded.push_back(p.Kernel(IncrementKernel(), "recorded"));
    p.thunks.push_back(std::make_unique<gpu::CommandBufferThunk>(
        "command_buffer", std::move(recorded)));
  }
  {
    auto condition = p.Sequence("cond", p.Kernel(IncrementKernel(), "cond"));
    auto body = p.Sequence("body", p.Kernel(IncrementKernel(), "body"));
    p.thunks.push_back(std::make_unique<gpu::WhileThunk>(
        "loop", p.allocation.GetSlice(4, 1), std::move(condition),
        std::move(body)));
  }
  {
    std::vector<std::unique_ptr<SequentialThunk>> branches;
    branches.push_back(p.Sequence("b0", p.Kernel(IncrementKernel(), "b0")));
    branches.push_back(p.Sequence("b1", p.Kernel(IncrementKernel(), "b1")));
    p.thunks.push_back(std::make_unique<gpu::ConditionalThunk>(
        "cond_branch", p.allocation.GetSlice(8, 4), std::move(branches)));
  }
  {
    ThunkSequence nested;
    nested.push_back(p.Kernel(IncrementKernel(), "nested"));
    p.thunks.push_back(
        std::make_unique<SequentialThunk>("sequence", std::move(nested)));
  }
  p.thunks.push_back(p.Kernel(IncrementKernel(), "last"));
  return p;
}

TEST(KernelPreloadTest, FindsEveryKernelThunkInProgramOrder) {
  const Program program = EveryContainer();
  std::vector<std::string> names;
  for (const se::KernelSpec& spec : gpu::KernelSpecsUnder(program.thunks)) {
    names.push_back(spec.name);
  }
  EXPECT_EQ(names, program.kernels);
  EXPECT_EQ(names.size(), 8);
}

class KernelPreloadPlatformTest : public RuntimeTest {};

// Distinct kernels (a source each), preloaded: every one compiles or
// comes from disk once, and loading them again only hits memory. On the
// host, kernels are host functions and load as before.
TEST_P(KernelPreloadPlatformTest, LeavesInitializationOnlyLookups) {
  std::vector<se::KernelSpec> specs;
  for (int i = 0; i < 6; ++i) {
    specs.push_back(AxpyKernel(8 + i, 1.0f + i));
  }
  auto* gpu_executor = dynamic_cast<se::gpu::GpuExecutor*>(executor_);
  const se::gpu::GpuKernelCacheStats before =
      gpu_executor == nullptr ? se::gpu::GpuKernelCacheStats{}
                              : gpu_executor->kernel_cache_stats();
  gpu::PreloadKernels(executor_, specs, /*forced_threads=*/3);
  se::gpu::GpuKernelCacheStats after_preload;
  if (gpu_executor != nullptr) {
    after_preload = gpu_executor->kernel_cache_stats();
    const int64_t fetched = (after_preload.compilations - before.compilations) +
                            (after_preload.disk_hits - before.disk_hits) +
                            (after_preload.memory_hits - before.memory_hits);
    // At least once each: the compile batch, then the loads' lookups.
    EXPECT_GE(fetched, static_cast<int64_t>(specs.size()));
  }
  for (const se::KernelSpec& spec : specs) {
    auto kernel = executor_->LoadKernel(spec);
    ASSERT_TRUE(kernel.ok()) << spec.name << ": " << kernel.status();
  }
  if (gpu_executor != nullptr) {
    const se::gpu::GpuKernelCacheStats after =
        gpu_executor->kernel_cache_stats();
    EXPECT_EQ(after.compilations, after_preload.compilations);
    EXPECT_EQ(after.disk_hits, after_preload.disk_hits);
    EXPECT_EQ(after.memory_hits - after_preload.memory_hits,
              static_cast<int64_t>(specs.size()));
  }
}

// A kernel that fails to compile is dropped by the preload, and loading it
// still reports the compiler's error.
TEST_P(KernelPreloadPlatformTest, LeavesErrorsToInitialization) {
  se::KernelSpec broken = IncrementKernel();
  broken.name = "preload_broken";
  broken.cuda_source = "extern \"C\" __global__ void preload_broken( {";
  gpu::PreloadKernels(executor_, {broken}, 0);
  if (GetParam() == "host") {
    EXPECT_TRUE(executor_->LoadKernel(broken).ok());
  } else {
    EXPECT_FALSE(executor_->LoadKernel(broken).ok());
  }
}

INSTANTIATE_FOR_ALL_PLATFORMS(KernelPreloadPlatformTest);

}  // namespace
}  // namespace xla_lite::testing
