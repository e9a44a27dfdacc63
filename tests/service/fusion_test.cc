// Fusion decisions seen through the compiled thunks: how many kernels and
// gemms a module becomes, and that the fused result is still right.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/hlo/hlo_test_util.h"
#include "tests/service/compiler_test_base.h"
#include "xla_lite/debug_options_flags.h"
#include "xla_lite/hlo/hlo_module.h"
#include "xla_lite/runtime/gpu_executable.h"
#include "xla_lite/runtime/kernel_thunk.h"

namespace xla_lite::testing {
namespace {

using gpu::Thunk;

int64_t Kernels(const gpu::GpuExecutable& executable) {
  return CountThunks(executable, Thunk::Kind::kKernel);
}
int64_t Gemms(const gpu::GpuExecutable& executable) {
  return CountThunks(executable, Thunk::Kind::kGemm);
}

// The runtime's default: small gemms are emitted kernels, which take
// epilogues.
DebugOptions EmittedGemmOptions() {
  DebugOptions options = OpByOpOptions();
  options.set_xla_gpu_emitted_gemm_max_size(
      DefaultDebugOptions().xla_gpu_emitted_gemm_max_size());
  return options;
}

// The executable's first thunk as a kernel (null if it is not one).
const gpu::KernelThunk* FirstKernel(const gpu::GpuExecutable& executable) {
  return dynamic_cast<const gpu::KernelThunk*>(FlatThunks(executable)[0]);
}

class FusionTest : public CompilerTest {
 protected:
  // Compiles `hlo` op by op and checks its results against the evaluator.
  std::unique_ptr<gpu::GpuExecutable> CompileChecked(const std::string& hlo) {
    ExpectMatchesEvaluator(hlo);
    auto executable = Compile(hlo);
    EXPECT_TRUE(executable.ok()) << executable.status();
    return executable.ok() ? std::move(*executable) : nullptr;
  }

  // Kernels of `hlo` compiled with emitted gemms (-1 if it does not
  // compile), after checking its results on arguments in [0, 1).
  int64_t EmittedKernelsOf(const std::string& hlo) {
    ExpectMatchesEvaluator(hlo, 0, 1, EmittedGemmOptions());
    auto executable = Compile(hlo, EmittedGemmOptions());
    EXPECT_TRUE(executable.ok()) << executable.status();
    return executable.ok() ? Kernels(**executable) : -1;
  }
};

TEST_P(FusionTest, ElementwiseChainWithBroadcastsIsOneKernel) {
  auto executable = CompileChecked(R"(
HloModule chain

ENTRY main {
  x = f32[16,32] parameter(0)
  y = f32[16,32] parameter(1)
  b = f32[32] parameter(2)
  c = f32[] constant(2)
  cb = f32[16,32] broadcast(c), dimensions={}
  bb = f32[16,32] broadcast(b), dimensions={1}
  m = f32[16,32] multiply(x, y)
  a = f32[16,32] add(m, bb)
  t = f32[16,32] tanh(a)
  i = s32[16,32] iota(), iota_dimension=0
  f = f32[16,32] convert(i)
  s = f32[16,32] multiply(t, cb)
  ROOT r = f32[16,32] add(s, f)
})");
  ASSERT_NE(executable, nullptr);
  EXPECT_EQ(Kernels(*executable), 1);
  EXPECT_EQ(FlatThunks(*executable).size(), 1);
}

TEST_P(FusionTest, ReductionFusesItsProducers) {
  auto executable = CompileChecked(R"(
HloModule reduce_fused

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}

ENTRY main {
  x = f32[8,100] parameter(0)
  m = f32[8] parameter(1)
  mb = f32[8,100] broadcast(m), dimensions={0}
  d = f32[8,100] subtract(x, mb)
  e = f32[8,100] exponential(d)
  z = f32[] constant(0)
  ROOT r = f32[8] reduce(e, z), dimensions={1}, to_apply=add
})");
  ASSERT_NE(executable, nullptr);
  EXPECT_EQ(Kernels(*executable), 1);
}

TEST_P(FusionTest, ElementwiseConsumerOfAReductionIsItsEpilogue) {
  // The bias update of a training step: b - lr * sum over the batch.
  auto executable = CompileChecked(R"(
HloModule epilogue

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}

ENTRY main {
  g = f32[32,128] parameter(0)
  b = f32[128] parameter(1)
  z = f32[] constant(0)
  s = f32[128] reduce(g, z), dimensions={0}, to_apply=add
  r = f32[1,128] reshape(s)
  s2 = f32[128] reshape(r)
  lr = f32[] constant(0.01)
  lrb = f32[128] broadcast(lr), dimensions={}
  m = f32[128] multiply(s2, lrb)
  ROOT u = f32[128] subtract(b, m)
})");
  ASSERT_NE(executable, nullptr);
  EXPECT_EQ(Kernels(*executable), 1);
}

