// Dots as gemms: every contracting-dimension placement, batch dimensions,
// several contracting dimensions, vectors, and the emitted gemm fallback,
// on every platform, against the HloEvaluator. Operands are positive so no
// result is the small difference of large sums.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "tests/service/compiler_test_base.h"

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

INSTANTIATE_FOR_ALL_PLATFORMS(DotTest);

}  // namespace
}  // namespace xla_lite::testing
