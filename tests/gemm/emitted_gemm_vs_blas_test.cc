// The emitted gemm against the platform's BLAS (Eigen on the host, cuBLAS,
// hipBLAS) on the same operands: the fallback must agree with what it
// replaces, to within the rounding either may do.

#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "tests/gemm/gemm_test_util.h"
#include "xla_lite/service/gemm/gemm_kernel_emitter.h"

namespace xla_lite::testing {
namespace {

using gpu::GemmConfig;
using se::blas::DataType;

class EmittedGemmVsBlasTest : public GemmPlatformTest {
 protected:
  absl::StatusOr<std::vector<float>> RunBlas(se::blas::BlasSupport* blas,
                                             const GemmConfig& config,
                                             const GemmOperands& operands) {
    se::ScopedDeviceAddress lhs = Upload(config.type, operands.lhs);
    se::ScopedDeviceAddress rhs = Upload(config.type, operands.rhs);
    se::ScopedDeviceAddress out = Upload(config.output_type, operands.out);
    absl::Status status = absl::OkStatus();
    for (const se::blas::GemmCall& call :
         config.ToBlasCalls(lhs.cref(), rhs.cref(), out.cref())) {
      if (status.ok()) status = blas->Gemm(stream(), call);
    }
    if (status.ok()) status = stream()->BlockHostUntilDone();
    if (!status.ok()) return status;
    std::vector<float> result = Download(config.output_type, out.cref());
    result.resize(operands.out.size());
    return result;
  }
};

TEST_P(EmittedGemmVsBlasTest, AgreesWithPlatformBlas) {
  auto blas = executor_->AsBlas();
  if (!blas.ok()) {
    ASSERT_FALSE(PlatformRequired(GetParam())) << blas.status();
    GTEST_SKIP() << "no BLAS on " << GetParam() << ": " << blas.status();
  }
  std::mt19937 rng(21);
  std::vector<GemmProblem> problems;
  for (DataType type : {DataType::kF32, DataType::kBF16}) {
    for (int transposes = 0; transposes < 4; ++transposes) {
      bool tl = transposes & 1, tr = transposes & 2;
      problems.push_back({1, 17, 33, 5, tl, tr, 1.0f, 0.0f, type});
      problems.push_back({3, 64, 128, 128, tl, tr, 0.5f, 1.0f, type});
      problems.push_back({1, 100, 70, 300, tl, tr, -1.0f, 0.25f, type});
    }
  }
  for (const GemmProblem& problem : StridedProblems()) {
    problems.push_back(problem);
  }
  for (const GemmProblem& problem : problems) {
    SCOPED_TRACE(problem.ToString());
    absl::StatusOr<GemmConfig> config = problem.Config();
    ASSERT_TRUE(config.ok()) << config.status();
    GemmOperands operands = RandomOperands(*config, rng);
    auto from_blas = RunBlas(*blas, *config, operands);
    ASSERT_TRUE(from_blas.ok()) << from_blas.status();
    auto emitted =
        RunKernel(gpu::EmitGemmKernel(*config, "gemm"),
                  gpu::GemmLaunchDimensions(*config), *config, operands);
    ASSERT_TRUE(emitted.ok()) << emitted.status();
    // Each is within the bound of the exact result, so of each other within
    // twice the bound, centred on BLAS's answer.
    ExpectedGemm want = ReferenceGemm(*config, operands);
    if (config->output_type == DataType::kBF16 && problem.beta != 0) {
      // BLAS may round alpha * (lhs @ rhs) to bf16 before adding beta *
      // out, a rounding at the scale of the terms rather than of their
      // sum: allow one bf16 step (2^-8 relative) of each term.
      for (size_t i = 0; i < want.value.size(); ++i) {
        double beta_out = std::abs(problem.beta * operands.out[i]);
        double product = std::abs(want.value[i]) + beta_out;
        want.tolerance[i] += (product + beta_out) / 256.0;
      }
    }
    ExpectedGemm blas_answer = want;
    for (size_t i = 0; i < want.value.size(); ++i) {
      blas_answer.value[i] = (*from_blas)[i];
      blas_answer.tolerance[i] *= 2;
    }
    EXPECT_TRUE(MatchesReference(*config, *from_blas, want)) << "BLAS";
    EXPECT_TRUE(MatchesReference(*config, *emitted, blas_answer))
        << "emitted vs BLAS";
  }
}

INSTANTIATE_FOR_ALL_PLATFORMS(EmittedGemmVsBlasTest);

}  // namespace
}  // namespace xla_lite::testing