TEST_P(FusionTest, ReductionReadAtOtherElementsIsNotAnEpilogue) {
  auto executable = CompileChecked(R"(
HloModule no_epilogue

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}

ENTRY main {
  g = f32[16,12] parameter(0)
  z = f32[] constant(0)
  s = f32[12] reduce(g, z), dimensions={0}, to_apply=add
  ROOT r = f32[12] reverse(s), dimensions={0}
})");
  ASSERT_NE(executable, nullptr);
  EXPECT_EQ(Kernels(*executable), 2);
}

TEST_P(FusionTest, OptimizerUpdatesAreOneMultiOutputKernelInPlace) {
  // Adam-style: the new moments are results and feed the parameter update
  // element by element; all three are updated in place.
  constexpr char kAdam[] = R"(
HloModule adam, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {}, may-alias), {2}: (2, {}, may-alias) }

ENTRY main {
  p = f32[24,16] parameter(0)
  m = f32[24,16] parameter(1)
  v = f32[24,16] parameter(2)
  g = f32[24,16] parameter(3)
  b1 = f32[] constant(0.9)
  b1b = f32[24,16] broadcast(b1), dimensions={}
  c1 = f32[] constant(0.1)
  c1b = f32[24,16] broadcast(c1), dimensions={}
  mm = f32[24,16] multiply(m, b1b)
  gm = f32[24,16] multiply(g, c1b)
  m2 = f32[24,16] add(mm, gm)
  gg = f32[24,16] multiply(g, g)
  vv = f32[24,16] multiply(v, b1b)
  ggc = f32[24,16] multiply(gg, c1b)
  v2 = f32[24,16] add(vv, ggc)
  s = f32[24,16] sqrt(v2)
  eps = f32[] constant(0.001)
  epsb = f32[24,16] broadcast(eps), dimensions={}
  d = f32[24,16] add(s, epsb)
  u = f32[24,16] divide(m2, d)
  lr = f32[] constant(0.01)
  lrb = f32[24,16] broadcast(lr), dimensions={}
  step = f32[24,16] multiply(u, lrb)
  p2 = f32[24,16] subtract(p, step)
  ROOT r = (f32[24,16], f32[24,16], f32[24,16]) tuple(p2, m2, v2)
})";
  ExpectMatchesEvaluator(kAdam, 0, 1, OpByOpOptions(), /*steps=*/3);
  auto executable = Compile(kAdam);
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_EQ(Kernels(**executable), 1);
  ASSERT_EQ(FlatThunks(**executable).size(), 1);
  // The three results load the same elements: one thread computes all three.
  const auto* kernel = FirstKernel(**executable);
  ASSERT_NE(kernel, nullptr);
  EXPECT_THAT(kernel->spec().cuda_source,
              ::testing::Not(::testing::HasSubstr("idx_t t")));
}

TEST_P(FusionTest, IndependentResultKernelsOfDifferentSizesMerge) {
  auto executable = CompileChecked(R"(
HloModule updates, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {}, may-alias) }

ENTRY main {
  w = f32[20,30] parameter(0)
  b = f32[30] parameter(1)
  gw = f32[30,20] parameter(2)
  gb = f32[30] parameter(3)
  c = f32[30] parameter(4)
  t = f32[20,30] transpose(gw), dimensions={1,0}
  w2 = f32[20,30] subtract(w, t)
  b2 = f32[30] subtract(b, gb)
  c2 = f32[30] negate(c)
  ROOT r = (f32[20,30], f32[30], f32[30]) tuple(w2, b2, c2)
})");
  ASSERT_NE(executable, nullptr);
  ASSERT_EQ(Kernels(*executable), 1);
  // On a GPU each independent update has blocks of its own: 3 of 256
  // threads for w2's 600 elements, one for b2 and one for c2, rather than
  // the small ones riding on w2's first threads.
  const auto* kernel = FirstKernel(*executable);
  ASSERT_NE(kernel, nullptr);
  const se::LaunchDimensions& dims = kernel->launch_dimensions();
  EXPECT_EQ(dims.blocks.x, 5);
  EXPECT_EQ(dims.threads_per_block.x, 256);
  EXPECT_THAT(
      kernel->spec().cuda_source,
      ::testing::AllOf(
          ::testing::HasSubstr("if (blockIdx.x < 3) {"),
          ::testing::HasSubstr("i < 600; i += (idx_t)3 * blockDim.x"),
          ::testing::HasSubstr("} else if (blockIdx.x < 4) {"),
          ::testing::HasSubstr("} else {"),
          ::testing::HasSubstr("((idx_t)blockIdx.x - 4) * blockDim.x"),
          ::testing::HasSubstr("i < 30; i += (idx_t)1 * blockDim.x")));
}

