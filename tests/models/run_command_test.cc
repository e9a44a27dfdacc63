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

TEST_P(RunCommandTest, FiveStepsWriteJaxResults) {
  std::string out = TempDir(absl::StrCat("run_", GetParam()));
  absl::Status status = RunCommand(Flags(ModelDir(kModel), out), platform_,
                                   DefaultDebugOptions());
  ASSERT_TRUE(status.ok()) << status;
  std::string reference = ModelDir(kModel) + "/reference_step5";
  int compared = 0;
  for (int i = 0;; ++i) {
    std::string name = absl::StrCat("/output_", i, ".npy");
    if (!std::filesystem::exists(reference + name)) break;
    auto actual = ReadNpyFile(out + name);
    auto expected = ReadNpyFile(reference + name);
    ASSERT_TRUE(actual.ok()) << actual.status();
    ASSERT_TRUE(expected.ok()) << expected.status();
    absl::Status same = CompareLiterals(*actual, *expected);
    EXPECT_TRUE(same.ok()) << "output " << i << ": " << same;
    ++compared;
  }
  EXPECT_GT(compared, 0);
  EXPECT_FALSE(std::filesystem::exists(
      absl::StrCat(out, "/output_", compared, ".npy")));
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
