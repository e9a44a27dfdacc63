// The JAX-exported training steps of configs/models: each is compiled, run
// for 1 and for 5 steps on every platform (aliased results fed back into
// their parameters, as JAX's donation does) and every result compared with
// JAX's own results (reference_step1/, reference_step5/).
//
// Comparison (CompareLiterals): element error |a - b| / max(|b|, 1e-3) must
// be at most 1e-4; the floor makes the bound an absolute 1e-7 for values
// near zero, which no relative bound can promise after cancellation.
// Models exported without data (mlp_wide) are compiled and run one step on
// random inputs, checking only that the loss is finite.

#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "stream_executor/platform_manager.h"
#include "tests/service/compiler_test_base.h"
#include "xla_lite/debug_options_flags.h"
#include "xla_lite/hlo/npy.h"

namespace xla_lite::testing {
namespace {

std::vector<std::string> ModelNames() {
  std::vector<std::string> names;
  for (const auto& [name, dir] : ModelDirectories()) names.push_back(name);
  return names;
}

TEST(ModelsTest, ModelsArePresent) {
  ASSERT_FALSE(ModelNames().empty())
      << "no models under " << RunfilePath("configs/models")
      << ": export them with tools/export_jax_hlo.py "
         "(configs/models/README.md)";
}

// Parameter: (platform, model).
class ModelTest : public ::testing::TestWithParam<
                      std::tuple<std::string, std::string>> {
 protected:
  void SetUp() override {
    const std::string& platform_name = std::get<0>(GetParam());
    auto platform = se::PlatformManager::PlatformWithName(platform_name);
    ASSERT_TRUE(platform.ok()) << platform.status();
    absl::Status available = (*platform)->Availability();
    if (!available.ok()) {
      ASSERT_FALSE(PlatformRequired(platform_name))
          << "required platform unavailable: " << available;
      GTEST_SKIP() << "platform " << platform_name
                   << " is unavailable here: " << available;
    }
    auto executor = (*platform)->ExecutorForDevice(0);
    ASSERT_TRUE(executor.ok()) << executor.status();
    executor_ = *executor;
    dir_ = RunfilePath(absl::StrCat("configs/models/", std::get<1>(GetParam())));
    hlo_ = ReadRunfile(dir_ + "/train_step.hlo");
  }

  bool HasData() const {
    return std::filesystem::exists(dir_ + "/input_0.npy");
  }

  std::vector<Literal> ReadArrays(const std::string& prefix) {
    std::vector<Literal> arrays;
    for (int i = 0;; ++i) {
      std::string path = absl::StrCat(prefix, i, ".npy");
      if (!std::filesystem::exists(path)) break;
      absl::StatusOr<Literal> literal = ReadNpyFile(path);
      EXPECT_TRUE(literal.ok()) << literal.status();
      if (literal.ok()) arrays.push_back(*std::move(literal));
    }
    return arrays;
  }

  void ExpectMatchesJax(int steps, const DebugOptions& options) {
    std::vector<Literal> inputs = ReadArrays(dir_ + "/input_");
    std::vector<Literal> expected =
        ReadArrays(absl::StrCat(dir_, "/reference_step", steps, "/output_"));
    ASSERT_FALSE(inputs.empty());
    ASSERT_FALSE(expected.empty()) << "no reference for " << steps << " steps";
    auto actual = CompileAndRunOn(executor_, hlo_, inputs, options, steps);
    ASSERT_TRUE(actual.ok()) << actual.status();
    ASSERT_EQ(actual->size(), expected.size());
    for (int i = 0; i < expected.size(); ++i) {
      absl::Status same = CompareLiterals((*actual)[i], expected[i]);
      EXPECT_TRUE(same.ok()) << "output " << i << " after " << steps
                             << " steps: " << same;
    }
  }

  se::StreamExecutor* executor_ = nullptr;
  std::string dir_;
  std::string hlo_;
};

DebugOptions OpByOp() {
  DebugOptions options = DefaultDebugOptions();
  options.clear_xla_gpu_enable_command_buffer();
  return options;
}

TEST_P(ModelTest, OneAndFiveStepsMatchJax) {
  if (!HasData()) {
    auto module = Parse(hlo_);
    ASSERT_TRUE(module.ok()) << module.status();
    std::mt19937 rng(5);
    std::vector<Literal> inputs = RandomArguments(**module, rng, -0.05, 0.05);
    auto results = CompileAndRunOn(executor_, hlo_, inputs,
                                   DefaultDebugOptions(), 1);
    ASSERT_TRUE(results.ok()) << results.status();
    const Literal& loss = results->back();
    ASSERT_EQ(loss.element_count(), 1);
    EXPECT_TRUE(std::isfinite(loss.GetAsDouble(0))) << loss.ToString();
    return;
  }
  // The runtime's defaults (command buffers, cached allocations) ...
  ExpectMatchesJax(1, DefaultDebugOptions());
  ExpectMatchesJax(5, DefaultDebugOptions());
  // ... and op by op.
  ExpectMatchesJax(1, OpByOp());
}

TEST_P(ModelTest, EmittedGemmMatchesJax) {
  if (!HasData()) GTEST_SKIP() << "no data exported for this model";
  DebugOptions options = OpByOp();
  options.set_xla_gpu_use_emitted_gemm(true);
  ExpectMatchesJax(1, options);
}

INSTANTIATE_TEST_SUITE_P(
    AllPlatforms, ModelTest,
    ::testing::Combine(::testing::ValuesIn(RegisteredPlatforms()),
                       ::testing::ValuesIn(ModelNames())),
    [](const ::testing::TestParamInfo<std::tuple<std::string, std::string>>&
           info) {
      return absl::StrCat(std::get<0>(info.param), "_",
                          std::get<1>(info.param));
    });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ModelTest);

}  // namespace
}  // namespace xla_lite::testing
