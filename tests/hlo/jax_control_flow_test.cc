// The control-flow exports of configs/models (lax.scan, lax.fori_loop with
// a constant and an input trip count, lax.cond) through parser, verifier
// and reference evaluator, against JAX's CPU results after 1 and 5 steps,
// each element within 1e-4 of max(|expected|, 1e-3) as tests/models asks
// of the compiler. Then the paths the references do not take: a zero-trip
// fori_loop and the skipped update of lax.cond.

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/hlo/jax_reference_util.h"
#include "xla_lite/hlo/hlo_evaluator.h"

namespace xla_lite {
namespace {

// The verified module of `model` and its exported inputs, one per entry
// parameter; null after a failure the test has reported.
std::unique_ptr<HloModule> LoadWithInputs(const std::string& model,
                                          std::vector<Literal>* inputs) {
  std::unique_ptr<HloModule> module = LoadVerified(model);
  if (module == nullptr) return nullptr;
  *inputs = AsShapes(ReadArrays(ModelDir(model) + "/input_"),
                     module->entry_computation_layout().parameter_shapes);
  const int64_t parameters = module->entry_computation()->num_parameters();
  EXPECT_EQ(inputs->size(), parameters) << model;
  return inputs->size() == parameters ? std::move(module) : nullptr;
}

void ExpectModelMatchesJax(const std::string& model) {
  std::unique_ptr<HloModule> module = LoadVerified(model);
  ASSERT_NE(module, nullptr) << model;
  std::vector<Literal> first = ExpectStepsMatchJax(
      model, *module,
      [&](const std::vector<Literal>& inputs) {
        return EvaluateModule(*module, inputs);
      },
      1e-4, RateF32);
  EXPECT_FALSE(first.empty()) << model;
}

TEST(JaxControlFlowTest, ScanGradientAccumulationMatchesJax) {
  ExpectModelMatchesJax("scan_grad_accum");
}

TEST(JaxControlFlowTest, ForiLoopWithConstantTripCountMatchesJax) {
  ExpectModelMatchesJax("fori_steps_const");
}

TEST(JaxControlFlowTest, ForiLoopWithInputTripCountMatchesJax) {
  ExpectModelMatchesJax("fori_steps_input");
}

TEST(JaxControlFlowTest, CondSkippingNonFiniteUpdatesMatchesJax) {
  ExpectModelMatchesJax("cond_skip_nonfinite");
}

// Evaluates one step and checks that the updated parameters (the first
// four outputs) all came back unchanged when `unchanged`, none otherwise.
std::vector<Literal> StepKeeping(const HloModule& module,
                                 const std::vector<Literal>& inputs,
                                 bool unchanged) {
  absl::StatusOr<std::vector<Literal>> outputs = EvaluateModule(module, inputs);
  EXPECT_TRUE(outputs.ok()) << outputs.status();
  if (!outputs.ok()) return {};
  EXPECT_EQ(outputs->size(), 5);
  for (int p = 0; p < 4 && p < outputs->size(); ++p) {
    EXPECT_EQ((*outputs)[p].bytes() == inputs[p].bytes(), unchanged)
        << "parameter " << p;
  }
  return *std::move(outputs);
}

TEST(JaxControlFlowTest, ZeroStepsLeaveTheParametersAlone) {
  std::vector<Literal> inputs;
  std::unique_ptr<HloModule> module =
      LoadWithInputs("fori_steps_input", &inputs);
  ASSERT_NE(module, nullptr);
  ASSERT_EQ(inputs[6].shape().element_type(), PrimitiveType::S32);
  // One step moves every parameter; zero steps return them as they came.
  for (int steps : {0, 1}) {
    SCOPED_TRACE(absl::StrCat(steps, " steps"));
    inputs[6] = Literal::CreateR0<int32_t>(PrimitiveType::S32, steps);
    StepKeeping(*module, inputs, /*unchanged=*/steps == 0);
  }
}

TEST(JaxControlFlowTest, CondTakesBothBranchesAcrossSteps) {
  std::vector<Literal> inputs;
  std::unique_ptr<HloModule> module =
      LoadWithInputs("cond_skip_nonfinite", &inputs);
  ASSERT_NE(module, nullptr);
  const Literal clean_x = inputs[4];
  const Literal nan_x = [&clean_x] {
    Literal x = clean_x;
    x.SetFromDouble(0, std::numeric_limits<double>::quiet_NaN());
    return x;
  }();
  // Finite, NaN, finite: update, skip (parameters unchanged, loss NaN),
  // update again.
  for (const Literal* x : {&clean_x, &nan_x, &clean_x}) {
    const bool skipped = x == &nan_x;
    SCOPED_TRACE(skipped ? "NaN input" : "finite input");
    inputs[4] = *x;
    std::vector<Literal> outputs = StepKeeping(*module, inputs, skipped);
    ASSERT_EQ(outputs.size(), 5);
    EXPECT_EQ(std::isnan(outputs[4].GetAsDouble(0)), skipped);
    for (int p = 0; p < 4; ++p) inputs[p] = std::move(outputs[p]);
  }
}

// K=16 steps per call (no data exported): it parses, verifies, and its
// loop is bounded by the constant 16.
TEST(JaxControlFlowTest, SixteenStepsPerCallParsesAndVerifies) {
  std::unique_ptr<HloModule> module = LoadVerified("fori_steps16");
  ASSERT_NE(module, nullptr);
  int loops = 0;
  for (const HloComputation* computation : module->computations()) {
    for (const HloInstruction* instr : computation->instructions()) {
      if (instr->opcode() != HloOpcode::kWhile) continue;
      ++loops;
      bool bounded_by_16 = false;
      for (const HloInstruction* c : instr->while_condition()->instructions()) {
        bounded_by_16 |= c->opcode() == HloOpcode::kConstant &&
                         c->literal().GetAsInt64(0) == 16;
      }
      EXPECT_TRUE(bounded_by_16) << instr->name();
    }
  }
  EXPECT_EQ(loops, 1);
}

}  // namespace
}  // namespace xla_lite
