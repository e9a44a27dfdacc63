#ifndef TESTS_HLO_HLO_TEST_UTIL_H_
#define TESTS_HLO_HLO_TEST_UTIL_H_

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla_lite/hlo/hlo_module.h"
#include "xla_lite/hlo/hlo_parser.h"

namespace xla_lite {

// A file of the workspace (e.g. "configs/models/x"): under Bazel's
// runfiles when run by `bazel test`, relative to the working directory
// otherwise.
inline std::string RunfilePath(const std::string& path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir != nullptr && workspace != nullptr) {
    return absl::StrCat(srcdir, "/", workspace, "/", path);
  }
  return path;
}

// A file of tests/hlo/testdata.
inline std::string TestDataPath(const std::string& name) {
  return RunfilePath(absl::StrCat("tests/hlo/testdata/", name));
}

inline std::string JaxSamplePath() {
  return TestDataPath("jax_mlp_train_step.hlo");
}

// The text of a module whose entry has parameters of `param_shapes` (p0,
// p1, ...) and root `root` (named r), after the computations `extra`.
inline std::string EntryModule(const std::vector<std::string>& param_shapes,
                               const std::string& root,
                               const std::string& extra = "") {
  std::string text = absl::StrCat("HloModule t\n\n", extra, "ENTRY e {\n");
  for (size_t i = 0; i < param_shapes.size(); ++i) {
    absl::StrAppend(&text, "  p", i, " = ", param_shapes[i], " parameter(", i,
                    ")\n");
  }
  absl::StrAppend(&text, "  ROOT r = ", root, "\n}\n");
  return text;
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

// How many instructions of `module`, in all its computations, have
// `opcode`.
inline int64_t CountOpcode(const HloModule& module, HloOpcode opcode) {
  int64_t count = 0;
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instr : computation->instructions()) {
      count += instr->opcode() == opcode;
    }
  }
  return count;
}

}  // namespace xla_lite

#endif  // TESTS_HLO_HLO_TEST_UTIL_H_
