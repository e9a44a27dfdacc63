// The emitted gemm kernel on every platform in the binary, against a
// double-precision reference.

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/gemm/gemm_test_util.h"
#include "xla_lite/runtime/buffer_allocation.h"
#include "xla_lite/runtime/buffer_allocations.h"
#include "xla_lite/runtime/kernel_thunk.h"
#include "xla_lite/service/gemm/gemm_kernel_emitter.h"
#include "xla_lite/service/gemm/gemm_kernel_source.h"

namespace xla_lite::testing {
namespace {

using gpu::EmitGemmKernel;
using gpu::GemmConfig;
using gpu::GemmLaunchDimensions;
using gpu::GemmTiling;
using se::blas::DataType;

class EmittedGemmTest : public GemmPlatformTest {
 protected:
  // Variant `variant` of a 2 x 70 x 93 x `k` product: lhs transposed by
  // bit 0, rhs by bit 1, attention's strided batches by bit 2.
  static GemmProblem Variant(int variant, int64_t k, float alpha, float beta) {
    GemmProblem problem{
        2, 70, 93, k, (variant & 1) != 0, (variant & 2) != 0, alpha, beta};
    if ((variant & 4) != 0) {
      problem.inner_batch = 3;
      problem.pad = 2;
    }
    return problem;
  }

  // Runs `config` through the emitted kernel with `tiling`, which must be
  // on tensor cores, on random operands; `got` then holds the result and
  // `want` the reference.
  void RunOnTensorCores(const GemmConfig& config, const GemmTiling& tiling,
                        std::mt19937& rng, std::vector<float>& got,
                        ExpectedGemm& want) {
    ASSERT_TRUE(gpu::UsesTensorCores(config, tiling)) << tiling.ToString();
    GemmOperands operands = RandomOperands(config, rng);
    auto result = RunKernel(EmitGemmKernel(config, "gemm", tiling),
                            gpu::GemmLaunchDimensionsFor(config, tiling),
                            config, operands);
    ASSERT_TRUE(result.ok()) << result.status();
    got = *std::move(result);
    want = ReferenceGemm(config, operands);
  }

