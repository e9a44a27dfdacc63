// Loop kernels compute what no element depends on once per thread, before
// their loop: Adam's bias corrections (a power and a quotient of the step
// count) are the same for every parameter element. Each group of a merged
// kernel's outputs runs on blocks of its own, so no element asks which
// group it is in. Checked through the emitted CUDA C and its launch, with
// results against the evaluator on every platform.

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "tests/service/compiler_test_base.h"
#include "xla_lite/runtime/gpu_executable.h"
#include "xla_lite/runtime/kernel_thunk.h"
#include "xla_lite/service/compiler.h"
#include "xla_lite/service/cuda_emitter.h"
#include "xla_lite/service/execution_plan.h"
#include "xla_lite/service/kernel_emitter.h"
#include "stream_executor/device_description.h"

namespace xla_lite::testing {
namespace {

// One parameter's Adam momentum and update, as JAX writes them, scaled by
// the bias correction 1 / (1 - 0.9^count) computed from the scalar count.
std::string ParameterUpdate(const std::string& name, int64_t size, int first) {
  return absl::StrFormat(R"(
  p%1$s = f32[%2$d] parameter(%3$d)
  g%1$s = f32[%2$d] parameter(%4$d)
  m%1$s = f32[%2$d] parameter(%5$d)
  b1_%1$s = f32[%2$d] broadcast(b1), dimensions={}
  nb1_%1$s = f32[%2$d] broadcast(nb1), dimensions={}
  scale_%1$s = f32[%2$d] broadcast(scale), dimensions={}
  lr_%1$s = f32[%2$d] broadcast(lr), dimensions={}
  mm%1$s = f32[%2$d] multiply(m%1$s, b1_%1$s)
  mg%1$s = f32[%2$d] multiply(g%1$s, nb1_%1$s)
  new_m%1$s = f32[%2$d] add(mm%1$s, mg%1$s)
  c%1$s = f32[%2$d] multiply(new_m%1$s, scale_%1$s)
  u%1$s = f32[%2$d] multiply(c%1$s, lr_%1$s)
  new_p%1$s = f32[%2$d] subtract(p%1$s, u%1$s))",
                         name, size, first, first + 1, first + 2);
}

// Two parameters of `large` and 96 elements; the count is parameter 6.
std::string TwoParameterAdam(int64_t large) {
  return absl::StrCat(
      "HloModule adam\nENTRY main {\n  count = f32[] parameter(6)\n",
      R"(  one = f32[] constant(1)
  b1 = f32[] constant(0.9)
  nb1 = f32[] constant(0.1)
  lr = f32[] constant(0.001)
  pw = f32[] power(b1, count)
  s = f32[] subtract(one, pw)
  scale = f32[] divide(one, s))",
      ParameterUpdate("0", large, 0), ParameterUpdate("1", 96, 3),
      absl::StrFormat("\n  ROOT r = (f32[%d], f32[%d], f32[96], f32[96]) "
                      "tuple(new_p0, new_m0, new_p1, new_m1)\n}\n",
                      large, large));
}

// y = x * (1 / c) over `size` elements, c a scalar parameter.
std::string ScaleByReciprocal(int64_t size) {
  return absl::StrFormat(R"(
HloModule scale
ENTRY main {
  x = f32[%1$d] parameter(0)
  c = f32[] parameter(1)
  one = f32[] constant(1)
  d = f32[] divide(one, c)
  db = f32[%1$d] broadcast(d), dimensions={}
  ROOT y = f32[%1$d] multiply(x, db)
})",
                         size);
}

// The text from `from` on, up to (not including) `to`; empty if either is
// missing.
std::string Between(const std::string& source, const std::string& from,
                    const std::string& to, size_t start = 0) {
  const size_t begin = source.find(from, start);
  if (begin == std::string::npos) return "";
  const size_t end = source.find(to, begin + from.size());
  if (end == std::string::npos) return "";
  return source.substr(begin, end - begin);
}

int Count(const std::string& source, const std::string& text) {
  int n = 0;
  for (size_t at = source.find(text); at != std::string::npos;
       at = source.find(text, at + text.size())) {
    ++n;
  }
  return n;
}

