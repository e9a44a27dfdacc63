// The JAX convolutional networks of configs/models (CNNS) through the
// compiler on every platform: cnn_small and cnn_depthwise against JAX's
// results after 1 and 5 steps (aliased results fed back, as JAX's donation
// does; CompareLiterals: 1e-4 relative, floored at 1e-3), with the
// runtime's defaults (command buffers, cached allocations) and op by op;
// the CIFAR-sized speed model, exported without data, one step on random
// inputs with a finite loss.

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/hlo/jax_reference_util.h"
#include "tests/service/compiler_test_base.h"
#include "xla_lite/debug_options_flags.h"
#include "xla_lite/hlo/hlo_opcode.h"

namespace xla_lite::testing {
namespace {

DebugOptions OpByOp() {
  DebugOptions options = DefaultDebugOptions();
  options.clear_xla_gpu_enable_command_buffer();
  return options;
}

class CnnModelsTest : public CompilerTest {
 protected:
  void ExpectMatchesJax(const std::string& model, int steps,
                        const DebugOptions& options) {
    const std::string dir = ModelDir(model);
    const std::string hlo = ReadRunfile(dir + "/train_step.hlo");
    std::vector<Literal> inputs = ReadArrays(dir + "/input_");
    auto module = Parse(hlo);
    ASSERT_TRUE(module.ok()) << module.status();
    // The exports write the scalar loss as shape (1,).
    std::vector<Literal> expected = AsShapes(
        ReadArrays(absl::StrCat(dir, "/reference_step", steps, "/output_")),
        (*module)->entry_computation_layout().result_shape.tuple_shapes());
    ASSERT_FALSE(inputs.empty()) << model;
    ASSERT_FALSE(expected.empty()) << model << ": no reference for " << steps;
    auto actual = CompileAndRun(hlo, inputs, options, steps);
    ASSERT_TRUE(actual.ok()) << model << ": " << actual.status();
    ASSERT_EQ(actual->size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      absl::Status same = CompareLiterals((*actual)[i], expected[i]);
      EXPECT_TRUE(same.ok()) << model << " output " << i << " after " << steps
                             << " steps: " << same;
    }
  }

  void ExpectModelMatchesJax(const std::string& model) {
    ExpectMatchesJax(model, 1, DefaultDebugOptions());
    ExpectMatchesJax(model, 5, DefaultDebugOptions());
    ExpectMatchesJax(model, 1, OpByOp());
  }
};

TEST_P(CnnModelsTest, DepthwiseMatchesJax) {
  ExpectModelMatchesJax("cnn_depthwise");
}

TEST_P(CnnModelsTest, SmallMatchesJax) {
  // cnn_small's average-pool gradient pads with interior padding; pad joins
  // the compiler separately, and this test runs as soon as it parses.
  if (!StringToHloOpcode("pad").ok()) {
    GTEST_SKIP() << "the parser does not know pad yet";
  }
  ExpectModelMatchesJax("cnn_small");
}

// cnn_cifar's step (exported without data) and random inputs for it.
void CifarStep(std::string& hlo, std::vector<Literal>& inputs) {
  hlo = ReadRunfile(ModelDir("cnn_cifar") + "/train_step.hlo");
  auto module = Parse(hlo);
  ASSERT_TRUE(module.ok()) << module.status();
  std::mt19937 rng(5);
  inputs = RandomArguments(**module, rng, -0.05, 0.05);
}

TEST_P(CnnModelsTest, CifarRunsAStep) {
  std::string hlo;
  std::vector<Literal> inputs;
  ASSERT_NO_FATAL_FAILURE(CifarStep(hlo, inputs));
  auto results = CompileAndRun(hlo, inputs, DefaultDebugOptions(), 1);
  ASSERT_TRUE(results.ok()) << results.status();
  const Literal& loss = results->back();
  ASSERT_EQ(loss.element_count(), 1);
  EXPECT_TRUE(std::isfinite(loss.GetAsDouble(0))) << loss.ToString();
}

// Every convolution through the DNN library where the platform has one
// (cuDNN), the rest of the step unchanged.
DebugOptions AllConvolutionsToLibrary() {
  DebugOptions options = DefaultDebugOptions();
  options.set_xla_gpu_dnn_convolution_min_flops(0);
  return options;
}

TEST_P(CnnModelsTest, MatchJaxWithLibraryConvolutions) {
  for (const char* model : {"cnn_small", "cnn_depthwise"}) {
    ExpectMatchesJax(model, 1, AllConvolutionsToLibrary());
    ExpectMatchesJax(model, 5, AllConvolutionsToLibrary());
  }
}

// The speed model's step with its convolutions in the library (the
// default on CUDA) and in the emitted kernels agree.
TEST_P(CnnModelsTest, CifarLibraryAndEmittedConvolutionsAgree) {
  std::string hlo;
  std::vector<Literal> inputs;
  ASSERT_NO_FATAL_FAILURE(CifarStep(hlo, inputs));
  DebugOptions emitted = DefaultDebugOptions();
  emitted.set_xla_gpu_dnn_convolution_min_flops(-1);
  auto library = CompileAndRun(hlo, inputs, AllConvolutionsToLibrary(), 2);
  ASSERT_TRUE(library.ok()) << library.status();
  auto kernels = CompileAndRun(hlo, inputs, emitted, 2);
  ASSERT_TRUE(kernels.ok()) << kernels.status();
  ASSERT_EQ(library->size(), kernels->size());
  // Inputs in +-0.05 make gradients of about 1e-3 that cancel: a floor of
  // 1e-2 allows the two summation orders' rounding, not a wrong index.
  for (size_t i = 0; i < library->size(); ++i) {
    absl::Status same = CompareLiterals((*library)[i], (*kernels)[i],
                                        kRelativeTolerance, /*floor=*/1e-2);
    EXPECT_TRUE(same.ok()) << "output " << i << ": " << same;
  }
}

INSTANTIATE_FOR_ALL_PLATFORMS(CnnModelsTest);

}  // namespace
}  // namespace xla_lite::testing