  // Emits (with `tiling`, else the one the emitter chooses), runs and
  // checks one problem on random operands.
  void ExpectMatchesReference(const GemmProblem& problem, std::mt19937& rng,
                              std::optional<GemmTiling> tiling = {}) {
    SCOPED_TRACE(problem.ToString());
    absl::StatusOr<GemmConfig> config = problem.Config();
    ASSERT_TRUE(config.ok()) << config.status();
    if (!tiling.has_value()) tiling = gpu::ChooseGemmTiling(*config);
    SCOPED_TRACE(tiling->ToString());
    GemmOperands operands = RandomOperands(*config, rng);
    auto got = RunKernel(EmitGemmKernel(*config, "gemm", *tiling),
                         gpu::GemmLaunchDimensionsFor(*config, *tiling),
                         *config, operands);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(
        MatchesReference(*config, *got, ReferenceGemm(*config, operands)));
  }
};

TEST_P(EmittedGemmTest, F32MatchesReference) {
  std::mt19937 rng(11);
  for (const GemmProblem& problem : EdgeCaseProblems(DataType::kF32)) {
    ExpectMatchesReference(problem, rng);
  }
}

TEST_P(EmittedGemmTest, Bf16MatchesReference) {
  std::mt19937 rng(12);
  for (const GemmProblem& problem : EdgeCaseProblems(DataType::kBF16)) {
    ExpectMatchesReference(problem, rng);
  }
}

// Operands read in place from strided batches: two batch dimensions that
// do not merge (attention's heads), padded rows, and bf16 operands with an
// f32 output.
TEST_P(EmittedGemmTest, StridedBatchesMatchReference) {
  std::mt19937 rng(18);
  for (const GemmProblem& problem : StridedProblems()) {
    ExpectMatchesReference(problem, rng);
  }
}

// bf16 products on tensor cores where the device has them (the 64x64
// tile, tile_k a multiple of 16): partial tiles along m, n and k, k in
// several passes and in one, every transpose, dense and strided operands
// (attention's heads), bf16 and f32 outputs. The reference bounds each
// f32 rounding, which the tensor cores' f32 accumulation stays within.
TEST_P(EmittedGemmTest, Bf16TensorCoreTilesMatchReference) {
  std::mt19937 rng(21);
  for (auto [cols, tile_k] : {std::pair{4, 16}, {4, 64}, {2, 16}, {2, 64}}) {
    GemmTiling tiling;
    tiling.cols_per_thread = cols;
    tiling.tile_k = tile_k;
    ASSERT_TRUE(gpu::UsesTensorCores(
        *GemmProblem{1, 64, 64, 64, false, false, 1.0f, 0.0f, DataType::kBF16}
             .Config(),
        tiling));
    for (int variant = 0; variant < 4; ++variant) {
      GemmProblem problem{2,
                          70,
                          93,
                          83,
                          (variant & 1) != 0,
                          (variant & 2) != 0,
                          1.5f,
                          0.5f,
                          DataType::kBF16};
      ExpectMatchesReference(problem, rng, tiling);
      problem.output_type = DataType::kF32;
      problem.beta = 0.0f;
      ExpectMatchesReference(problem, rng, tiling);
      problem.inner_batch = 3;
      problem.pad = 2;
      ExpectMatchesReference(problem, rng, tiling);
    }
  }
}

// Operands whose contiguous runs are multiples of 4 (sizes, leading
// dimensions, batch strides) are staged 4 elements a load (a 16-byte f32 or
// 8-byte bf16 vector), and each thread's run of output columns is stored
// as one vector (beta 0, rows a multiple of the run), where the buffers are
// aligned; element by element where they are not (every buffer offset by
// one element). Both must match the reference: partial tiles, every
// transpose, strided batches, f32 and bf16 operands and outputs, the tiles
// the emitter chooses and the FMA and tensor-core products at 4x4 and 4x2.
TEST_P(EmittedGemmTest, RunsOfFourLoadAndStoreAsVectorsWhereAligned) {
  std::mt19937 rng(23);
  struct Types {
    DataType operands;
    std::optional<DataType> output;
  };
  for (Types types : {Types{DataType::kF32, std::nullopt},
                      Types{DataType::kBF16, std::nullopt},
                      Types{DataType::kBF16, DataType::kF32}}) {
    for (int variant = 0; variant < 4; ++variant) {
      GemmProblem problem{2,
                          68,
                          92,
                          84,
                          (variant & 1) != 0,
                          (variant & 2) != 0,
                          1.5f,
                          0.0f,
                          types.operands};
      problem.output_type = types.output;
      if (variant % 2 == 1) {
        problem.inner_batch = 3;
        problem.pad = 4;
      }
      SCOPED_TRACE(problem.ToString());
      absl::StatusOr<GemmConfig> config = problem.Config();
      ASSERT_TRUE(config.ok()) << config.status();
      GemmTiling square, narrow;
      square.tile_k = 64;
      narrow.cols_per_thread = 2;
      for (GemmTiling tiling :
           {gpu::ChooseGemmTiling(*config), square, narrow}) {
        SCOPED_TRACE(tiling.ToString());
        const se::KernelSpec spec = EmitGemmKernel(*config, "gemm", tiling);
        ASSERT_NE(spec.cuda_source.find("kLhsVec = 4, kRhsVec = 4"),
                  std::string::npos)
            << "the runs were not staged as vectors";
        ASSERT_NE(spec.cuda_source.find("kVectorStore = true"),
                  std::string::npos)
            << "the output runs were not stored as vectors";
        GemmOperands operands = RandomOperands(*config, rng);
        const ExpectedGemm want = ReferenceGemm(*config, operands);
        for (int64_t offset : {0, 1}) {
          SCOPED_TRACE(absl::StrCat("buffers offset by ", offset));
          auto got =
              RunKernel(spec, gpu::GemmLaunchDimensionsFor(*config, tiling),
                        *config, operands, offset);
          ASSERT_TRUE(got.ok()) << got.status();
          EXPECT_TRUE(MatchesReference(*config, *got, want));
        }
      }
    }
  }
}

// f32 products whose dot allows TF32 run on tensor cores where the device
// has them, with TF32's errors (10 mantissa bits: near 2^-11 per operand),
// and in full f32 elsewhere (the host, HIP); partial tiles, every
// transpose, strided batches.
TEST_P(EmittedGemmTest, Tf32TensorCoreTilesRoundOnlyWhereAllowed) {
  std::mt19937 rng(22);
  const se::DeviceDescription& device = executor_->GetDeviceDescription();
  const bool tensor_cores = GetParam() == "cuda" && device.compute_major >= 8;
  for (int variant = 0; variant < 8; ++variant) {
    const GemmProblem problem = Variant(variant, 83, 1.5f, 0.0f);
    SCOPED_TRACE(problem.ToString());
    absl::StatusOr<GemmConfig> config = problem.Config();
    ASSERT_TRUE(config.ok()) << config.status();
    config->allow_tf32 = true;
    std::vector<float> got;
    ExpectedGemm want;
    ASSERT_NO_FATAL_FAILURE(
        RunOnTensorCores(*config, GemmTiling(), rng, got, want));
    // The largest error relative to the largest result.
    double worst = 0, scale = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      worst = std::max(worst, std::abs(got[i] - want.value[i]));
      scale = std::max(scale, std::abs(want.value[i]));
    }
    if (tensor_cores) {
      EXPECT_GT(worst / scale, 1e-5) << "no TF32 rounding";
      EXPECT_LT(worst / scale, 5e-3);
    } else {
      EXPECT_LT(worst / scale, 1e-5);
    }
  }
}

// f32 products on FP64 tensor cores (sm_90): each product is exact and
// the sums are f64, so every element is the exact sum rounded once to f32
// (within the f64 sums' own rounding), where an f32 accumulation drifts by
// many f32 ulps over k = 515. Elsewhere (the host, HIP, other GPUs) the
// same kernel takes the FMA product, with f32 sums. Partial tiles, every
// transpose, strided batches, beta 0 and not.
TEST_P(EmittedGemmTest, F64TensorCoreProductsRoundOnceToF32) {
  std::mt19937 rng(31);
  const se::DeviceDescription& device = executor_->GetDeviceDescription();
  const bool f64_tensor_cores =
      GetParam() == "cuda" && device.compute_major == 9;
  for (int variant = 0; variant < 8; ++variant) {
    const GemmProblem problem =
        Variant(variant, 515, 1.0f, variant == 5 ? 0.5f : 0.0f);
    SCOPED_TRACE(problem.ToString());
    absl::StatusOr<GemmConfig> config = problem.Config();
    ASSERT_TRUE(config.ok()) << config.status();
    config->f64_tensor_cores = true;
    std::vector<float> got;
    ExpectedGemm want;
    ASSERT_NO_FATAL_FAILURE(RunOnTensorCores(
        *config, gpu::ChooseGemmTiling(*config), rng, got, want));
    // With beta the f32 sum of the rounded product and beta * out rounds
    // again: that variant is held to the f32 kernels' tolerance.
    if (!f64_tensor_cores || problem.beta != 0.0f) {
      EXPECT_TRUE(MatchesReference(*config, got, want));
      continue;
    }
    int off = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      const double exact = want.value[i];
      // Half an f32 ulp of the exact sum, and a margin for the f64 sums.
      const double bound = std::abs(exact) * std::ldexp(1.0, -24) + 1e-12;
      if (std::abs(got[i] - exact) > bound && ++off <= 3) {
        ADD_FAILURE() << "element " << i << ": " << got[i] << " against "
                      << exact;
      }
    }
    EXPECT_EQ(off, 0);
  }
}

