// Dots with batch dimensions anywhere as batched gemms that read their
// operands in place: attention's forms from the exported transformer
// (forward and backward), 3-d activations times 2-d weights, contracting
// dimensions on either side, transposed operands folded into the gemm, and
// bf16 operands with f32 accumulation; through BLAS, through the emitted
// gemm, and recorded into command buffers; against the HloEvaluator, with
// the number of thunks saying whether any operand was copied.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "tests/service/compiler_test_base.h"
#include "xla_lite/debug_options_flags.h"

namespace xla_lite::testing {
namespace {

struct DotForm {
  const char* name;
  const char* type;  // Of the operands; the result is f32 unless `out_type`.
  const char* lhs;
  const char* rhs;
  const char* out;
  const char* attributes;
  // Thunks of the compiled dot: 1 when the gemm reads both operands where
  // they lie, one more per copied operand.
  int64_t thunks;
  const char* out_type = "f32";
};

std::string DotModule(const DotForm& form) {
  return absl::StrFormat(R"(
HloModule %s

ENTRY main {
  a = %s[%s] parameter(0)
  b = %s[%s] parameter(1)
  ROOT d = %s[%s] dot(a, b), %s
})",
                         form.name, form.type, form.lhs, form.type, form.rhs,
                         form.out_type, form.out, form.attributes);
}

// The dots of configs/models/transformer_*/train_step.hlo, with b = 4
// sequences of s = 16 positions, h = 2 heads of d = 16.
std::vector<DotForm> AttentionForms(const char* type) {
  return {
      // Scores: bqhd,bkhd->bhqk.
      {"scores", type, "4,16,2,16", "4,16,2,16", "4,2,16,16",
       "lhs_batch_dims={0,2}, lhs_contracting_dims={3}, "
       "rhs_batch_dims={0,2}, rhs_contracting_dims={3}",
       1},
      // Context: bhqk,bkhd->bhqd.
      {"context", type, "4,2,16,16", "4,16,2,16", "4,2,16,16",
       "lhs_batch_dims={0,1}, lhs_contracting_dims={3}, "
       "rhs_batch_dims={0,2}, rhs_contracting_dims={1}",
       1},
      // Gradient of v: bkhd contracted over k with the scores' gradient.
      {"grad_v", type, "4,16,2,16", "4,2,16,16", "4,2,16,16",
       "lhs_batch_dims={0,2}, lhs_contracting_dims={1}, "
       "rhs_batch_dims={0,1}, rhs_contracting_dims={3}",
       1},
      {"grad_k", type, "4,2,16,16", "4,16,2,16", "4,2,16,16",
       "lhs_batch_dims={0,1}, lhs_contracting_dims={2}, "
       "rhs_batch_dims={0,2}, rhs_contracting_dims={3}",
       1},
      {"grad_q", type, "4,2,16,16", "4,16,2,16", "4,2,16,16",
       "lhs_batch_dims={0,1}, lhs_contracting_dims={2}, "
       "rhs_batch_dims={0,2}, rhs_contracting_dims={1}",
       1},
      // Batch dimensions leading in both.
      {"leading", type, "4,2,16,16", "4,2,16,16", "4,2,16,16",
       "lhs_batch_dims={0,1}, lhs_contracting_dims={3}, "
       "rhs_batch_dims={0,1}, rhs_contracting_dims={2}",
       1},
  };
}

std::vector<DotForm> OtherForms(const char* type) {
  return {
      // 3-d activations times 2-d weights, and their gradients.
      {"dense", type, "4,16,32", "32,96", "4,16,96",
       "lhs_contracting_dims={2}, rhs_contracting_dims={0}", 1},
      {"dense_grad_x", type, "4,16,96", "32,96", "4,16,32",
       "lhs_contracting_dims={2}, rhs_contracting_dims={1}", 1},
      {"dense_grad_w", type, "4,16,32", "4,16,96", "32,96",
       "lhs_contracting_dims={0,1}, rhs_contracting_dims={0,1}", 1},
      // Batch dimensions at the end leave neither matrix dimension
      // contiguous: both operands are copied. In the middle of one operand
      // only, and listed in another order than one operand stores them:
      // read in place.
      {"batch_last", type, "5,7,4", "3,7,4", "4,5,3",
       "lhs_batch_dims={2}, lhs_contracting_dims={1}, rhs_batch_dims={2}, "
       "rhs_contracting_dims={1}",
       3},
      {"batch_middle", type, "5,4,7", "4,7,3", "4,5,3",
       "lhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
       "rhs_contracting_dims={1}",
       1},
      {"batch_swapped", type, "2,3,5,7", "3,2,7,4", "2,3,5,4",
       "lhs_batch_dims={0,1}, lhs_contracting_dims={3}, "
       "rhs_batch_dims={1,0}, rhs_contracting_dims={2}",
       1},
      // Two contracting dimensions listed out of their stored order.
      {"contracting_reordered", type, "5,3,4", "3,4,6", "5,6",
       "lhs_contracting_dims={2,1}, rhs_contracting_dims={1,0}", 1},
      // Their stored orders conflict: one operand is copied.
      {"contracting_conflict", type, "5,3,4", "4,3,6", "5,6",
       "lhs_contracting_dims={1,2}, rhs_contracting_dims={1,0}", 2},
      // Free dimensions split by a contracting one: copied.
      {"free_split", type, "3,7,5", "7,4", "3,5,4",
       "lhs_contracting_dims={1}, rhs_contracting_dims={0}", 2},
      // Vectors, and two vectors in conflicting orders, which a transpose
      // of the minor dimensions cannot separate: flattened.
      {"matrix_vector", type, "6,5,7", "7", "6,5",
       "lhs_contracting_dims={2}, rhs_contracting_dims={0}", 1},
      {"vectors_conflict", type, "3,4", "4,3", "",
       "lhs_contracting_dims={0,1}, rhs_contracting_dims={1,0}", 2},
  };
}

int64_t CountAllThunks(const gpu::GpuExecutable& executable) {
  return FlatThunks(executable).size();
}

DebugOptions EmittedGemmOptions() {
  DebugOptions options = OpByOpOptions();
  options.set_xla_gpu_use_emitted_gemm(true);
  return options;
}

class BatchedDotTest : public CompilerTest {
 protected:
  // Each form through BLAS and through the emitted gemm: right results,
  // and as many thunks as the form expects.
  void ExpectForms(const std::vector<DotForm>& forms) {
    for (const DotForm& form : forms) {
      SCOPED_TRACE(absl::StrCat(form.name, " ", form.type, "[", form.lhs,
                                "] x [", form.rhs, "]: ", form.attributes));
      const std::string hlo = DotModule(form);
      for (bool emitted : {false, true}) {
        SCOPED_TRACE(emitted ? "emitted gemm" : "BLAS");
        DebugOptions options = emitted ? EmittedGemmOptions() : OpByOpOptions();
        auto executable = Compile(hlo, options);
        ASSERT_TRUE(executable.ok()) << executable.status();
        EXPECT_EQ(CountAllThunks(**executable), form.thunks);
        EXPECT_EQ(CountThunks(**executable, gpu::Thunk::Kind::kGemm),
                  emitted ? 0 : 1);
        ExpectMatchesEvaluator(hlo, 0, 1, options);
      }
    }
  }
};

TEST_P(BatchedDotTest, AttentionFormsReadOperandsInPlace) {
  ExpectForms(AttentionForms("f32"));
}

TEST_P(BatchedDotTest, OtherFormsCopyOnlyWhatStridesCannotFold) {
  ExpectForms(OtherForms("f32"));
}

// bf16 x bf16 -> f32 as the bf16 transformer exports it: f32 accumulation
// of exact products, so the results are as close as f32 dots'.
TEST_P(BatchedDotTest, Bf16OperandsAccumulateInF32) {
  ExpectForms(AttentionForms("bf16"));
  ExpectForms(OtherForms("bf16"));
}

TEST_P(BatchedDotTest, Bf16OperandsAndResult) {
  std::vector<DotForm> forms = AttentionForms("bf16");
  for (DotForm& form : forms) form.out_type = "bf16";
  for (const DotForm& form : forms) {
    SCOPED_TRACE(form.name);
    for (bool emitted : {false, true}) {
      // One bf16 rounding of each result: 2^-8 relative.
      DebugOptions options = emitted ? EmittedGemmOptions() : OpByOpOptions();
      std::mt19937 rng(3);
      auto module = Parse(DotModule(form));
      ASSERT_TRUE(module.ok()) << module.status();
      std::vector<Literal> arguments = RandomArguments(**module, rng, 0, 1);
      auto got = CompileAndRun(DotModule(form), arguments, options);
      ASSERT_TRUE(got.ok()) << got.status();
      auto want = Evaluate(DotModule(form), arguments);
      ASSERT_TRUE(want.ok()) << want.status();
      EXPECT_TRUE(CompareLiterals((*got)[0], (*want)[0], 1.0 / 128).ok())
          << CompareLiterals((*got)[0], (*want)[0], 1.0 / 128);
    }
  }
}

// An operand that is a transpose is read through it when its free
// dimensions keep their order: the transpose is never computed.
TEST_P(BatchedDotTest, TransposedOperandsAreReadThrough) {
  const std::string hlo = R"(
HloModule attention_transposed

ENTRY main {
  q = f32[4,16,2,16] parameter(0)
  k = f32[4,16,2,16] parameter(1)
  qt = f32[4,2,16,16] transpose(q), dimensions={0,2,1,3}
  kt = f32[4,2,16,16] transpose(k), dimensions={0,2,3,1}
  ROOT s = f32[4,2,16,16] dot(qt, kt), lhs_batch_dims={0,1},
      lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={2}
})";
  auto executable = Compile(hlo);
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_EQ(CountAllThunks(**executable), 1);
  ExpectMatchesEvaluator(hlo, 0, 1);
  ExpectMatchesEvaluator(hlo, 0, 1, EmittedGemmOptions());
}

