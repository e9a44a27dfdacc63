// The emitted source through the GPU runtime compilers, which run on the host
// without a device: NVRTC for an H100 (--config=cuda) and hiprtc for AMD
// Instinct processors (--config=rocm), with the options the platforms use.
// Every operand layout, both types, both beta forms, every tiling, strided
// batches and bf16 operands with an f32 output.

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "tests/gemm/gemm_test_util.h"
#include "tests/runtime_compiler_test_util.h"
#include "xla_lite/float16.h"
#include "xla_lite/service/gemm/gemm_kernel_emitter.h"

namespace xla_lite::testing {
namespace {

using se::blas::DataType;

// Every kernel variant the emitter can produce, each once.
std::vector<se::KernelSpec> AllVariants() {
  std::vector<se::KernelSpec> specs;
  for (DataType type : {DataType::kF32, DataType::kBF16}) {
    for (int layout = 0; layout < 8; ++layout) {
      GemmProblem problem{2,
                          37,
                          45,
                          21,
                          (layout & 1) != 0,
                          (layout & 2) != 0,
                          1.5f,
                          (layout & 4) != 0 ? 0.5f : 0.0f,
                          type};
      specs.push_back(gpu::EmitGemmKernel(*problem.Config(), "gemm"));
    }
  }
  for (int rows : {1, 2, 4}) {
    for (int cols : {1, 2, 4}) {
      gpu::GemmTiling tiling;
      tiling.rows_per_thread = rows;
      tiling.cols_per_thread = cols;
      specs.push_back(gpu::EmitGemmKernel(
          *GemmProblem{1, 100, 100, 100}.Config(), "dot.1", tiling));
    }
  }
  // bf16 on tensor cores (4x4 per thread, tile_k a multiple of 16), every
  // layout, both outputs.
  for (int layout = 0; layout < 4; ++layout) {
    gpu::GemmTiling tiling;
    GemmProblem problem{2,
                        70,
                        93,
                        83,
                        (layout & 1) != 0,
                        (layout & 2) != 0,
                        1.0f,
                        0.0f,
                        DataType::kBF16};
    if (layout == 3) problem.output_type = DataType::kF32;
    specs.push_back(gpu::EmitGemmKernel(*problem.Config(), "mma", tiling));
    // f32 operands of a dot that allows TF32.
    problem.type = DataType::kF32;
    problem.output_type.reset();
    absl::StatusOr<gpu::GemmConfig> tf32 = problem.Config();
    tf32->allow_tf32 = true;
    specs.push_back(gpu::EmitGemmKernel(*tf32, "tf32", tiling));
    // f32 products on FP64 tensor cores, with and without beta.
    absl::StatusOr<gpu::GemmConfig> f64 = problem.Config();
    f64->f64_tensor_cores = true;
    f64->beta = layout == 2 ? 0.5f : 0.0f;
    specs.push_back(gpu::EmitGemmKernel(*f64, "f64", tiling));
  }
  // Operand runs of 4 as vector loads and output runs as vector stores
  // (sizes, leading dimensions and batch strides multiples of 4, beta 0):
  // the FMA product's runs of 4 and 2 columns, and tensor cores at 4x4
  // and 4x2, with f32 and bf16 outputs.
  for (auto [rows, cols] : {std::pair{4, 4}, {4, 2}, {2, 4}}) {
    for (DataType type : {DataType::kF32, DataType::kBF16}) {
      gpu::GemmTiling tiling;
      tiling.rows_per_thread = rows;
      tiling.cols_per_thread = cols;
      tiling.tile_k = 32;
      GemmProblem problem{2,         68,   92,   84,  rows == 2,
                          cols == 2, 1.0f, 0.0f, type};
      absl::StatusOr<gpu::GemmConfig> config = problem.Config();
      config->allow_tf32 = type == DataType::kF32 && rows == 4;
      specs.push_back(gpu::EmitGemmKernel(*config, "runs", tiling));
    }
  }
  // Strided batches and bf16 operands with an f32 output, every layout.
  for (const GemmProblem& problem : StridedProblems()) {
    specs.push_back(gpu::EmitGemmKernel(*problem.Config(), "strided"));
  }
  return specs;
}

// bf16 elements go through the conversions the host kernel uses, carried
// as their one source text; no variant rounds by a recipe of its own.
TEST(GemmKernelCompileTest, EveryVariantUsesTheSharedBf16Conversions) {
  for (const se::KernelSpec& spec : AllVariants()) {
    EXPECT_TRUE(absl::StrContains(spec.cuda_source, kFloat16DeviceSource));
    // The tensor-core product packs bf16 values the f32 tiles hold
    // exactly: moving bits, not rounding.
    std::string own = absl::StrReplaceAll(
        spec.cuda_source,
        {{kFloat16DeviceSource, ""},
         {"__byte_perm(__float_as_uint(lo), __float_as_uint(hi), 0x7632)",
          ""}});
    EXPECT_FALSE(absl::StrContains(own, "0x7fff")) << own;
    EXPECT_FALSE(absl::StrContains(own, "__float_as_uint")) << own;
  }
  std::string bf16 = AllVariants()[8].cuda_source;
  EXPECT_TRUE(absl::StrContains(bf16, "xl_f32_to_bf16(value)"));
  EXPECT_TRUE(absl::StrContains(bf16, "xl_bf16_to_f32(data[i])"));
}

TEST(GemmKernelCompileTest, NvrtcCompilesEveryVariantForH100) {
  ExpectNvrtcCompiles(AllVariants());
}

TEST(GemmKernelCompileTest, HiprtcCompilesEveryVariant) {
  ExpectHiprtcCompiles(AllVariants());
}

}  // namespace
}  // namespace xla_lite::testing
