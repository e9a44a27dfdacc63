#include "tests/service/op_cases.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "xla_lite/hlo/hlo_opcode.h"

namespace xla_lite::testing {
namespace {

using gpu::ElementalOp;
using gpu::OpLowering;

std::string Name(PrimitiveType type) {
  return std::string(primitive_util::LowercasePrimitiveTypeName(type));
}

std::string Array(PrimitiveType type, const std::string& dims) {
  return absl::StrCat(Name(type), "[", dims, "]");
}

std::string OpName(const ElementalOp& row) {
  return std::string(HloOpcodeString(row.opcode));
}

// A case of `row` on `type` whose op takes `parameters` and is defined by
// `op_line` (after "$_op = "), returning "$_op" of `result_shape`.
OpCase Simple(const ElementalOp& row, PrimitiveType type,
              std::vector<std::string> parameters,
              const std::string& result_shape, const std::string& op_line) {
  OpCase c;
  c.label = absl::StrCat(OpName(row), ".", Name(type));
  c.row = &row;
  c.type = type;
  c.supported = row.types.contains(type);
  c.parameters = std::move(parameters);
  c.body = {absl::StrCat("$_op = ", result_shape, " ", op_line)};
  c.result = "$_op";
  c.result_shape = result_shape;
  return c;
}

// Index remapping ops, each with shapes it accepts; the reshape feeds a
// transpose, since a reshape alone is a view and computes nothing.
OpCase IndexRemapCase(const ElementalOp& row, PrimitiveType type) {
  const std::string t = Name(type);
  switch (row.opcode) {
    case HloOpcode::kBroadcast:
      return Simple(row, type, {Array(type, "8")}, Array(type, "4,8"),
                    "broadcast($p0), dimensions={1}");
    case HloOpcode::kTranspose:
      return Simple(row, type, {Array(type, "4,8")}, Array(type, "8,4"),
                    "transpose($p0), dimensions={1,0}");
    case HloOpcode::kSlice:
      return Simple(row, type, {Array(type, "4,8")}, Array(type, "2,3"),
                    "slice($p0), slice={[1:3], [0:8:3]}");
    case HloOpcode::kReverse:
      return Simple(row, type, {Array(type, "4,8")}, Array(type, "4,8"),
                    "reverse($p0), dimensions={1}");
    case HloOpcode::kReshape: {
      OpCase c = Simple(row, type, {Array(type, "32")}, Array(type, "4,8"),
                        "reshape($p0)");
      c.body.push_back(absl::StrCat("$_r = ", Array(type, "8,4"),
                                    " transpose($_op), dimensions={1,0}"));
      c.result = "$_r";
      c.result_shape = Array(type, "8,4");
      return c;
    }
    default:
      ADD_FAILURE() << OpName(row)
                    << " lowers by index remapping: give it a case here";
      return Simple(row, type, {}, Array(type, "4,8"), "unknown()");
  }
}

// Scalar functions on `type`: is-finite is the one whose result is pred.
OpCase ScalarFunctionCase(const ElementalOp& row, PrimitiveType type) {
  const std::string shape = Array(type, "4,8");
  const std::string result = row.opcode == HloOpcode::kIsFinite
                                 ? Array(PrimitiveType::PRED, "4,8")
                                 : shape;
  if (row.arity == 1) {
    return Simple(row, type, {shape}, result, OpName(row) + "($p0)");
  }
  return Simple(row, type, {shape, shape}, result, OpName(row) + "($p0, $p1)");
}

// A reduce of `type` whose computation is `reducer`'s op alone.
OpCase ReduceCase(const ElementalOp& row, PrimitiveType type,
                  const ElementalOp& reducer) {
  const std::string t = Name(type);
  OpCase c = Simple(row, type, {Array(type, "4,8")}, Array(type, "4"),
                    "reduce($p0, $_init), dimensions={1}, to_apply=$_red");
  c.label = absl::StrCat("reduce.", t, ".", OpName(reducer));
  c.supported =
      row.types.contains(type) && reducer.FunctionFor(type) != nullptr;
  c.body.insert(c.body.begin(), absl::StrCat("$_init = ", t, "[] constant(0)"));
  c.computations = absl::StrCat(
      "$_red {\n  a = ", t, "[] parameter(0)\n  b = ", t,
      "[] parameter(1)\n  ROOT c = ", t, "[] ", OpName(reducer), "(a, b)\n}\n");
  return c;
}

// A convolution, max pool or max-pool gradient of `type`.
OpCase WindowKernelCase(const ElementalOp& row, PrimitiveType type) {
  const std::string t = Name(type);
  if (row.opcode == HloOpcode::kConvolution) {
    return Simple(row, type, {Array(type, "1,4,4,2"), Array(type, "3,3,2,3")},
                  Array(type, "1,4,4,3"),
                  "convolution($p0, $p1), window={size=3x3 pad=1_1x1_1}, "
                  "dim_labels=b01f_01io->b01f");
  }
  const bool scatter = row.opcode == HloOpcode::kSelectAndScatter;
  OpCase c =
      scatter
          ? Simple(row, type, {Array(type, "4,8"), Array(type, "2,4")},
                   Array(type, "4,8"),
                   "select-and-scatter($p0, $p1, $_init), "
                   "window={size=2x2 stride=2x2}, select=$_ge, scatter=$_red")
          : Simple(row, type, {Array(type, "4,8")}, Array(type, "2,4"),
                   "reduce-window($p0, $_init), window={size=2x2 stride=2x2}, "
                   "to_apply=$_red");
  c.body.insert(c.body.begin(), absl::StrCat("$_init = ", t, "[] constant(0)"));
  c.computations = absl::StrCat(
      "$_red {\n  a = ", t, "[] parameter(0)\n  b = ", t,
      "[] parameter(1)\n  ROOT c = ", t, "[] ", scatter ? "add" : "maximum",
      "(a, b)\n}\n");
  if (scatter) {
    absl::StrAppend(&c.computations, "$_ge {\n  a = ", t,
                    "[] parameter(0)\n  b = ", t,
                    "[] parameter(1)\n  ROOT c = pred[] compare(a, b), "
                    "direction=GE\n}\n");
  }
  return c;
}

// Conversions between `type` and a kernel type, both ways.
std::vector<OpCase> ConvertCases(const ElementalOp& row, PrimitiveType type) {
  const PrimitiveType other =
      type == PrimitiveType::F32 ? PrimitiveType::S32 : PrimitiveType::F32;
  std::vector<OpCase> cases;
  for (auto [from, to] :
       {std::make_pair(type, other), std::make_pair(other, type)}) {
    OpCase c = Simple(row, type, {Array(from, "4,8")}, Array(to, "4,8"),
                      "convert($p0)");
    c.label = absl::StrCat("convert.", Name(from), ".", Name(to));
    c.supported = row.types.contains(from) && row.types.contains(to);
    cases.push_back(std::move(c));
  }
  return cases;
}

// Scatters of `type` into a 6x8 operand, adding (4 rows at parameter
// indices, repeats and out-of-range ones included) or assigning (at rows
// 0 to 3, so that no two updates race for one element).
std::vector<OpCase> ScatterCases(const ElementalOp& row, PrimitiveType type) {
  const std::string t = Name(type);
  const std::string form =
      "update_window_dims={1}, inserted_window_dims={0}, "
      "scatter_dims_to_operand_dims={0}, index_vector_dim=1";
  OpCase add = Simple(row, type,
                      {Array(type, "6,8"), "s32[4,1]", Array(type, "4,8")},
                      Array(type, "6,8"),
                      "scatter($p0, $p1, $p2), " + form + ", to_apply=$_add");
  add.label = absl::StrCat("scatter.", t, ".add");
  add.computations = absl::StrCat("$_add {\n  a = ", t, "[] parameter(0)\n  b = ",
                                  t, "[] parameter(1)\n  ROOT c = ", t,
                                  "[] add(a, b)\n}\n");
  OpCase assign = Simple(row, type, {Array(type, "6,8"), Array(type, "4,8")},
                         Array(type, "6,8"),
                         "scatter($p0, $_ids, $p1), " + form +
                             ", to_apply=$_assign");
  assign.label = absl::StrCat("scatter.", t, ".assign");
  assign.body.insert(assign.body.begin(),
                     "$_ids = s32[4,1] iota(), iota_dimension=0");
  assign.computations = absl::StrCat("$_assign {\n  a = ", t,
                                     "[] parameter(0)\n  ROOT b = ", t,
                                     "[] parameter(1)\n}\n");
  return {add, assign};
}

std::vector<OpCase> CasesFor(const ElementalOp& row, PrimitiveType type) {
  const std::string shape = Array(type, "4,8");
  switch (row.lowering) {
    case OpLowering::kBuffer:
      if (row.opcode == HloOpcode::kConstant) {
        return {Simple(row, type, {}, Array(type, "2"), "constant({1, 0})")};
      } else {
        OpCase c = Simple(row, type, {shape}, shape, "");
        c.body.clear();
        c.result = "$p0";
        return {c};
      }
    case OpLowering::kGemm:
      return {Simple(row, type, {Array(type, "2,3"), Array(type, "3,4")},
                     Array(type, "2,4"),
                     "dot($p0, $p1), lhs_contracting_dims={1}, "
                     "rhs_contracting_dims={0}")};
    case OpLowering::kWindowKernel:
      return {WindowKernelCase(row, type)};
    case OpLowering::kResultTuple:
      return {Simple(row, type, {shape, shape},
                     absl::StrCat("(", shape, ", ", shape, ")"),
                     "tuple($p0, $p1)")};
    case OpLowering::kIndexRemap:
      return {IndexRemapCase(row, type)};
    case OpLowering::kIota:
      return {Simple(row, type, {}, shape, "iota(), iota_dimension=1")};
    case OpLowering::kScalarFunction:
      return {ScalarFunctionCase(row, type)};
    case OpLowering::kCompare:
      return {Simple(row, type, {shape, shape},
                     Array(PrimitiveType::PRED, "4,8"),
                     "compare($p0, $p1), direction=LT")};
    case OpLowering::kSelect:
      return {Simple(row, type,
                     {Array(PrimitiveType::PRED, "4,8"), shape, shape}, shape,
                     "select($p0, $p1, $p2)")};
    case OpLowering::kClamp:
      return {Simple(row, type, {shape, shape, shape}, shape,
                     "clamp($p0, $p1, $p2)")};
    case OpLowering::kConvert:
      return ConvertCases(row, type);
    case OpLowering::kCopy:
      return {Simple(row, type, {shape}, shape, "copy($p0)")};
    case OpLowering::kCollective: {
      // One device: every group is the device alone.
      OpCase c = Simple(row, type, {shape}, shape,
                        row.opcode == HloOpcode::kCollectivePermute
                            ? "collective-permute($p0), "
                              "source_target_pairs={{0,0}}"
                        : row.opcode == HloOpcode::kAllReduce
                            ? "all-reduce($p0), replica_groups={}, "
                              "to_apply=$_red"
                            : absl::StrCat(OpName(row),
                                           "($p0), replica_groups={{0}}, "
                                           "dimensions={0}",
                                           row.opcode == HloOpcode::kAllGather
                                               ? ""
                                               : ", to_apply=$_red"));
      const std::string t = Name(type);
      c.computations = absl::StrCat(
          "$_red {\n  a = ", t, "[] parameter(0)\n  b = ", t,
          "[] parameter(1)\n  ROOT c = ", t, "[] add(a, b)\n}\n");
      return {c};
    }
    case OpLowering::kGather:
      // Random indices in [-2, 2]: the negative ones are clamped.
      return {Simple(row, type, {shape, "s32[3,1]"}, Array(type, "3,8"),
                     "gather($p0, $p1), offset_dims={1}, "
                     "collapsed_slice_dims={0}, start_index_map={0}, "
                     "index_vector_dim=1, slice_sizes={1,8}")};
    case OpLowering::kConcatenate:
      return {Simple(row, type, {Array(type, "4,3"), Array(type, "4,5")},
                     shape, "concatenate($p0, $p1), dimensions={1}")};
    case OpLowering::kScatter:
      return ScatterCases(row, type);
    case OpLowering::kPad:
      // 4 + 1 = 5 rows; 8 + 7 interior - 1 + 2 = 16 columns.
      return {Simple(row, type, {shape, Array(type, "")}, Array(type, "5,16"),
                     "pad($p0, $p1), padding=1_0x-1_2_1")};
    case OpLowering::kReduce: {
      // add for every type (defined for all), every other reducer where
      // the row has a function for the type.
      std::vector<OpCase> cases;
      for (const ElementalOp& reducer : gpu::ElementalOps()) {
        if (!reducer.reducer) continue;
        if (reducer.opcode == HloOpcode::kAdd ||
            reducer.FunctionFor(type) != nullptr) {
          cases.push_back(ReduceCase(row, type, reducer));
        }
      }
      return cases;
    }
  }
  return {};
}

// `text` with the case's placeholders replaced: parameter i by
// parameters[i], "$_" by `prefix`.
std::string Expand(const std::string& text, const std::string& prefix,
                   const std::vector<std::string>& parameters) {
  std::vector<std::pair<std::string, std::string>> replacements = {
      {"$_", prefix}};
  for (int i = 0; i < parameters.size(); ++i) {
    replacements.push_back({absl::StrCat("$p", i), parameters[i]});
  }
  return absl::StrReplaceAll(text, replacements);
}

}  // namespace

std::vector<OpCase> AllOpCases() {
  std::vector<OpCase> cases;
  for (const ElementalOp& row : gpu::ElementalOps()) {
    for (PrimitiveType type : primitive_util::AllPrimitiveTypes()) {
      for (OpCase& c : CasesFor(row, type)) cases.push_back(std::move(c));
    }
  }
  return cases;
}

std::string ModuleFor(const OpCase& c) {
  std::vector<std::string> names;
  std::string entry;
  for (int i = 0; i < c.parameters.size(); ++i) {
    names.push_back(absl::StrCat("p", i));
    absl::StrAppend(
        &entry, "  ", c.result == absl::StrCat("$p", i) ? "ROOT " : "",
        names.back(), " = ", c.parameters[i], " parameter(", i, ")\n");
  }
  for (const std::string& line : c.body) {
    bool root = line.rfind(c.result + " = ", 0) == 0;
    absl::StrAppend(&entry, "  ", root ? "ROOT " : "", Expand(line, "", names),
                    "\n");
  }
  return absl::StrCat("HloModule op_case\n\n",
                      Expand(c.computations, "", names), "\nENTRY main {\n",
                      entry, "}\n");
}

std::string ModuleForAll(const std::vector<OpCase>& cases) {
  std::string computations, entry;
  std::vector<std::string> results, shapes;
  int parameter = 0;
  for (int k = 0; k < cases.size(); ++k) {
    const OpCase& c = cases[k];
    const std::string prefix = absl::StrCat("c", k, "_");
    std::vector<std::string> names;
    for (const std::string& shape : c.parameters) {
      names.push_back(absl::StrCat(prefix, "p", names.size()));
      absl::StrAppend(&entry, "  ", names.back(), " = ", shape, " parameter(",
                      parameter++, ")\n");
    }
    for (const std::string& line : c.body) {
      absl::StrAppend(&entry, "  ", Expand(line, prefix, names), "\n");
    }
    absl::StrAppend(&computations, Expand(c.computations, prefix, names));
    results.push_back(Expand(c.result, prefix, names));
    shapes.push_back(c.result_shape);
  }
  return absl::StrCat("HloModule every_op_case\n\n", computations,
                      "\nENTRY main {\n", entry, "  ROOT results = (",
                      absl::StrJoin(shapes, ", "), ") tuple(",
                      absl::StrJoin(results, ", "), ")\n}\n");
}

}  // namespace xla_lite::testing
