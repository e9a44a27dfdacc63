// The op table (xla_lite/service/elemental_ops.h) against what the compiler
// and the kernel back ends do: every row on every element type either
// compiles and computes what the HloEvaluator computes, or is refused with
// the one UNIMPLEMENTED error, exactly as the row says.

#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "glog/logging.h"
#include "gtest/gtest.h"
#include "tests/service/compiler_test_base.h"
#include "tests/service/op_cases.h"
#include "xla_lite/hlo/hlo_verifier.h"
#include "xla_lite/service/compiler.h"
#include "xla_lite/service/elemental_ops.h"
#include "xla_lite/service/elemental_scalar_ops.h"

namespace xla_lite::testing {
namespace {

using gpu::ElementalOp;
using gpu::FusionKind;
using gpu::OpLowering;

bool HasInstruction(const HloModule& module, const std::string& name) {
  for (const HloInstruction* instr :
       module.entry_computation()->instructions()) {
    if (instr->name() == name) return true;
  }
  return false;
}

TEST(OpTableTest, RowsAreConsistent) {
  std::set<HloOpcode> seen;
  for (const ElementalOp& row : gpu::ElementalOps()) {
    SCOPED_TRACE(HloOpcodeString(row.opcode));
    EXPECT_TRUE(seen.insert(row.opcode).second) << "one row per opcode";
    EXPECT_EQ(gpu::FindElementalOp(row.opcode), &row);
    EXPECT_FALSE(row.types.empty());
    const bool kernel = row.fusion != FusionKind::kNotFusible;
    for (PrimitiveType type : primitive_util::AllPrimitiveTypes()) {
      if (kernel && row.types.contains(type)) {
        EXPECT_TRUE(gpu::kKernelTypes.contains(type))
            << "kernels compute "
            << primitive_util::LowercasePrimitiveTypeName(type);
      }
    }
    if (row.lowering == OpLowering::kScalarFunction) {
      EXPECT_TRUE(row.arity == 1 || row.arity == 2);
      EXPECT_EQ(row.fusion, FusionKind::kElementwise);
      // The types taken are exactly those with a function.
      for (PrimitiveType type : primitive_util::AllPrimitiveTypes()) {
        EXPECT_EQ(row.types.contains(type), row.FunctionFor(type) != nullptr);
      }
      for (const gpu::ScalarFunction* f :
           {&row.on_float, &row.on_s32, &row.on_pred}) {
        if (!f->exists()) continue;
        EXPECT_NE(f->host, nullptr) << f->name;
        // The device calls by name what the host compiled from this text.
        EXPECT_TRUE(absl::StrContains(gpu::kElementalScalarOpsDeviceSource,
                                      absl::StrCat(" ", f->name, "(")))
            << f->name;
      }
    } else {
      EXPECT_FALSE(row.on_float.exists() || row.on_s32.exists() ||
                   row.on_pred.exists());
    }
    if (row.reducer) {
      EXPECT_EQ(row.lowering, OpLowering::kScalarFunction);
      EXPECT_EQ(row.arity, 2);
    }
  }
}

// Host functions apply the scalar function lane by lane, in the register
// class of each argument and result.
TEST(OpTableTest, HostFunctionsComputeLanes) {
  const float a[3] = {1.5f, -2.0f, NAN};
  const float b[3] = {0.5f, 4.0f, 1.0f};
  float out[3];
  gpu::ScalarLanes lanes;
  lanes.f[0] = a;
  lanes.f[1] = b;
  lanes.out_f = out;
  lanes.count = 3;
  gpu::FindElementalOp(HloOpcode::kMaximum)->on_float.host(lanes);
  EXPECT_EQ(out[0], 1.5f);
  EXPECT_EQ(out[1], 4.0f);
  EXPECT_TRUE(std::isnan(out[2]));  // NaN propagates.

  const int32_t x[2] = {7, -7}, y[2] = {0, 2};
  int32_t q[2];
  gpu::ScalarLanes ints;
  ints.i[0] = x;
  ints.i[1] = y;
  ints.out_i = q;
  ints.count = 2;
  gpu::FindElementalOp(HloOpcode::kDivide)->on_s32.host(ints);
  EXPECT_EQ(q[0], -1);  // Division by zero.
  EXPECT_EQ(q[1], -3);

  int32_t finite[3];
  gpu::ScalarLanes classify;
  classify.f[0] = a;
  classify.out_i = finite;
  classify.count = 3;
  gpu::FindElementalOp(HloOpcode::kIsFinite)->on_float.host(classify);
  EXPECT_EQ(finite[0], 1);
  EXPECT_EQ(finite[2], 0);
}

using OpTableCompileTest = CompilerTest;

// Every case: refused by the verifier (not an op on that type in HLO),
// or refused with UNIMPLEMENTED naming the instruction, the opcode and the
// type exactly when the row does not take it, or compiled and equal to the
// evaluator on this platform.
TEST_P(OpTableCompileTest, EveryRowOnEveryTypeIsWhatTheTableSays) {
  int checked = 0, supported = 0, refused = 0;
  for (const OpCase& c : AllOpCases()) {
    SCOPED_TRACE(c.label);
    const std::string hlo = ModuleFor(c);
    absl::StatusOr<std::unique_ptr<HloModule>> module = Parse(hlo);
    ASSERT_TRUE(module.ok()) << module.status() << "\n" << hlo;
    if (!VerifyHloModule(**module).ok()) continue;
    ++checked;
    // An op the HLO passes take away (a copy, a same-type convert) never
    // reaches the table.
    auto passed = Parse(hlo);
    ASSERT_TRUE(RunHloPasses(passed->get()).ok());
    const bool reaches_table = HasInstruction(**passed, "op");
    auto executable = Compile(hlo);
    if (c.supported || !reaches_table) {
      ASSERT_TRUE(executable.ok()) << executable.status() << "\n" << hlo;
      ++supported;
      const bool narrow =
          c.type == PrimitiveType::BF16 || c.type == PrimitiveType::F16;
      std::mt19937 rng(42);
      std::vector<Literal> arguments = RandomArguments(**module, rng, -2, 2);
      auto expected = Evaluate(hlo, arguments);
      ASSERT_TRUE(expected.ok()) << expected.status();
      auto actual = CompileAndRun(hlo, arguments);
      ASSERT_TRUE(actual.ok()) << actual.status();
      ASSERT_EQ(actual->size(), expected->size());
      for (int i = 0; i < actual->size(); ++i) {
        absl::Status same = CompareLiterals((*actual)[i], (*expected)[i],
                                            narrow ? 1e-2 : kRelativeTolerance);
        EXPECT_TRUE(same.ok()) << same << "\n" << hlo;
      }
      continue;
    }
    ++refused;
    ASSERT_FALSE(executable.ok()) << hlo;
    const absl::Status& status = executable.status();
    EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented) << status;
    // "instruction op (line N): <opcode> of <type> ...".
    EXPECT_TRUE(absl::StrContains(status.message(), "instruction op (line "))
        << status;
    EXPECT_TRUE(absl::StrContains(
        status.message(),
        absl::StrCat("): ", HloOpcodeString(c.row->opcode), " of ")))
        << status;
    EXPECT_TRUE(absl::StrContains(
        status.message(), primitive_util::LowercasePrimitiveTypeName(c.type)))
        << status;
    EXPECT_TRUE(absl::StrContains(status.message(),
                                  "is not supported by the xla_lite compiler"))
        << status;
  }
  LOG(INFO) << checked << " cases the verifier takes: " << supported
            << " compiled and run, " << refused << " refused";
  // Enough of both kinds that the test cannot pass by skipping.
  EXPECT_GT(checked, 300);
  EXPECT_GT(supported, 150);
  EXPECT_GT(refused, 100);
}

INSTANTIATE_FOR_ALL_PLATFORMS(OpTableCompileTest);

}  // namespace
}  // namespace xla_lite::testing
