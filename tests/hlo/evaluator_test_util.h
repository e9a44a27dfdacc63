#ifndef TESTS_HLO_EVALUATOR_TEST_UTIL_H_
#define TESTS_HLO_EVALUATOR_TEST_UTIL_H_

// Small modules through the reference evaluator, for tests that state each
// expected value by hand.

#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/hlo/hlo_test_util.h"
#include "xla_lite/hlo/hlo_evaluator.h"
#include "xla_lite/hlo/literal.h"

namespace xla_lite {

inline ::testing::Matcher<std::vector<double>> Is(
    std::vector<double> expected) {
  return ::testing::ElementsAreArray(expected);
}

inline constexpr double kInf = std::numeric_limits<double>::infinity();

inline Literal Make(PrimitiveType type, std::vector<int64_t> dims,
                    std::vector<double> values) {
  return Literal::FromDoubles(Shape::Array(type, std::move(dims)), values);
}
inline Literal F32(std::vector<int64_t> dims, std::vector<double> values) {
  return Make(PrimitiveType::F32, std::move(dims), std::move(values));
}
inline Literal S32(std::vector<int64_t> dims, std::vector<double> values) {
  return Make(PrimitiveType::S32, std::move(dims), std::move(values));
}

inline std::vector<double> Values(const Literal& literal) {
  std::vector<double> values;
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    values.push_back(literal.GetAsDouble(i));
  }
  return values;
}

// Evaluates `text` and returns its (flattened) outputs.
inline std::vector<Literal> Evaluate(const std::string& text,
                                     const std::vector<Literal>& args) {
  std::unique_ptr<HloModule> module = ParseOrDie(text);
  if (module == nullptr) return {};
  absl::StatusOr<std::vector<Literal>> result = EvaluateModule(*module, args);
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? *std::move(result) : std::vector<Literal>();
}

// The single output of EntryModule(param_shapes, root, extra) for `args`.
inline std::vector<double> EvalRoot(
    const std::vector<std::string>& param_shapes, const std::string& root,
    const std::vector<Literal>& args, const std::string& extra = "") {
  const std::string text = EntryModule(param_shapes, root, extra);
  std::vector<Literal> outputs = Evaluate(text, args);
  EXPECT_EQ(outputs.size(), 1) << text;
  return outputs.empty() ? std::vector<double>() : Values(outputs[0]);
}

}  // namespace xla_lite

#endif  // TESTS_HLO_EVALUATOR_TEST_UTIL_H_
