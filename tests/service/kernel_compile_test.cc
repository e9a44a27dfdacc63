// Every kernel the compiler emits for the JAX models, the sample step and a
// module using every supported op and element type, checked for the
// portability rules of the emitter and compiled by the GPU runtime
// compilers, which run on the host without a device: NVRTC for an H100
// (--config=cuda) and hiprtc for AMD Instinct (--config=rocm).

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "tests/runtime_compiler_test_util.h"
#include "tests/service/compiler_test_base.h"
#include "tests/service/op_cases.h"
#include "xla_lite/debug_options_flags.h"
#include "xla_lite/float16.h"
#include "xla_lite/hlo/hlo_module.h"
#include "xla_lite/hlo/hlo_verifier.h"
#include "xla_lite/runtime/kernel_thunk.h"
#include "xla_lite/service/compiler.h"
#include "xla_lite/service/elemental_ops.h"
#include "xla_lite/service/elemental_scalar_ops.h"
#include "xla_lite/service/gemm/gemm_kernel_source.h"

namespace xla_lite::testing {
namespace {

// Every op and type the emitter handles, in loop and reduce kernels.
constexpr char kEveryOp[] = R"(
HloModule every_op

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}

max_s32 {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT c = s32[] maximum(a, b)
}

and_pred {
  a = pred[] parameter(0)
  b = pred[] parameter(1)
  ROOT c = pred[] and(a, b)
}

mul_bf16 {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT c = bf16[] multiply(a, b)
}

ENTRY main {
  x = f32[8,300] parameter(0)
  y = f32[8,300] parameter(1)
  i = s32[8,300] parameter(2)
  h = bf16[8,300] parameter(3)
  g = f16[8,300] parameter(4)
  u0 = f32[8,300] abs(x)
  u1 = f32[8,300] ceil(u0)
  u2 = f32[8,300] floor(u1)
  u3 = f32[8,300] cosine(u2)
  u4 = f32[8,300] sine(u3)
  u5 = f32[8,300] exponential(u4)
  u6 = f32[8,300] exponential-minus-one(u5)
  u7 = f32[8,300] log(u6)
  u8 = f32[8,300] log-plus-one(u7)
  u9 = f32[8,300] logistic(u8)
  u10 = f32[8,300] negate(u9)
  u11 = f32[8,300] rsqrt(u10)
  u12 = f32[8,300] sign(u11)
  u13 = f32[8,300] sqrt(u12)
  u14 = f32[8,300] tanh(u13)
  b0 = f32[8,300] add(u14, y)
  b1 = f32[8,300] subtract(b0, y)
  b2 = f32[8,300] multiply(b1, y)
  b3 = f32[8,300] divide(b2, y)
  b4 = f32[8,300] maximum(b3, y)
  b5 = f32[8,300] minimum(b4, y)
  b6 = f32[8,300] power(b5, y)
  b7 = f32[8,300] remainder(b6, y)
  c0 = pred[8,300] compare(b7, x), direction=LT
  c1 = pred[8,300] is-finite(b7)
  c2 = pred[8,300] and(c0, c1)
  c3 = pred[8,300] or(c2, c0)
  c4 = pred[8,300] xor(c3, c1)
  c5 = pred[8,300] not(c4)
  s0 = f32[8,300] select(c5, b7, x)
  s1 = f32[8,300] clamp(x, s0, y)
  n0 = s32[8,300] convert(s1)
  n1 = s32[8,300] add(n0, i)
  n2 = s32[8,300] divide(n1, i)
  n3 = s32[8,300] remainder(n2, i)
  n4 = s32[8,300] power(n3, i)
  n5 = s32[8,300] and(n4, i)
  n6 = s32[8,300] not(n5)
  n7 = s32[8,300] negate(n6)
  n8 = s32[8,300] abs(n7)
  n9 = s32[8,300] sign(n8)
  io = s32[8,300] iota(), iota_dimension=1
  n10 = s32[8,300] multiply(n9, io)
  f0 = f32[8,300] convert(n10)
  hf = f32[8,300] convert(h)
  gf = f32[8,300] convert(g)
  f1 = f32[8,300] add(f0, hf)
  f2 = f32[8,300] add(f1, gf)
  hb = bf16[8,300] convert(f2)
  hg = f16[8,300] convert(f2)
  ht = bf16[8,300] tanh(hb)
  rv = f32[8,300] reverse(f2), dimensions={1}
  sl = f32[4,100] slice(rv), slice={[1:8:2], [0:300:3]}
  t = f32[300,8] transpose(f2), dimensions={1,0}
  z = f32[] constant(0)
  rsum = f32[8] reduce(t, z), dimensions={0}, to_apply=add
  rrow = f32[8] reduce(f2, z), dimensions={1}, to_apply=add
  mn = s32[] constant(-2147483648)
  rmax = s32[300] reduce(n10, mn), dimensions={0}, to_apply=max_s32
  tr = pred[] constant(true)
  rall = pred[8] reduce(c5, tr), dimensions={1}, to_apply=and_pred
  one = bf16[] constant(1)
  rprod = bf16[8] reduce(ht, one), dimensions={1}, to_apply=mul_bf16
  ROOT out = (f32[8], f32[8], s32[300], pred[8], bf16[8], f32[4,100], f16[8,300]) tuple(rsum, rrow, rmax, rall, rprod, sl, hg)
})";