class LoopInvariantsTest : public CompilerTest {
 protected:
  // `hlo`'s only kernel's CUDA C and launch blocks, after checking its
  // results against the evaluator; {"", -1} when it is not one kernel.
  std::pair<std::string, int64_t> OnlyKernel(const std::string& hlo) {
    ExpectMatchesEvaluator(hlo, 0.5, 1.0);
    auto executable = Compile(hlo);
    EXPECT_TRUE(executable.ok()) << executable.status();
    if (!executable.ok() || FlatThunks(**executable).size() != 1) {
      return {"", -1};
    }
    const auto* kernel =
        dynamic_cast<const gpu::KernelThunk*>(FlatThunks(**executable)[0]);
    if (kernel == nullptr) return {"", -1};
    return {kernel->spec().cuda_source,
            kernel->launch_dimensions().blocks.x};
  }
};

TEST_P(LoopInvariantsTest, BiasCorrectionIsComputedOnceAThreadPerGroup) {
  // 4096 + 96 elements fill no device: a thread each, in 16 blocks for the
  // first parameter and one for the second. Each group computes the power
  // once, before its loop, and never asks which group an element is in.
  const auto [source, blocks] = OnlyKernel(TwoParameterAdam(4096));
  ASSERT_FALSE(source.empty());
  EXPECT_EQ(blocks, 17);
  EXPECT_EQ(Count(source, "xl_power_f32("), 3) << source;  // Its definition.
  const std::string first =
      Between(source, "if (blockIdx.x < 16) {", "} else {");
  const std::string second = Between(source, "} else {", "\n}\n");
  for (const std::string& group : {first, second}) {
    SCOPED_TRACE(group);
    ASSERT_FALSE(group.empty()) << source;
    const size_t power = group.find("xl_power_f32(");
    const size_t loop = group.find("for (idx_t i = first;");
    ASSERT_NE(power, std::string::npos);
    ASSERT_NE(loop, std::string::npos);
    EXPECT_LT(power, loop);
    EXPECT_EQ(Count(group, "xl_power_f32("), 1);
  }
  EXPECT_NE(first.find("i < 4096; i += (idx_t)16 * blockDim.x"),
            std::string::npos);
  EXPECT_NE(second.find("((idx_t)blockIdx.x - 16) * blockDim.x"),
            std::string::npos);
  EXPECT_NE(second.find("i < 96; i += (idx_t)1 * blockDim.x"),
            std::string::npos);
  EXPECT_EQ(source.find("idx_t t"), std::string::npos) << source;
}

TEST_P(LoopInvariantsTest, LargeLoopsFillTheDeviceOnceAndLoop) {
  // 2^20 + 96 elements: 1056 blocks of 256 (an H100's or H200's 132
  // multiprocessors full) would take 4 elements a thread, so the large
  // parameter takes 1024 blocks, each thread 4 elements 1024 blocks apart,
  // and the small one its own block.
  constexpr int64_t kLarge = int64_t{1} << 20;
  const auto [source, blocks] = OnlyKernel(TwoParameterAdam(kLarge));
  ASSERT_FALSE(source.empty());
  EXPECT_EQ(blocks, 1025);
  EXPECT_NE(source.find("if (blockIdx.x < 1024) {"), std::string::npos)
      << source;
  EXPECT_NE(source.find(absl::StrCat("i < ", kLarge,
                                     "; i += (idx_t)1024 * blockDim.x")),
            std::string::npos)
      << source;
}

TEST_P(LoopInvariantsTest, OneGroupWithInvariantsLoopsOverItsElements) {
  // A single output scaled by a computed scalar: one group, no dispatch,
  // the quotient before the loop.
  const auto [source, blocks] = OnlyKernel(ScaleByReciprocal(8192));
  ASSERT_FALSE(source.empty());
  EXPECT_EQ(blocks, 32);
  EXPECT_EQ(source.find("if (blockIdx.x <"), std::string::npos) << source;
  const std::string group =
      Between(source, "const idx_t first", "for (idx_t i = first;");
  EXPECT_NE(group.find("xl_divide_f32("), std::string::npos) << source;
}

TEST_P(LoopInvariantsTest, OneGroupLargeEnoughToUnrollStaysUnrolled) {
  // 2^20 elements, a multiple of four blocks: the unrolled run of four
  // elements a thread (LoopUnroll), invariant quotient and all.
  const auto [source, blocks] = OnlyKernel(ScaleByReciprocal(1048576));
  ASSERT_FALSE(source.empty());
  EXPECT_EQ(blocks, 1024);
  EXPECT_NE(source.find("#pragma unroll"), std::string::npos) << source;
  EXPECT_EQ(source.find("const idx_t first"), std::string::npos) << source;
}

