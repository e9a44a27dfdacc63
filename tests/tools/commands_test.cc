// The run and train commands against hostile situations: outputs that
// cannot all be written, outputs left by an earlier run, a loss that turns
// NaN.

#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "stream_executor/platform_manager.h"
#include "xla_lite/debug_options_flags.h"
#include "xla_lite/hlo/literal.h"
#include "xla_lite/hlo/npy.h"
#include "xla_lite/tools/run_command.h"
#include "xla_lite/tools/train_command.h"

namespace xla_lite {
namespace {

namespace fs = std::filesystem;

class CommandsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "inputs");
    auto platform = stream_executor::PlatformManager::PlatformWithName("host");
    ASSERT_TRUE(platform.ok()) << platform.status();
    platform_ = *platform;
  }

  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }

  fs::path dir_;
  stream_executor::Platform* platform_ = nullptr;
};

// Three results from one input.
constexpr char kThreeResults[] = R"(
HloModule three
ENTRY e {
  x = f32[4] parameter(0)
  a = f32[4] negate(x)
  b = f32[4] abs(x)
  c = f32[4] add(x, x)
  ROOT t = (f32[4], f32[4], f32[4]) tuple(a, b, c)
})";

RunFlags ThreeResultFlags(const fs::path& dir, const std::string& hlo) {
  Literal x = Literal::FromDoubles(Shape::Array(PrimitiveType::F32, {4}),
                                   {1, -2, 3, -4});
  EXPECT_TRUE(WriteNpyFile((dir / "inputs" / "input_0.npy").string(), x).ok());
  RunFlags flags;
  flags.hlo = hlo;
  flags.inputs = (dir / "inputs").string();
  flags.outputs = (dir / "outputs").string();
  return flags;
}

TEST_F(CommandsTest, RunRemovesOutputsOfAnEarlierLargerRun) {
  RunFlags flags = ThreeResultFlags(dir_, Write("three.hlo", kThreeResults));
  fs::create_directories(dir_ / "outputs");
  Write("outputs/output_3.npy", "stale");
  Write("outputs/output_17.npy", "stale");
  Write("outputs/notes.txt", "kept");
  ASSERT_TRUE(RunCommand(flags, platform_, DefaultDebugOptions()).ok());
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(fs::exists(dir_ / absl::StrCat("outputs/output_", i, ".npy")));
  }
  EXPECT_FALSE(fs::exists(dir_ / "outputs/output_3.npy"));
  EXPECT_FALSE(fs::exists(dir_ / "outputs/output_17.npy"));
  EXPECT_TRUE(fs::exists(dir_ / "outputs/notes.txt"));
  absl::StatusOr<Literal> a =
      ReadNpyFile((dir_ / "outputs/output_0.npy").string());
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->GetAsDouble(1), 2);
}

TEST_F(CommandsTest, RunWritesNoOutputWhenOneCannotBeWritten) {
  RunFlags flags = ThreeResultFlags(dir_, Write("three.hlo", kThreeResults));
  fs::create_directories(dir_ / "outputs" / "output_2.npy");  // in the way
  absl::Status status = RunCommand(flags, platform_, DefaultDebugOptions());
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(absl::StrContains(status.message(), "output_2.npy")) << status;
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(dir_ / "outputs")) {
    left.push_back(entry.path().filename().string());
  }
  EXPECT_EQ(left, std::vector<std::string>{"output_2.npy"});
}

// A training step whose loss is the sum of log(x) + w, for a batch x that
// SeededArguments draws in [-1, 1] (and w zero): NaN from the first step,
// with finite inputs.
constexpr char kNanLoss[] = R"(
HloModule nan_loss, input_output_alias={ {0}: (0, {}, may-alias) }
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  w = f32[64] parameter(0)
  x = f32[64] parameter(1)
  s = f32[64] subtract(w, x)
  l = f32[64] log(x)
  lw = f32[64] add(l, w)
  zero = f32[] constant(0)
  loss = f32[] reduce(lw, zero), dimensions={0}, to_apply=add
  ROOT t = (f32[64], f32[]) tuple(s, loss)
})";

TEST_F(CommandsTest, TrainStopsAtTheFirstNonFiniteLoss) {
  TrainFlags flags;
  flags.hlo = Write("nan.hlo", kNanLoss);
  flags.steps = 20;
  absl::Status status = TrainCommand(flags, platform_, DefaultDebugOptions());
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "step 1: the loss is nan"))
      << status;
  EXPECT_TRUE(
      absl::StrContains(status.message(), "the inputs are finite, result 1"))
      << status;
}

TEST_F(CommandsTest, TrainKeepsGoingWhenAllowed) {
  TrainFlags flags;
  flags.hlo = Write("nan.hlo", kNanLoss);
  flags.steps = 3;
  flags.allow_nonfinite_loss = true;
  absl::Status status = TrainCommand(flags, platform_, DefaultDebugOptions());
  EXPECT_TRUE(status.ok()) << status;
}

TEST_F(CommandsTest, TrainNamesANonFiniteInput) {
  Literal w(Shape::Array(PrimitiveType::F32, {64}));
  Literal x(Shape::Array(PrimitiveType::F32, {64}));
  for (int i = 0; i < 64; ++i) x.SetFromDouble(i, 1 + i);
  w.SetFromDouble(5, std::numeric_limits<double>::infinity());
  fs::create_directories(dir_ / "in");
  ASSERT_TRUE(WriteNpyFile((dir_ / "in/input_0.npy").string(), w).ok());
  ASSERT_TRUE(WriteNpyFile((dir_ / "in/input_1.npy").string(), x).ok());
  TrainFlags flags;
  flags.hlo = Write("nan.hlo", kNanLoss);
  flags.inputs = (dir_ / "in").string();
  flags.steps = 5;
  // log(x) is finite for x >= 1: the infinity comes from input 0.
  absl::Status status = TrainCommand(flags, platform_, DefaultDebugOptions());
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_TRUE(absl::StrContains(status.message(),
                                "step 1: the loss is inf; input 0 holds"))
      << status;
}

}  // namespace
}  // namespace xla_lite
