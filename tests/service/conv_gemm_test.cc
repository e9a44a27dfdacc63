// The tiled implicit-gemm convolution (service/convolution/conv_gemm_kernel)
// and its split-K form: which convolutions take them, and every form they
// take (strides, padding, both dilations, reversal, the gradient
// dim_labels, both group counts, split-K) through the compiler on every
// platform, against the HloEvaluator.

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "tests/service/compiler_test_base.h"
#include "xla_lite/debug_options_flags.h"
#include "xla_lite/hlo/hlo_computation.h"
#include "xla_lite/service/compiler.h"
#include "xla_lite/service/convolution/windowed_kernels.h"

namespace xla_lite::testing {
namespace {

std::unique_ptr<HloModule> ParseOrDie(const std::string& hlo) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = Parse(hlo);
  EXPECT_TRUE(module.ok()) << module.status() << "\n" << hlo;
  return module.ok() ? *std::move(module) : nullptr;
}

// The config of the root convolution of `hlo`.
gpu::ConvolutionConfig ConfigOf(const std::string& hlo) {
  std::unique_ptr<HloModule> module = ParseOrDie(hlo);
  if (module == nullptr) return {};
  absl::StatusOr<gpu::ConvolutionConfig> config = gpu::ConvolutionConfigFor(
      *module->entry_computation()->root_instruction());
  EXPECT_TRUE(config.ok()) << config.status();
  return config.ok() ? *config : gpu::ConvolutionConfig{};
}

// A forward 3x3 SAME convolution of `features` outputs per group.
std::string Forward(int features, int groups = 1) {
  return ConvolutionModule(
      absl::StrCat("2,6,5,", 2 * groups),
      absl::StrCat("3,3,2,", features * groups),
      absl::StrCat("2,6,5,", features * groups),
      absl::StrCat("window={size=3x3 pad=1_1x1_1}, "
                   "dim_labels=b01f_01io->b01f, feature_group_count=",
                   groups));
}

// A filter gradient whose contraction (batch x 16 x 16) splits.
constexpr char kSplitFilterGradient[] =
    "window={size=16x16 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf";
std::string SplitFilterGradient() {
  return ConvolutionModule("8,16,16,3", "8,16,16,16", "3,3,3,16",
                           kSplitFilterGradient);
}

TEST(ConvolutionGemmChoiceTest, TilesGroupsOfEnoughFeatures) {
  const gpu::ConvolutionConfig forward = ConfigOf(Forward(16));
  EXPECT_TRUE(forward.gemm.tiled) << forward.ToString();
  EXPECT_EQ(forward.gemm.m, 2 * 6 * 5);
  EXPECT_EQ(forward.gemm.n, 16);
  EXPECT_EQ(forward.gemm.k, 3 * 3 * 2);
  EXPECT_EQ(forward.gemm.splits, 1);
  EXPECT_EQ(forward.gemm.ScratchElements(), 0);
  const gpu::ConvolutionConfig grouped = ConfigOf(Forward(8, 3));
  EXPECT_TRUE(grouped.gemm.tiled) << grouped.ToString();
  EXPECT_EQ(grouped.gemm.groups, 3);
  EXPECT_EQ(grouped.gemm.n, 8);
  // Depthwise and narrow groups stay one output per thread.
  EXPECT_FALSE(ConfigOf(Forward(1, 2)).gemm.tiled);
  EXPECT_FALSE(ConfigOf(Forward(gpu::ConvolutionGemm::kMinTiledFeatures - 1))
                   .gemm.tiled);
}

TEST(ConvolutionGemmChoiceTest, FilterGradientsSplitTheirContraction) {
  const gpu::ConvolutionConfig config = ConfigOf(SplitFilterGradient());
  ASSERT_TRUE(config.gemm.tiled) << config.ToString();
  EXPECT_EQ(config.gemm.k, 8 * 16 * 16);
  EXPECT_GT(config.gemm.splits, 1) << config.ToString();
  EXPECT_GE(config.gemm.splits * config.gemm.split_k, config.gemm.k);
  EXPECT_LT((config.gemm.splits - 1) * config.gemm.split_k, config.gemm.k);
  EXPECT_EQ(config.gemm.split_k % config.gemm.tiling.tile_k, 0);
  // The batch (the lhs's contiguous b) is the innermost row component.
  EXPECT_EQ(config.gemm.row_axes.back(), -1);

  std::unique_ptr<HloModule> module = ParseOrDie(SplitFilterGradient());
  ASSERT_NE(module, nullptr);
  const HloInstruction& conv = *module->entry_computation()->root_instruction();
  absl::StatusOr<int64_t> scratch = gpu::WindowedScratchBytes(conv);
  ASSERT_TRUE(scratch.ok()) << scratch.status();
  EXPECT_EQ(*scratch, config.gemm.ScratchElements() * 4);
  auto kernels = gpu::EmitWindowedKernels(conv, "conv");
  ASSERT_TRUE(kernels.ok()) << kernels.status();
  ASSERT_EQ(kernels->size(), 2);
  // (lhs, rhs, scratch), then (scratch, result).
  EXPECT_EQ((*kernels)[0].arguments, (std::vector<int>{0, 1, 3}));
  EXPECT_EQ((*kernels)[1].arguments, (std::vector<int>{3, 2}));
  EXPECT_TRUE(absl::StartsWith((*kernels)[0].spec.cuda_source,
                               "// Emitted convolution (tiled implicit gemm)"));
  EXPECT_EQ((*kernels)[0].launch_dimensions.blocks.z, config.gemm.splits);
}

TEST(ConvolutionGemmChoiceTest, CifarConvolutionsAreTiled) {
  std::unique_ptr<HloModule> module =
      ParseOrDie(ReadRunfile("configs/models/cnn_cifar/train_step.hlo"));
  ASSERT_NE(module, nullptr);
  int convolutions = 0, filter_gradients = 0;
  for (const HloInstruction* instr :
       module->entry_computation()->instructions()) {
    if (instr->opcode() != HloOpcode::kConvolution) continue;
    ++convolutions;
    absl::StatusOr<gpu::ConvolutionConfig> config =
        gpu::ConvolutionConfigFor(*instr);
    ASSERT_TRUE(config.ok()) << config.status();
    SCOPED_TRACE(instr->name() + ": " + config->ToString());
    EXPECT_TRUE(config->gemm.tiled);
    // The filter gradients (a window as large as the activations, the
    // contraction over batch x spatial) split.
    if (config->spatial[0].window > 3) {
      EXPECT_GT(config->gemm.splits, 1);
      ++filter_gradients;
    }
  }
  EXPECT_EQ(convolutions, 14);
  EXPECT_EQ(filter_gradients, 5);
}

using ConvolutionGemmTest = CompilerTest;

TEST_P(ConvolutionGemmTest, ForwardForms) {
  const std::vector<std::vector<std::string>> cases = {
      {"2,6,5,3", "3,3,3,16", "2,6,5,16",
       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"},
      // Strided, padded on one side; VALID.
      {"2,7,6,3", "3,2,3,8", "2,3,3,8",
       "window={size=3x2 stride=2x2 pad=0_1x0_0}, "
       "dim_labels=b01f_01io->b01f"},
      // rhs dilation with negative padding.
      {"1,7,7,2", "2,2,2,12", "1,5,4,12",
       "window={size=2x2 pad=0_0x-1_0 rhs_dilate=2x2}, "
       "dim_labels=b01f_01io->b01f"},
      // lhs dilation (a strided convolution's input gradient), reversal.
      {"1,4,4,2", "3,3,2,9", "1,9,9,9",
       "window={size=3x3 pad=2_2x2_2 lhs_dilate=2x2 rhs_reversal=1x0}, "
       "dim_labels=b01f_01io->b01f"},
      // NCHW / OIHW: features strided in the output.
      {"2,3,5,5", "20,3,3,3", "2,20,5,5",
       "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01"},
      // One spatial dimension.
      {"4,40,8", "3,8,16", "4,38,16",
       "window={size=3}, dim_labels=b0f_0io->b0f"},
  };
  for (const std::vector<std::string>& c : cases) {
    const std::string hlo = ConvolutionModule(c[0], c[1], c[2], c[3]);
    SCOPED_TRACE(hlo);
    ASSERT_TRUE(ConfigOf(hlo).gemm.tiled);
    ExpectMatchesEvaluator(hlo);
  }
}

// Inputs in [-kSmall, kSmall] (or kTiny for split-K's thousands of
// products) keep the f32 rounding of long sums within the comparison's
// absolute floor; a wrong index still misses by far more.
constexpr double kSmall = 0.125;
constexpr double kTiny = 0.03;

TEST_P(ConvolutionGemmTest, FullTiles) {
  // 64x64 tiles of 4x4 per thread; a contraction (45) no multiple of 16.
  const std::string hlo = ConvolutionModule(
      "32,16,16,5", "3,3,5,64", "32,16,16,64",
      "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f");
  const gpu::ConvolutionConfig config = ConfigOf(hlo);
  ASSERT_EQ(config.gemm.tiling.tile_m(), 64) << config.ToString();
  ASSERT_EQ(config.gemm.tiling.tile_n(), 64) << config.ToString();
  ExpectMatchesEvaluator(hlo, -kSmall, kSmall);
}

TEST_P(ConvolutionGemmTest, GradientAndGroupedForms) {
  const std::vector<std::vector<std::string>> cases = {
      // Input gradient: the transposed kernel labels.
      {"2,6,5,4", "3,3,8,4", "2,6,5,8",
       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01oi->b01f"},
      // Filter gradient, too short to split.
      {"2,6,5,3", "2,6,5,16", "3,3,3,16",
       "window={size=6x5 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf"},
      {"2,5,5,4", "3,3,2,32", "2,5,5,32",
       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
       "feature_group_count=2"},
      // A grouped convolution's filter gradient.
      {"2,5,5,4", "2,5,5,16", "3,3,2,16",
       "window={size=5x5 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf, "
       "batch_group_count=2"},
  };
  for (const std::vector<std::string>& c : cases) {
    const std::string hlo = ConvolutionModule(c[0], c[1], c[2], c[3]);
    SCOPED_TRACE(hlo);
    const gpu::ConvolutionConfig config = ConfigOf(hlo);
    ASSERT_TRUE(config.gemm.tiled);
    EXPECT_EQ(config.gemm.splits, 1);
    ExpectMatchesEvaluator(hlo);
  }
}

TEST_P(ConvolutionGemmTest, SplitK) {
  ExpectMatchesEvaluator(SplitFilterGradient(), -kTiny, kTiny);
  // With feature groups, several splits of an uneven last one.
  const std::string grouped =
      ConvolutionModule("6,20,20,4", "6,20,20,16", "3,3,2,16",
                        "window={size=20x20 pad=1_1x1_1}, "
                        "dim_labels=f01b_i01o->01bf, batch_group_count=2");
  const gpu::ConvolutionConfig config = ConfigOf(grouped);
  ASSERT_GT(config.gemm.splits, 1) << config.ToString();
  ASSERT_EQ(config.gemm.groups, 2);
  ASSERT_NE(config.gemm.k % config.gemm.split_k, 0) << config.ToString();
  ExpectMatchesEvaluator(grouped, -kTiny, kTiny);
}

// The split-K pair recorded in a command buffer and replayed: the scratch
// is temp memory, fully rewritten by every execution. The filter's update
// is the epilogue of the sum of the splits: two kernels in all.
TEST_P(ConvolutionGemmTest, SplitKInCommandBuffers) {
  const std::string hlo = R"(
HloModule step, input_output_alias={ {}: (2, {}, may-alias) }
ENTRY main {
  x = f32[8,16,16,3] parameter(0)
  dy = f32[8,16,16,16] parameter(1)
  k = f32[3,3,3,16] parameter(2)
  dk = f32[3,3,3,16] convolution(x, dy), window={size=16x16 pad=1_1x1_1},
      dim_labels=f01b_i01o->01bf
  lr = f32[] constant(0.01)
  lrs = f32[3,3,3,16] broadcast(lr), dimensions={}
  step = f32[3,3,3,16] multiply(dk, lrs)
  ROOT k2 = f32[3,3,3,16] subtract(k, step)
})";
  ExpectMatchesEvaluator(hlo, -kTiny, kTiny, DefaultDebugOptions(),
                         /*steps=*/3);
  auto executable = Compile(hlo);
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_EQ(CountThunks(**executable, gpu::Thunk::Kind::kKernel), 2);
  EXPECT_EQ(FlatThunks(**executable).size(), 2);
}

// JAX's input gradient reverses the kernel's spatial dimensions; the
// simplifier folds that reverse into the window's reversal flags, so the
// kernel is read in place. A reverse of a feature dimension stays.
constexpr char kReversedKernel[] = R"(
HloModule reversed
ENTRY main {
  x = f32[2,6,5,4] parameter(0)
  k = f32[3,3,8,4] parameter(1)
  rev = f32[3,3,8,4] reverse(k), dimensions={$DIMS}
  ROOT r = f32[2,6,5,8] convolution(x, rev), window={size=3x3 pad=1_1x1_1},
      dim_labels=b01f_01oi->b01f
})";

TEST(ConvolutionReverseFoldingTest, SpatialReversesFold) {
  for (const char* dims : {"0,1", "1", "2", "0,2"}) {
    SCOPED_TRACE(dims);
    std::unique_ptr<HloModule> module =
        ParseOrDie(absl::StrReplaceAll(kReversedKernel, {{"$DIMS", dims}}));
    ASSERT_NE(module, nullptr);
    ASSERT_TRUE(RunHloPasses(module.get()).ok());
    const HloInstruction* conv =
        module->entry_computation()->root_instruction();
    ASSERT_EQ(conv->opcode(), HloOpcode::kConvolution);
    const bool spatial_only =
        std::string(dims) == "0,1" || std::string(dims) == "1";
    EXPECT_EQ(conv->operand(1)->opcode() == HloOpcode::kReverse, !spatial_only);
    if (spatial_only) {
      EXPECT_EQ(conv->window()[0].window_reversal, std::string(dims) == "0,1");
      EXPECT_TRUE(conv->window()[1].window_reversal);
    }
  }
}

TEST_P(ConvolutionGemmTest, FoldedReversesMatchTheEvaluator) {
  for (const char* dims : {"0,1", "1", "0,2"}) {
    SCOPED_TRACE(dims);
    ExpectMatchesEvaluator(
        absl::StrReplaceAll(kReversedKernel, {{"$DIMS", dims}}));
  }
}

INSTANTIATE_FOR_ALL_PLATFORMS(ConvolutionGemmTest);

}  // namespace
}  // namespace xla_lite::testing
