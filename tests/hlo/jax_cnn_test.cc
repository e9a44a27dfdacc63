// The JAX convolutional network exports of configs/models (convolution in
// its forward, input-gradient and filter-gradient forms, depthwise with
// feature and batch groups, average and max pooling and the max-pool
// gradient) through parser, verifier and reference evaluator, against
// JAX's results after 1 and 5 training steps, each f32 element within
// 1e-4 (relative, floored at 1e-3 as RateF32 says).

#include <map>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "tests/hlo/jax_reference_util.h"

namespace xla_lite {
namespace {

TEST(JaxCnnTest, DepthwiseMatchesJaxAfterOneAndFiveSteps) {
  EXPECT_FALSE(ExpectEvaluatorMatchesJax("cnn_depthwise", 1e-4, RateF32).empty());
}

TEST(JaxCnnTest, SmallMatchesJaxAfterOneAndFiveSteps) {
  // cnn_small's average-pool gradient pads with interior padding; pad joins
  // the HLO layer separately, and this test runs as soon as it parses.
  if (!StringToHloOpcode("pad").ok()) {
    GTEST_SKIP() << "the parser does not know pad yet";
  }
  EXPECT_FALSE(ExpectEvaluatorMatchesJax("cnn_small", 1e-4, RateF32).empty());
}

// The CIFAR-sized speed model has no references: it must parse, verify
// and hold the convolution forms the others exercise.
TEST(JaxCnnTest, CifarParsesAndVerifies) {
  std::unique_ptr<HloModule> module = LoadVerified("cnn_cifar");
  ASSERT_NE(module, nullptr);
  std::map<HloOpcode, int> counts;
  for (const HloComputation* computation : module->computations()) {
    for (const HloInstruction* instr : computation->instructions()) {
      ++counts[instr->opcode()];
    }
  }
  EXPECT_GT(counts[HloOpcode::kConvolution], 3);
  EXPECT_GT(counts[HloOpcode::kReduceWindow], 0);
  EXPECT_GT(counts[HloOpcode::kSelectAndScatter], 0);
}

}  // namespace
}  // namespace xla_lite
