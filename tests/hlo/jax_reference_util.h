#ifndef TESTS_HLO_JAX_REFERENCE_UTIL_H_
#define TESTS_HLO_JAX_REFERENCE_UTIL_H_

// The JAX exports of configs/models against JAX's own results: the model's
// inputs and references as literals at the module's shapes, and the
// comparisons the tests apply to every output.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/hlo/hlo_test_util.h"
#include "xla_lite/hlo/hlo_evaluator.h"
#include "xla_lite/hlo/hlo_verifier.h"
#include "xla_lite/hlo/npy.h"

namespace xla_lite {

inline std::string ModelDir(const std::string& model) {
  return RunfilePath(absl::StrCat("configs/models/", model));
}

// The model's train_step.hlo, parsed and verified (null after a failure,
// which the test reports).
inline std::unique_ptr<HloModule> LoadVerified(const std::string& model) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModuleFile(ModelDir(model) + "/train_step.hlo");
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return nullptr;
  absl::Status verified = VerifyHloModule(**module);
  EXPECT_TRUE(verified.ok()) << verified;
  return verified.ok() ? *std::move(module) : nullptr;
}

// prefix0.npy, prefix1.npy, ... up to the first that is missing.
inline std::vector<Literal> ReadArrays(const std::string& prefix) {
  std::vector<Literal> arrays;
  for (int i = 0;; ++i) {
    const std::string path = absl::StrCat(prefix, i, ".npy");
    if (!std::filesystem::exists(path)) break;
    absl::StatusOr<Literal> literal = ReadNpyFile(path);
    EXPECT_TRUE(literal.ok()) << literal.status();
    if (!literal.ok()) return {};
    arrays.push_back(*std::move(literal));
  }
  return arrays;
}

// The exports write scalars as shape (1,): the same element as the f32[]
// the module declares. Arrays are taken at the module's shapes when
// element type and count agree.
inline std::vector<Literal> AsShapes(std::vector<Literal> arrays,
                                     const std::vector<Shape>& shapes) {
  EXPECT_EQ(arrays.size(), shapes.size());
  for (size_t i = 0; i < arrays.size() && i < shapes.size(); ++i) {
    const Shape logical =
        Shape::Array(shapes[i].element_type(), shapes[i].dimensions());
    if (arrays[i].shape().element_type() == logical.element_type() &&
        arrays[i].element_count() == logical.ElementCount()) {
      arrays[i] = Literal(logical, arrays[i].bytes());
    }
  }
  return arrays;
}

// Every output of `actual` against `expected`, where `error` rates the
// difference between output `o` of both; the first output rated above
// `tolerance` is reported. Non-finite and integer elements must be equal.
template <typename Rate>
absl::Status CompareOutputs(const std::vector<Literal>& actual,
                            const std::vector<Literal>& expected,
                            double tolerance, Rate error) {
  if (actual.size() != expected.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(actual.size(), " outputs, expected ", expected.size()));
  }
  for (size_t o = 0; o < expected.size(); ++o) {
    if (!actual[o].shape().Compatible(expected[o].shape())) {
      return absl::InvalidArgumentError(
          absl::StrCat("output ", o, " is ", actual[o].shape().ToString(),
                       ", expected ", expected[o].shape().ToString()));
    }
    const bool is_float =
        primitive_util::IsFloatingPointType(expected[o].shape().element_type());
    for (int64_t i = 0; i < expected[o].element_count(); ++i) {
      const double a = actual[o].GetAsDouble(i), e = expected[o].GetAsDouble(i);
      const bool exact = a == e || (std::isnan(a) && std::isnan(e));
      if ((!is_float || !std::isfinite(a) || !std::isfinite(e)) && !exact) {
        return absl::InvalidArgumentError(absl::StrCat(
            "output ", o, " element ", i, ": got ", a, ", expected ", e));
      }
    }
    const std::string rated = error(actual[o], expected[o], tolerance);
    if (!rated.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("output ", o, ": ", rated));
    }
  }
  return absl::OkStatus();
}

// f32: every element within `tolerance` of max(|expected|, 1e-3).
inline std::string RateF32(const Literal& actual, const Literal& expected,
                           double tolerance) {
  for (int64_t i = 0; i < expected.element_count(); ++i) {
    const double a = actual.GetAsDouble(i), e = expected.GetAsDouble(i);
    const double error = std::fabs(a - e) / std::max(std::fabs(e), 1e-3);
    if (error > tolerance) {
      return absl::StrCat("element ", i, ": got ", a, ", expected ", e,
                          " (error ", error, ")");
    }
  }
  return "";
}

// Runs 5 steps of `model` from its inputs through `evaluate` (inputs ->
// outputs), feeding every aliased output back into its parameter as JAX's
// donation does, and compares every output after steps 1 and 5 with
// `rate`; returns the outputs of step 1.
template <typename Evaluate, typename Rate>
std::vector<Literal> ExpectStepsMatchJax(const std::string& model,
                                         const HloModule& module,
                                         Evaluate evaluate, double tolerance,
                                         Rate rate) {
  std::vector<Literal> first;
  const std::string dir = ModelDir(model);
  const ComputationLayout& layout = module.entry_computation_layout();
  std::vector<Literal> inputs =
      AsShapes(ReadArrays(dir + "/input_"), layout.parameter_shapes);
  EXPECT_EQ(inputs.size(), module.entry_computation()->num_parameters());
  for (int step = 1; step <= 5; ++step) {
    absl::StatusOr<std::vector<Literal>> outputs = evaluate(inputs);
    EXPECT_TRUE(outputs.ok()) << outputs.status();
    if (!outputs.ok()) return first;
    if (step == 1 || step == 5) {
      std::vector<Literal> expected = AsShapes(
          ReadArrays(absl::StrCat(dir, "/reference_step", step, "/output_")),
          layout.result_shape.tuple_shapes());
      absl::Status same = CompareOutputs(*outputs, expected, tolerance, rate);
      EXPECT_TRUE(same.ok()) << model << " after " << step << " steps: "
                             << same;
    }
    if (step == 1) first = *outputs;
    for (const HloInputOutputAlias& alias : module.input_output_aliases()) {
      inputs[alias.parameter_number] =
          std::move((*outputs)[alias.output_index.at(0)]);
    }
  }
  return first;
}

// The reference evaluator's 5 steps of `model` (parsed and verified)
// against JAX's, as ExpectStepsMatchJax; returns the outputs of step 1.
template <typename Rate>
std::vector<Literal> ExpectEvaluatorMatchesJax(const std::string& model,
                                               double tolerance, Rate rate) {
  std::unique_ptr<HloModule> module = LoadVerified(model);
  if (module == nullptr) return {};
  return ExpectStepsMatchJax(
      model, *module,
      [&](const std::vector<Literal>& inputs) {
        return EvaluateModule(*module, inputs);
      },
      tolerance, rate);
}

}  // namespace xla_lite

#endif  // TESTS_HLO_JAX_REFERENCE_UTIL_H_
