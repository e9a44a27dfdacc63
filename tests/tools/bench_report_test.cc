#include "xla_lite/tools/bench_report.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "xla_lite/runtime/execution_stats.h"

namespace xla_lite {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using gpu::ExecutionCounters;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kBaseline[] = "configs/bench_baselines/h100.json";

TEST(BenchModeTest, NamesRoundTrip) {
  for (BenchMode::Mode mode :
       {BenchMode::op_by_op, BenchMode::graphs, BenchMode::cached_copy,
        BenchMode::cached_staged, BenchMode::cached_fixed}) {
    absl::StatusOr<BenchMode::Mode> parsed =
        ParseBenchMode(BenchModeName(mode));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, mode);
  }
  EXPECT_EQ(BenchModeName(BenchMode::cached_staged), "cached_staged");
}

TEST(BenchModeTest, UnknownNameListsTheModes) {
  for (const char* name : {"sideways", "unknown", "CACHED_COPY", ""}) {
    absl::StatusOr<BenchMode::Mode> parsed = ParseBenchMode(name);
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument)
        << name;
    EXPECT_THAT(parsed.status().message(),
                HasSubstr("op_by_op, graphs, cached_copy, cached_staged, "
                          "cached_fixed"));
    EXPECT_THAT(parsed.status().message(), Not(HasSubstr("unknown,")));
  }
}

TEST(SteadyCountersTest, EveryNonzeroCounterPerStep) {
  ExecutionCounters counters;
  counters.executions = 4;
  counters.command_buffer_launches = 4;
  counters.stabilization_copies = 8;
  counters.stabilization_copy_bytes = 1000;
  BenchMode mode;
  SetSteadyCounters(counters, 4, &mode);
  EXPECT_EQ(mode.steady().size(), 4);
  EXPECT_EQ(mode.steady().at("stabilization_copy_bytes"), 250);
  EXPECT_EQ(SteadyPerStep(mode, &ExecutionCounters::stabilization_copies), 2);
  EXPECT_EQ(SteadyPerStep(mode, &ExecutionCounters::command_buffer_launches),
            1);
  EXPECT_EQ(SteadyPerStep(mode, &ExecutionCounters::command_buffer_updates), 0);
  EXPECT_FALSE(mode.steady().contains("command_buffer_updates"));
}

BenchMode Measured(BenchMode::Mode which, double median,
                   const ExecutionCounters& steady) {
  BenchMode mode;
  mode.set_mode(which);
  mode.set_median_us(median);
  SetSteadyCounters(steady, 1, &mode);
  return mode;
}

TEST(CheckSteadyStateTest, ReportsEachViolation) {
  ExecutionCounters replay;
  replay.command_buffer_launches = 1;
  ExecutionCounters update = replay;
  update.command_buffer_updates = 1;
  ExecutionCounters copy = replay;
  copy.parameter_copies = 1;

  BenchResult good;
  BenchModel* model = good.add_models();
  model->set_name("m");
  *model->add_modes() = Measured(BenchMode::graphs, 1, update);
  *model->add_modes() = Measured(BenchMode::cached_copy, 1, replay);
  *model->add_modes() = Measured(BenchMode::cached_fixed, 1, replay);
  EXPECT_TRUE(CheckSteadyState(good).ok());

  BenchResult bad;
  model = bad.add_models();
  model->set_name("m");
  *model->add_modes() = Measured(BenchMode::graphs, 1, replay);
  *model->add_modes() = Measured(BenchMode::cached_copy, 1, update);
  *model->add_modes() = Measured(BenchMode::cached_staged, 1, copy);
  *model->add_modes() = Measured(BenchMode::op_by_op, 1, copy);
  absl::Status status = CheckSteadyState(bad);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("m/graphs: a moving batch"));
  EXPECT_THAT(status.message(),
              HasSubstr("m/cached_copy: steady state must not record, update "
                        "or re-trace; got 0 records, 1 updates"));
  EXPECT_THAT(status.message(),
              HasSubstr("m/cached_staged: a batch that never moves"));
  EXPECT_THAT(status.message(), Not(HasSubstr("op_by_op")));
}

// Sorted keys keep two results comparable line by line (protobuf's own
// JSON printer follows the map's hash order, which changes between runs).
TEST(BenchJsonTest, RoundTripsWithSortedCounters) {
  ExecutionCounters counters;
  for (const ExecutionCounters::Field& field : ExecutionCounters::Fields()) {
    counters.*field.value = 1;
  }
  BenchResult result;
  result.set_device("dev");
  BenchModel* model = result.add_models();
  model->set_name("m");
  *model->add_modes() = Measured(BenchMode::cached_fixed, 20.5, counters);

  absl::StatusOr<std::string> json = BenchToJson(result);
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_THAT(*json, HasSubstr("\"mode\": \"cached_fixed\""));
  std::vector<std::string> names;
  for (const ExecutionCounters::Field& field : ExecutionCounters::Fields()) {
    names.push_back(field.name);
  }
  std::sort(names.begin(), names.end());
  size_t previous = 0;
  for (const std::string& name : names) {
    size_t at = json->find(absl::StrCat("\"", name, "\": 1"));
    ASSERT_NE(at, std::string::npos) << name << " in " << *json;
    EXPECT_GT(at, previous) << name << " out of order in " << *json;
    previous = at;
  }

  absl::StatusOr<BenchResult> back = BenchFromJson(*json);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(MessageDifferencer::Equals(*back, result)) << *json;
}