// Result kernels that no path joins merge as one group; a result that
// reads another at other elements (a transpose) keeps a kernel of its own,
// and the others still merge, in their order.
TEST_P(FusionTest, ResultKernelsMergeAroundOneThatReadsAnother) {
  auto executable = CompileChecked(R"(
HloModule updates

ENTRY main {
  w = f32[20,30] parameter(0)
  b = f32[30] parameter(1)
  c = f32[30] parameter(2)
  d = f32[7] parameter(3)
  w2 = f32[20,30] negate(w)
  b2 = f32[30] exponential(b)
  c2 = f32[30] negate(c)
  d2 = f32[7] abs(d)
  x2 = f32[30,20] transpose(w2), dimensions={1,0}
  ROOT r = (f32[20,30], f32[30], f32[30], f32[7], f32[30,20]) tuple(w2, b2, c2, d2, x2)
})");
  ASSERT_NE(executable, nullptr);
  EXPECT_EQ(Kernels(*executable), 2);
  const auto* kernel = FirstKernel(*executable);
  ASSERT_NE(kernel, nullptr);
  EXPECT_THAT(
      kernel->spec().cuda_source,
      ::testing::AllOf(::testing::HasSubstr("if (blockIdx.x < 3) {"),
                       ::testing::HasSubstr("} else if (blockIdx.x < 4) {"),
                       ::testing::HasSubstr("} else if (blockIdx.x < 5) {"),
                       ::testing::HasSubstr("i < 7; i += (idx_t)1"),
                       ::testing::Not(::testing::HasSubstr("idx_t t"))));
  EXPECT_EQ(kernel->launch_dimensions().blocks.x, 6);
}

// A large loop whose extent is a multiple of four blocks gives each thread
// four elements a pass, a block apart; any other loop one. Both run right,
// with a broadcast operand whose index wraps inside a thread's elements.
TEST_P(FusionTest, LargeLoopsTakeFourElementsAThread) {
  for (const auto& [rows, unrolled] :
       std::vector<std::pair<int, bool>>{{1024, true}, {1025, false}}) {
    SCOPED_TRACE(rows);
    auto executable = CompileChecked(absl::StrFormat(R"(
HloModule gelu_like

ENTRY main {
  x = f32[%d,513] parameter(0)
  b = f32[513] parameter(1)
  bb = f32[%d,513] broadcast(b), dimensions={1}
  s = f32[%d,513] add(x, bb)
  ROOT r = f32[%d,513] tanh(s)
})",
                                                     rows, rows, rows, rows));
    ASSERT_NE(executable, nullptr);
    ASSERT_EQ(Kernels(*executable), 1);
    const auto* kernel = FirstKernel(*executable);
    ASSERT_NE(kernel, nullptr);
    const se::LaunchDimensions& dims = kernel->launch_dimensions();
    const int64_t threads = int64_t{dims.blocks.x} * dims.threads_per_block.x;
    const int64_t elements = int64_t{rows} * 513;
    EXPECT_EQ(kernel->spec().cuda_source.find("i = t + u * blockDim.x") !=
                  std::string::npos,
              unrolled);
    if (unrolled) {
      EXPECT_EQ(threads * 4, elements);
    } else {
      EXPECT_GE(threads, elements);
    }
  }
}

// `t` feeds two reductions; the HLO is the same but for the cost of `t`.
// Rows of 1030 elements are longer than row kernels take, so a
// materialized `t` stays a kernel of its own.
std::string SharedValue(const std::string& t_ops,
                        const std::string& more_parameters = "") {
  return absl::StrFormat(R"(
HloModule shared

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}

ENTRY main {
  x = f32[8,1030] parameter(0)
  y = f32[8,1030] parameter(1)
%s
%s
  z = f32[] constant(0)
  r0 = f32[8] reduce(t, z), dimensions={1}, to_apply=add
  r1 = f32[1030] reduce(t, z), dimensions={0}, to_apply=add
  ROOT r = (f32[8], f32[1030]) tuple(r0, r1)
})",
                         more_parameters, t_ops);
}

