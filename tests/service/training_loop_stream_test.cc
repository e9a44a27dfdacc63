// Training loops take their stream from the executor's pool: a loop run
// after another one ends runs on that loop's stream (StreamPool says why),
// loops alive at once run on streams of their own, and both compute what
// the evaluator does.

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/service/compiler_test_base.h"
#include "xla_lite/debug_options_flags.h"
#include "xla_lite/training/training_loop.h"

namespace xla_lite::testing {
namespace {

class TrainingLoopStreamTest : public CompilerTest {
 protected:
  void SetUp() override {
    CompilerTest::SetUp();
    if (IsSkipped()) return;
    hlo_ = DotModule("f32", ", operand_precision={highest,highest}");
    auto random_case = MakeRandomCase(hlo_, 5);
    ASSERT_TRUE(random_case.ok()) << random_case.status();
    case_ = *std::move(random_case);
    for (int i = 0; i < 2; ++i) {
      auto executable = Compile(hlo_, DefaultDebugOptions());
      ASSERT_TRUE(executable.ok()) << executable.status();
      executables_.push_back(*std::move(executable));
    }
  }

  std::unique_ptr<TrainingLoop> Loop(int executable) {
    auto module = Parse(hlo_);
    EXPECT_TRUE(module.ok()) << module.status();
    auto loop = TrainingLoop::Create(executables_[executable].get(),
                                     (*module)->entry_computation_layout(),
                                     executor_, BatchMode::kFixed);
    EXPECT_TRUE(loop.ok()) << loop.status();
    if (!loop.ok()) return nullptr;
    EXPECT_TRUE((*loop)->SetArguments(case_.arguments).ok());
    return *std::move(loop);
  }

  // Three steps: op by op, recorded, replayed.
  void ExpectSteps(TrainingLoop& loop) {
    ASSERT_TRUE(loop.Steps(3).ok());
    auto results = loop.Results();
    ASSERT_TRUE(results.ok()) << results.status();
    ExpectEveryThreadMatches({*std::move(results)}, case_.expected, 1e-5, 1.0);
  }

  std::string hlo_;
  RandomCase case_;
  std::vector<std::unique_ptr<gpu::GpuExecutable>> executables_;
};

TEST_P(TrainingLoopStreamTest, LoopAfterAnotherRunsOnItsStream) {
  std::unique_ptr<TrainingLoop> first = Loop(0);
  ASSERT_NE(first, nullptr);
  ExpectSteps(*first);
  const se::Stream* stream = first->stream();
  first.reset();
  // Takes the first stream's memory if the loop freed it, so that a new
  // stream cannot pass for the old one by address.
  auto unpooled = executor_->CreateStream();
  ASSERT_TRUE(unpooled.ok()) << unpooled.status();
  std::unique_ptr<TrainingLoop> second = Loop(1);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->stream(), stream);
  ExpectSteps(*second);
}

TEST_P(TrainingLoopStreamTest, LoopsAliveAtOnceRunOnStreamsOfTheirOwn) {
  std::unique_ptr<TrainingLoop> first = Loop(0);
  std::unique_ptr<TrainingLoop> second = Loop(1);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_NE(first->stream(), second->stream());
  ExpectSteps(*first);
  ExpectSteps(*second);
}

INSTANTIATE_FOR_ALL_PLATFORMS(TrainingLoopStreamTest);

}  // namespace
}  // namespace xla_lite::testing