// Sizes that are multiples of no tile, under every tiling the emitter can
// choose, so each tile shape meets partial tiles along m, n and k; k is
// staged in passes of 16, of 5 (the last one partial) and in one pass;
// dense and strided operands.
TEST_P(EmittedGemmTest, EveryTilingHandlesPartialTiles) {
  std::mt19937 rng(13);
  std::vector<GemmTiling> tilings;
  for (int rows : {1, 2, 4}) {
    for (int cols : {1, 2, 4}) {
      for (int tile_k : {GemmTiling::kDefaultTileK, 5, 21}) {
        GemmTiling tiling;
        tiling.rows_per_thread = rows;
        tiling.cols_per_thread = cols;
        tiling.tile_k = tile_k;
        tilings.push_back(tiling);
      }
    }
  }
  int variant = 0;
  for (const GemmTiling& tiling : tilings) {
    GemmProblem problem{
        2, 37, 45, 21, (variant & 1) != 0, (variant & 2) != 0, 1.5f, 0.5f};
    ++variant;
    ExpectMatchesReference(problem, rng, tiling);
    // Strided: partial tiles meet padded rows and two batch dimensions.
    problem.inner_batch = 3;
    problem.pad = 2;
    ExpectMatchesReference(problem, rng, tiling);
  }
}