TEST_P(FusionTest, CheapValueWithSeveralConsumersIsRecomputed) {
  auto executable = CompileChecked(SharedValue(R"(
  t = f32[8,1030] add(x, y))"));
  ASSERT_NE(executable, nullptr);
  EXPECT_EQ(Kernels(*executable), 2);
}

TEST_P(FusionTest, ExpensiveValueWithSeveralConsumersIsMaterialized) {
  // Five transcendental ops cost more than recomputing is worth.
  auto executable = CompileChecked(SharedValue(R"(
  e0 = f32[8,1030] exponential(x)
  e1 = f32[8,1030] tanh(e0)
  e2 = f32[8,1030] exponential(e1)
  e3 = f32[8,1030] logistic(e2)
  e4 = f32[8,1030] sine(e3)
  t = f32[8,1030] add(e4, y))"));
  ASSERT_NE(executable, nullptr);
  EXPECT_EQ(Kernels(*executable), 3);
}

// A transformer's residual stream: cheap adds, but each streams a buffer of
// its own, which every kernel recomputing the sum would read again.
TEST_P(FusionTest, SumOfManyBuffersWithSeveralConsumersIsMaterialized) {
  auto executable = CompileChecked(SharedValue(R"(
  s0 = f32[8,1030] add(x, y)
  s1 = f32[8,1030] add(s0, a)
  s2 = f32[8,1030] add(s1, b)
  t = f32[8,1030] add(s2, c))",
                                               R"(
  a = f32[8,1030] parameter(2)
  b = f32[8,1030] parameter(3)
  c = f32[8,1030] parameter(4))"));
  ASSERT_NE(executable, nullptr);
  EXPECT_EQ(Kernels(*executable), 3);
}

// Broadcast operands are read from cache, not streamed: as many adds of
// biases stay recomputed.
TEST_P(FusionTest, SumOfBroadcastsWithSeveralConsumersIsRecomputed) {
  auto executable = CompileChecked(SharedValue(R"(
  ba = f32[8,1030] broadcast(a), dimensions={1}
  bb = f32[8,1030] broadcast(b), dimensions={1}
  bc = f32[8,1030] broadcast(c), dimensions={0}
  s0 = f32[8,1030] add(x, y)
  s1 = f32[8,1030] add(s0, ba)
  s2 = f32[8,1030] add(s1, bb)
  t = f32[8,1030] add(s2, bc))",
                                               R"(
  a = f32[1030] parameter(2)
  b = f32[1030] parameter(3)
  c = f32[8] parameter(4))"));
  ASSERT_NE(executable, nullptr);
  EXPECT_EQ(Kernels(*executable), 2);
}

// Scalars stream nothing: a sum of five scalar parameters (an optimizer's
// bias corrections, say) broadcast into a shared value stays recomputed.
TEST_P(FusionTest, ScalarSumsInASharedValueAreRecomputed) {
  auto executable = CompileChecked(SharedValue(R"(
  s0 = f32[] add(a, b)
  s1 = f32[] add(s0, c)
  s2 = f32[] add(s1, d)
  s3 = f32[] add(s2, e)
  bs = f32[8,1030] broadcast(s3), dimensions={}
  t = f32[8,1030] add(x, bs))",
                                               R"(
  a = f32[] parameter(2)
  b = f32[] parameter(3)
  c = f32[] parameter(4)
  d = f32[] parameter(5)
  e = f32[] parameter(6))"));
  ASSERT_NE(executable, nullptr);
  EXPECT_EQ(Kernels(*executable), 2);
}

TEST_P(FusionTest, GemmOperandTransposesAreFlagsNotKernels) {
  auto executable = CompileChecked(R"(
HloModule dot_transposed

ENTRY main {
  x = f32[7,5] parameter(0)
  w = f32[3,7] parameter(1)
  xt = f32[5,7] transpose(x), dimensions={1,0}
  wt = f32[7,3] transpose(w), dimensions={1,0}
  ROOT d = f32[5,3] dot(xt, wt), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  ASSERT_NE(executable, nullptr);
  EXPECT_EQ(Gemms(*executable), 1);
  EXPECT_EQ(Kernels(*executable), 0);
}

TEST_P(FusionTest, ComputedGemmOperandsGetOneKernelEach) {
  auto executable = CompileChecked(R"(
HloModule dot_computed

ENTRY main {
  x = f32[5,7] parameter(0)
  w = f32[7,3] parameter(1)
  e = f32[5,7] exponential(x)
  d = f32[5,3] dot(e, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = f32[5,3] negate(d)
})");
  ASSERT_NE(executable, nullptr);
  EXPECT_EQ(Gemms(*executable), 1);
  EXPECT_EQ(Kernels(*executable), 2);
}

int64_t Copies(const gpu::GpuExecutable& executable) {
  return CountThunks(executable, Thunk::Kind::kMemcpy);
}

// An SGD step on a weight: `update` is the HLO between the gradient dot
// `d` and the new weight `w2`, which is donated back into `w`.
std::string WeightUpdate(const std::string& update) {
  return absl::StrFormat(R"(
HloModule sgd, input_output_alias={ {0}: (0, {}, may-alias) }

ENTRY main {
  w = f32[6,5] parameter(0)
  x = f32[9,6] parameter(1)
  g = f32[9,5] parameter(2)
  lr = f32[] constant(0.25)
%s
  ROOT r = (f32[6,5]) tuple(w2)
})",
                         update);
}

TEST_P(FusionTest, WeightUpdateIsOneGemmAccumulatingInPlace) {
  const std::string updates[] = {
      // w - lr * x^T g.
      R"(
  d = f32[6,5] dot(x, g), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  lrb = f32[6,5] broadcast(lr), dimensions={}
  s = f32[6,5] multiply(d, lrb)
  w2 = f32[6,5] subtract(w, s))",
      // JAX's layout for a weight gradient, (g^T x)^T, with the scale on
      // the left: the transpose folds into the dot, whose operands swap.
      R"(
  d = f32[5,6] dot(g, x), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  t = f32[6,5] transpose(d), dimensions={1,0}
  lrb = f32[6,5] broadcast(lr), dimensions={}
  s = f32[6,5] multiply(lrb, t)
  w2 = f32[6,5] add(s, w))"};
  for (const std::string& update : updates) {
    std::string hlo = WeightUpdate(update);
    SCOPED_TRACE(hlo);
    ExpectMatchesEvaluator(hlo, -1, 1, OpByOpOptions(), /*steps=*/3);
    auto executable = Compile(hlo);
    ASSERT_TRUE(executable.ok()) << executable.status();
    // No kernel applies the gradient, nothing is copied.
    EXPECT_EQ(Gemms(**executable), 1);
    EXPECT_EQ(Kernels(**executable), 0);
    EXPECT_EQ(Copies(**executable), 0);
  }
}

TEST_P(FusionTest, AccumulationIntoAnotherBufferCopiesTheAddendFirst) {
  // Not donated: `w` must keep its value, so the gemm accumulates into a
  // copy of it.
  constexpr char kHlo[] = R"(
HloModule accumulate_copy

ENTRY main {
  w = f32[6,5] parameter(0)
  x = f32[9,6] parameter(1)
  g = f32[9,5] parameter(2)
  d = f32[6,5] dot(x, g), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  w2 = f32[6,5] subtract(w, d)
  n = f32[6,5] negate(w)
  ROOT r = (f32[6,5], f32[6,5]) tuple(w2, n)
})";
  ExpectMatchesEvaluator(kHlo);
  auto executable = Compile(kHlo);
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_EQ(Gemms(**executable), 1);
  EXPECT_EQ(Copies(**executable), 1);
  EXPECT_EQ(Kernels(**executable), 1);  // n.
}

TEST_P(FusionTest, DotWithAnotherUserIsStoredAndUpdatedByAKernel) {
  std::string hlo = R"(
HloModule dot_shared, input_output_alias={ {0}: (0, {}, may-alias) }

ENTRY main {
  w = f32[6,5] parameter(0)
  x = f32[9,6] parameter(1)
  g = f32[9,5] parameter(2)
  d = f32[6,5] dot(x, g), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  w2 = f32[6,5] subtract(w, d)
  ROOT r = (f32[6,5], f32[6,5]) tuple(w2, d)
})";
  ExpectMatchesEvaluator(hlo);
  auto executable = Compile(hlo);
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_EQ(Gemms(**executable), 1);
  EXPECT_EQ(Kernels(**executable), 1);
}

// A dense layer whose product `d` is read as `uses` say; x, w and b are
// parameters. Arguments are drawn from [0, 1) so that no result is the
// small difference of large sums.
std::string DenseLayer(const std::string& uses) {
  return absl::StrFormat(R"(
HloModule dense
%s
ENTRY main {
  x = f32[24,40] parameter(0)
  w = f32[40,33] parameter(1)
  b = f32[33] parameter(2)
  d = f32[24,33] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[24,33] broadcast(b), dimensions={1}
  z = f32[] constant(0)
  zb = f32[24,33] broadcast(z), dimensions={}
  half = f32[] constant(0.5)
  halfb = f32[24,33] broadcast(half), dimensions={}
%s
})",
                         kMaxComputation, uses);
}

