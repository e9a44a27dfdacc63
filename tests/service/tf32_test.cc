// Which gemms may use TF32: f32 dots of DEFAULT precision (as XLA reads
// PrecisionConfig), unless DebugOptions turn it off; never HIGH or HIGHEST
// ones, never bf16 ones. Checked on the compiled GemmThunks, on every
// platform (the numerical effect is kernel_gemm_test's Tf32IsPerCall).

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "tests/service/compiler_test_base.h"
#include "xla_lite/debug_options_flags.h"
#include "xla_lite/runtime/gemm_thunk.h"
#include "xla_lite/service/compiler.h"

namespace xla_lite::testing {
namespace {

class Tf32Test : public CompilerTest {
 protected:
  // The allow_tf32 of the one GemmThunk `hlo` compiles to, with `options`
  // as given (CompilerTest::Compile would force full precision).
  bool GemmAllowsTf32(const std::string& hlo, const DebugOptions& options) {
    auto module = Parse(hlo);
    EXPECT_TRUE(module.ok()) << module.status();
    auto executable = xla_lite::Compile(*std::move(module), executor_, options);
    EXPECT_TRUE(executable.ok()) << executable.status();
    if (!executable.ok()) return false;
    const gpu::GemmThunk* gemm = nullptr;
    for (const gpu::Thunk* thunk : FlatThunks(**executable)) {
      if (thunk->kind() == gpu::Thunk::Kind::kGemm) {
        EXPECT_EQ(gemm, nullptr) << "more than one gemm";
        gemm = static_cast<const gpu::GemmThunk*>(thunk);
      }
    }
    EXPECT_NE(gemm, nullptr) << "no gemm";
    return gemm != nullptr && gemm->config().allow_tf32;
  }
};

TEST_P(Tf32Test, OnlyDefaultPrecisionF32DotsMayUseTf32) {
  DebugOptions options = OpByOpOptions();
  EXPECT_TRUE(GemmAllowsTf32(DotModule("f32", ""), options));
  EXPECT_TRUE(GemmAllowsTf32(
      DotModule("f32", ", operand_precision={default,default}"), options));
  EXPECT_FALSE(GemmAllowsTf32(
      DotModule("f32", ", operand_precision={highest,highest}"), options));
  EXPECT_FALSE(GemmAllowsTf32(
      DotModule("f32", ", operand_precision={default,high}"), options));
  EXPECT_FALSE(GemmAllowsTf32(DotModule("bf16", ""), options));
  options.set_xla_gpu_default_precision_allows_tf32(false);
  EXPECT_FALSE(GemmAllowsTf32(DotModule("f32", ""), options));
}

INSTANTIATE_FOR_ALL_PLATFORMS(Tf32Test);

}  // namespace
}  // namespace xla_lite::testing