// 1x1x1 products of 1 * 1 scaled by alpha, so the f32 result is alpha
// exactly and the stored bf16 shows the rounding alone; Eigen's bfloat16
// conversion is the independent judge.
TEST_P(EmittedGemmTest, Bf16OutputRoundsToNearestEven) {
  const float alphas[] = {
      1.0f + std::ldexp(1.0f, -8),      // Tie, even below.
      1.0f + 3 * std::ldexp(1.0f, -8),  // Tie, even above.
      -(1.0f + std::ldexp(1.0f, -8)),
      1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20),  // Just above a tie.
      3.0e38f,                            // Rounds to bf16 max.
      std::numeric_limits<float>::max(),  // Rounds to infinity.
      std::numeric_limits<float>::quiet_NaN(),
  };
  for (float alpha : alphas) {
    GemmProblem problem{1, 1, 1, 1, false, false, alpha, 0.0f, DataType::kBF16};
    absl::StatusOr<GemmConfig> config = problem.Config();
    ASSERT_TRUE(config.ok()) << config.status();
    GemmOperands operands{{1.0f}, {1.0f}, {0.0f}};
    auto got = RunKernel(EmitGemmKernel(*config, "round"),
                         GemmLaunchDimensions(*config), *config, operands);
    ASSERT_TRUE(got.ok()) << got.status();
    float want = static_cast<float>(Eigen::bfloat16(alpha));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan((*got)[0])) << (*got)[0];
    } else {
      EXPECT_EQ((*got)[0], want) << "alpha " << alpha;
    }
  }
}

// BLAS's rule: with beta == 0 the output's old contents (here NaN) are
// never read, so they cannot leak into the result.
TEST_P(EmittedGemmTest, BetaZeroNeverReadsOutput) {
  std::mt19937 rng(14);
  for (DataType type : {DataType::kF32, DataType::kBF16}) {
    GemmProblem problem{2, 20, 24, 9, false, true, 2.0f, 0.0f, type};
    absl::StatusOr<GemmConfig> config = problem.Config();
    ASSERT_TRUE(config.ok()) << config.status();
    GemmOperands operands = RandomOperands(*config, rng);
    std::fill(operands.out.begin(), operands.out.end(),
              std::numeric_limits<float>::quiet_NaN());
    ExpectedGemm want = ReferenceGemm(*config, operands);
    auto got = RunKernel(EmitGemmKernel(*config, "gemm"),
                         GemmLaunchDimensions(*config), *config, operands);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(MatchesReference(*config, *got, want));
  }
}

// k = 0: the product is empty and out becomes beta * out.
TEST_P(EmittedGemmTest, EmptyContractionScalesOutput) {
  std::mt19937 rng(15);
  GemmProblem problem{1, 5, 7, 0, false, false, 2.0f, -0.5f};
  absl::StatusOr<GemmConfig> config = problem.Config();
  ASSERT_TRUE(config.ok()) << config.status();
  GemmOperands operands = RandomOperands(*config, rng);
  auto got = RunKernel(EmitGemmKernel(*config, "gemm"),
                       GemmLaunchDimensions(*config), *config, operands);
  ASSERT_TRUE(got.ok()) << got.status();
  for (size_t i = 0; i < operands.out.size(); ++i) {
    EXPECT_EQ((*got)[i], -0.5f * operands.out[i]) << i;
  }
}

