// Dots as gemms: every contracting-dimension placement, batch dimensions,
// several contracting dimensions, vectors, and the emitted gemm fallback,
// on every platform, against the HloEvaluator. Operands are positive so no
// result is the small difference of large sums.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/service/compiler_test_base.h"
#include "xla_lite/runtime/gemm_thunk.h"
#include "xla_lite/runtime/kernel_thunk.h"

namespace xla_lite::testing {
namespace {

std::string Dot(const std::string& lhs, const std::string& rhs,
                const std::string& out, const std::string& attributes) {
  return absl::StrFormat(R"(
HloModule dot

ENTRY main {
  a = f32[%s] parameter(0)
  b = f32[%s] parameter(1)
  ROOT d = f32[%s] dot(a, b), %s
})",
                         lhs, rhs, out, attributes);
}

struct DotCase {
  const char* lhs;
  const char* rhs;
  const char* out;
  const char* attributes;
};

std::vector<DotCase> DotCases() {
  return {
      // Each contracting-dimension placement of a matrix product.
      {"5,7", "7,3", "5,3", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
      {"7,5", "7,3", "5,3", "lhs_contracting_dims={0}, rhs_contracting_dims={0}"},
      {"5,7", "3,7", "5,3", "lhs_contracting_dims={1}, rhs_contracting_dims={1}"},
      {"7,5", "3,7", "5,3", "lhs_contracting_dims={0}, rhs_contracting_dims={1}"},
      // Batch dimensions: leading, in the middle, at the end, two of them.
      {"4,5,7", "4,7,3", "4,5,3",
       "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
       "rhs_contracting_dims={1}"},
      {"4,7,5", "4,3,7", "4,5,3",
       "lhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_batch_dims={0}, "
       "rhs_contracting_dims={2}"},
      {"5,4,7", "7,4,3", "4,5,3",
       "lhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_batch_dims={1}, "
       "rhs_contracting_dims={0}"},
      {"5,7,4", "3,7,4", "4,5,3",
       "lhs_batch_dims={2}, lhs_contracting_dims={1}, rhs_batch_dims={2}, "
       "rhs_contracting_dims={1}"},
      {"2,3,5,7", "2,3,7,4", "2,3,5,4",
       "lhs_batch_dims={0,1}, lhs_contracting_dims={3}, "
       "rhs_batch_dims={0,1}, rhs_contracting_dims={2}"},
      // Several contracting dimensions, paired in a different order.
      {"5,3,4", "3,4,6", "5,6",
       "lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}"},
      {"5,3,4", "4,3,6", "5,6",
       "lhs_contracting_dims={2,1}, rhs_contracting_dims={0,1}"},
      // Several free dimensions.
      {"2,5,7", "7,3,2", "2,5,3,2",
       "lhs_contracting_dims={2}, rhs_contracting_dims={0}"},
      // Vectors.
      {"5,7", "7", "5", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
      {"7", "7,3", "3", "lhs_contracting_dims={0}, rhs_contracting_dims={0}"},
      {"7", "7", "", "lhs_contracting_dims={0}, rhs_contracting_dims={0}"},
      // Precision attribute as JAX writes it with highest precision.
      {"33,65", "65,17", "33,17",
       "lhs_contracting_dims={1}, rhs_contracting_dims={0}, "
       "operand_precision={highest,highest}"},
  };
}

using DotTest = CompilerTest;

// The output type of each library gemm of `executable`, in order.
std::vector<se::blas::DataType> LibraryGemmOutputTypes(
    const gpu::GpuExecutable& executable) {
  std::vector<se::blas::DataType> types;
  for (const gpu::Thunk* thunk : FlatThunks(executable)) {
    if (const auto* gemm = dynamic_cast<const gpu::GemmThunk*>(thunk)) {
      types.push_back(gemm->config().output_type);
    }
  }
  return types;
}

// The operand types of each library gemm of `executable`, lhs then rhs, in
// order.
std::vector<PrimitiveType> LibraryGemmOperandTypes(
    const gpu::GpuExecutable& executable) {
  std::vector<PrimitiveType> types;
  for (const gpu::Thunk* thunk : FlatThunks(executable)) {
    if (const auto* gemm = dynamic_cast<const gpu::GemmThunk*>(thunk)) {
      types.push_back(gemm->config().lhs_shape.element_type());
      types.push_back(gemm->config().rhs_shape.element_type());
    }
  }
  return types;
}

// The arguments' sizes in bytes of each emitted gemm kernel of
// `executable`, in order.
std::vector<std::vector<int64_t>> EmittedGemmArgumentSizes(
    const gpu::GpuExecutable& executable) {
  std::vector<std::vector<int64_t>> gemms;
  for (const gpu::Thunk* thunk : FlatThunks(executable)) {
    const auto* kernel = dynamic_cast<const gpu::KernelThunk*>(thunk);
    if (kernel == nullptr || kernel->spec().name.rfind("gemm_", 0) != 0) {
      continue;
    }
    gemms.emplace_back();
    for (const auto& slice : kernel->arguments()) {
      gemms.back().push_back(slice.size());
    }
  }
  return gemms;
}

TEST_P(DotTest, EveryFormThroughBlas) {
  for (const DotCase& c : DotCases()) {
    SCOPED_TRACE(absl::StrCat(c.lhs, " x ", c.rhs, ": ", c.attributes));
    ExpectMatchesEvaluator(Dot(c.lhs, c.rhs, c.out, c.attributes), 0, 1);
  }
}

TEST_P(DotTest, EveryFormThroughTheEmittedGemm) {
  DebugOptions options = OpByOpOptions();
  options.set_xla_gpu_use_emitted_gemm(true);
  for (const DotCase& c : DotCases()) {
    SCOPED_TRACE(absl::StrCat(c.lhs, " x ", c.rhs, ": ", c.attributes));
    std::string hlo = Dot(c.lhs, c.rhs, c.out, c.attributes);
    auto executable = Compile(hlo, options);
    ASSERT_TRUE(executable.ok()) << executable.status();
    EXPECT_EQ(CountThunks(**executable, gpu::Thunk::Kind::kGemm), 0);
    ExpectMatchesEvaluator(hlo, 0, 1, options);
  }
}

TEST_P(DotTest, TransposedOperandsAndFusedNeighbours) {
  ExpectMatchesEvaluator(R"(
HloModule dot_fused

ENTRY main {
  x = f32[7,5] parameter(0)
  w = f32[3,7] parameter(1)
  b = f32[3] parameter(2)
  xt = f32[5,7] transpose(x), dimensions={1,0}
  e = f32[3,7] exponential(w)
  d = f32[5,3] dot(xt, e), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  bb = f32[5,3] broadcast(b), dimensions={1}
  ROOT r = f32[5,3] add(d, bb)
})",
                         0, 1);
}

// A bf16 product that is rounded to bf16 at once (JAX's mixed precision:
// an f32 result, then a convert) is one gemm with a bf16 result, through
// the library and through the emitted kernel, and rounds the same.
TEST_P(DotTest, Bf16ProductRoundedToBf16IsAGemmWritingBf16) {
  const std::string hlo = R"(
HloModule dot_bf16_out

ENTRY main {
  a = bf16[4,33,65] parameter(0)
  b = bf16[4,65,17] parameter(1)
  d = f32[4,33,17] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  c = bf16[4,33,17] convert(d)
  e = f32[4,33,17] convert(c)
  ROOT r = f32[4,33,17] multiply(e, e)
})";
  for (const int64_t emitted_max_size : {int64_t{0}, int64_t{1} << 22}) {
    SCOPED_TRACE(emitted_max_size);
    DebugOptions options = OpByOpOptions();
    options.set_xla_gpu_emitted_gemm_max_size(emitted_max_size);
    ExpectMatchesEvaluator(hlo, 0, 1, options);
    auto executable = Compile(hlo, options);
    ASSERT_TRUE(executable.ok()) << executable.status();
    // The library's gemm says its output type; the emitted one writes a
    // buffer of 2-byte elements (4 * 33 * 17 of them), not 4-byte ones.
    constexpr int64_t kBf16Bytes = 4 * 33 * 17 * 2;
    const std::vector<se::blas::DataType> library =
        LibraryGemmOutputTypes(**executable);
    EXPECT_THAT(library, ::testing::Each(se::blas::DataType::kBF16));
    const auto emitted = EmittedGemmArgumentSizes(**executable);
    for (const std::vector<int64_t>& sizes : emitted) {
      EXPECT_THAT(sizes, ::testing::Contains(kBf16Bytes));
      EXPECT_THAT(sizes, ::testing::Not(::testing::Contains(2 * kBf16Bytes)));
    }
    EXPECT_EQ(library.size() + emitted.size(), 1);
  }
}

// The rule's limits: a product something else reads in f32, and an f32
// product, keep their f32 results (a convert kernel rounds them).
TEST_P(DotTest, OtherProductsRoundedToBf16KeepF32Results) {
  const std::vector<std::string> cases = {R"(
HloModule read_twice

ENTRY main {
  a = bf16[33,65] parameter(0)
  b = bf16[65,17] parameter(1)
  d = f32[33,17] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  c = bf16[33,17] convert(d)
  e = f32[33,17] convert(c)
  ROOT r = f32[33,17] add(e, d)
})",
                                          R"(
HloModule f32_operands

ENTRY main {
  a = f32[33,65] parameter(0)
  b = f32[65,17] parameter(1)
  d = f32[33,17] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  c = bf16[33,17] convert(d)
  ROOT e = f32[33,17] convert(c)
})"};
  for (const std::string& hlo : cases) {
    ExpectMatchesEvaluator(hlo, 0, 1);
    auto executable = Compile(hlo);
    ASSERT_TRUE(executable.ok()) << executable.status();
    EXPECT_THAT(LibraryGemmOutputTypes(**executable),
                ::testing::ElementsAre(se::blas::DataType::kF32));
  }
}

