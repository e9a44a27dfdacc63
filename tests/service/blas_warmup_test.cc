// The BLAS warm-up Compile starts on its library thread: the gemm kinds and
// shapes it reads from the plan are exactly those of the library gemms the
// compiler emits (emitted gemms, which need no library, left out), and the
// warm-up runs on every platform, traces every shape without running it and
// leaves no memory behind.

#include "xla_lite/service/blas_warmup.h"

#include <future>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/service/compiler_test_base.h"
#include "xla_lite/debug_options_flags.h"
#include "xla_lite/runtime/command_buffer_thunk.h"
#include "xla_lite/runtime/conditional_thunk.h"
#include "xla_lite/runtime/gemm_thunk.h"
#include "xla_lite/runtime/while_thunk.h"
#include "xla_lite/service/compiler.h"
#include "xla_lite/service/execution_plan.h"

namespace xla_lite::testing {
namespace {

// JAX's mixed-precision matmul gradient: bf16 values widened to f32.
constexpr char kWidenedBf16Dot[] = R"(
HloModule widened

ENTRY main {
  a = bf16[64,32] parameter(0)
  b = bf16[32,48] parameter(1)
  wa = f32[64,32] convert(a)
  wb = f32[32,48] convert(b)
  ROOT d = f32[64,48] dot(wa, wb), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";

constexpr char kDotInLoop[] = R"(
HloModule loop

cond {
  s = (s32[], f32[8,8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], f32[8,8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[8,8] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = f32[8,8] dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={highest,highest}
  ROOT t = (s32[], f32[8,8]) tuple(j, y)
}

ENTRY main {
  x = f32[8,8] parameter(0)
  zero = s32[] constant(0)
  s = (s32[], f32[8,8]) tuple(zero, x)
  w = (s32[], f32[8,8]) while(s), condition=cond, body=body
  ROOT r = f32[8,8] get-tuple-element(w), index=1
})";

// The library gemms read from the plan of `hlo` compiled with `options`.
LibraryGemms PlannedGemms(const std::string& hlo, const DebugOptions& options) {
  auto module = Parse(hlo);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return {};
  EXPECT_TRUE(RunHloPasses(module->get()).ok());
  auto plan = gpu::BuildExecutionPlan(
      **module, KernelEmissionFor(options, /*blas=*/true, /*dnn=*/true));
  EXPECT_TRUE(plan.ok()) << plan.status();
  if (!plan.ok()) return {};
  return LibraryGemmsOf(*plan, KernelEmissionFor(options, true, true).gemm,
                        options.xla_gpu_allow_tf32());
}

GemmKinds PlannedKinds(const std::string& hlo, const DebugOptions& options) {
  return PlannedGemms(hlo, options).kinds;
}

constexpr char kHighest[] = ", operand_precision={highest,highest}";

// The kinds of `hlo` as ToString writes them.
std::string Kinds(const std::string& hlo, const DebugOptions& options) {
  return PlannedKinds(hlo, options).ToString();
}

TEST(LibraryGemmKindsTest, ReadsTypesAndPrecisionOfEveryLibraryGemm) {
  DebugOptions options = OpByOpOptions();  // Every dot a library gemm.
  EXPECT_EQ(Kinds(DotModule("f32", kHighest), options), "f32");
  EXPECT_EQ(Kinds(DotModule("f32", ""), options), "tf32");
  EXPECT_EQ(Kinds(DotModule("bf16", ""), options), "bf16->f32");
  // JAX's mixed-precision gradient becomes a gemm of the bf16 values.
  EXPECT_EQ(Kinds(kWidenedBf16Dot, options), "bf16->f32");
  EXPECT_EQ(Kinds(kDotInLoop, options), "f32");
  options.set_xla_gpu_default_precision_allows_tf32(false);
  EXPECT_EQ(Kinds(DotModule("f32", ""), options), "f32");
  options.set_xla_gpu_allow_tf32(true);
  EXPECT_EQ(Kinds(DotModule("f32", kHighest), options), "tf32");
  // Small products are the compiler's own kernels: nothing to warm up.
  EXPECT_FALSE(PlannedKinds(DotModule("f32", ""), DefaultDebugOptions()).any());
}

// Attention's scores at the highest precision, the medium transformer's
// 16 x 4 heads of 128x128 by 64 (batch dimensions that do not merge): the
// compiler's own kernel on FP64 tensor cores on a device of compute
// capability 9.0, on FMA units elsewhere or with
// xla_gpu_f32_gemm_on_fp64_tensor_cores off; never a library gemm. Its
// projections stay library gemms on every device.
TEST(LibraryGemmKindsTest, F64TensorCoresTakeOnlyTheEmittedGemms) {
  constexpr char kAttention[] = R"(
HloModule attention

ENTRY main {
  q = f32[16,128,4,64] parameter(0)
  k = f32[16,128,4,64] parameter(1)
  w = f32[256,256] parameter(2)
  x = f32[2048,256] reshape(q)
  p = f32[2048,256] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={highest,highest}
  s = f32[16,4,128,128] dot(q, k), lhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={3}, operand_precision={highest,highest}
  ROOT t = (f32[2048,256], f32[16,4,128,128]) tuple(p, s)
})";
  auto plan_for = [&](const DebugOptions& options, int compute_major,
                      int& f64_gemms) {
    se::DeviceDescription device;
    device.compute_major = compute_major;
    const gpu::KernelEmission emission =
        KernelEmissionFor(options, /*blas=*/true, /*dnn=*/true, 0, &device);
    EXPECT_EQ(
        emission.f64_tensor_cores,
        compute_major == 9 && options.xla_gpu_f32_gemm_on_fp64_tensor_cores());
    auto module = Parse(kAttention);
    EXPECT_TRUE(module.ok()) << module.status();
    if (!module.ok()) return std::string();
    EXPECT_TRUE(RunHloPasses(module->get()).ok());
    auto plan = gpu::BuildExecutionPlan(**module, emission);
    EXPECT_TRUE(plan.ok()) << plan.status();
    if (!plan.ok()) return std::string();
    f64_gemms = 0;
    for (const gpu::PlannedOp& op : plan->ops) {
      if (op.kind == gpu::PlannedOp::Kind::kGemm && op.gemm.f64_tensor_cores) {
        ++f64_gemms;
      }
    }
    return LibraryGemmsOf(*plan, emission.gemm, false).kinds.ToString();
  };
  DebugOptions options = DefaultDebugOptions();
  int f64_gemms = -1;
  EXPECT_EQ(plan_for(options, 9, f64_gemms), "f32");
  EXPECT_EQ(f64_gemms, 1);
  EXPECT_EQ(plan_for(options, 8, f64_gemms), "f32");
  EXPECT_EQ(f64_gemms, 0);
  options.set_xla_gpu_f32_gemm_on_fp64_tensor_cores(false);
  EXPECT_EQ(plan_for(options, 9, f64_gemms), "f32");
  EXPECT_EQ(f64_gemms, 0);
}

// The kinds and call shapes of every GemmThunk under `thunk`, control
// flow's included.
void CollectGemms(const gpu::Thunk& thunk, const DebugOptions& options,
                  GemmKinds& kinds, std::set<std::string>& shapes, int& gemms) {
  auto each = [&](const gpu::SequentialThunk& sequence) {
    for (const auto& inner : sequence.thunks()) {
      CollectGemms(*inner, options, kinds, shapes, gemms);
    }
  };
  switch (thunk.kind()) {
    case gpu::Thunk::Kind::kGemm: {
      const gpu::GemmConfig& config =
          static_cast<const gpu::GemmThunk&>(thunk).config();
      kinds |= GemmKinds::Of(config, options.xla_gpu_allow_tf32());
      auto address = [](const Shape& shape) {
        return se::DeviceAddressBase(nullptr, shape.ByteSize());
      };
      std::vector<se::blas::GemmCall> calls = config.ToBlasCalls(
          address(config.lhs_shape), address(config.rhs_shape),
          address(config.output_shape));
      if (!calls.empty()) shapes.insert(calls.front().ToString());
      ++gemms;
      break;
    }
    case gpu::Thunk::Kind::kSequential:
      each(static_cast<const gpu::SequentialThunk&>(thunk));
      break;
    case gpu::Thunk::Kind::kCommandBuffer:
      for (const auto& inner :
           static_cast<const gpu::CommandBufferThunk&>(thunk).thunks()) {
        CollectGemms(*inner, options, kinds, shapes, gemms);
      }
      break;
    case gpu::Thunk::Kind::kWhile:
      each(static_cast<const gpu::WhileThunk&>(thunk).condition());
      each(static_cast<const gpu::WhileThunk&>(thunk).body());
      break;
    case gpu::Thunk::Kind::kConditional:
      for (const auto& branch :
           static_cast<const gpu::ConditionalThunk&>(thunk).branches()) {
        each(*branch);
      }
      break;
    default:
      break;
  }
}

class BlasWarmupTest : public CompilerTest {};

// With every dot a library gemm, and with the default rules (small and
// attention-shaped products emitted), the kinds and call shapes read from
// the plan are those of the compiled GemmThunks, each shape once, for the
// JAX models and the cases above.
TEST_P(BlasWarmupTest, KindsAndShapesAreThoseOfTheCompiledLibraryGemms) {
  std::vector<std::pair<std::string, std::string>> modules = {
      {"f32 highest", DotModule("f32", kHighest)},
      {"f32 default", DotModule("f32", "")},
      {"bf16", DotModule("bf16", "")},
      {"widened bf16", kWidenedBf16Dot},
      {"dot in a loop", kDotInLoop}};
  for (const auto& [name, dir] : ModelDirectories()) {
    modules.push_back({name, ReadRunfile(dir + "/train_step.hlo")});
  }
  int gemms = 0, shapes = 0;
  for (const DebugOptions& options : {OpByOpOptions(), DefaultDebugOptions()}) {
    for (const auto& [name, hlo] : modules) {
      const LibraryGemms planned = PlannedGemms(hlo, options);
      auto module = Parse(hlo);
      ASSERT_TRUE(module.ok()) << name << ": " << module.status();
      auto executable =
          xla_lite::Compile(*std::move(module), executor_, options);
      ASSERT_TRUE(executable.ok()) << name << ": " << executable.status();
      GemmKinds compiled;
      std::set<std::string> compiled_shapes;
      CollectGemms((*executable)->thunks(), options, compiled, compiled_shapes,
                   gemms);
      EXPECT_EQ(planned.kinds.ToString(), compiled.ToString()) << name;
      std::set<std::string> planned_shapes;
      for (const se::blas::GemmCall& call : planned.calls) {
        EXPECT_TRUE(planned_shapes.insert(call.ToString()).second)
            << name << ": traced twice: " << call.ToString();
      }
      EXPECT_EQ(planned_shapes, compiled_shapes) << name;
      shapes += planned_shapes.size();
    }
  }
  // The JAX models' matmuls are many of these, of fewer shapes.
  EXPECT_GT(gemms, 20);
  EXPECT_GT(shapes, 10);
  EXPECT_LT(shapes, gemms);
}

// Every kind runs; every shape is traced (the placeholder addresses would
// fault if a trace ran); nothing stays allocated.
TEST_P(BlasWarmupTest, RunsEveryKindTracesEveryShapeAndFreesWhatItAllocated) {
  auto blas = executor_->AsBlas();
  ASSERT_TRUE(blas.ok()) << blas.status();
  const int64_t before = executor_->allocated_bytes();
  LibraryGemms all;
  all.kinds.f32 = all.kinds.tf32 = all.kinds.bf16_f32 = all.kinds.bf16_bf16 =
      true;
  auto traced = WarmUpBlas(executor_, *blas, all);
  ASSERT_TRUE(traced.ok()) << traced.status();
  EXPECT_EQ(*traced, 0);
  EXPECT_EQ(executor_->allocated_bytes(), before);

  // The tiny bf16 transformer's attention and projection gemms, with every
  // dot a library gemm: bf16 products with f32 and bf16 results.
  LibraryGemms model = PlannedGemms(
      ReadRunfile("configs/models/transformer_bf16_tiny/train_step.hlo"),
      OpByOpOptions());
  ASSERT_GT(model.calls.size(), 3);
  traced = WarmUpBlas(executor_, *blas, model);
  ASSERT_TRUE(traced.ok()) << traced.status();
  // Each trace enqueued at least the gemm.
  EXPECT_GE(*traced, static_cast<int64_t>(model.calls.size()));
  EXPECT_EQ(executor_->allocated_bytes(), before);

  auto none = WarmUpBlas(executor_, *blas, LibraryGemms{});
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(*none, 0);
  EXPECT_EQ(executor_->allocated_bytes(), before);
}

// Compiles started on several threads each warm the library up on a
// thread of their own while others run; every result matches the
// evaluator (CI runs this under ThreadSanitizer). Each thread count runs
// with the warm-up off and on, so a failure names the one that breaks.
TEST_P(BlasWarmupTest, CompilesAndRunsOnSeveralThreads) {
  const std::string hlo = DotModule("f32", kHighest);
  auto random_case = MakeRandomCase(hlo, 7);
  ASSERT_TRUE(random_case.ok()) << random_case.status();
  for (int threads : {1, 4}) {
    for (bool warm_up : {false, true}) {
      SCOPED_TRACE(absl::StrCat(threads, " threads, warm-up ",
                                warm_up ? "on" : "off"));
      DebugOptions options = OpByOpOptions();
      options.set_xla_gpu_warm_up_blas(warm_up);
      // Sums of 32 products of values in [-1, 1]: a library's summation
      // order differs from the evaluator's by rounding of the terms' size,
      // which is large beside a sum near zero.
      ExpectEveryThreadMatches(
          CompileAndRunOnThreads(hlo, random_case->arguments, options,
                                 threads),
          random_case->expected, kRelativeTolerance, /*floor=*/1e-2);
    }
  }
}

// The libraries start loading before the module is compiled, as
// CompileHloFile starts them before it parses: Compile's library thread
// waits for that load or finds it done, and the results match the
// evaluator. Without an executor, or with no library wanted, nothing
// starts.
TEST_P(BlasWarmupTest, CompilesWhileTheLibrariesStartedEarlierLoad) {
  const std::string hlo = DotModule("f32", kHighest);
  auto random_case = MakeRandomCase(hlo, 11);
  ASSERT_TRUE(random_case.ok()) << random_case.status();
  DebugOptions options = OpByOpOptions();
  std::future<void> loading = StartLoadingLibraries(executor_, options);
  EXPECT_TRUE(loading.valid());
  std::vector<absl::StatusOr<std::vector<Literal>>> results;
  results.push_back(CompileAndRunOn(executor_, hlo, random_case->arguments,
                                    options, /*steps=*/1));
  loading.get();
  ExpectEveryThreadMatches(results, random_case->expected, kRelativeTolerance,
                           /*floor=*/1e-2);

  EXPECT_FALSE(StartLoadingLibraries(nullptr, options).valid());
  options.set_xla_gpu_use_emitted_gemm(true);
  EXPECT_FALSE(StartLoadingLibraries(executor_, options).valid());
}

INSTANTIATE_FOR_ALL_PLATFORMS(BlasWarmupTest);

}  // namespace
}  // namespace xla_lite::testing