// More batches and more row tiles than a grid may have along z and y, so
// that blocks loop over what the capped grid leaves.
TEST_P(EmittedGemmTest, GridLoopsPastHardwareLimits) {
  std::mt19937 rng(16);
  GemmTiling small_tiles;
  small_tiles.rows_per_thread = small_tiles.cols_per_thread = 1;
  struct Case {
    GemmProblem problem;
    GemmTiling tiling;
  };
  const Case cases[] = {
      {{70000, 1, 2, 3, false, false, 1.0f, 1.0f}, small_tiles},
      // 1100000 rows are 68750 tiles of 16.
      {{1, 1100000, 2, 3, true, false, 1.0f, 0.0f}, small_tiles},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.problem.ToString());
    absl::StatusOr<GemmConfig> config = c.problem.Config();
    ASSERT_TRUE(config.ok()) << config.status();
    se::LaunchDimensions dims = gpu::GemmLaunchDimensionsFor(*config, c.tiling);
    EXPECT_EQ(std::max(dims.blocks.y, dims.blocks.z), 65535u);
    GemmOperands operands = RandomOperands(*config, rng);
    auto got = RunKernel(EmitGemmKernel(*config, "gemm", c.tiling), dims,
                         *config, operands);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(
        MatchesReference(*config, *got, ReferenceGemm(*config, operands)));
  }
}

// The way the compiler runs it: a KernelThunk over slices of one allocation,
// HLO instruction name as kernel name.
TEST_P(EmittedGemmTest, RunsAsKernelThunk) {
  std::mt19937 rng(17);
  GemmProblem problem{3, 17, 33, 5, true, false, 0.5f, 1.0f};
  absl::StatusOr<GemmConfig> config = problem.Config();
  ASSERT_TRUE(config.ok()) << config.status();
  GemmOperands operands = RandomOperands(*config, rng);
  // [lhs | rhs | out], each at a 256-byte aligned offset.
  auto aligned = [](int64_t bytes) { return (bytes + 255) / 256 * 256; };
  const int64_t lhs_bytes = config->lhs_shape.ByteSize();
  const int64_t rhs_bytes = config->rhs_shape.ByteSize();
  const int64_t out_bytes = config->output_shape.ByteSize();
  const int64_t rhs_offset = aligned(lhs_bytes);
  const int64_t out_offset = rhs_offset + aligned(rhs_bytes);
  std::vector<float> packed(out_offset / 4 + operands.out.size());
  std::copy(operands.lhs.begin(), operands.lhs.end(), packed.begin());
  std::copy(operands.rhs.begin(), operands.rhs.end(),
            packed.begin() + rhs_offset / 4);
  std::copy(operands.out.begin(), operands.out.end(),
            packed.begin() + out_offset / 4);
  se::ScopedDeviceAddress mem = Upload(DataType::kF32, packed);

  gpu::BufferAllocation allocation =
      gpu::BufferAllocation::Temp(0, mem.cref().size());
  gpu::KernelThunk thunk("dot.3", EmitGemmKernel(*config, "dot.3"),
                         GemmLaunchDimensions(*config),
                         {allocation.GetSlice(0, lhs_bytes),
                          allocation.GetSlice(rhs_offset, rhs_bytes),
                          allocation.GetSlice(out_offset, out_bytes)},
                         {false, false, true});
  DebugOptions debug_options;
  ASSERT_TRUE(thunk.Initialize({executor_, stream(), &debug_options}).ok());
  gpu::BufferAllocations buffers({mem.cref()}, executor_->device_ordinal());
  gpu::Thunk::ExecuteParams params;
  params.buffer_allocations = &buffers;
  params.stream = stream();
  params.debug_options = &debug_options;
  ASSERT_TRUE(thunk.ExecuteOnStream(params).ok());
  ASSERT_TRUE(stream()->BlockHostUntilDone().ok());

  std::vector<float> result = Download(DataType::kF32, mem.cref());
  std::vector<float> got(result.begin() + out_offset / 4,
                         result.begin() + out_offset / 4 + operands.out.size());
  EXPECT_TRUE(MatchesReference(*config, got, ReferenceGemm(*config, operands)));
  EXPECT_TRUE(
      std::equal(operands.lhs.begin(), operands.lhs.end(), result.begin()))
      << "lhs overwritten";
  EXPECT_TRUE(std::equal(operands.rhs.begin(), operands.rhs.end(),
                         result.begin() + rhs_offset / 4))
      << "rhs overwritten";
}

INSTANTIATE_FOR_ALL_PLATFORMS(EmittedGemmTest);

}  // namespace
}  // namespace xla_lite::testing
