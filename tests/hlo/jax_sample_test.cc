// The JAX training step through parser, verifier and evaluator, checked by
// properties any correct SGD step has (no recorded numbers).
#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "tests/hlo/hlo_test_util.h"
#include "xla_lite/hlo/hlo_evaluator.h"
#include "xla_lite/hlo/hlo_verifier.h"

namespace xla_lite {
namespace {

constexpr double kLearningRate = 0.01;  // the step's SGD rate
constexpr int kParams = 6;              // w0, b0, w1, b1, w2, b2

class JaxSampleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseHloModuleFile(JaxSamplePath());
    ASSERT_TRUE(module.ok()) << module.status();
    module_ = *std::move(module);
    std::mt19937 rng(1234);
    std::normal_distribution<double> normal(0.0, 1.0);
    const HloComputation* entry = module_->entry_computation();
    for (int64_t i = 0; i < entry->num_parameters(); ++i) {
      const Shape& shape = entry->parameter_instruction(i)->shape();
      Literal literal(Shape::Array(shape.element_type(), shape.dimensions()));
      for (int64_t e = 0; e < literal.element_count(); ++e) {
        literal.SetFromDouble(e, 0.2 * normal(rng));
      }
      inputs_.push_back(std::move(literal));
    }
    // y: one-hot labels.
    Literal& y = inputs_[7];
    const int64_t classes = y.shape().dimensions(1);
    for (int64_t row = 0; row < y.shape().dimensions(0); ++row) {
      for (int64_t c = 0; c < classes; ++c) {
        y.SetFromDouble(row * classes + c, c == (row * 7) % classes ? 1 : 0);
      }
    }
  }

  std::vector<Literal> Run(const std::vector<Literal>& inputs) {
    absl::StatusOr<std::vector<Literal>> outputs =
        EvaluateModule(*module_, inputs);
    EXPECT_TRUE(outputs.ok()) << outputs.status();
    return outputs.ok() ? *std::move(outputs) : std::vector<Literal>();
  }

  std::unique_ptr<HloModule> module_;
  std::vector<Literal> inputs_;
};

TEST_F(JaxSampleTest, Verifies) { EXPECT_TRUE(VerifyHloModule(*module_).ok()); }

TEST_F(JaxSampleTest, LossIsPlausibleCrossEntropy) {
  std::vector<Literal> outputs = Run(inputs_);
  ASSERT_EQ(outputs.size(), kParams + 1);
  const double loss = outputs[kParams].GetAsDouble(0);
  EXPECT_TRUE(std::isfinite(loss));
  EXPECT_GT(loss, 0);
  // Small random weights give near-uniform predictions over 10 classes:
  // the loss is close to log(10).
  EXPECT_NEAR(loss, std::log(10.0), 1.5);
}

TEST_F(JaxSampleTest, StepMovesEveryParameterALittle) {
  std::vector<Literal> outputs = Run(inputs_);
  ASSERT_EQ(outputs.size(), kParams + 1);
  for (int p = 0; p < kParams; ++p) {
    ASSERT_TRUE(outputs[p].shape().Compatible(inputs_[p].shape())) << p;
    double max_change = 0;
    for (int64_t e = 0; e < outputs[p].element_count(); ++e) {
      max_change = std::max(max_change, std::fabs(outputs[p].GetAsDouble(e) -
                                                   inputs_[p].GetAsDouble(e)));
    }
    EXPECT_GT(max_change, 0) << "parameter " << p << " did not move";
    // lr * |grad| with gradients of order one at most.
    EXPECT_LT(max_change, 10 * kLearningRate) << "parameter " << p;
  }
}

TEST_F(JaxSampleTest, StepLowersTheLoss) {
  std::vector<Literal> first = Run(inputs_);
  ASSERT_EQ(first.size(), kParams + 1);
  std::vector<Literal> next_inputs = inputs_;
  for (int p = 0; p < kParams; ++p) next_inputs[p] = first[p];
  std::vector<Literal> second = Run(next_inputs);
  ASSERT_EQ(second.size(), kParams + 1);
  EXPECT_LT(second[kParams].GetAsDouble(0), first[kParams].GetAsDouble(0));
}

// The update is -lr * dL/dp: a central difference of the loss output
// along the largest gradient entry of each parameter agrees with it.
TEST_F(JaxSampleTest, UpdateIsLearningRateTimesGradient) {
  std::vector<Literal> outputs = Run(inputs_);
  ASSERT_EQ(outputs.size(), kParams + 1);
  for (int p = 0; p < kParams; ++p) {
    int64_t best = 0;
    double best_grad = 0;
    for (int64_t e = 0; e < inputs_[p].element_count(); ++e) {
      double grad = (inputs_[p].GetAsDouble(e) - outputs[p].GetAsDouble(e)) /
                    kLearningRate;
      if (std::fabs(grad) > std::fabs(best_grad)) {
        best = e;
        best_grad = grad;
      }
    }
    const double eps = 1e-2;
    double loss[2];
    for (int side = 0; side < 2; ++side) {
      std::vector<Literal> shifted = inputs_;
      shifted[p].SetFromDouble(
          best, inputs_[p].GetAsDouble(best) + (side == 0 ? eps : -eps));
      std::vector<Literal> result = Run(shifted);
      ASSERT_EQ(result.size(), kParams + 1);
      loss[side] = result[kParams].GetAsDouble(0);
    }
    const double numeric = (loss[0] - loss[1]) / (2 * eps);
    EXPECT_NEAR(numeric, best_grad, 0.05 * std::fabs(best_grad) + 1e-4)
        << "parameter " << p << " element " << best;
  }
}

// XLA's own optimized form of the same step (fusions, layout-changing
// bitcasts, a batched dot over reshaped weights) computes the same values.
TEST_F(JaxSampleTest, XlaOptimizedModuleAgrees) {
  absl::StatusOr<std::unique_ptr<HloModule>> optimized =
      ParseHloModuleFile(TestDataPath("jax_mlp_train_step.xla_optimized.hlo"));
  ASSERT_TRUE(optimized.ok()) << optimized.status();
  absl::StatusOr<std::vector<Literal>> theirs =
      EvaluateModule(**optimized, inputs_);
  ASSERT_TRUE(theirs.ok()) << theirs.status();
  std::vector<Literal> ours = Run(inputs_);
  ASSERT_EQ(theirs->size(), ours.size());
  for (size_t o = 0; o < ours.size(); ++o) {
    ASSERT_TRUE((*theirs)[o].shape().Compatible(ours[o].shape())) << o;
    for (int64_t e = 0; e < ours[o].element_count(); ++e) {
      const double a = ours[o].GetAsDouble(e), b = (*theirs)[o].GetAsDouble(e);
      ASSERT_NEAR(a, b, 1e-5 * (1 + std::fabs(a)))
          << "output " << o << " element " << e;
    }
  }
}

}  // namespace
}  // namespace xla_lite
