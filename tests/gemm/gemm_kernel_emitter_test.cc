// The emitter's choices, checked without running a kernel: tiling, launch
// dimensions, entry names, the emitted source and the host function's
// argument checks.

#include "xla_lite/service/gemm/gemm_kernel_emitter.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "glog/logging.h"
#include "gtest/gtest.h"
#include "tests/gemm/gemm_test_util.h"
#include "xla_lite/service/gemm/gemm_kernel_source.h"
#include "xla_lite/service/gemm/gemm_tiling.h"

namespace xla_lite::testing {
namespace {

using gpu::ChooseGemmTiling;
using gpu::GemmConfig;
using gpu::GemmTiling;
using se::blas::DataType;

GemmConfig ConfigOf(const GemmProblem& problem) {
  absl::StatusOr<GemmConfig> config = problem.Config();
  CHECK(config.ok()) << config.status();
  return *config;
}

int64_t Blocks(const GemmConfig& config, const GemmTiling& tiling) {
  auto tiles = [](int64_t size, int64_t tile) {
    return (size + tile - 1) / tile;
  };
  return tiles(config.m, tiling.tile_m()) * tiles(config.n, tiling.tile_n()) *
         config.batch;
}

TEST(GemmTilingTest, LargeProductsGetTheLargestTiles) {
  GemmTiling tiling = ChooseGemmTiling(ConfigOf({1, 2048, 2048, 512}));
  EXPECT_EQ(tiling.tile_m(), 64);
  EXPECT_EQ(tiling.tile_n(), 64);
}

TEST(GemmTilingTest, SmallProductsGetSmallerTilesForMoreBlocks) {
  for (GemmProblem problem :
       {GemmProblem{1, 256, 1024, 1024}, GemmProblem{1, 64, 128, 128},
        GemmProblem{1, 1, 4096, 64}, GemmProblem{1, 1, 1, 1}}) {
    GemmConfig config = ConfigOf(problem);
    GemmTiling tiling = ChooseGemmTiling(config);
    SCOPED_TRACE(problem.ToString() + ": " + tiling.ToString());
    EXPECT_TRUE(tiling.IsValid());
    EXPECT_LT(tiling.tile_m() * tiling.tile_n(), 64 * 64);
    // Shrinking stops once there are blocks enough, or nothing is left.
    EXPECT_TRUE(Blocks(config, tiling) >= 256 ||
                (tiling.rows_per_thread == 1 && tiling.cols_per_thread == 1));
  }
  // A single row is spread along n: its tiles are one thread row tall.
  EXPECT_EQ(ChooseGemmTiling(ConfigOf({1, 1, 4096, 64})).rows_per_thread, 1);
}

// Attention's 64 batches of 64x128 by 128 fill 256 blocks with half-size
// tiles: 32 rows of 64 columns in f32, and for products that may run on
// tensor cores (bf16, TF32) 64 rows of 32 columns, which keep the 4 rows a
// thread that the tensor cores need.
TEST(GemmTilingTest, TensorCoreProductsKeepFourRowsAThread) {
  GemmProblem problem{64, 64, 128, 128};
  GemmTiling f32 = ChooseGemmTiling(ConfigOf(problem));
  EXPECT_EQ(f32.rows_per_thread, 2) << f32.ToString();
  EXPECT_EQ(f32.cols_per_thread, 4) << f32.ToString();
  problem.type = DataType::kBF16;
  GemmTiling bf16 = ChooseGemmTiling(ConfigOf(problem));
  EXPECT_EQ(bf16.rows_per_thread, 4) << bf16.ToString();
  EXPECT_EQ(bf16.cols_per_thread, 2) << bf16.ToString();
  EXPECT_TRUE(gpu::UsesTensorCores(ConfigOf(problem), bf16));
  GemmConfig tf32 = ConfigOf({64, 64, 128, 128});
  tf32.allow_tf32 = true;
  EXPECT_EQ(ChooseGemmTiling(tf32).rows_per_thread, 4);
  // Past 4x2 they give up rows, as f32 does: 16 batches of 128x128 by 64
  // need 32x32 tiles, 2x2 either way (never 4x1, which tensor cores
  // cannot take).
  for (DataType type : {DataType::kF32, DataType::kBF16}) {
    GemmProblem square{16, 128, 128, 64};
    square.type = type;
    GemmTiling tiling = ChooseGemmTiling(ConfigOf(square));
    EXPECT_EQ(tiling.rows_per_thread, 2) << tiling.ToString();
    EXPECT_EQ(tiling.cols_per_thread, 2) << tiling.ToString();
  }
}

// FP64 tensor cores take the emitted gemm's f32 products that may not use
// TF32 and fill the device with 64x64 tiles (attention's heads, whose batch
// dimensions do not merge); BLAS's products, dense projections and long
// contractions over few tiles (weight gradients) alike, stay with BLAS.
TEST(GemmTilingTest, F64TensorCoresTakeF32ProductsWhereTheyPay) {
  gpu::GemmEmission emission;
  emission.max_size = int64_t{1} << 22;
  auto suits = [&](const GemmProblem& problem) {
    return gpu::SuitsF64TensorCores(ConfigOf(problem), emission);
  };
  GemmProblem heads{16, 128, 128, 64};
  heads.inner_batch = 4;
  EXPECT_TRUE(suits(heads));
  GemmProblem one_head{16, 128, 128, 64};
  one_head.inner_batch = 1;
  one_head.pad = 2;
  EXPECT_FALSE(suits(one_head));  // 64 tiles.
  EXPECT_FALSE(suits({1, 2048, 256, 256}));
  EXPECT_FALSE(suits({1, 2048, 1024, 256}));
  EXPECT_FALSE(suits({1, 2048, 256, 1024}));
  // 64 tiles over a contraction of 2,048.
  EXPECT_FALSE(suits({1, 256, 1024, 2048}));
  GemmProblem odd_k = heads;
  odd_k.k = 60;
  EXPECT_FALSE(suits(odd_k));
  GemmProblem bf16 = heads;
  bf16.type = DataType::kBF16;
  EXPECT_FALSE(suits(bf16));
  GemmConfig tf32 = ConfigOf(heads);
  tf32.allow_tf32 = true;
  EXPECT_FALSE(gpu::SuitsF64TensorCores(tf32, emission));

  // Such a product is the emitted gemm whatever its size, on 64x64 tiles
  // whatever the block count, on tensor cores.
  GemmConfig marked = ConfigOf({1, 2048, 256, 256});
  EXPECT_FALSE(gpu::UsesEmittedGemmKernel(marked, emission));
  marked.f64_tensor_cores = true;
  EXPECT_TRUE(gpu::UsesEmittedGemmKernel(marked, emission));
  const GemmTiling tiling = ChooseGemmTiling(marked);
  EXPECT_EQ(tiling.tile_m(), 64);
  EXPECT_EQ(tiling.tile_n(), 64);
  EXPECT_TRUE(gpu::UsesTensorCores(marked, tiling));
  EXPECT_TRUE(absl::StrContains(gpu::EmitGemmKernel(marked, "dot").cuda_source,
                                "m16n8k8.row.col.f64"));
}

TEST(GemmTilingTest, ShortContractionsAreStagedInOnePass) {
  // 24x96 by 96x80: 16x16 tiles, and 96 * (16 + 16 + 2) floats fit.
  GemmTiling short_k = ChooseGemmTiling(ConfigOf({1, 24, 80, 96}));
  EXPECT_EQ(short_k.tile_k, 96) << short_k.ToString();
  EXPECT_TRUE(short_k.IsValid());
  // A k of 4096 does not fit: passes of 64.
  GemmTiling long_k = ChooseGemmTiling(ConfigOf({1, 256, 10, 4096}));
  EXPECT_EQ(long_k.tile_k, 64) << long_k.ToString();
  // 64x64 tiles of a 200-long k: 64 fits (33 KiB) where 200 does not.
  GemmTiling deep = ChooseGemmTiling(ConfigOf({64, 128, 128, 200}));
  EXPECT_EQ(deep.tile_m(), 64) << deep.ToString();
  EXPECT_EQ(deep.tile_k, 64) << deep.ToString();
  // A contraction no longer than one default pass keeps it.
  EXPECT_EQ(ChooseGemmTiling(ConfigOf({1, 64, 64, 7})).tile_k,
            GemmTiling::kDefaultTileK);
}

TEST(GemmTilingTest, TilesOverTheSharedMemoryLimitAreInvalid) {
  GemmTiling tiling;  // 64x64 tiles.
  tiling.tile_k = 64;  // 64 * 130 floats: 33 KiB.
  EXPECT_TRUE(tiling.IsValid());
  tiling.tile_k = 96;  // 49 KiB.
  EXPECT_FALSE(tiling.IsValid());
  tiling.tile_k = 0;
  EXPECT_FALSE(tiling.IsValid());
}

TEST(GemmTilingTest, LaunchDimensionsCoverTheOutput) {
  for (int rows : {1, 2, 4}) {
    for (int cols : {1, 2, 4}) {
      GemmTiling tiling;
      tiling.rows_per_thread = rows;
      tiling.cols_per_thread = cols;
      for (GemmProblem problem :
           {GemmProblem{1, 1, 1, 1}, GemmProblem{3, 17, 33, 5},
            GemmProblem{2, 64, 128, 7}}) {
        GemmConfig config = ConfigOf(problem);
        se::LaunchDimensions dims =
            gpu::GemmLaunchDimensionsFor(config, tiling);
        SCOPED_TRACE(problem.ToString() + ": " + dims.ToString());
        EXPECT_GE(int64_t{dims.blocks.x} * tiling.tile_n(), config.n);
        EXPECT_LT(int64_t{dims.blocks.x - 1} * tiling.tile_n(), config.n);
        EXPECT_GE(int64_t{dims.blocks.y} * tiling.tile_m(), config.m);
        EXPECT_LT(int64_t{dims.blocks.y - 1} * tiling.tile_m(), config.m);
        EXPECT_EQ(dims.blocks.z, config.batch);
        EXPECT_EQ(dims.threads_per_block.Product(), 256u);
      }
    }
  }
  // Empty outputs still launch one block: a launch of no blocks is an error.
  se::LaunchDimensions empty =
      gpu::GemmLaunchDimensions(ConfigOf({1, 0, 5, 3}));
  EXPECT_EQ(empty.blocks.Product(), 1u);
}

TEST(GemmKernelEmitterTest, EntryPointsAreCIdentifiers) {
  EXPECT_EQ(gpu::GemmKernelEntryName("dot.3-fused"), "gemm_dot_3_fused");
  EXPECT_EQ(gpu::GemmKernelEntryName("3x"), "gemm_3x");
  EXPECT_EQ(gpu::GemmKernelEntryName("round"), "gemm_round");
  EXPECT_EQ(gpu::GemmKernelEntryName(""), "gemm");
  se::KernelSpec spec = gpu::EmitGemmKernel(ConfigOf({1, 2, 3, 4}), "dot.7");
  EXPECT_EQ(spec.name, "gemm_dot_7");
  EXPECT_EQ(spec.arity, 3);
  EXPECT_TRUE(absl::StrContains(spec.cuda_source,
                                "void __launch_bounds__(256, 2)\ngemm_dot_7("))
      << spec.cuda_source;
  EXPECT_TRUE(spec.host_fn != nullptr);
}

// BLAS's beta == 0 rule, and what keeps the source portable to hiprtc.
TEST(GemmKernelEmitterTest, SourceReadsOutputOnlyForNonZeroBeta) {
  GemmProblem problem{1, 8, 8, 8};
  std::string no_beta = gpu::EmitGemmKernel(ConfigOf(problem), "g").cuda_source;
  problem.beta = 1.0f;
  std::string with_beta =
      gpu::EmitGemmKernel(ConfigOf(problem), "g").cuda_source;
  EXPECT_FALSE(absl::StrContains(no_beta, "load_element(out, at)"));
  EXPECT_TRUE(absl::StrContains(with_beta, "load_element(out, at)"));
  // Runs of the output are stored as vectors only where nothing is read.
  EXPECT_TRUE(absl::StrContains(no_beta, "kVectorStore = true"));
  EXPECT_TRUE(absl::StrContains(with_beta, "kVectorStore = false"));
  for (std::string* source : {&no_beta, &with_beta}) {
    // Inline assembly only in the sm_90+ programmatic-launch macro.
    *source =
        absl::StrReplaceAll(*source, {{gpu::kAwaitProducersSource, ""}});
    EXPECT_FALSE(absl::StrContains(*source, "asm"));
    EXPECT_FALSE(absl::StrContains(*source, "#include"));
    EXPECT_FALSE(absl::StrContains(*source, "__shfl"));
  }
}

// Strides are constants of the source: the leading dimensions, and the
// batch index split over two batch dimensions that do not merge; bf16
// operands with an f32 output read one type and store the other.
TEST(GemmKernelEmitterTest, StridedSourceCarriesItsLayout) {
  GemmProblem problem{2, 5, 6, 7};
  problem.inner_batch = 3;
  problem.pad = 1;
  problem.type = se::blas::DataType::kBF16;
  problem.output_type = se::blas::DataType::kF32;
  GemmConfig config = ConfigOf(problem);
  std::string source = gpu::EmitGemmKernel(config, "g").cuda_source;
  // lhs [2, 5, 3, 8]: rows 24 apart, heads 8, batches 120; rhs [2, 7, 3, 7].
  EXPECT_TRUE(absl::StrContains(source, "kLhsLd = 24LL, kRhsLd = 21LL"))
      << source;
  EXPECT_TRUE(absl::StrContains(source, "lhs_offset += rest % 3LL * 8LL;"))
      << source;
  EXPECT_TRUE(absl::StrContains(source, "lhs_offset += rest * 120LL;"))
      << source;
  EXPECT_TRUE(absl::StrContains(source, "typedef unsigned short input_t;"));
  EXPECT_TRUE(absl::StrContains(source, "typedef float output_t;"));
  // Dense configs keep one batch dimension and no modulo.
  std::string dense =
      gpu::EmitGemmKernel(ConfigOf({3, 4, 5, 6}), "g").cuda_source;
  EXPECT_TRUE(absl::StrContains(dense, "lhs_offset += rest * 24LL;")) << dense;
  EXPECT_FALSE(absl::StrContains(dense, "rest %")) << dense;
}

TEST(GemmKernelEmitterTest, HostKernelRejectsUndersizedBuffers) {
  GemmConfig config = ConfigOf({2, 4, 5, 6});
  se::KernelSpec spec = gpu::EmitGemmKernel(config, "gemm");
  std::vector<float> lhs(2 * 4 * 6), rhs(2 * 6 * 5), out(2 * 4 * 5 - 1);
  auto address = [](std::vector<float>& v) {
    return se::DeviceAddressBase(v.data(), v.size() * sizeof(float));
  };
  se::LaunchDimensions dims = gpu::GemmLaunchDimensions(config);
  absl::Status status = spec.host_fn(
      se::KernelArgs({address(lhs), address(rhs), address(out)}), dims);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "out needs 160 bytes"))
      << status;
  status = spec.host_fn(se::KernelArgs({address(lhs), address(rhs)}), dims);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  out.push_back(0.0f);
  EXPECT_TRUE(
      spec.host_fn(se::KernelArgs({address(lhs), address(rhs), address(out)}),
                   dims)
          .ok());
}

}  // namespace
}  // namespace xla_lite::testing