// The window kernels' forms: padding, strides, both dilations, reversal,
// the gradient dim_labels, both group counts, pooling and its gradient;
// the tiled convolution (8 features) with those windows, and split-K.
constexpr char kWindowedEntry[] = R"(
ENTRY main {
  x = f32[2,8,8,4] parameter(0)
  k = f32[3,3,4,4] parameter(1)
  dy = f32[2,4,4,4] parameter(2)
  k8 = f32[3,3,4,8] parameter(3)
  xs = f32[16,8,8,4] parameter(4)
  dys = f32[16,8,8,8] parameter(5)
  tiled = f32[2,4,2,8] convolution(x, k8), window={size=3x3 stride=2x2
      pad=1_1x0_-1 lhs_dilate=1x1 rhs_dilate=1x2 rhs_reversal=1x0},
      dim_labels=b01f_01io->b01f
  tiled_up = f32[2,17,17,8] convolution(x, k8), window={size=3x3
      pad=2_2x2_2 lhs_dilate=2x2}, dim_labels=b01f_01io->b01f
  split = f32[3,3,4,8] convolution(xs, dys), window={size=8x8
      pad=1_1x1_1}, dim_labels=f01b_i01o->01bf
  fwd = f32[2,8,8,4] convolution(x, k), window={size=3x3 pad=1_1x1_1},
      dim_labels=b01f_01io->b01f
  dil = f32[2,4,2,4] convolution(x, k), window={size=3x3 stride=2x2
      pad=1_1x0_-1 lhs_dilate=1x1 rhs_dilate=1x2 rhs_reversal=1x0},
      dim_labels=b01f_01io->b01f
  dx = f32[2,8,8,4] convolution(fwd, k), window={size=3x3 pad=1_1x1_1},
      dim_labels=b01f_01oi->b01f
  dk = f32[3,3,4,4] convolution(x, fwd), window={size=8x8 pad=1_1x1_1},
      dim_labels=f01b_i01o->01bf
  kd = f32[3,3,1,4] slice(k), slice={[0:3], [0:3], [0:1], [0:4]}
  dw = f32[2,8,8,4] convolution(x, kd), window={size=3x3 pad=1_1x1_1},
      dim_labels=b01f_01io->b01f, feature_group_count=4
  dkd = f32[3,3,1,4] convolution(x, fwd), window={size=8x8 pad=1_1x1_1},
      dim_labels=f01b_i01o->01bf, batch_group_count=4
  up = f32[2,17,17,4] convolution(x, k), window={size=3x3 pad=2_2x2_2
      lhs_dilate=2x2}, dim_labels=b01f_01io->b01f
  lowest = f32[] constant(-inf)
  zero = f32[] constant(0)
  pool = f32[2,4,4,4] reduce-window(fwd, lowest),
      window={size=1x2x2x1 stride=1x2x2x1}, to_apply=max
  avg = f32[2,5,5,4] reduce-window(fwd, zero),
      window={size=1x2x2x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, to_apply=add
  grad = f32[2,8,8,4] select-and-scatter(fwd, dy, zero),
      window={size=1x2x2x1 stride=1x2x2x1}, select=ge, scatter=add
  ROOT out = (f32[2,4,2,4], f32[2,8,8,4], f32[3,3,4,4], f32[2,8,8,4],
      f32[3,3,1,4], f32[2,17,17,4], f32[2,4,4,4], f32[2,5,5,4],
      f32[2,8,8,4], f32[2,4,2,8], f32[2,17,17,8], f32[3,3,4,8])
      tuple(dil, dx, dk, dw, dkd, up, pool, avg, grad, tiled, tiled_up,
      split)
})";

