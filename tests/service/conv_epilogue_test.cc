// Elementwise epilogues of the emitted convolutions (kernel_merging.h): a
// bias and activation, a ReLU gradient's mask or an optimizer's update
// computed by the tiled convolution kernel from the product in registers
// (split-K's, in the sum of the splits, is in conv_gemm_test). Which
// convolutions take one, how their results are stored, and that the
// fused kernels still match the HloEvaluator on every platform.

#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "tests/service/compiler_test_base.h"
#include "xla_lite/debug_options_flags.h"
#include "xla_lite/hlo/hlo_module.h"
#include "xla_lite/runtime/kernel_thunk.h"
#include "xla_lite/service/compiler.h"
#include "xla_lite/service/execution_plan.h"

namespace xla_lite::testing {
namespace {

using gpu::Thunk;

// A forward 3x3 SAME convolution c = x * k (batch 4, 8x8, 3 -> 16 features
// unless `features` says otherwise), used as `uses` say. b is a bias, z a
// zero of c's shape.
std::string ConvolutionLayer(
    const std::string& uses,
    const std::string& conv_attributes = "dim_labels=b01f_01io->b01f",
    int in_features = 3) {
  return absl::StrFormat(R"(
HloModule layer
ENTRY main {
  x = f32[4,8,8,%d] parameter(0)
  k = f32[3,3,%d,16] parameter(1)
  b = f32[16] parameter(2)
  c = f32[4,8,8,16] convolution(x, k), window={size=3x3 pad=1_1x1_1}, %s
  bb = f32[4,8,8,16] broadcast(b), dimensions={3}
  zero = f32[] constant(0)
  z = f32[4,8,8,16] broadcast(zero), dimensions={}
%s
})",
                         in_features, in_features, conv_attributes, uses);
}

class ConvolutionEpilogueTest : public CompilerTest {
 protected:
  // Thunks of `hlo` compiled op by op (-1 if it does not compile), after
  // checking its results on arguments in [lo, hi): small enough that the
  // f32 rounding of the sums stays within the comparison's absolute
  // floor, where a wrong index or a lost epilogue misses by far more.
  int64_t ThunksOf(const std::string& hlo, double lo = -0.125,
                   double hi = 0.125) {
    ExpectMatchesEvaluator(hlo, lo, hi);
    auto executable = Compile(hlo);
    EXPECT_TRUE(executable.ok()) << executable.status();
    if (!executable.ok()) return -1;
    EXPECT_EQ(CountThunks(**executable, Thunk::Kind::kKernel),
              FlatThunks(**executable).size());
    return FlatThunks(**executable).size();
  }

  // The CUDA C of the first kernel of `hlo`.
  std::string FirstKernelSource(const std::string& hlo) {
    auto executable = Compile(hlo);
    EXPECT_TRUE(executable.ok()) << executable.status();
    if (!executable.ok()) return "";
    const auto* kernel =
        dynamic_cast<const gpu::KernelThunk*>(FlatThunks(**executable)[0]);
    EXPECT_NE(kernel, nullptr);
    return kernel == nullptr ? "" : kernel->spec().cuda_source;
  }
};

// The epilogue's entry point for runs of adjacent results.
constexpr char kRunCall[] = "_epilogue_run<kColsPerThread>(";

TEST_P(ConvolutionEpilogueTest, BiasAndReluAreOneKernel) {
  EXPECT_EQ(ThunksOf(ConvolutionLayer(R"(
  s = f32[4,8,8,16] add(c, bb)
  ROOT r = f32[4,8,8,16] maximum(s, z))")),
            1);
}

TEST_P(ConvolutionEpilogueTest, FeaturesInnermostStoreRuns) {
  // 64 features innermost: each thread hands the epilogue runs of 4
  // adjacent results, which it stores with vector stores.
  const std::string hlo = R"(
HloModule wide
ENTRY main {
  x = f32[8,16,16,8] parameter(0)
  k = f32[3,3,8,64] parameter(1)
  b = f32[64] parameter(2)
  c = f32[8,16,16,64] convolution(x, k), window={size=3x3 pad=1_1x1_1},
      dim_labels=b01f_01io->b01f
  bb = f32[8,16,16,64] broadcast(b), dimensions={3}
  zero = f32[] constant(0)
  z = f32[8,16,16,64] broadcast(zero), dimensions={}
  s = f32[8,16,16,64] add(c, bb)
  ROOT r = f32[8,16,16,64] maximum(s, z)
})";
  EXPECT_EQ(ThunksOf(hlo), 1);
  const std::string source = FirstKernelSource(hlo);
  EXPECT_TRUE(absl::StrContains(source, kRunCall)) << source.substr(0, 300);
}

TEST_P(ConvolutionEpilogueTest, FeaturesOutermostStoreElementByElement) {
  // NCHW: a thread's adjacent columns are features, a plane apart.
  const std::string hlo = R"(
HloModule nchw
ENTRY main {
  x = f32[8,8,16,16] parameter(0)
  k = f32[64,8,3,3] parameter(1)
  b = f32[64] parameter(2)
  c = f32[8,64,16,16] convolution(x, k), window={size=3x3 pad=1_1x1_1},
      dim_labels=bf01_oi01->bf01
  bb = f32[8,64,16,16] broadcast(b), dimensions={1}
  ROOT s = f32[8,64,16,16] add(c, bb)
})";
  EXPECT_EQ(ThunksOf(hlo), 1);
  const std::string source = FirstKernelSource(hlo);
  // Runs of columns, which stored runs were the features innermost.
  const std::string header = source.substr(0, source.find('\n'));
  ASSERT_TRUE(absl::StrContains(header, "x2 per thread") ||
              absl::StrContains(header, "x4 per thread"))
      << header;
  EXPECT_FALSE(absl::StrContains(source, kRunCall));
}