TEST_P(FusionTest, BiasAndMaskAreTheEmittedGemmsEpilogue) {
  std::string hlo = DenseLayer(R"(
  s = f32[24,33] add(d, bb)
  mask = pred[24,33] compare(bb, halfb), direction=GT
  ROOT r = f32[24,33] select(mask, s, zb))");
  EXPECT_EQ(EmittedKernelsOf(hlo), 1);
  auto executable = Compile(hlo, EmittedGemmOptions());
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_EQ(FlatThunks(**executable).size(), 1);
}

TEST_P(FusionTest, ProductReadElsewhereIsStoredByTheFusedGemm) {
  // d is a result of its own and feeds the epilogue.
  std::string hlo = DenseLayer(R"(
  s = f32[24,33] add(d, bb)
  ROOT r = (f32[24,33], f32[24,33]) tuple(s, d))");
  EXPECT_EQ(EmittedKernelsOf(hlo), 1);
}

TEST_P(FusionTest, ProductReadAtOtherElementsIsNoEpilogue) {
  // Element (i, j) of s needs d at (i, 32 - j): another thread's product.
  std::string hlo = DenseLayer(R"(
  v = f32[24,33] reverse(d), dimensions={1}
  ROOT s = f32[24,33] add(v, bb))");
  EXPECT_EQ(EmittedKernelsOf(hlo), 2);
}

