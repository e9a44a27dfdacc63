#include "tests/service/compiler_test_base.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "gtest/gtest.h"
#include "xla_lite/debug_options_flags.h"
#include "xla_lite/hlo/hlo_evaluator.h"
#include "xla_lite/hlo/hlo_parser.h"
#include "xla_lite/runtime/command_buffer_thunk.h"
#include "xla_lite/service/compiler.h"
#include "xla_lite/training/training_loop.h"

namespace xla_lite::testing {
namespace {

void Flatten(const gpu::Thunk& thunk, std::vector<const gpu::Thunk*>* out) {
  if (thunk.kind() == gpu::Thunk::Kind::kCommandBuffer) {
    for (const auto& inner :
         static_cast<const gpu::CommandBufferThunk&>(thunk).thunks()) {
      Flatten(*inner, out);
    }
    return;
  }
  out->push_back(&thunk);
}

}  // namespace

absl::Status CompareLiterals(const Literal& actual, const Literal& expected,
                             double tolerance, double floor) {
  if (actual.shape() != expected.shape()) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape ", actual.shape().ToString(), " != expected ",
                     expected.shape().ToString()));
  }
  bool is_float =
      primitive_util::IsFloatingPointType(expected.shape().element_type());
  double worst = 0;
  int64_t worst_index = -1;
  for (int64_t i = 0; i < expected.element_count(); ++i) {
    double a = actual.GetAsDouble(i), e = expected.GetAsDouble(i);
    double error;
    if (std::isnan(a) || std::isnan(e)) {
      error = std::isnan(a) && std::isnan(e) ? 0 : INFINITY;
    } else if (std::isinf(a) || std::isinf(e)) {
      error = a == e ? 0 : INFINITY;
    } else if (!is_float) {
      error = a == e ? 0 : INFINITY;
    } else {
      error = std::fabs(a - e) / std::max(std::fabs(e), floor);
    }
    if (error > worst || worst_index < 0) {
      worst = error;
      worst_index = i;
    }
  }
  if (worst <= (is_float ? tolerance : 0)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "element ", worst_index, " of ", expected.shape().ToString(), ": got ",
      actual.GetAsDouble(worst_index), ", expected ",
      expected.GetAsDouble(worst_index), " (error ", worst, " > ", tolerance,
      ")"));
}

Literal RandomLiteral(const Shape& shape, std::mt19937& rng, double lo,
                      double hi) {
  Literal literal(Shape::Array(shape.element_type(), shape.dimensions()));
  PrimitiveType type = shape.element_type();
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    double value;
    if (type == PrimitiveType::PRED) {
      value = std::uniform_int_distribution<int>(0, 1)(rng);
    } else if (primitive_util::IsFloatingPointType(type)) {
      value = std::uniform_real_distribution<double>(lo, hi)(rng);
    } else {
      value = std::uniform_int_distribution<int64_t>(
          static_cast<int64_t>(lo), static_cast<int64_t>(hi))(rng);
    }
    literal.SetFromDouble(i, value);
  }
  return literal;
}

std::vector<Literal> RandomArguments(const HloModule& module, std::mt19937& rng,
                                     double lo, double hi) {
  std::vector<Literal> arguments;
  for (const Shape& shape : module.entry_computation_layout().parameter_shapes) {
    arguments.push_back(RandomLiteral(shape, rng, lo, hi));
  }
  return arguments;
}

absl::StatusOr<std::unique_ptr<HloModule>> Parse(const std::string& hlo) {
  return ParseHloModule(hlo, "test");
}

DebugOptions OpByOpOptions() {
  DebugOptions options = DefaultDebugOptions();
  options.clear_xla_gpu_enable_command_buffer();
  // Every dot a GemmThunk, so that suites can count gemms and kernels.
  options.set_xla_gpu_emitted_gemm_max_size(0);
  return options;
}

std::string DotModule(const std::string& type, const std::string& attributes) {
  return absl::StrFormat(R"(
HloModule dot

ENTRY main {
  a = %s[64,32] parameter(0)
  b = %s[32,48] parameter(1)
  ROOT d = f32[64,48] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}%s
})",
                         type, type, attributes);
}

std::vector<const gpu::Thunk*> FlatThunks(const gpu::GpuExecutable& executable) {
  std::vector<const gpu::Thunk*> thunks;
  for (const auto& thunk : executable.thunks().thunks()) {
    Flatten(*thunk, &thunks);
  }
  return thunks;
}

int64_t CountThunks(const gpu::GpuExecutable& executable,
                    gpu::Thunk::Kind kind) {
  int64_t count = 0;
  for (const gpu::Thunk* thunk : FlatThunks(executable)) {
    count += thunk->kind() == kind;
  }
  return count;
}

DebugOptions WithFullPrecisionDots(DebugOptions options) {
  options.set_xla_gpu_default_precision_allows_tf32(false);
  return options;
}

absl::StatusOr<std::unique_ptr<gpu::GpuExecutable>> CompilerTest::Compile(
    const std::string& hlo, const DebugOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, Parse(hlo));
  return xla_lite::Compile(std::move(module), executor_,
                           WithFullPrecisionDots(options));
}