TEST(BenchJsonTest, UnknownModeIsKeptOutOfComparisons) {
  absl::StatusOr<BenchResult> baseline = BenchFromJson(R"({"models": [
      {"name": "m", "modes": [{"mode": "retired_mode", "median_us": 1}]}]})");
  ASSERT_TRUE(baseline.ok()) << baseline.status();
  EXPECT_EQ(baseline->models(0).modes(0).mode(), BenchMode::unknown);
  BenchResult result;
  BenchModel* model = result.add_models();
  model->set_name("m");
  model->add_modes()->set_median_us(100);  // Also unknown.
  EXPECT_TRUE(CompareWithBaseline(result, *baseline, 0.25).ok());
}

// The checked-in baseline is what `bench --baseline` reads on a GPU host.
TEST(BaselineTest, CheckedInBaselineIsRead) {
  absl::StatusOr<BenchResult> baseline = ReadBenchResult(kBaseline);
  ASSERT_TRUE(baseline.ok()) << baseline.status();
  ASSERT_EQ(baseline->models_size(), 3);
  const BenchModel& small = baseline->models(0);
  EXPECT_EQ(small.name(), "mlp_softmax_small");
  ASSERT_EQ(small.modes_size(), 5);
  for (const BenchMode& mode : small.modes()) {
    EXPECT_NE(mode.mode(), BenchMode::unknown);
    EXPECT_GT(mode.median_us(), 0);
  }
  const BenchMode& copy = small.modes(2);
  EXPECT_EQ(copy.mode(), BenchMode::cached_copy);
  EXPECT_EQ(SteadyPerStep(copy, &ExecutionCounters::stabilization_copies), 2);
  EXPECT_EQ(SteadyPerStep(copy, &ExecutionCounters::command_buffer_launches),
            1);
  EXPECT_TRUE(CheckSteadyState(*baseline).ok());

  BenchResult slower;
  BenchModel* model = slower.add_models();
  model->set_name("mlp_softmax_small");
  *model->add_modes() = Measured(BenchMode::cached_fixed, 1000, {});
  absl::Status status = CompareWithBaseline(slower, *baseline, 0.25);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(),
              HasSubstr("mlp_softmax_small/cached_fixed: median 1000.0 us vs "
                        "baseline 20.9 us"));
}

// The transformers' baseline: three models, five modes each, the steady
// counters of a cached replay (no records, updates or re-traces).
TEST(BaselineTest, TransformerBaselineIsRead) {
  absl::StatusOr<BenchResult> baseline =
      ReadBenchResult("configs/bench_baselines/h100_transformers.json");
  ASSERT_TRUE(baseline.ok()) << baseline.status();
  ASSERT_EQ(baseline->models_size(), 3);
  EXPECT_EQ(baseline->models(0).name(), "transformer_medium");
  for (const BenchModel& model : baseline->models()) {
    ASSERT_EQ(model.modes_size(), 5) << model.name();
    EXPECT_GT(model.modes(4).median_us(), 0) << model.name();
  }
  EXPECT_TRUE(CheckSteadyState(*baseline).ok());
}

TEST(BaselineTest, FileErrorsNameThePath) {
  absl::StatusOr<BenchResult> missing = ReadBenchResult("no/such/bench.json");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("no/such/bench.json"));

  std::string bad = absl::StrCat(::testing::TempDir(), "/bad.json");
  ASSERT_TRUE(base::WriteFileAtomically(bad, "{\"models\": 3}").ok());
  absl::StatusOr<BenchResult> invalid = ReadBenchResult(bad);
  EXPECT_EQ(invalid.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(invalid.status().message(), HasSubstr(bad));
}

// The table lists an MLP's peers by layers and batch, any other model's by
// the model's name; a peer of another model is left out.
TEST(PeersTest, TableMatchesByConfigOrName) {
  BenchResult result;
  BenchModel* mlp = result.add_models();
  mlp->set_name("mlp_softmax");
  mlp->set_config("64-128-128-10:32");
  BenchModel* transformer = result.add_models();
  transformer->set_name("transformer_medium");
  transformer->set_config("4 decoder blocks:16");
  auto add_peer = [&](const char* peer, const char* model, int64_t batch,
                      double us) {
    BenchPeer* p = result.add_peers();
    p->set_peer(peer);
    p->set_model(model);
    p->set_batch(batch);
    p->set_median_step_us(us);
  };
  add_peer("jax", "64-128-128-10", 32, 111.5);
  add_peer("jax", "transformer_medium", 16, 222.5);
  add_peer("jax", "cnn_cifar", 64, 333.5);
  const std::string table = BenchTable(result);
  EXPECT_THAT(table, HasSubstr("111.5"));
  EXPECT_THAT(table, HasSubstr("222.5"));
  EXPECT_THAT(table, Not(HasSubstr("333.5")));
}

TEST(PeersTest, ReadsLinesAndSkipsErrors) {
  std::string path = absl::StrCat(::testing::TempDir(), "/peers.jsonl");
  ASSERT_TRUE(
      base::WriteFileAtomically(
          path,
          "{\"peer\": \"JAX jit\", \"model\": \"48-96\", \"batch\": 24, "
          "\"median_step_us\": 92.3}\n"
          "{\"peer\": \"torch\", \"error\": \"no GPU\"}\n\n"
          "{\"peer\": \"PyTorch eager\", \"median_step_us\": 903.7}\n")
          .ok());
  absl::StatusOr<std::vector<BenchPeer>> peers = ReadPeers(path);
  ASSERT_TRUE(peers.ok()) << peers.status();
  ASSERT_EQ(peers->size(), 2);
  EXPECT_EQ((*peers)[0].batch(), 24);
  EXPECT_EQ((*peers)[1].median_step_us(), 903.7);

  ASSERT_TRUE(base::WriteFileAtomically(path, "{}\nnot json\n").ok());
  peers = ReadPeers(path);
  EXPECT_EQ(peers.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(peers.status().message(), HasSubstr(path + ":2:"));
}

}  // namespace
}  // namespace xla_lite