std::string WindowedOps() {
  return absl::StrCat("HloModule windowed\n", kAddComputation,
                      kMaxComputation, kGeComputation, kWindowedEntry);
}

// Every case of the op table that a kernel computes, in one module: what
// the table says the back ends implement, they compile.
std::string EveryTableKernelCase() {
  std::vector<OpCase> kernel_cases;
  for (const OpCase& c : AllOpCases()) {
    if (!c.supported || c.row->fusion == gpu::FusionKind::kNotFusible) {
      continue;
    }
    auto module = Parse(ModuleFor(c));
    if (module.ok() && VerifyHloModule(**module).ok()) {
      kernel_cases.push_back(c);
    }
  }
  EXPECT_GT(kernel_cases.size(), 150);
  return ModuleForAll(kernel_cases);
}

std::vector<std::string> Modules() {
  std::vector<std::string> modules = {
      kEveryOp, EveryTableKernelCase(), WindowedOps(),
      ReadRunfile("tests/service/testdata/jax_mlp_train_step.hlo")};
  for (const auto& [name, dir] : ModelDirectories()) {
    modules.push_back(ReadRunfile(dir + "/train_step.hlo"));
  }
  return modules;
}

// Every kernel the compiler emits for `modules`.
std::vector<se::KernelSpec> EmittedKernels() {
  // Gemms through BLAS, then as emitted kernels with their epilogues.
  DebugOptions emitted_gemms = OpByOpOptions();
  emitted_gemms.set_xla_gpu_emitted_gemm_max_size(
      DefaultDebugOptions().xla_gpu_emitted_gemm_max_size());
  std::vector<se::KernelSpec> specs;
  for (const DebugOptions& options : {OpByOpOptions(), emitted_gemms}) {
    for (const std::string& hlo : Modules()) {
      auto module = Parse(hlo);
      EXPECT_TRUE(module.ok()) << module.status();
      if (!module.ok()) continue;
      std::string name = (*module)->name();
      auto executable = Compile(std::move(*module), nullptr, options);
      EXPECT_TRUE(executable.ok()) << name << ": " << executable.status();
      if (!executable.ok()) continue;
      for (const gpu::Thunk* thunk : FlatThunks(**executable)) {
        if (thunk->kind() == gpu::Thunk::Kind::kKernel) {
          specs.push_back(static_cast<const gpu::KernelThunk*>(thunk)->spec());
        }
      }
    }
  }
  return specs;
}

TEST(KernelCompileTest, ProgrammaticLaunchFollowsDebugOptions) {
  for (bool enabled : {true, false}) {
    DebugOptions options = DefaultDebugOptions();
    options.set_xla_gpu_enable_programmatic_launch(enabled);
    options.clear_xla_gpu_enable_command_buffer();
    auto module =
        Parse(ReadRunfile("tests/service/testdata/jax_mlp_train_step.hlo"));
    ASSERT_TRUE(module.ok()) << module.status();
    auto executable = Compile(std::move(*module), nullptr, options);
    ASSERT_TRUE(executable.ok()) << executable.status();
    int64_t kernels = 0;
    for (const gpu::Thunk* thunk : FlatThunks(**executable)) {
      if (thunk->kind() != gpu::Thunk::Kind::kKernel) continue;
      ++kernels;
      EXPECT_EQ(static_cast<const gpu::KernelThunk*>(thunk)
                    ->spec()
                    .waits_for_producers,
                enabled);
    }
    EXPECT_GT(kernels, 3);
  }
}