absl::StatusOr<std::vector<Literal>> CompileAndRunOn(
    se::StreamExecutor* executor, const std::string& hlo,
    const std::vector<Literal>& arguments, const DebugOptions& options,
    int64_t steps) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, Parse(hlo));
  ComputationLayout layout = module->entry_computation_layout();
  ASSIGN_OR_RETURN(std::unique_ptr<gpu::GpuExecutable> executable,
                   xla_lite::Compile(std::move(module), executor,
                                     WithFullPrecisionDots(options)));
  ASSIGN_OR_RETURN(std::unique_ptr<TrainingLoop> loop,
                   TrainingLoop::Create(executable.get(), layout, executor,
                                        BatchMode::kFixed));
  RETURN_IF_ERROR(loop->SetArguments(arguments));
  RETURN_IF_ERROR(loop->Steps(steps).status());
  return loop->Results();
}

absl::StatusOr<std::vector<Literal>> CompilerTest::CompileAndRun(
    const std::string& hlo, const std::vector<Literal>& arguments,
    const DebugOptions& options, int64_t steps) {
  return CompileAndRunOn(executor_, hlo, arguments, options, steps);
}

std::vector<absl::StatusOr<std::vector<Literal>>>
CompilerTest::CompileAndRunOnThreads(const std::string& hlo,
                                     const std::vector<Literal>& arguments,
                                     const DebugOptions& options, int threads,
                                     int64_t steps) {
  std::vector<absl::StatusOr<std::vector<Literal>>> results(
      threads, absl::UnknownError("not run"));
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      results[t] = CompileAndRun(hlo, arguments, options, steps);
    });
  }
  for (std::thread& worker : workers) worker.join();
  return results;
}

absl::StatusOr<CompilerTest::RandomCase> CompilerTest::MakeRandomCase(
    const std::string& hlo, uint32_t seed) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, Parse(hlo));
  std::mt19937 rng(seed);
  RandomCase random_case;
  random_case.arguments = RandomArguments(*module, rng);
  ASSIGN_OR_RETURN(random_case.expected, Evaluate(hlo, random_case.arguments));
  return random_case;
}

void ExpectEveryThreadMatches(
    const std::vector<absl::StatusOr<std::vector<Literal>>>& results,
    const std::vector<Literal>& expected, double tolerance, double floor) {
  for (int t = 0; t < results.size(); ++t) {
    ASSERT_TRUE(results[t].ok()) << "thread " << t << ": " << results[t].status();
    ASSERT_EQ(results[t]->size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      absl::Status same =
          CompareLiterals((*results[t])[i], expected[i], tolerance, floor);
      EXPECT_TRUE(same.ok()) << "thread " << t << ", result " << i << ": "
                             << same;
    }
  }
}

absl::StatusOr<std::vector<Literal>> CompilerTest::Evaluate(
    const std::string& hlo, const std::vector<Literal>& arguments,
    int64_t steps) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, Parse(hlo));
  std::vector<Literal> current = arguments;
  std::vector<Literal> results;
  for (int64_t s = 0; s < steps; ++s) {
    ASSIGN_OR_RETURN(results, EvaluateModule(*module, current));
    for (const HloInputOutputAlias& alias : module->input_output_aliases()) {
      int64_t output = alias.output_index.empty() ? 0 : alias.output_index[0];
      current[alias.parameter_number] = results[output];
    }
  }
  return results;
}

std::string RunfilePath(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  return srcdir != nullptr && workspace != nullptr
             ? absl::StrCat(srcdir, "/", workspace, "/", path)
             : path;
}

std::vector<std::pair<std::string, std::string>> ModelDirectories() {
  // configs/models/models.txt names the models the compiler runs; other
  // folders there hold exports of operations it does not take yet.
  std::vector<std::pair<std::string, std::string>> models;
  std::ifstream list(RunfilePath("configs/models/models.txt"));
  for (std::string name; std::getline(list, name);) {
    if (name.empty()) continue;
    std::filesystem::path dir = RunfilePath("configs/models/" + name);
    if (std::filesystem::exists(dir / "train_step.hlo")) {
      models.push_back({name, dir.string()});
    }
  }
  std::sort(models.begin(), models.end());
  return models;
}

std::string ConvolutionModule(const std::string& lhs, const std::string& rhs,
                              const std::string& out,
                              const std::string& attributes) {
  return absl::StrCat("HloModule convolution\nENTRY main {\n  x = f32[", lhs,
                      "] parameter(0)\n  k = f32[", rhs,
                      "] parameter(1)\n  ROOT r = f32[", out,
                      "] convolution(x, k), ", attributes, "\n}\n");
}

std::string ReadRunfile(const std::string& path) {
  std::string full = RunfilePath(path);
  std::ifstream file(full, std::ios::binary);
  EXPECT_TRUE(file.good()) << "cannot read " << full;
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

void CompilerTest::ExpectMatchesEvaluator(const std::string& hlo, double lo,
                                          double hi,
                                          const DebugOptions& options,
                                          int64_t steps) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = Parse(hlo);
  ASSERT_TRUE(module.ok()) << module.status();
  std::mt19937 rng(1234);
  std::vector<Literal> arguments = RandomArguments(**module, rng, lo, hi);
  absl::StatusOr<std::vector<Literal>> expected =
      Evaluate(hlo, arguments, steps);
  ASSERT_TRUE(expected.ok()) << expected.status();
  absl::StatusOr<std::vector<Literal>> actual =
      CompileAndRun(hlo, arguments, options, steps);
  ASSERT_TRUE(actual.ok()) << actual.status() << "\n" << hlo;
  ASSERT_EQ(actual->size(), expected->size());
  for (int64_t i = 0; i < actual->size(); ++i) {
    absl::Status same = CompareLiterals((*actual)[i], (*expected)[i]);
    EXPECT_TRUE(same.ok()) << "result " << i << ": " << same << "\n" << hlo;
  }
}

}  // namespace xla_lite::testing