// A dot read only through a transpose that swaps its operands' free
// dimensions (a weight gradient, dy^T x, transposed to the weight's shape)
// is one gemm of the swapped operands writing the transposed result: no
// transpose kernel is left.
TEST_P(DotTest, TransposedProductIsTheSwappedGemm) {
  const std::vector<std::string> cases = {R"(
HloModule weight_gradient

ENTRY main {
  dy = f32[4,33,17] parameter(0)
  x = f32[4,33,65] parameter(1)
  d = f32[17,65] dot(dy, x), lhs_contracting_dims={0,1}, rhs_contracting_dims={0,1}, operand_precision={highest,default}
  ROOT t = f32[65,17] transpose(d), dimensions={1,0}
})",
                                          R"(
HloModule batched

ENTRY main {
  a = f32[4,33,65] parameter(0)
  b = f32[4,65,17] parameter(1)
  d = f32[4,33,17] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  t = f32[4,17,33] transpose(d), dimensions={0,2,1}
  ROOT r = f32[4,17,33] multiply(t, t)
})"};
  for (const std::string& hlo : cases) {
    ExpectMatchesEvaluator(hlo, 0, 1);
    auto executable = Compile(hlo);
    ASSERT_TRUE(executable.ok()) << executable.status();
    EXPECT_EQ(LibraryGemmOutputTypes(**executable).size() +
                  EmittedGemmArgumentSizes(**executable).size(),
              1);
    // The batched case keeps its multiply, a kernel that reads the gemm's
    // result in order; the weight gradient needs no kernel at all.
    const bool has_multiply = hlo.find("multiply") != std::string::npos;
    const int64_t kernels =
        CountThunks(**executable, gpu::Thunk::Kind::kKernel);
    EXPECT_EQ(kernels - static_cast<int64_t>(
                            EmittedGemmArgumentSizes(**executable).size()),
              has_multiply ? 1 : 0);
  }
}

