// `xla_lite bench` with every model and mode in a process of its own: one
// child per mode, with the flags that make it measure that mode alone, the
// results merged in order, and a child's failure reported by model and mode.

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "stream_executor/platform_manager.h"
#include "xla_lite/debug_options_flags.h"
#include "xla_lite/tools/bench_command.h"
#include "xla_lite/tools/bench_report.h"

namespace xla_lite {
namespace {

namespace fs = std::filesystem;

std::string Runfile(const std::string& path) {
  return absl::StrCat(std::getenv("TEST_SRCDIR"), "/",
                      std::getenv("TEST_WORKSPACE"), "/", path);
}

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
    // A wrapper that logs its process and arguments, then runs the CLI.
    log_ = (dir_ / "children.txt").string();
    wrapper_ = (dir_ / "child.sh").string();
    std::ofstream(wrapper_) << "#!/bin/sh\necho \"$$ $*\" >> " << log_
                            << "\nexec " << Runfile("xla_lite/tools/xla_lite")
                            << " \"$@\"\n";
    fs::permissions(wrapper_, fs::perms::owner_all);
  }

  BenchFlags Flags(const std::string& models) {
    BenchFlags flags;
    flags.models = models;
    flags.modes = "op_by_op,cached_fixed";
    flags.steps = 2;
    flags.blocks = 2;
    flags.block_steps = 2;
    flags.out = (dir_ / "out").string();
    // As main passes its own command line: the subcommand and its flags.
    flags.isolate_command = {wrapper_, "bench", "--platform=host",
                             "--models=ignored", "--out=ignored"};
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
  const std::string model = Runfile("configs/models/mlp_softmax");
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
    EXPECT_TRUE(absl::StrContains(line, "--isolate_modes=false --bench_child "
                                        "--peers= --baseline="))
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

TEST_F(BenchIsolationTest, WithoutACommandModesShareTheProcess) {
  BenchFlags flags = Flags(Runfile("configs/models/mlp_softmax"));
  flags.isolate_command.clear();
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