TEST_P(LoopInvariantsTest, InvariantSideOfALazySelectIsComputedBeforeTheLoop) {
  // The select's true side loads g, its false side is a power of the
  // scalar c that nothing else reads: a lazy select (LazySelects) whose
  // false side, needing no element, comes before the loop. The branch
  // only reads it.
  const std::string hlo = R"(
HloModule select
ENTRY main {
  on = pred[4096] parameter(0)
  g = f32[4096] parameter(1)
  c = f32[] parameter(2)
  b = f32[] constant(0.9)
  pw = f32[] power(b, c)
  pwb = f32[4096] broadcast(pw), dimensions={}
  ROOT y = f32[4096] select(on, g, pwb)
})";
  const auto [source, blocks] = OnlyKernel(hlo);
  ASSERT_FALSE(source.empty());
  EXPECT_EQ(blocks, 16);
  const size_t first = source.find("const idx_t first");
  const size_t loop = source.find("for (idx_t i = first;");
  ASSERT_NE(first, std::string::npos) << source;
  ASSERT_NE(loop, std::string::npos) << source;
  EXPECT_EQ(Count(source.substr(first, loop - first), "xl_power_f32("), 1)
      << source;
  const std::string body = source.substr(loop);
  EXPECT_EQ(Count(body, "xl_power_f32("), 0) << source;
  // The lazy select's branch, which loads g on its true side only.
  EXPECT_NE(body.find("} else {"), std::string::npos) << source;
}

// A device-full is the device's own: with 66 multiprocessors, 528 blocks
// of 256 would take 8 elements a thread, so the large parameter takes 512
// blocks (the kernel for 132, above: 1024). The compiler takes the count
// from a GPU's description, and keeps the default for the host's.
TEST(LoopLayoutTest, LargeLoopsFillTheDeviceTheyAreCompiledFor) {
  constexpr int64_t kLarge = int64_t{1} << 20;
  auto module = Parse(TwoParameterAdam(kLarge));
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(RunHloPasses(module->get()).ok());
  se::DeviceDescription gpu;
  gpu.arch = "sm_90";
  gpu.compute_major = 9;
  gpu.core_count = 66;
  const gpu::KernelEmission emission =
      KernelEmissionFor(OpByOpOptions(), /*blas=*/true, /*dnn=*/false,
                        /*gemm_workspace_bytes=*/0, &gpu);
  EXPECT_EQ(emission.multiprocessors, 66);
  se::DeviceDescription host;
  host.arch = "host";
  host.core_count = 4;
  EXPECT_EQ(KernelEmissionFor(OpByOpOptions(), false, false, 0, &host)
                .multiprocessors,
            gpu::kDefaultMultiprocessors);
  auto plan = gpu::BuildExecutionPlan(**module, emission);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->ops.size(), 1) << plan->ToString();
  const auto& program = plan->ops[0].program;
  ASSERT_NE(program, nullptr);
  // Each buffer a slice of its own.
  gpu::BufferAllocation allocation = gpu::BufferAllocation::Temp(0, 1 << 26);
  int64_t offset = 0;
  auto slices = [&](const auto& buffers) {
    std::vector<gpu::BufferAllocation::Slice> out;
    for (const auto& buffer : buffers) {
      out.push_back(allocation.GetSlice(offset, 4 * buffer.element_count));
      offset += 4 * buffer.element_count;
    }
    return out;
  };
  std::vector<gpu::KernelBuffer> outputs;
  for (const gpu::KernelOutput& output : program->outputs()) {
    outputs.push_back(output.buffer);
  }
  const gpu::EmittedKernel kernel = gpu::EmitKernel(
      program, slices(program->inputs()), slices(outputs), "adam", 66);
  EXPECT_EQ(kernel.launch_dimensions.blocks.x, 513);
  EXPECT_NE(kernel.spec.cuda_source.find("if (blockIdx.x < 512) {"),
            std::string::npos)
      << kernel.spec.cuda_source;
  EXPECT_EQ(gpu::KernelLaunchDimensions(*program).blocks.x, 1025)
      << "the default, an H200's 132";
}

INSTANTIATE_FOR_ALL_PLATFORMS(LoopInvariantsTest);

}  // namespace
}  // namespace xla_lite::testing