TEST(KernelCompileTest, SourcesFollowThePortabilityRules) {
  std::vector<se::KernelSpec> specs = EmittedKernels();
  EXPECT_GT(specs.size(), 20);
  for (const se::KernelSpec& spec : specs) {
    SCOPED_TRACE(spec.name);
    EXPECT_TRUE(absl::StrContains(spec.cuda_source,
                                  "extern \"C\" __global__ void "));
    EXPECT_TRUE(absl::StrContains(spec.cuda_source, spec.name + "("));
    EXPECT_TRUE(spec.host_fn != nullptr);
    // Inline assembly only in the sm_90+ programmatic-launch macro.
    EXPECT_TRUE(spec.waits_for_producers);
    std::string source = spec.cuda_source;
    EXPECT_TRUE(absl::StrContains(source, "XL_AWAIT_PRODUCERS();"));
    EXPECT_EQ(absl::StrReplaceAll(source, {{gpu::kAwaitProducersSource, ""}})
                  .size(),
              source.size() - std::strlen(gpu::kAwaitProducersSource))
        << "the macro block appears once, unchanged";
    // No early trigger: dependents launch as this kernel's blocks exit.
    // Launched at its start, their waiting blocks held resources that
    // concurrent gemms needed (docs/benchmarks.md).
    EXPECT_FALSE(absl::StrContains(source, "launch_dependents"));
    source = absl::StrReplaceAll(source, {{gpu::kAwaitProducersSource, ""}});
    // The shared helpers, verbatim: the host compiled the same text.
    EXPECT_TRUE(absl::StrContains(source, kFloat16DeviceSource));
    // Gemm and window kernels compute in f32 with their own code; the
    // others call the scalar functions.
    if (!absl::StartsWith(source, "// Emitted gemm") &&
        !absl::StartsWith(source, "// Emitted convolution") &&
        !absl::StartsWith(source, "// Emitted reduce-window") &&
        !absl::StartsWith(source, "// Emitted select-and-scatter")) {
      EXPECT_TRUE(
          absl::StrContains(source, gpu::kElementalScalarOpsDeviceSource));
    }
    for (const char* banned : {"asm(", "asm volatile", "__expf", "__logf",
                               "__powf", "__fdividef", "__sinf", "__cosf",
                               "__tanhf", "#include"}) {
      EXPECT_FALSE(absl::StrContains(source, banned))
          << banned << " in\n" << spec.cuda_source;
    }
  }
}

// Reductions whose folding threads fill whole warps (a block per output,
// grouped rows, row kernels) finish through warp shuffles; a column
// reduction's folding threads lie in different warps, and halve in shared
// memory only. The shuffles pair lanes as the shared-memory halving does,
// so the results are the reduce tests' either way.
TEST(KernelCompileTest, WarpAlignedReductionsFinishThroughShuffles) {
  auto module = Parse(R"(HloModule rows_and_columns
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[64,256] parameter(0)
  z = f32[] constant(0)
  rows = f32[64] reduce(p, z), dimensions={1}, to_apply=add
  cols = f32[256] reduce(p, z), dimensions={0}, to_apply=add
  ROOT t = (f32[64], f32[256]) tuple(rows, cols)
})");
  ASSERT_TRUE(module.ok()) << module.status();
  auto executable = Compile(std::move(*module), nullptr, OpByOpOptions());
  ASSERT_TRUE(executable.ok()) << executable.status();
  int rows = 0, columns = 0;
  for (const gpu::Thunk* thunk : FlatThunks(**executable)) {
    if (thunk->kind() != gpu::Thunk::Kind::kKernel) continue;
    const se::KernelSpec& spec =
        static_cast<const gpu::KernelThunk*>(thunk)->spec();
    SCOPED_TRACE(spec.name);
    const bool shuffles =
        absl::StrContains(spec.cuda_source, "xl_shfl_xor(acc, ") ||
        absl::StrContains(spec.cuda_source, "xl_shfl_xor(lane_acc, ");
    if (absl::StrContains(spec.name, "rows")) {
      ++rows;
      EXPECT_TRUE(shuffles) << spec.cuda_source;
    } else if (absl::StrContains(spec.name, "cols")) {
      ++columns;
      EXPECT_FALSE(shuffles) << spec.cuda_source;
    }
  }
  EXPECT_EQ(rows, 1);
  EXPECT_EQ(columns, 1);
}

// One kernel of each distinct source, its name aside: the models repeat
// the same fused kernels under other names (each layer's LayerNorm, each
// parameter's Adam update), and a runtime compiler takes about a second a
// kernel, so compiling each body once keeps the test in CI's budget.
std::vector<se::KernelSpec> DistinctKernels() {
  std::vector<se::KernelSpec> distinct;
  absl::flat_hash_set<std::string> bodies;
  for (se::KernelSpec& spec : EmittedKernels()) {
    if (bodies.insert(absl::StrReplaceAll(spec.cuda_source,
                                          {{spec.name, "KERNEL"}}))
            .second) {
      distinct.push_back(std::move(spec));
    }
  }
  return distinct;
}

TEST(KernelCompileTest, NvrtcCompilesEveryKernelForH100) {
  ExpectNvrtcCompiles(DistinctKernels());
}

TEST(KernelCompileTest, HiprtcCompilesEveryKernel) {
  ExpectHiprtcCompiles(DistinctKernels());
}

}  // namespace
}  // namespace xla_lite::testing