// The gemms that need one BLAS call per head, recorded into command
// buffers and replayed for several steps, the output fed back as an input.
TEST_P(BatchedDotTest, PerHeadBlasCallsReplayInCommandBuffers) {
  const std::string hlo = R"(
HloModule attention_step, input_output_alias={ {}: (1, {}, may-alias) }

ENTRY main {
  q = f32[4,16,2,16] parameter(0)
  v = f32[4,16,2,16] parameter(1)
  s = f32[4,2,16,16] dot(q, v), lhs_batch_dims={0,2},
      lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={3}
  c = f32[4,2,16,16] dot(s, v), lhs_batch_dims={0,1},
      lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={1}
  scale = f32[] constant(0.00390625)
  sc = f32[4,2,16,16] broadcast(scale), dimensions={}
  cs = f32[4,2,16,16] multiply(c, sc)
  ct = f32[4,16,2,16] transpose(cs), dimensions={0,2,1,3}
  ROOT next = f32[4,16,2,16] add(v, ct)
})";
  DebugOptions options = DefaultDebugOptions();
  options.set_xla_gpu_emitted_gemm_max_size(0);
  auto executable = Compile(hlo, options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_EQ(CountThunks(**executable, gpu::Thunk::Kind::kGemm), 2);
  int64_t command_buffers = 0;
  for (const auto& thunk : (*executable)->thunks().thunks()) {
    command_buffers += thunk->kind() == gpu::Thunk::Kind::kCommandBuffer;
  }
  EXPECT_GE(command_buffers, 1);
  ExpectMatchesEvaluator(hlo, 0, 1, options, /*steps=*/4);
}

