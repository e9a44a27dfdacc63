// configs/models/dp2_mlp, JAX's jit of a shard_map data-parallel step over
// 2 devices (batch split, gradients and loss pmean'd), through parser,
// verifier, the shard_map partitioner and the multi-device evaluator,
// against JAX's results after 1 and 5 steps: each element within 1e-4 of
// max(|expected|, 1e-3), as tests/models asks of the compiler. Between
// steps the updated parameters (outputs 0-5) are fed back, as the
// module's buffer_donor lets JAX do.

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/hlo/hlo_test_util.h"
#include "xla_lite/hlo/hlo_evaluator.h"
#include "xla_lite/hlo/hlo_verifier.h"
#include "xla_lite/hlo/npy.h"
#include "xla_lite/service/shard_map_partitioner.h"

namespace xla_lite {
namespace {

using ::testing::HasSubstr;

constexpr int kDevices = 2;
constexpr int kUpdatedParameters = 6;

std::string Dp2Path(const std::string& file) {
  return RunfilePath(absl::StrCat("configs/models/dp2_mlp/", file));
}

std::vector<Literal> ReadNumbered(const std::string& prefix, int count) {
  std::vector<Literal> out;
  for (int i = 0; i < count; ++i) {
    absl::StatusOr<Literal> literal =
        ReadNpyFile(Dp2Path(absl::StrCat(prefix, i, ".npy")));
    EXPECT_TRUE(literal.ok()) << literal.status();
    if (literal.ok()) out.push_back(*std::move(literal));
  }
  return out;
}

// The first element further than `tolerance` from JAX's, or "".
std::string Mismatch(const std::vector<Literal>& actual,
                     const std::vector<Literal>& expected, double tolerance) {
  if (actual.size() != expected.size()) {
    return absl::StrCat(actual.size(), " outputs, expected ", expected.size());
  }
  for (size_t o = 0; o < expected.size(); ++o) {
    if (actual[o].element_count() != expected[o].element_count()) {
      return absl::StrCat("output ", o, " has ", actual[o].element_count(),
                          " elements");
    }
    for (int64_t i = 0; i < expected[o].element_count(); ++i) {
      const double a = actual[o].GetAsDouble(i), e = expected[o].GetAsDouble(i);
      if (!(std::fabs(a - e) <= tolerance * std::max(std::fabs(e), 1e-3))) {
        return absl::StrCat("output ", o, " element ", i, ": ", a,
                            ", expected ", e);
      }
    }
  }
  return "";
}

struct Partitioned {
  std::unique_ptr<HloModule> module;
  ShardMapSignature signature;
};

Partitioned Load(int devices) {
  Partitioned p;
  auto module = ParseHloModuleFile(Dp2Path("train_step.hlo"));
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return p;
  EXPECT_TRUE(VerifyHloModule(**module).ok());
  auto signature = PartitionShardMapModule(module->get(), devices);
  EXPECT_TRUE(signature.ok()) << signature.status();
  if (!signature.ok()) return p;
  absl::Status verified = VerifyHloModule(**module);
  EXPECT_TRUE(verified.ok()) << verified;
  p.module = *std::move(module);
  p.signature = *std::move(signature);
  return p;
}

TEST(JaxDataParallelTest, PartitionerSplitsTheBatchAndKeepsParameters) {
  Partitioned p = Load(kDevices);
  ASSERT_NE(p.module, nullptr);
  const ShardMapSignature& sig = p.signature;
  EXPECT_EQ(sig.topology.num_partitions, 2);
  ASSERT_EQ(sig.in_shardings.size(), 8);
  for (int i = 0; i < 6; ++i) EXPECT_TRUE(sig.in_shardings[i].replicated());
  EXPECT_THAT(sig.in_shardings[6].pieces, ::testing::ElementsAre(2, 1));
  EXPECT_THAT(sig.in_shardings[7].pieces, ::testing::ElementsAre(2, 1));
  const HloComputation* entry = p.module->entry_computation();
  EXPECT_EQ(entry->parameter_instruction(6)->shape().dimensions(0), 16);
  EXPECT_EQ(p.module->entry_computation_layout()
                .parameter_shapes[7]
                .dimensions(0),
            16);
  for (const HloInstruction* instr : entry->instructions()) {
    EXPECT_NE(instr->opcode(), HloOpcode::kCustomCall) << instr->name();
  }
}

TEST(JaxDataParallelTest, MatchesJaxAfterOneAndFiveSteps) {
  Partitioned p = Load(kDevices);
  ASSERT_NE(p.module, nullptr);
  std::vector<Literal> inputs = ReadNumbered("input_", 8);
  ASSERT_EQ(inputs.size(), 8);
  MultiDeviceEvaluation run;
  run.topology = p.signature.topology;
  for (int step = 1; step <= 5; ++step) {
    auto per_device_args = SplitGlobalArguments(p.signature, inputs);
    ASSERT_TRUE(per_device_args.ok()) << per_device_args.status();
    auto per_device = EvaluateModuleOnDevices(*p.module, *per_device_args, run);
    ASSERT_TRUE(per_device.ok()) << per_device.status();
    // Replicated results must agree bit for bit across devices.
    auto outputs = GatherGlobalResults(p.signature, *per_device);
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    if (step == 1 || step == 5) {
      std::vector<Literal> expected =
          ReadNumbered(absl::StrCat("reference_step", step, "/output_"), 7);
      EXPECT_EQ(Mismatch(*outputs, expected, 1e-4), "") << "step " << step;
    }
    for (int i = 0; i < kUpdatedParameters; ++i) {
      inputs[i] = std::move((*outputs)[i]);
    }
  }
}

// Hostile input: a device count the batch does not divide into.
TEST(JaxDataParallelTest, DeviceCountThatDoesNotDivideTheBatch) {
  auto module = ParseHloModuleFile(Dp2Path("train_step.hlo"));
  ASSERT_TRUE(module.ok()) << module.status();
  auto signature = PartitionShardMapModule(module->get(), 3);
  ASSERT_FALSE(signature.ok());
  EXPECT_THAT(signature.status().message(),
              HasSubstr("instruction 'shard_map.41' (custom-call)"));
  EXPECT_THAT(signature.status().message(), HasSubstr("train_step.hlo:"));
  EXPECT_THAT(signature.status().message(),
              HasSubstr("dimension 0 of size 32 split over 3 devices"));
}

// Hostile input: the shardings disagree with the local shapes.
TEST(JaxDataParallelTest, ShardingThatDisagreesWithLocalShape) {
  constexpr char kText[] = R"(HloModule m
ENTRY e {
  x = f32[8,2] parameter(0)
  l = (f32[8,2]) custom-call(x), custom_call_target="xla.sdy.GlobalToLocalShape", frontend_attributes={xla.sdy.in_shardings="#sdy.sharding_per_value<[<@mesh, [{\"b\"}, {}]>]>"}
  g = f32[8,2] get-tuple-element(l), index=0
  o = (f32[8,2]) custom-call(g), custom_call_target="xla.sdy.LocalToGlobalShape", frontend_attributes={xla.sdy.out_shardings="#sdy.sharding_per_value<[<@mesh, [{}, {}]>]>"}
  r = f32[8,2] get-tuple-element(o), index=0
  ROOT t = (f32[8,2]) tuple(r)
})";
  auto module = ParseHloModule(kText, "m.hlo");
  ASSERT_TRUE(module.ok()) << module.status();
  auto signature = PartitionShardMapModule(module->get(), 2);
  ASSERT_FALSE(signature.ok());
  EXPECT_THAT(signature.status().message(), HasSubstr("m.hlo:4:"));
  EXPECT_THAT(signature.status().message(), HasSubstr("does not give 8"));
}

}  // namespace
}  // namespace xla_lite