TEST_P(ConvolutionEpilogueTest, ProductReadElsewhereIsStoredByTheKernel) {
  // c is a result of its own as well as the epilogue's input.
  EXPECT_EQ(ThunksOf(ConvolutionLayer(R"(
  s = f32[4,8,8,16] add(c, bb)
  r = f32[4,8,8,16] maximum(s, z)
  ROOT t = (f32[4,8,8,16], f32[4,8,8,16]) tuple(r, c))")),
            1);
}

TEST_P(ConvolutionEpilogueTest, ReluGradientMaskOfAnInputGradient) {
  // The backward pass's select(pre-activation > 0, gradient, 0), reading
  // the input gradient at each element's own index.
  EXPECT_EQ(ThunksOf(ConvolutionLayer(R"(
  mask = pred[4,8,8,16] compare(bb, z), direction=GT
  ROOT r = f32[4,8,8,16] select(mask, c, z))",
                                      "dim_labels=b01f_01oi->b01f", 16)),
            1);
}

TEST_P(ConvolutionEpilogueTest, ProductReadAtOtherElementsIsNoEpilogue) {
  // Element (.., w, ..) of r needs c at (.., 7 - w, ..): another thread's.
  EXPECT_EQ(ThunksOf(ConvolutionLayer(R"(
  v = f32[4,8,8,16] reverse(c), dimensions={2}
  ROOT r = f32[4,8,8,16] add(v, bb))")),
            2);
}

TEST_P(ConvolutionEpilogueTest, UntiledConvolutionsTakeNoEpilogue) {
  // Depthwise: one feature per group, the one-output-per-thread kernel.
  const std::string hlo = R"(
HloModule depthwise
ENTRY main {
  x = f32[2,6,6,8] parameter(0)
  k = f32[3,3,1,8] parameter(1)
  b = f32[8] parameter(2)
  c = f32[2,6,6,8] convolution(x, k), window={size=3x3 pad=1_1x1_1},
      dim_labels=b01f_01io->b01f, feature_group_count=8
  bb = f32[2,6,6,8] broadcast(b), dimensions={3}
  ROOT s = f32[2,6,6,8] add(c, bb)
})";
  EXPECT_EQ(ThunksOf(hlo), 2);
}

TEST_P(ConvolutionEpilogueTest, CifarConvolutionsTakeEpilogues) {
  const std::string hlo =
      ReadRunfile("configs/models/cnn_cifar/train_step.hlo");
  auto executable = Compile(hlo);
  ASSERT_TRUE(executable.ok()) << executable.status();
  int fused = 0;
  for (const Thunk* thunk : FlatThunks(**executable)) {
    fused += thunk->name().rfind("conv", 0) == 0 &&
             thunk->name().find('+') != std::string::npos;
  }
  // The layers' activations, ReLU-gradient masks and filter updates (with
  // the split-K sums that take them): 14 convolutions, 2 left apart.
  EXPECT_GE(fused, 12);
}

INSTANTIATE_FOR_ALL_PLATFORMS(ConvolutionEpilogueTest);

// Which convolutions the plan gives epilogues, with and without the DNN
// library: a library call stores its whole result, so the convolutions
// the rule sends there keep theirs apart.
int EpiloguesInPlan(const std::string& hlo,
                    const gpu::KernelEmission& emission) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = Parse(hlo);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return -1;
  EXPECT_TRUE(RunHloPasses(module->get()).ok());
  absl::StatusOr<gpu::ExecutionPlan> plan =
      gpu::BuildExecutionPlan(**module, emission);
  EXPECT_TRUE(plan.ok()) << plan.status();
  if (!plan.ok()) return -1;
  int epilogues = 0;
  for (const gpu::PlannedOp& op : plan->ops) {
    epilogues +=
        op.kind == gpu::PlannedOp::Kind::kWindowKernel && op.program != nullptr;
  }
  return epilogues;
}

TEST(ConvolutionEpiloguePlanTest, DnnConvolutionsTakeNoEpilogue) {
  const std::string hlo = ConvolutionLayer(R"(
  s = f32[4,8,8,16] add(c, bb)
  ROOT r = f32[4,8,8,16] maximum(s, z))");
  gpu::KernelEmission emission;
  EXPECT_EQ(EpiloguesInPlan(hlo, emission), 1);
  emission.dnn_convolution.min_flops = 0;
  EXPECT_EQ(EpiloguesInPlan(hlo, emission), 0);
  // Too small for the rule: emitted, with its epilogue.
  emission.dnn_convolution.min_flops = int64_t{1} << 40;
  EXPECT_EQ(EpiloguesInPlan(hlo, emission), 1);
}

}  // namespace
}  // namespace xla_lite::testing