// An optimizer step on a weight whose gradient contracts the batch and
// sequence dimensions of 3-d activations: one gemm accumulating into the
// weight, also when the gradient is transposed first.
TEST_P(BatchedDotTest, WeightGradientOf3dActivationsAccumulatesInPlace) {
  for (const char* update : {
           R"(g = f32[32,96] dot(x, dy), lhs_contracting_dims={0,1},
      rhs_contracting_dims={0,1})",
           R"(gt = f32[96,32] dot(dy, x), lhs_contracting_dims={0,1},
      rhs_contracting_dims={0,1}
  g = f32[32,96] transpose(gt), dimensions={1,0})"}) {
    SCOPED_TRACE(update);
    const std::string hlo = absl::StrFormat(R"(
HloModule sgd, input_output_alias={ {}: (2, {}, must-alias) }

ENTRY main {
  x = f32[4,16,32] parameter(0)
  dy = f32[4,16,96] parameter(1)
  w = f32[32,96] parameter(2)
  %s
  lr = f32[] constant(0.01)
  lrb = f32[32,96] broadcast(lr), dimensions={}
  step = f32[32,96] multiply(lrb, g)
  ROOT w2 = f32[32,96] subtract(w, step)
})",
                                            update);
    auto executable = Compile(hlo);
    ASSERT_TRUE(executable.ok()) << executable.status();
    EXPECT_EQ(CountAllThunks(**executable), 1);
    ExpectMatchesEvaluator(hlo, 0, 1, OpByOpOptions(), /*steps=*/2);
  }
}

INSTANTIATE_FOR_ALL_PLATFORMS(BatchedDotTest);

}  // namespace
}  // namespace xla_lite::testing