// A transpose that moves a batch dimension too, with the lhs's free
// dimension last (attention's values, per head [d, q], read as [q, heads,
// d]), becomes a transpose of the swapped product that keeps the minor
// dimension: the gemm reads the rhs as its lhs, and the values stay right.
TEST_P(DotTest, TransposeWithTheLhsFreeDimensionLastReadsTheSwappedProduct) {
  const std::string hlo = R"(
HloModule per_head

ENTRY main {
  v = f32[2,9,3,5] parameter(0)
  p = f32[2,3,7,9] parameter(1)
  d = f32[2,3,5,7] dot(v, p), lhs_batch_dims={0,2}, lhs_contracting_dims={1}, rhs_batch_dims={0,1}, rhs_contracting_dims={3}
  ROOT t = f32[2,7,3,5] transpose(d), dimensions={0,3,1,2}
})";
  ExpectMatchesEvaluator(hlo, 0, 1);
  // Two free dimensions on the lhs and one on the rhs, so that the two
  // counts cannot stand in for each other.
  ExpectMatchesEvaluator(R"(
HloModule uneven

ENTRY main {
  v = f32[2,9,3,5,4] parameter(0)
  p = f32[2,3,7,9] parameter(1)
  d = f32[2,3,5,4,7] dot(v, p), lhs_batch_dims={0,2}, lhs_contracting_dims={1}, rhs_batch_dims={0,1}, rhs_contracting_dims={3}
  ROOT t = f32[2,7,3,5,4] transpose(d), dimensions={0,4,1,2,3}
})",
                         0, 1);
  DebugOptions options = OpByOpOptions();
  options.set_xla_gpu_emitted_gemm_max_size(0);
  auto executable = Compile(hlo, options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  const std::vector<PrimitiveType> types =
      LibraryGemmOperandTypes(**executable);
  ASSERT_EQ(types.size(), 2);
  for (const gpu::Thunk* thunk : FlatThunks(**executable)) {
    if (const auto* gemm = dynamic_cast<const gpu::GemmThunk*>(thunk)) {
      EXPECT_EQ(gemm->config().lhs_shape.dimensions(),
                (std::vector<int64_t>{2, 3, 7, 9}));
      EXPECT_EQ(gemm->config().output_shape.dimensions(),
                (std::vector<int64_t>{2, 3, 7, 5}));
    }
  }
}

