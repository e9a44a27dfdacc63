// `xla_lite bench` with every model and mode in a process of its own: one
// child per mode, with the flags that make it measure that mode alone, the
// results merged in order, and a child's failure reported by model and mode.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "stream_executor/platform_manager.h"
#include "tests/hlo/hlo_test_util.h"
#include "xla_lite/debug_options_flags.h"
#include "xla_lite/tools/bench_command.h"
#include "xla_lite/tools/bench_report.h"

namespace xla_lite {
namespace {

namespace fs = std::filesystem;

class BenchIsolationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "out");
    auto platform = stream_executor::PlatformManager::PlatformWithName("host");
    ASSERT_TRUE(platform.ok()) << platform.status();
    platform_ = *platform;
    log_ = (dir_ / "children.txt").string();
    wrapper_ = Wrapper(absl::StrCat(
        "exec ", RunfilePath("xla_lite/tools/xla_lite"), " \"$@\""));
  }

  // A child that logs its process and arguments, then runs `then`.
  std::string Wrapper(const std::string& then) {
    const std::string path = (dir_ / "child.sh").string();
    std::ofstream(path) << "#!/bin/sh\necho \"$$ $*\" >> " << log_ << "\n"
                        << then << "\n";
    fs::permissions(path, fs::perms::owner_all);
    return path;
  }

  BenchFlags Flags(const std::string& models) {
    BenchFlags flags;
    flags.models = models;
    flags.modes = "op_by_op,cached_fixed";
    flags.steps = 2;
    flags.blocks = 2;
    flags.block_steps = 2;
    flags.out = (dir_ / "out").string();
    // As main passes its own command line: the subcommand and its flags,
    // here ending with `--`, after which no flag is read.
    flags.isolate.program = wrapper_;
    flags.isolate.argv = {wrapper_, "bench", "--models=ignored",
                          "--out=ignored", "--"};
    return flags;
  }

  // One line per child: its process id, then its arguments.
  std::vector<std::string> Children() {
    std::ifstream in(log_);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }

  std::vector<std::string> OutFiles() {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_ / "out")) {
      names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  fs::path dir_;
  std::string log_, wrapper_;
  stream_executor::Platform* platform_ = nullptr;
};

TEST_F(BenchIsolationTest, EachModeRunsInAProcessOfItsOwn) {
  const std::string model = RunfilePath("configs/models/mlp_softmax");
  ASSERT_TRUE(
      BenchCommand(Flags(model), platform_, DefaultDebugOptions()).ok());

  std::vector<std::string> children = Children();
  ASSERT_EQ(children.size(), 2);
  std::set<std::string> pids;
  for (int i = 0; i < 2; ++i) {
    const std::string& line = children[i];
    pids.insert(line.substr(0, line.find(' ')));
    // The appended flags come last, so they win over the parent's.
    EXPECT_TRUE(absl::StrContains(
        line, absl::StrCat("--out=ignored --models=", model, " --modes=",
                           i == 0 ? "op_by_op" : "cached_fixed")))
        << line;
    EXPECT_TRUE(absl::StrContains(line, "--platform=host --isolate_modes=false "
                                        "--bench_child --peers= --baseline= --"))
        << line;
  }
  EXPECT_EQ(pids.size(), 2);

  absl::StatusOr<BenchResult> result =
      ReadBenchResult((dir_ / "out" / "bench.json").string());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->platform(), "host");
  ASSERT_EQ(result->models_size(), 1);
  const BenchModel& measured = result->models(0);
  EXPECT_EQ(measured.name(), "mlp_softmax");
  ASSERT_EQ(measured.modes_size(), 2);
  EXPECT_EQ(measured.modes(0).mode(), BenchMode::op_by_op);
  EXPECT_EQ(measured.modes(1).mode(), BenchMode::cached_fixed);
  EXPECT_GT(measured.modes(0).steady().at("thunks_executed"), 0);
  EXPECT_EQ(measured.modes(0).steady().count("command_buffer_launches"), 0);
  EXPECT_EQ(measured.modes(1).steady().at("command_buffer_launches"), 1);
  for (const BenchMode& mode : measured.modes()) EXPECT_GT(mode.median_us(), 0);
  // The children's scratch folder is gone.
  EXPECT_EQ(OutFiles(),
            (std::vector<std::string>{"bench.json", "bench.md", "bench.svg"}));
}

TEST_F(BenchIsolationTest, ChildFailureNamesModelAndMode) {
  const std::string missing = (dir_ / "no_such_model").string();
  absl::Status status =
      BenchCommand(Flags(missing), platform_, DefaultDebugOptions());
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(absl::StrContains(
      status.message(), absl::StrCat(missing, "/op_by_op in a process of its "
                                              "own: exited with status 1")))
      << status;
  // The first child failed, so no other ran and nothing was written.
  EXPECT_EQ(Children().size(), 1);
  EXPECT_TRUE(OutFiles().empty());
}

TEST_F(BenchIsolationTest, ChildKilledOrWithoutResultNamesModelAndMode) {
  const std::string model = RunfilePath("configs/models/mlp_softmax");
  for (const auto& [script, expected] :
       std::vector<std::pair<std::string, std::string>>{
           {"kill -9 $$", "in a process of its own: killed by signal 9"},
           {"exit 0", "in a process of its own: "}}) {
    wrapper_ = Wrapper(script);
    absl::Status status =
        BenchCommand(Flags(model), platform_, DefaultDebugOptions());
    ASSERT_FALSE(status.ok()) << script;
    EXPECT_TRUE(absl::StrContains(
        status.message(), absl::StrCat(model, "/op_by_op ", expected)))
        << status;
    EXPECT_TRUE(OutFiles().empty()) << script;
  }
  EXPECT_EQ(Children().size(), 2);
}

TEST_F(BenchIsolationTest, WithoutAProgramModesShareTheProcess) {
  BenchFlags flags = Flags(RunfilePath("configs/models/mlp_softmax"));
  flags.isolate = {};
  ASSERT_TRUE(BenchCommand(flags, platform_, DefaultDebugOptions()).ok());
  EXPECT_TRUE(Children().empty());
  absl::StatusOr<BenchResult> result =
      ReadBenchResult((dir_ / "out" / "bench.json").string());
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->models_size(), 1);
  EXPECT_EQ(result->models(0).modes_size(), 2);
}

}  // namespace
}  // namespace xla_lite
