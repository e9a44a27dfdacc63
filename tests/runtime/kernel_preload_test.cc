// The compiler's kernel preloading: every KernelThunk of a program is
// found, control flow's and command buffers' included, in program order
// and each source once; once PreloadKernels has run, loading a kernel
// again is a lookup of the executor's caches (no compilation, no disk
// read); a failure ends it and is reported by the load; a preload on its
// own thread can be stopped.

#include "xla_lite/runtime/kernel_preload.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
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
// order, each kernel with a source of its own. No thunk runs, so the
// slices only need to exist.
struct Program {
  BufferAllocation allocation = BufferAllocation::Temp(0, 64);
  ThunkSequence thunks;
  std::vector<std::string> kernels;

  std::unique_ptr<Thunk> Kernel(std::string name) {
    // The element count is baked into the source: distinct sources.
    se::KernelSpec spec = AxpyKernel(kernels.size() + 1, 1.0f);
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
  p.thunks.push_back(p.Kernel("top"));
  {
    ThunkSequence recorded;
    recorded.push_back(p.Kernel("recorded"));
    p.thunks.push_back(std::make_unique<gpu::CommandBufferThunk>(
        "command_buffer", std::move(recorded)));
  }
  {
    auto condition = p.Sequence("cond", p.Kernel("cond"));
    auto body = p.Sequence("body", p.Kernel("body"));
    p.thunks.push_back(std::make_unique<gpu::WhileThunk>(
        "loop", p.allocation.GetSlice(4, 1), std::move(condition),
        std::move(body)));
  }
  {
    std::vector<std::unique_ptr<SequentialThunk>> branches;
    branches.push_back(p.Sequence("b0", p.Kernel("b0")));
    branches.push_back(p.Sequence("b1", p.Kernel("b1")));
    p.thunks.push_back(std::make_unique<gpu::ConditionalThunk>(
        "cond_branch", p.allocation.GetSlice(8, 4), std::move(branches)));
  }
  {
    ThunkSequence nested;
    nested.push_back(p.Kernel("nested"));
    p.thunks.push_back(
        std::make_unique<SequentialThunk>("sequence", std::move(nested)));
  }
  p.thunks.push_back(p.Kernel("last"));
  return p;
}

std::vector<std::string> Names(const std::vector<se::KernelSpec>& specs) {
  std::vector<std::string> names;
  for (const se::KernelSpec& spec : specs) names.push_back(spec.name);
  return names;
}

TEST(KernelPreloadTest, FindsEveryKernelThunkInProgramOrder) {
  const Program program = EveryContainer();
  const std::vector<std::string> names =
      Names(gpu::KernelSpecsUnder(program.thunks));
  EXPECT_EQ(names, program.kernels);
  EXPECT_EQ(names.size(), 8u);
}

// A second thunk of the first kernel's source (an unrolled loop's copy)
// is not preloaded again.
TEST(KernelPreloadTest, ListsEachSourceOnce) {
  Program program = EveryContainer();
  const std::vector<std::string> kernels = program.kernels;
  const auto& first = static_cast<const gpu::KernelThunk&>(*program.thunks[0]);
  se::KernelSpec copy = first.spec();
  copy.name = "copy_of_top";
  program.thunks.push_back(std::make_unique<gpu::KernelThunk>(
      "copy", std::move(copy), se::LaunchDimensions(1, 1),
      std::vector<BufferAllocation::Slice>{program.allocation.GetSlice(0, 4)},
      std::vector<bool>{true}));
  EXPECT_EQ(Names(gpu::KernelSpecsUnder(program.thunks)), kernels);
}

class KernelPreloadPlatformTest : public RuntimeTest {
 protected:
  // Distinct kernels, `count` of them, none loaded before in this process.
  static std::vector<se::KernelSpec> FreshKernels(int count) {
    static int next = 100;
    std::vector<se::KernelSpec> specs;
    for (int i = 0; i < count; ++i) specs.push_back(AxpyKernel(next++, 2.0f));
    return specs;
  }
  // The GPU executor's kernel cache counters; zeros on the host.
  se::gpu::GpuKernelCacheStats Stats() const {
    auto* gpu_executor = dynamic_cast<se::gpu::GpuExecutor*>(executor_);
    return gpu_executor == nullptr ? se::gpu::GpuKernelCacheStats{}
                                   : gpu_executor->kernel_cache_stats();
  }
  bool HasKernelCache() const {
    return dynamic_cast<se::gpu::GpuExecutor*>(executor_) != nullptr;
  }
};

// Preloaded, each kernel compiles (or comes from disk) once and is looked
// up once by the preload's own load; loading it again only hits memory.
TEST_P(KernelPreloadPlatformTest, LeavesInitializationOnlyLookups) {
  const std::vector<se::KernelSpec> specs = FreshKernels(6);
  const int64_t n = specs.size();
  const se::gpu::GpuKernelCacheStats before = Stats();
  EXPECT_EQ(gpu::PreloadKernels(executor_, specs, /*forced_threads=*/3), n);
  const se::gpu::GpuKernelCacheStats preloaded = Stats();
  if (HasKernelCache()) {
    EXPECT_EQ((preloaded.compilations - before.compilations) +
                  (preloaded.disk_hits - before.disk_hits),
              n);
    EXPECT_EQ(preloaded.memory_hits - before.memory_hits, n);
  }
  for (const se::KernelSpec& spec : specs) {
    auto kernel = executor_->LoadKernel(spec);
    ASSERT_TRUE(kernel.ok()) << spec.name << ": " << kernel.status();
  }
  const se::gpu::GpuKernelCacheStats after = Stats();
  EXPECT_EQ(after.compilations, preloaded.compilations);
  EXPECT_EQ(after.disk_hits, preloaded.disk_hits);
  if (HasKernelCache()) {
    EXPECT_EQ(after.memory_hits - preloaded.memory_hits, n);
  }
}

// A kernel that fails to compile ends the preload there (the kernels
// before it are loaded), and loading it still reports the compiler's
// error, naming the kernel. The host loads host functions and never
// compiles, so it loads all three.
TEST_P(KernelPreloadPlatformTest, StopsAtAFailureAndLeavesItsError) {
  std::vector<se::KernelSpec> specs = FreshKernels(3);
  specs[1].name = "preload_broken";
  specs[1].cuda_source = "extern \"C\" __global__ void preload_broken( {";
  const int64_t loaded = gpu::PreloadKernels(executor_, specs, 2);
  auto broken = executor_->LoadKernel(specs[1]);
  if (!HasKernelCache()) {
    EXPECT_EQ(loaded, 3);
    EXPECT_TRUE(broken.ok()) << broken.status();
    return;
  }
  EXPECT_EQ(loaded, 1);
  ASSERT_FALSE(broken.ok());
  EXPECT_THAT(std::string(broken.status().message()),
              ::testing::HasSubstr("preload_broken"));
  // The first kernel was loaded: loading it again is a memory hit.
  const se::gpu::GpuKernelCacheStats before = Stats();
  ASSERT_TRUE(executor_->LoadKernel(specs[0]).ok());
  EXPECT_EQ(Stats().memory_hits - before.memory_hits, 1);
  EXPECT_EQ(Stats().compilations, before.compilations);
}

// A preload on its own thread: waited for, its kernels are loaded; stopped
// at once and destroyed, it returns, and the executor loads kernels as
// before.
TEST_P(KernelPreloadPlatformTest, RunsOnItsThreadAndStops) {
  const std::vector<se::KernelSpec> waited = FreshKernels(4);
  {
    gpu::KernelPreload preload(executor_, waited, 2);
    EXPECT_EQ(preload.executor(), executor_);
    preload.Wait();
  }
  const se::gpu::GpuKernelCacheStats before = Stats();
  for (const se::KernelSpec& spec : waited) {
    ASSERT_TRUE(executor_->LoadKernel(spec).ok());
  }
  EXPECT_EQ(Stats().compilations, before.compilations);
  EXPECT_EQ(Stats().disk_hits, before.disk_hits);

  const std::vector<se::KernelSpec> stopped = FreshKernels(4);
  {
    gpu::KernelPreload preload(executor_, stopped, 2);
    preload.Stop();
  }  // Joins.
  for (const se::KernelSpec& spec : stopped) {
    auto kernel = executor_->LoadKernel(spec);
    EXPECT_TRUE(kernel.ok()) << kernel.status();
  }
}

INSTANTIATE_FOR_ALL_PLATFORMS(KernelPreloadPlatformTest);

}  // namespace
}  // namespace xla_lite::testing