// The rule's limits: a dot also read untransposed, and a transpose that
// ends in the rhs's free dimension (already read in order), are not
// swapped; their values stay right.
TEST_P(DotTest, OtherTransposedProductsKeepTheirTranspose) {
  const std::vector<std::string> cases = {R"(
HloModule read_twice

ENTRY main {
  a = f32[33,65] parameter(0)
  b = f32[65,33] parameter(1)
  d = f32[33,33] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[33,33] transpose(d), dimensions={1,0}
  ROOT r = f32[33,33] add(t, d)
})",
                                          R"(
HloModule batch_moved

ENTRY main {
  a = f32[4,33,65] parameter(0)
  b = f32[4,65,17] parameter(1)
  d = f32[4,33,17] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  ROOT t = f32[33,4,17] transpose(d), dimensions={1,0,2}
})"};
  for (const std::string& hlo : cases) {
    ExpectMatchesEvaluator(hlo, 0, 1);
  }
}

// A batched product of `type` values widened to f32, the lhs through a
// transpose.
std::string WidenedProduct(const std::string& type) {
  return absl::StrFormat(R"(
HloModule dot_widened

ENTRY main {
  a = %s[4,65,33] parameter(0)
  b = %s[4,17,65] parameter(1)
  ca = f32[4,65,33] convert(a)
  t = f32[4,33,65] transpose(ca), dimensions={0,2,1}
  cb = f32[4,17,65] convert(b)
  ROOT d = f32[4,33,17] dot(t, cb), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}
})",
                         type, type);
}

// A product of bf16 values widened to f32 (the form of JAX's gradients of
// mixed-precision matmuls), one through a transpose, is a gemm of the bf16
// values with an f32 result: it reads 2-byte elements, with no kernel
// widening or transposing them first.
TEST_P(DotTest, ProductOfWidenedBf16IsABf16Gemm) {
  const std::string hlo = WidenedProduct("bf16");
  for (const int64_t emitted_max_size : {int64_t{0}, int64_t{1} << 22}) {
    SCOPED_TRACE(emitted_max_size);
    DebugOptions options = OpByOpOptions();
    options.set_xla_gpu_emitted_gemm_max_size(emitted_max_size);
    ExpectMatchesEvaluator(hlo, 0, 1, options);
    auto executable = Compile(hlo, options);
    ASSERT_TRUE(executable.ok()) << executable.status();
    const std::vector<PrimitiveType> operand_types =
        LibraryGemmOperandTypes(**executable);
    EXPECT_THAT(operand_types, ::testing::Each(PrimitiveType::BF16));
    const auto emitted = EmittedGemmArgumentSizes(**executable);
    for (const std::vector<int64_t>& sizes : emitted) {
      EXPECT_THAT(sizes, ::testing::IsSupersetOf({int64_t{4 * 65 * 33 * 2},
                                                  int64_t{4 * 17 * 65 * 2},
                                                  int64_t{4 * 33 * 17 * 4}}));
    }
    EXPECT_EQ(operand_types.size() / 2 + emitted.size(), 1);
    EXPECT_EQ(FlatThunks(**executable).size(), 1);
  }
}

// A product of widened f16 values stays an f32 product (no gemm takes f16
// operands), one of a widened f16 value through a transpose as well.
TEST_P(DotTest, ProductOfWidenedF16StaysF32) {
  const std::string hlo = WidenedProduct("f16");
  ExpectMatchesEvaluator(hlo, 0, 1);
  auto executable = Compile(hlo);
  ASSERT_TRUE(executable.ok()) << executable.status();
  // One gemm, f32 x f32.
  EXPECT_THAT(LibraryGemmOperandTypes(**executable),
              ::testing::ElementsAre(PrimitiveType::F32, PrimitiveType::F32));
}

// A product of a widened bf16 value and an f32 one stays an f32 product.
TEST_P(DotTest, ProductOfWidenedBf16AndF32StaysF32) {
  const std::string hlo = R"(
HloModule dot_mixed

ENTRY main {
  a = bf16[33,65] parameter(0)
  b = f32[65,17] parameter(1)
  ca = f32[33,65] convert(a)
  ROOT d = f32[33,17] dot(ca, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";
  ExpectMatchesEvaluator(hlo, 0, 1);
  auto executable = Compile(hlo);
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_THAT(LibraryGemmOperandTypes(**executable),
              ::testing::Each(PrimitiveType::F32));
}

INSTANTIATE_FOR_ALL_PLATFORMS(DotTest);

}  // namespace
}  // namespace xla_lite::testing