TEST_P(FusionTest, EpilogueThatWaitsOnAReductionOfTheProductStaysApart) {
  // Softmax-like: e needs the row maximum of d, which needs all of d. The
  // reduction and e become one row kernel after the gemm.
  std::string hlo = DenseLayer(R"(
  ninf = f32[] constant(-inf)
  m = f32[24] reduce(d, ninf), dimensions={1}, to_apply=max
  mb = f32[24,33] broadcast(m), dimensions={0}
  ROOT e = f32[24,33] divide(d, mb))");
  EXPECT_EQ(EmittedKernelsOf(hlo), 2);
}

TEST_P(FusionTest, BlasGemmsTakeNoEpilogue) {
  std::string hlo = DenseLayer(R"(
  s = f32[24,33] add(d, bb)
  ROOT r = f32[24,33] maximum(s, zb))");
  auto executable = Compile(hlo);
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_EQ(Gemms(**executable), 1);
  EXPECT_EQ(Kernels(**executable), 1);
}

TEST_P(FusionTest, JaxTrainingStepMatchesTheEvaluator) {
  std::string hlo = ReadRunfile("tests/service/testdata/jax_mlp_train_step.hlo");
  ExpectMatchesEvaluator(hlo);
  // With command buffers (the runtime's defaults) and feedback over steps.
  DebugOptions options = DefaultDebugOptions();
  options.set_xla_gpu_emitted_gemm_max_size(0);
  ExpectMatchesEvaluator(hlo, -1, 1, options, /*steps=*/3);
  absl::StatusOr<std::unique_ptr<HloModule>> module = Parse(hlo);
  ASSERT_TRUE(module.ok()) << module.status();
  auto executable = Compile(hlo);
  ASSERT_TRUE(executable.ok()) << executable.status();
  // One gemm per dot. Every kernel produces a reduction, a result or a
  // gemm operand; nothing else is materialized here.
  int64_t dots = CountOpcode(**module, HloOpcode::kDot);
  int64_t reduces = CountOpcode(**module, HloOpcode::kReduce);
  int64_t results =
      (*module)->entry_computation()->root_instruction()->operand_count();
  EXPECT_EQ(Gemms(**executable), dots);
  EXPECT_LE(Kernels(**executable), reduces + results + dots);
  EXPECT_EQ(CountThunks(**executable, Thunk::Kind::kMemcpy), 0);
}

INSTANTIATE_FOR_ALL_PLATFORMS(FusionTest);

}  // namespace
}  // namespace xla_lite::testing
