// `xla_lite run` as a library call: a JAX model run for 5 steps writes the
// results JAX computed, and bad inputs fail with a message naming them.

#include <cstdlib>
#include <filesystem>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "stream_executor/platform_manager.h"
#include "tests/service/compiler_test_base.h"
#include "xla_lite/debug_options_flags.h"
#include "xla_lite/hlo/npy.h"
#include "xla_lite/tools/run_command.h"

namespace xla_lite::testing {
namespace {

constexpr char kModel[] = "mlp_softmax_small";

std::string ModelDir(const std::string& name) {
  return RunfilePath(absl::StrCat("configs/models/", name));
}

std::string TempDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string dir = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/", name);
  std::filesystem::remove_all(dir);
  return dir;
}

class RunCommandTest : public PlatformTest {
 protected:
  RunFlags Flags(const std::string& inputs, const std::string& outputs) {
    RunFlags flags;
    flags.hlo = ModelDir(kModel) + "/train_step.hlo";
    flags.inputs = inputs;
    flags.outputs = outputs;
    flags.steps = 5;
    return flags;
  }
};

// Runs `model` for 5 steps into a fresh directory; every output written
// must match JAX's after 5 steps.
void ExpectFiveStepsMatchJax(const std::string& model, se::Platform* platform,
                             const std::string& out) {
  RunFlags flags;
  flags.hlo = ModelDir(model) + "/train_step.hlo";
  flags.inputs = ModelDir(model);
  flags.outputs = out;
  flags.steps = 5;
  absl::Status status = RunCommand(flags, platform, DefaultDebugOptions());
  ASSERT_TRUE(status.ok()) << status;
  std::string reference = ModelDir(model) + "/reference_step5";
  int compared = 0;
  for (int i = 0;; ++i) {
    std::string name = absl::StrCat("/output_", i, ".npy");
    if (!std::filesystem::exists(reference + name)) break;
    auto actual = ReadNpyFile(out + name);
    auto expected = ReadNpyFile(reference + name);
    ASSERT_TRUE(actual.ok()) << actual.status();
    ASSERT_TRUE(expected.ok()) << expected.status();
    // Some exporters write a scalar as shape (1,): the same element.
    if (actual->shape().element_type() == expected->shape().element_type() &&
        actual->element_count() == 1 && expected->element_count() == 1) {
      *actual = Literal(expected->shape(), actual->bytes());
    }
    absl::Status same = CompareLiterals(*actual, *expected);
    EXPECT_TRUE(same.ok()) << "output " << i << ": " << same;
    ++compared;
  }
  EXPECT_GT(compared, 0);
  EXPECT_FALSE(std::filesystem::exists(
      absl::StrCat(out, "/output_", compared, ".npy")));
}

TEST_P(RunCommandTest, FiveStepsWriteJaxResults) {
  ExpectFiveStepsMatchJax(kModel, platform_,
                          TempDir(absl::StrCat("run_", GetParam())));
}

// Steps with while loops (scan, fori_loop with a constant and an input trip
// count) and a conditional, through the same command.
TEST_P(RunCommandTest, ControlFlowModelsWriteJaxResults) {
  for (const char* model : {"scan_grad_accum", "fori_steps_const",
                            "fori_steps_input", "cond_skip_nonfinite"}) {
    SCOPED_TRACE(model);
    ExpectFiveStepsMatchJax(model, platform_,
                            TempDir(absl::StrCat("run_", model, GetParam())));
  }
}

TEST_P(RunCommandTest, MissingInputIsNamed) {
  std::string empty = TempDir("empty_inputs");
  std::filesystem::create_directories(empty);
  absl::Status status = RunCommand(Flags(empty, TempDir("unused")), platform_,
                                   DefaultDebugOptions());
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(absl::StrContains(status.message(), "input_0.npy")) << status;
}

TEST_P(RunCommandTest, InputOfTheWrongShapeIsNamed) {
  absl::Status status =
      RunCommand(Flags(ModelDir("mlp_tanh_mse"), TempDir("unused")), platform_,
                 DefaultDebugOptions());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "entry parameter 0"))
      << status;
}

TEST_P(RunCommandTest, BadFlagsAndFilesAreRefused) {
  RunFlags flags = Flags(ModelDir(kModel), TempDir("unused"));
  flags.steps = 0;
  EXPECT_EQ(RunCommand(flags, platform_, DefaultDebugOptions()).code(),
            absl::StatusCode::kInvalidArgument);
  flags.steps = 1;
  flags.hlo = ModelDir(kModel) + "/no_such_file.hlo";
  absl::Status status = RunCommand(flags, platform_, DefaultDebugOptions());
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(absl::StrContains(status.message(), "no_such_file.hlo"))
      << status;
}

INSTANTIATE_FOR_ALL_PLATFORMS(RunCommandTest);

}  // namespace
}  // namespace xla_lite::testing
