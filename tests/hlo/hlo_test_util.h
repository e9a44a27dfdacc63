#ifndef TESTS_HLO_HLO_TEST_UTIL_H_
#define TESTS_HLO_HLO_TEST_UTIL_H_

#include <cstdlib>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla_lite/hlo/hlo_module.h"
#include "xla_lite/hlo/hlo_parser.h"

namespace xla_lite {

// A file of tests/hlo/testdata: under Bazel's runfiles when run by
// `bazel test`, relative to the working directory otherwise.
inline std::string TestDataPath(const std::string& name) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir != nullptr && workspace != nullptr) {
    return absl::StrCat(srcdir, "/", workspace, "/tests/hlo/testdata/", name);
  }
  return absl::StrCat("tests/hlo/testdata/", name);
}

inline std::string JaxSamplePath() {
  return TestDataPath("jax_mlp_train_step.hlo");
}

// Parses `text` or fails the test with the parser's error.
inline std::unique_ptr<HloModule> ParseOrDie(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status() << "\n" << text;
  if (!module.ok()) return nullptr;
  return *std::move(module);
}

// The first instruction of the entry computation with that name.
inline HloInstruction* FindInstruction(const HloModule& module,
                                       const std::string& name) {
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* instr : computation->instructions()) {
      if (instr->name() == name) return instr;
    }
  }
  return nullptr;
}

}  // namespace xla_lite

#endif  // TESTS_HLO_HLO_TEST_UTIL_H_
