// Collectives through parser, verifier and the multi-device evaluator:
// each expected value is stated by hand for 2 (or 4) devices.

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/hlo/evaluator_test_util.h"
#include "tests/hlo/hlo_test_util.h"
#include "xla_lite/hlo/hlo_collective_groups.h"
#include "xla_lite/hlo/hlo_evaluator.h"
#include "xla_lite/hlo/hlo_evaluator_rendezvous.h"
#include "xla_lite/hlo/hlo_verifier.h"

namespace xla_lite {
namespace {

using ::testing::HasSubstr;

constexpr char kAdd[] = R"(add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
addbf {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
)";

// Evaluates the one-parameter module `root` on `topology`, device d
// getting args[d]; the single result of each device.
std::vector<std::vector<double>> OnDevices(const std::string& param_shape,
                                           const std::string& root,
                                           const std::vector<Literal>& args,
                                           DeviceTopology topology) {
  std::unique_ptr<HloModule> module =
      ParseOrDie(EntryModule({param_shape}, root, kAdd));
  if (module == nullptr) return {};
  absl::Status verified = VerifyHloModule(*module);
  EXPECT_TRUE(verified.ok()) << verified;
  std::vector<std::vector<Literal>> per_device;
  for (const Literal& arg : args) per_device.push_back({arg});
  MultiDeviceEvaluation run;
  run.topology = topology;
  auto results = EvaluateModuleOnDevices(*module, per_device, run);
  EXPECT_TRUE(results.ok()) << results.status();
  std::vector<std::vector<double>> out;
  if (!results.ok()) return out;
  for (const auto& result : *results) out.push_back(Values(result.at(0)));
  return out;
}

const DeviceTopology kTwoPartitions{1, 2};

TEST(CollectivesTest, AllReduceMeshFormSumsBothDevices) {
  auto out = OnDevices(
      "f32[3]",
      "f32[3] all-reduce(p0), channel_id=1, "
      "replica_groups=mesh['batch'=2] {'batch'}, use_global_device_ids=true, "
      "to_apply=add",
      {F32({3}, {1, 2, 3}), F32({3}, {10, 20, 30})}, kTwoPartitions);
  ASSERT_EQ(out.size(), 2);
  EXPECT_THAT(out[0], Is({11, 22, 33}));
  EXPECT_THAT(out[1], Is({11, 22, 33}));
}

TEST(CollectivesTest, AllReduceBf16RoundsTheSum) {
  // 256 + 1 is not a bf16 value: the sum rounds to even, 256.
  auto out = OnDevices(
      "bf16[2]",
      "bf16[2] all-reduce(p0), replica_groups={{0,1}}, to_apply=addbf",
      {Make(PrimitiveType::BF16, {2}, {256, 1}),
       Make(PrimitiveType::BF16, {2}, {1, 2})},
      {2, 1});
  ASSERT_EQ(out.size(), 2);
  EXPECT_THAT(out[0], Is({256, 3}));
  EXPECT_THAT(out[1], Is({256, 3}));
}

TEST(CollectivesTest, AllReduceListGroupsOfFourDevices) {
  std::vector<Literal> args;
  for (int d = 0; d < 4; ++d) args.push_back(F32({1}, {double(1 << d)}));
  auto out = OnDevices("f32[1]",
                       "f32[1] all-reduce(p0), channel_id=2, "
                       "replica_groups={{0,2},{1,3}}, "
                       "use_global_device_ids=true, to_apply=add",
                       args, {1, 4});
  ASSERT_EQ(out.size(), 4);
  EXPECT_THAT(out[0], Is({5}));
  EXPECT_THAT(out[1], Is({10}));
  EXPECT_THAT(out[2], Is({5}));
  EXPECT_THAT(out[3], Is({10}));
}

TEST(CollectivesTest, MeshFormOfTwoAxesGroupsAlongTheNamedOne) {
  std::unique_ptr<HloModule> module = ParseOrDie(EntryModule(
      {"f32[1]"},
      "f32[1] all-reduce(p0), channel_id=1, "
      "replica_groups=mesh['x'=2,'y'=2] {'x'}, use_global_device_ids=true, "
      "to_apply=add",
      kAdd));
  ASSERT_NE(module, nullptr);
  EXPECT_THAT(FindInstruction(*module, "r")->collective_attributes()
                  .replica_groups,
              ::testing::ElementsAre(::testing::ElementsAre(0, 2),
                                     ::testing::ElementsAre(1, 3)));
}

TEST(CollectivesTest, AllGatherConcatenatesInGroupOrder) {
  auto out = OnDevices("f32[1,2]",
                       "f32[2,2] all-gather(p0), channel_id=1, "
                       "replica_groups={{1,0}}, dimensions={0}, "
                       "use_global_device_ids=true",
                       {F32({1, 2}, {1, 2}), F32({1, 2}, {3, 4})},
                       kTwoPartitions);
  ASSERT_EQ(out.size(), 2);
  EXPECT_THAT(out[0], Is({3, 4, 1, 2}));
  EXPECT_THAT(out[1], Is({3, 4, 1, 2}));
}

TEST(CollectivesTest, ReduceScatterGivesEachDeviceItsBlock) {
  auto out = OnDevices("f32[2,2]",
                       "f32[2,1] reduce-scatter(p0), channel_id=1, "
                       "replica_groups={{0,1}}, dimensions={1}, "
                       "use_global_device_ids=true, to_apply=add",
                       {F32({2, 2}, {1, 2, 3, 4}), F32({2, 2}, {10, 20, 30, 40})},
                       kTwoPartitions);
  ASSERT_EQ(out.size(), 2);
  EXPECT_THAT(out[0], Is({11, 33}));
  EXPECT_THAT(out[1], Is({22, 44}));
}

TEST(CollectivesTest, CollectivePermuteMovesAndZeroesNonTargets) {
  std::vector<Literal> args;
  for (int d = 0; d < 3; ++d) args.push_back(F32({1}, {double(d + 1)}));
  auto out = OnDevices(
      "f32[1]",
      "f32[1] collective-permute(p0), channel_id=1, "
      "source_target_pairs={{0,1},{1,2}}",
      args, {1, 3});
  ASSERT_EQ(out.size(), 3);
  EXPECT_THAT(out[0], Is({0}));
  EXPECT_THAT(out[1], Is({1}));
  EXPECT_THAT(out[2], Is({2}));
}

TEST(CollectivesTest, ReplicaAndPartitionIds) {
  const std::string text = EntryModule(
      {"f32[]"},
      "(u32[], u32[]) tuple(rid, pid)", "");
  std::string module_text = text;
  module_text.replace(module_text.find("  ROOT"), 0,
                      "  rid = u32[] replica-id()\n"
                      "  pid = u32[] partition-id()\n");
  std::unique_ptr<HloModule> module = ParseOrDie(module_text);
  ASSERT_NE(module, nullptr);
  ASSERT_TRUE(VerifyHloModule(*module).ok());
  MultiDeviceEvaluation run;
  run.topology = {2, 2};
  std::vector<std::vector<Literal>> args(4, {F32({}, {0})});
  auto results = EvaluateModuleOnDevices(*module, args, run);
  ASSERT_TRUE(results.ok()) << results.status();
  for (int d = 0; d < 4; ++d) {
    EXPECT_EQ((*results)[d][0].GetAsDouble(0), d / 2) << d;
    EXPECT_EQ((*results)[d][1].GetAsDouble(0), d % 2) << d;
  }
}

TEST(CollectivesTest, PrintsAndReparsesTheSameAttributes) {
  std::unique_ptr<HloModule> module = ParseOrDie(EntryModule(
      {"f32[4]"},
      "f32[4] all-reduce(p0), channel_id=3, "
      "replica_groups=mesh['d'=2] {'d'}, use_global_device_ids=true, "
      "to_apply=add",
      kAdd));
  ASSERT_NE(module, nullptr);
  const std::string printed = FindInstruction(*module, "r")->ToString();
  EXPECT_THAT(printed, HasSubstr("channel_id=3"));
  EXPECT_THAT(printed, HasSubstr("replica_groups={{0,1}}"));
  EXPECT_THAT(printed, HasSubstr("use_global_device_ids=true"));
}

// Hostile input: clear errors naming the instruction and its line.
TEST(CollectivesTest, GroupsOutOfRangeForTheRunNameTheInstruction) {
  std::unique_ptr<HloModule> module = ParseOrDie(EntryModule(
      {"f32[1]"},
      "f32[1] all-reduce(p0), channel_id=1, replica_groups={{0,3}}, "
      "use_global_device_ids=true, to_apply=add",
      kAdd));
  ASSERT_NE(module, nullptr);
  ASSERT_TRUE(VerifyHloModule(*module).ok());
  MultiDeviceEvaluation run;
  run.topology = kTwoPartitions;
  std::vector<std::vector<Literal>> args(2, {F32({1}, {1})});
  auto results = EvaluateModuleOnDevices(*module, args, run);
  ASSERT_FALSE(results.ok());
  EXPECT_THAT(results.status().message(), HasSubstr("instruction 'r'"));
  EXPECT_THAT(results.status().message(), HasSubstr("out of range [0, 2)"));
}

TEST(CollectivesTest, VerifierRefusesInconsistentGroups) {
  struct Case {
    std::string root;
    std::string error;
  };
  const Case cases[] = {
      {"f32[2] all-reduce(p0), replica_groups={{0,1},{2}}, to_apply=add",
       "one non-zero size"},
      {"f32[2] all-reduce(p0), replica_groups={{0,0}}, to_apply=add",
       "twice"},
      {"f32[3] all-gather(p0), replica_groups={{0,1}}, dimensions={0}",
       "f32[4]"},
      {"f32[1] reduce-scatter(p0), replica_groups={{0,1,2}}, dimensions={0}, "
       "to_apply=add",
       "divisible by the group size 3"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.root);
    std::unique_ptr<HloModule> module =
        ParseOrDie(EntryModule({"f32[2]"}, c.root, kAdd));
    ASSERT_NE(module, nullptr);
    absl::Status status = VerifyHloModule(*module);
    ASSERT_FALSE(status.ok());
    EXPECT_THAT(status.message(), HasSubstr("instruction 'r'"));
    EXPECT_THAT(status.message(), HasSubstr(c.error));
  }
}

TEST(CollectivesTest, ParserRefusesMeshAxisNotInTheMesh) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(
      EntryModule({"f32[2]"},
                  "f32[2] all-reduce(p0), replica_groups=mesh['a'=2] {'b'}, "
                  "to_apply=add",
                  kAdd),
      "m.hlo");
  ASSERT_FALSE(module.ok());
  EXPECT_THAT(module.status().message(), HasSubstr("m.hlo:"));
  EXPECT_THAT(module.status().message(), HasSubstr("'b' is not in the mesh"));
}

// A device that never reaches the collective: the others return
// DEADLINE_EXCEEDED after the timeout instead of hanging.
TEST(CollectivesTest, MissingDeviceTimesOut) {
  evaluator_internal::EvaluatorRendezvous rendezvous(2);
  auto result = rendezvous.Exchange(0, 0, "ar", F32({1}, {1}),
                                    absl::Milliseconds(50));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(result.status().message(), HasSubstr("device(s) 1"));
}

// A device that fails stops the others at once.
TEST(CollectivesTest, FailingDeviceStopsTheOthers) {
  std::unique_ptr<HloModule> module = ParseOrDie(EntryModule(
      {"f32[1]"}, "f32[1] all-reduce(p0), to_apply=add", kAdd));
  ASSERT_NE(module, nullptr);
  MultiDeviceEvaluation run;
  run.topology = {2, 1};
  run.timeout = absl::Seconds(600);
  // Device 1's argument has the wrong shape: it fails before the
  // collective, and device 0 must not wait 600 s for it.
  std::vector<std::vector<Literal>> args = {{F32({1}, {1})},
                                            {F32({2}, {1, 2})}};
  const absl::Time start = absl::Now();
  auto results = EvaluateModuleOnDevices(*module, args, run);
  ASSERT_FALSE(results.ok());
  EXPECT_LT(absl::Now() - start, absl::Seconds(30));
}

}  // namespace
}  // namespace xla_lite
