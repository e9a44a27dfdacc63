#ifndef TESTS_SERVICE_COMPILER_TEST_BASE_H_
#define TESTS_SERVICE_COMPILER_TEST_BASE_H_

// Compiling HLO text and running it on every platform, against the
// HloEvaluator as the reference.

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "tests/platform_test_util.h"
#include "xla_lite/debug_options.pb.h"
#include "xla_lite/hlo/hlo_module.h"
#include "xla_lite/hlo/literal.h"
#include "xla_lite/runtime/gpu_executable.h"
#include "xla_lite/runtime/thunk.h"

namespace xla_lite::testing {

// How results are compared with references, everywhere in these tests:
// element i's error is |actual_i - expected_i| / max(|expected_i|, floor),
// so values near zero are held to an absolute error of tolerance * floor
// instead of a relative one they cannot meet after cancellation. Both NaN
// is equal. Integer and pred elements must be equal.
inline constexpr double kRelativeTolerance = 1e-4;
inline constexpr double kAbsoluteFloor = 1e-3;

// Scalar f32 computations for test modules, named add, max and ge.
inline constexpr char kAddComputation[] = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
)";
inline constexpr char kMaxComputation[] = R"(
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] maximum(a, b)
}
)";
// select-and-scatter's select of a max pool, named ge.
inline constexpr char kGeComputation[] = R"(
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
)";

// OK, or what differs (shape, or the worst element with both values).
absl::Status CompareLiterals(const Literal& actual, const Literal& expected,
                             double tolerance = kRelativeTolerance,
                             double floor = kAbsoluteFloor);

// Expects every thread's results to be `expected` (CompareLiterals with
// `tolerance` and `floor`).
void ExpectEveryThreadMatches(
    const std::vector<absl::StatusOr<std::vector<Literal>>>& results,
    const std::vector<Literal>& expected, double tolerance, double floor);

// Uniform in [lo, hi) for floating-point types, integers in [lo, hi] for
// s32, 0/1 for pred.
Literal RandomLiteral(const Shape& shape, std::mt19937& rng, double lo = -1,
                      double hi = 1);

// Random arguments for every entry parameter of `module`.
std::vector<Literal> RandomArguments(const HloModule& module, std::mt19937& rng,
                                     double lo = -1, double hi = 1);

absl::StatusOr<std::unique_ptr<HloModule>> Parse(const std::string& hlo);

// The runtime's defaults, with command buffers off so thunks are visible.
DebugOptions OpByOpOptions();
// `options` with DEFAULT-precision dots in full f32: the suites compare f32
// results with the evaluator at f32 tolerances, so Compile and
// CompileAndRun(On) apply this to whatever options they are given;
// tf32_test covers the TF32 path itself.
DebugOptions WithFullPrecisionDots(DebugOptions options);

// A module whose root is an f32[64,48] dot of a `type`[64,32] and a
// `type`[32,48] parameter, with `attributes` after its dimension numbers
// (", operand_precision={highest,highest}", or "").
std::string DotModule(const std::string& type, const std::string& attributes);

// A module whose root r = convolution(x, k) of f32 arrays with those
// dimensions (e.g. "2,6,5,3") and attributes (window, dim_labels, ...).
std::string ConvolutionModule(const std::string& lhs, const std::string& rhs,
                              const std::string& out,
                              const std::string& attributes);

// The contents of a file in the test's runfiles (path relative to the
// workspace root).
std::string ReadRunfile(const std::string& path);

// The runfiles path of a workspace-relative path.
std::string RunfilePath(const std::string& path);

// Every model of configs/models in the test's runfiles (directories with a
// train_step.hlo), as {name, directory}, sorted by name.
std::vector<std::pair<std::string, std::string>> ModelDirectories();

// Thunks of an executable, inside command buffers too, in order.
std::vector<const gpu::Thunk*> FlatThunks(const gpu::GpuExecutable& executable);
int64_t CountThunks(const gpu::GpuExecutable& executable, gpu::Thunk::Kind kind);

// Compiles `hlo` for `executor` and runs `steps` steps, feeding aliased
// results back into their parameters (TrainingLoop).
absl::StatusOr<std::vector<Literal>> CompileAndRunOn(
    se::StreamExecutor* executor, const std::string& hlo,
    const std::vector<Literal>& arguments, const DebugOptions& options,
    int64_t steps);

class CompilerTest : public PlatformTest {
 protected:
  absl::StatusOr<std::unique_ptr<gpu::GpuExecutable>> Compile(
      const std::string& hlo, const DebugOptions& options = OpByOpOptions());

  // Compiles `hlo` and runs `steps` steps on this test's device, feeding
  // aliased results back as the runtime's users do.
  absl::StatusOr<std::vector<Literal>> CompileAndRun(
      const std::string& hlo, const std::vector<Literal>& arguments,
      const DebugOptions& options = OpByOpOptions(), int64_t steps = 1);

  // CompileAndRun on `threads` threads at once, each compiling its own
  // executable for this test's device; the results by thread.
  std::vector<absl::StatusOr<std::vector<Literal>>> CompileAndRunOnThreads(
      const std::string& hlo, const std::vector<Literal>& arguments,
      const DebugOptions& options, int threads, int64_t steps = 1);

  // Random arguments for `hlo` (RandomArguments with a generator seeded by
  // `seed`) and the evaluator's results for them after one step.
  struct RandomCase {
    std::vector<Literal> arguments;
    std::vector<Literal> expected;
  };
  absl::StatusOr<RandomCase> MakeRandomCase(const std::string& hlo,
                                            uint32_t seed);

  // The evaluator's results for the same text and arguments, after
  // `steps` steps with the same feedback as CompileAndRun.
  absl::StatusOr<std::vector<Literal>> Evaluate(
      const std::string& hlo, const std::vector<Literal>& arguments,
      int64_t steps = 1);

  // Random arguments in [lo, hi), run on this platform and by the
  // evaluator; every result must agree (CompareLiterals).
  void ExpectMatchesEvaluator(const std::string& hlo, double lo = -1,
                              double hi = 1,
                              const DebugOptions& options = OpByOpOptions(),
                              int64_t steps = 1);
};

}  // namespace xla_lite::testing

#endif  // TESTS_SERVICE_COMPILER_TEST_BASE_H_
