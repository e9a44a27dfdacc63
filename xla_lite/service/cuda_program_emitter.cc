#include "xla_lite/service/cuda_program_emitter.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "glog/logging.h"
#include "xla_lite/primitive_util.h"
#include "xla_lite/service/elemental_scalar_ops.h"
#include "xla_lite/service/row_registers.h"

namespace xla_lite::gpu::cuda_internal {
namespace {

bool IsPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// A thread's strided share of [0, end): `var` = start, start + step, ...
// below end, where start (an expression) lies in [0, step). When every
// thread makes the same few trips, the loop counts them, unrolled, so
// that the compiler issues all their loads before the first is used:
// looping over the share as it lies waits a memory round trip per trip,
// which bounded the row and grouped reductions. A longer share is a plain
// loop the compiler unrolls by kMaxUnrolledTrips (a column strip of 2048
// rows folded by 32 threads each, say). Appends the loop's opening
// at `indent`; the caller's body and closing brace follow. Sets `first`
// (when not null) to the condition that holds on the first trip only.
// (kMaxUnrolledTrips, UnrolledTrips: row_registers.h, whose registers the
// trip counter indexes.)
void AppendStridedLoop(const std::string& var, const std::string& start,
                       int64_t end, int64_t step, const std::string& indent,
                       std::string* text, std::string* first) {
  const int64_t trips = UnrolledTrips(end, step);
  if (trips < 2) {
    if (end > kMaxUnrolledTrips * step) {
      absl::StrAppend(text, "#pragma unroll ", kMaxUnrolledTrips, "\n");
    }
    absl::StrAppend(text, indent, "for (idx_t ", var, " = ", start, "; ", var,
                    " < ", end, "; ", var, " += ", step, ") {\n");
    if (first != nullptr) *first = absl::StrCat(var, " == ", start);
    return;
  }
  const std::string trip = absl::StrCat(var, "_trip");
  absl::StrAppend(text, "#pragma unroll\n", indent, "for (int ", trip, " = 0; ",
                  trip, " < ", trips, "; ++", trip, ") {\n", indent,
                  "  const idx_t ", var, " = ", start, " + (idx_t)", trip,
                  " * ", step, ";\n");
  if (first != nullptr) *first = absl::StrCat(trip, " == 0");
}

// The C type a value is computed in: f32, bf16 and f16 in float (16-bit
// results rounded after every op), s32 in int, pred in bool.
const char* ComputeType(PrimitiveType type) {
  if (primitive_util::IsFloatingPointType(type)) return "float";
  return type == PrimitiveType::PRED ? "bool" : "int";
}

std::string Round(PrimitiveType type, const std::string& e) {
  if (type == PrimitiveType::BF16) {
    return absl::StrCat("xl_round_to_bf16(", e, ")");
  }
  if (type == PrimitiveType::F16) {
    return absl::StrCat("xl_round_to_f16(", e, ")");
  }
  return e;
}

// Kernel parameter `p`: "const float* __restrict__ p0".

// A call of `function` (elemental_scalar_ops.inc), its result rounded to
// `type`.
std::string CallExpr(const ScalarFunction& function, PrimitiveType type,
                     const std::vector<std::string>& arguments) {
  return Round(type, absl::StrCat(function.name, "(",
                                  absl::StrJoin(arguments, ", "), ")"));
}

std::string LoadExpr(PrimitiveType type, const std::string& element) {
  switch (type) {
    case PrimitiveType::BF16:
      return absl::StrCat("xl_bf16_to_f32(", element, ")");
    case PrimitiveType::F16:
      return absl::StrCat("xl_f16_to_f32(", element, ")");
    case PrimitiveType::PRED:
      return absl::StrCat("(", element, " != 0)");
    default:
      return element;
  }
}

std::string StoreExpr(PrimitiveType type, const std::string& value) {
  switch (type) {
    case PrimitiveType::BF16:
      return absl::StrCat("xl_f32_to_bf16(", value, ")");
    case PrimitiveType::F16:
      return absl::StrCat("xl_f32_to_f16(", value, ")");
    case PrimitiveType::PRED:
      return absl::StrCat("(unsigned char)(", value, " ? 1 : 0)");
    default:
      return value;
  }
}

std::string FloatLiteral(double value) {
  float f = static_cast<float>(value);
  if (std::isnan(f)) return "__uint_as_float(0x7fc00000u)";
  if (std::isinf(f)) {
    return f > 0 ? "__uint_as_float(0x7f800000u)"
                 : "__uint_as_float(0xff800000u)";
  }
  std::string text = absl::StrFormat("%.9g", f);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return absl::StrCat("(", text, "f)");
}

std::string ConstantExpr(const ExprOp& op) {
  if (primitive_util::IsFloatingPointType(op.type)) {
    return FloatLiteral(op.value);
  }
  if (op.type == PrimitiveType::PRED) return op.value != 0 ? "true" : "false";
  int32_t v = static_cast<int32_t>(op.value);
  if (v == INT32_MIN) return "(-2147483647 - 1)";
  return absl::StrCat("(", v, ")");
}

const char* CompareOperator(ComparisonDirection direction) {
  switch (direction) {
    case ComparisonDirection::kEq:
      return "==";
    case ComparisonDirection::kNe:
      return "!=";
    case ComparisonDirection::kLt:
      return "<";
    case ComparisonDirection::kLe:
      return "<=";
    case ComparisonDirection::kGt:
      return ">";
    case ComparisonDirection::kGe:
      return ">=";
  }
  return "==";
}

std::string ConvertExpr(PrimitiveType from, PrimitiveType to,
                        const std::string& a) {
  if (to == PrimitiveType::PRED) {
    return primitive_util::IsFloatingPointType(from)
               ? absl::StrCat("(", a, " != 0.0f)")
               : absl::StrCat("(", a, " != 0)");
  }
  if (primitive_util::IsFloatingPointType(to)) {
    if (from == PrimitiveType::PRED) {
      return absl::StrCat("(", a, " ? 1.0f : 0.0f)");
    }
    return Round(to, primitive_util::IsFloatingPointType(from)
                         ? a
                         : absl::StrCat("(float)", a));
  }
  if (primitive_util::IsFloatingPointType(from)) {
    return absl::StrCat("xl_f32_to_s32(", a, ")");
  }
  return absl::StrCat("(int)", a);
}

// Coordinate `dim` of a linear index `index` over `dims`.
std::string CoordinateExpr(const std::string& index,
                           const std::vector<int64_t>& dims, int64_t dim) {
  if (dims[dim] == 1) return "0";
  std::vector<int64_t> strides = RowMajorStrides(dims);
  std::string e = index;
  if (strides[dim] != 1) e = absl::StrCat("(", e, " / ", strides[dim], ")");
  if (dim != 0) e = absl::StrCat("(", e, " % ", dims[dim], ")");
  return e;
}

std::string RemapExpr(const IndexRemap& remap,
                      const std::vector<std::string>& sources) {
  std::vector<int64_t> strides = RowMajorStrides(remap.target);
  std::vector<std::string> terms;
  int64_t constant = 0;
  for (int64_t t = 0; t < remap.target.size(); ++t) {
    const IndexRemap::Dim& d = remap.dims[t];
    if (!d.IsAffine()) {
      // Signed, then clamped into the target: see IndexRemap::Dim.
      std::string c = d.source < 0
                          ? "0"
                          : CoordinateExpr(sources[d.source],
                                           remap.sources[d.source], d.dim);
      terms.push_back(absl::StrCat(
          "(idx_t)xl_clamp_coordinate((long long)", c, " * ", d.scale, " + ",
          d.offset, "LL, ", d.divisor, "LL, ", d.limit, "LL) * ", strides[t]));
      continue;
    }
    constant += d.offset * strides[t];
    if (d.source < 0) continue;
    std::string c =
        CoordinateExpr(sources[d.source], remap.sources[d.source], d.dim);
    if (c == "0") continue;
    int64_t factor = d.scale * strides[t];
    if (factor == 1) {
      terms.push_back(c);
    } else if (factor > 0) {
      terms.push_back(absl::StrCat(c, " * ", factor));
    } else {
      // Reversed dimensions: the offset makes the total non-negative.
      terms.push_back(absl::StrCat("(idx_t)0 - ", c, " * ", -factor));
    }
  }
  if (constant != 0 || terms.empty()) terms.push_back(absl::StrCat(constant));
  return absl::StrCat("(", absl::StrJoin(terms, " + "), ")");
}

// The coordinate tests of kIndexInBounds, in signed arithmetic.
std::string InBoundsExpr(const IndexBounds& bounds, const std::string& index) {
  std::vector<std::string> tests;
  for (const IndexBounds::Bound& b : bounds.bounds) {
    std::string c =
        absl::StrCat("(long long)", CoordinateExpr(index, bounds.dims, b.dim));
    tests.push_back(
        absl::StrCat(c, " >= ", b.lo, "LL && ", c, " < ", b.hi, "LL"));
    if (b.stride != 1) {
      tests.push_back(
          absl::StrCat("(", c, " - ", b.lo, "LL) % ", b.stride, "LL == 0"));
    }
  }
  if (tests.empty()) return "true";
  return absl::StrCat("(", absl::StrJoin(tests, " && "), ")");
}

}  // namespace

std::string ParameterDeclaration(const KernelParameters& parameters, int p) {
  return absl::StrCat(parameters.written[p] ? "" : "const ",
                      primitive_util::CudaStorageTypeName(parameters.types[p]),
                      "* __restrict__ p", p);
}

std::string ProgramEmitter::Name(int id) const {
  const ExprOp& op = program_.op(id);
  if (op.kind == ExprKind::kIndex) return "i";
  if (op.kind == ExprKind::kReduceIndex) return "r";
  return absl::StrCat(op.IsIndex() ? "x" : "v", id);
}

void ProgramEmitter::EmitOps(const std::vector<int>& ids,
                             const std::string& indent,
                             std::string* out) const {
  for (int id : ids) {
    std::string statement = Statement(id);
    if (!statement.empty()) absl::StrAppend(out, indent, statement, "\n");
  }
}

void ProgramEmitter::EmitOpsWithLazySelects(
    const std::vector<int>& ids, const std::vector<int>& roots,
    const std::string& indent, std::string* out,
    const std::vector<bool>* defined) const {
  const LazySelects lazy = FindLazySelects(program_, ids, roots);
  std::vector<int> top;
  for (int id : ids) {
    if (!lazy.deferred[id]) top.push_back(id);
  }
  EmitLazyList(lazy, top, indent, out, defined);
}

void ProgramEmitter::EmitLazyList(const LazySelects& lazy,
                                  const std::vector<int>& ids,
                                  const std::string& indent, std::string* out,
                                  const std::vector<bool>* defined) const {
  for (int id : ids) {
    if (defined != nullptr && (*defined)[id]) continue;
    auto it = lazy.selects.find(id);
    if (it == lazy.selects.end()) {
      EmitOps({id}, indent, out);
      continue;
    }
    const ExprOp& op = program_.op(id);
    const std::string inner = indent + "  ";
    absl::StrAppend(out, indent, ComputeType(op.type), " ", Name(id), ";\n",
                    indent, "if (", Name(op.operands[0]), ") {\n");
    EmitLazyList(lazy, it->second.on_true, inner, out, defined);
    absl::StrAppend(out, inner, Name(id), " = ", Name(op.operands[1]), ";\n",
                    indent, "} else {\n");
    EmitLazyList(lazy, it->second.on_false, inner, out, defined);
    absl::StrAppend(out, inner, Name(id), " = ", Name(op.operands[2]), ";\n",
                    indent, "}\n");
  }
}

std::string ProgramEmitter::Signature(const std::string& name,
                                      int max_threads, int min_blocks) const {
  std::vector<std::string> params;
  for (int p = 0; p < parameters_.count(); ++p) {
    params.push_back(ParameterDeclaration(parameters_, p));
  }
  std::string bounds;
  if (max_threads > 0) {
    bounds = absl::StrCat("__launch_bounds__(", max_threads);
    if (min_blocks > 0) absl::StrAppend(&bounds, ", ", min_blocks);
    absl::StrAppend(&bounds, ") ");
  }
  return absl::StrCat("extern \"C\" __global__ void ", bounds, name, "(",
                      absl::StrJoin(params, ", "), ")");
}

std::string ProgramEmitter::Store(int output, const std::string& value,
                                  const std::string& index) const {
  const KernelOutput& out = program_.outputs()[output];
  return absl::StrCat("p", parameters_.output_param[output], "[", index,
                      "] = ", StoreExpr(out.buffer.type, value), ";");
}

std::string ProgramEmitter::Keep(int output, const std::string& value) const {
  if (registers_ == nullptr) return "";
  auto it = registers_->kept_outputs.find(output);
  if (it == registers_->kept_outputs.end()) return "";
  return absl::StrCat(
      it->second, " = ",
      StoreExpr(program_.outputs()[output].buffer.type, value), ";");
}

int64_t ProgramEmitter::HalvePartials(int64_t valid, int64_t stop,
                                      const std::string& lane,
                                      const std::string& prefix,
                                      const std::string& suffix,
                                      std::string* body) const {
  auto at = [&](const std::string& index) {
    return absl::StrCat(prefix, index, suffix);
  };
  while (valid > stop || (valid > 1 && !IsPowerOfTwo(valid))) {
    int64_t half = 1;
    while (half * 2 < valid) half *= 2;
    absl::StrAppend(body, "    if (", lane, " < ", valid - half, ") ", at(lane),
                    " = ",
                    Reduce(at(lane), at(absl::StrCat(lane, " + ", half))),
                    ";\n    __syncthreads();\n");
    valid = half;
  }
  return valid;
}

std::string ProgramEmitter::Reduce(const std::string& a,
                                   const std::string& b) const {
  return CallExpr(program_.reducer_function(),
                  program_.op(program_.value_op()).type, {a, b});
}

std::string ProgramEmitter::Statement(int id) const {
  const ExprOp& op = program_.op(id);
  auto in = [&](int k) { return Name(op.operands[k]); };
  auto type_of = [&](int k) { return program_.op(op.operands[k]).type; };
  std::string e;
  switch (op.kind) {
    case ExprKind::kIndex:
    case ExprKind::kReduceIndex:
    case ExprKind::kReducedValue:  // Defined by the reduction itself.
      return "";
    case ExprKind::kIndexRemap: {
      std::vector<std::string> sources;
      for (int k = 0; k < op.operands.size(); ++k) sources.push_back(in(k));
      return absl::StrCat("const idx_t ", Name(id), " = ",
                          RemapExpr(op.remap, sources), ";");
    }
    case ExprKind::kDynamicIndex: {
      std::vector<std::string> terms = {in(0)};
      for (int k = 0; k < op.dynamic.size(); ++k) {
        terms.push_back(absl::StrCat("(idx_t)xl_clamp_start(", in(k + 1), ", ",
                                     op.dynamic[k].max, ") * ",
                                     op.dynamic[k].factor));
      }
      return absl::StrCat("const idx_t ", Name(id), " = ",
                          absl::StrJoin(terms, " + "), ";");
    }
    case ExprKind::kDynamicInBounds: {
      std::vector<std::string> tests;
      for (int k = 0; k < op.dynamic.size(); ++k) {
        tests.push_back(absl::StrCat("(", in(k), " >= 0 && ", in(k),
                                     " <= ", op.dynamic[k].max, ")"));
      }
      e = tests.empty() ? "true"
                        : absl::StrCat("(", absl::StrJoin(tests, " && "), ")");
      break;
    }
    case ExprKind::kIndexInBounds:
      e = InBoundsExpr(op.bounds, in(0));
      break;
    case ExprKind::kLoad: {
      const std::string element = absl::StrCat(
          "p", parameters_.input_param[op.input], "[", in(0), "]");
      if (registers_ != nullptr) {
        if (auto it = registers_->loads.find(id);
            it != registers_->loads.end()) {
          e = LoadExpr(op.type, it->second);
          break;
        }
        if (auto it = registers_->kept_loads.find(id);
            it != registers_->kept_loads.end()) {
          return absl::StrCat(it->second, " = ", element, "; const ",
                              ComputeType(op.type), " ", Name(id), " = ",
                              LoadExpr(op.type, it->second), ";");
        }
      }
      e = LoadExpr(op.type, element);
      break;
    }
    case ExprKind::kConstant:
      e = ConstantExpr(op);
      break;
    case ExprKind::kIndexToValue:
      e = ConvertExpr(PrimitiveType::S32, op.type,
                      absl::StrCat("(int)", in(0)));
      break;
    case ExprKind::kUnary:
    case ExprKind::kBinary: {
      std::vector<std::string> arguments;
      for (int k = 0; k < op.operands.size(); ++k) arguments.push_back(in(k));
      e = op.excess ? CallExpr(*op.function, PrimitiveType::F32, arguments)
                    : CallExpr(*op.function, op.type, arguments);
      break;
    }
    case ExprKind::kCompare:
      e = absl::StrCat("(", in(0), " ", CompareOperator(op.direction), " ",
                       in(1), ")");
      break;
    case ExprKind::kSelect:
      e = absl::StrCat("(", in(0), " ? ", in(1), " : ", in(2), ")");
      break;
    case ExprKind::kConvert:
      e = ConvertExpr(type_of(0), op.type,
                      op.excess ? Round(type_of(0), in(0)) : in(0));
      break;
  }
  return absl::StrCat("const ", ComputeType(op.type), " ", Name(id), " = ", e,
                      ";");
}

std::string ProgramEmitter::LoopBody(const LoopLayout& layout) const {
  if (!layout.group_blocks.empty()) return GroupLoops(layout.group_blocks);
  // Unrolled loops cover a multiple of unroll * blockDim.x elements a pass
  // (LoopUnroll), so their elements need no bounds test.
  const int unroll = layout.unroll;
  const char* t = unroll > 1 ? "t" : "i";
  const std::string step =
      unroll > 1 ? absl::StrCat("blockDim.x * ", unroll) : "blockDim.x";
  std::string body =
      absl::StrCat("  for (idx_t ", t, " = (idx_t)blockIdx.x * ", step,
                   " + threadIdx.x; ", t, " < ", program_.LoopExtent(), "; ", t,
                   " += (idx_t)gridDim.x * ", step, ") {\n");
  std::string indent = "    ";
  if (unroll > 1) {
    absl::StrAppend(&body, "#pragma unroll\n    for (idx_t u = 0; u < ", unroll,
                    "; ++u) {\n",
                    "      const idx_t i = t + u * blockDim.x;\n");
    indent = "      ";
  }
  std::vector<int> roots;
  for (const KernelOutput& output : program_.outputs()) {
    roots.push_back(output.op);
  }
  EmitOpsWithLazySelects(program_.Closure(roots), roots, indent, &body);
  for (int k = 0; k < program_.outputs().size(); ++k) {
    absl::StrAppend(&body, indent,
                    Store(k, Name(program_.outputs()[k].op), "i"), "\n");
  }
  absl::StrAppend(&body, unroll > 1 ? "    }\n  }\n" : "  }\n");
  return body;
}

// A thread sees one group: its block's. It computes the group's ops that
// no element depends on once, then loops over the elements its block's
// share of the group leaves it. Numbering the groups' elements as one run
// instead made every element test which group it was in and compute the
// invariant ops again (LoopLayout says what that cost Adam). Guarding the
// smaller groups inside the largest one's range, before that, left their
// threads updating every parameter in turn (93 us for Adam on an H100).
std::string ProgramEmitter::GroupLoops(
    const std::vector<int64_t>& group_blocks) const {
  const auto groups = program_.OutputGroups();
  CHECK_EQ(groups.size(), group_blocks.size());
  const std::vector<bool> element = program_.ElementOps();
  std::vector<bool> hoisted(element.size(), false);
  std::string body = "  ";
  int64_t first_block = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    const auto& [count, outputs] = groups[g];
    const int64_t blocks = group_blocks[g];
    if (g + 1 < groups.size()) {
      absl::StrAppend(&body, "if (blockIdx.x < ", first_block + blocks, ") ");
    }
    absl::StrAppend(&body, "{\n    const idx_t first = ((idx_t)blockIdx.x - ",
                    first_block, ") * blockDim.x + threadIdx.x;\n");
    std::vector<int> roots;
    for (int k : outputs) roots.push_back(program_.outputs()[k].op);
    const std::vector<int> closure = program_.Closure(roots);
    std::vector<int> invariant;
    for (int id : closure) {
      hoisted[id] = !element[id];
      if (hoisted[id]) invariant.push_back(id);
    }
    EmitOps(invariant, "    ", &body);
    absl::StrAppend(&body, "    for (idx_t i = first; i < ", count,
                    "; i += (idx_t)", blocks, " * blockDim.x) {\n");
    EmitOpsWithLazySelects(closure, roots, "      ", &body, &hoisted);
    for (int k : outputs) {
      absl::StrAppend(&body, "      ",
                      Store(k, Name(program_.outputs()[k].op), "i"), "\n");
    }
    absl::StrAppend(&body, "    }\n  }",
                    g + 1 < groups.size() ? " else " : "\n");
    first_block += blocks;
  }
  return body;
}

namespace {

// Combines `value` into output 0 at `target`, atomically: several updates
// may land on one element, in no defined order.
std::string ScatterCombine(const KernelProgram& program,
                           const KernelParameters& parameters,
                           const std::string& value,
                           const std::string& target) {
  const PrimitiveType type = program.outputs()[0].buffer.type;
  const std::string element =
      absl::StrCat("p", parameters.output_param[0], "[", target, "]");
  const ScalarFunction* combiner = program.combiner();
  if (combiner == nullptr) {
    return absl::StrCat(element, " = ", StoreExpr(type, value), ";");
  }
  const HloOpcode opcode = program.combiner_opcode();
  if (type == PrimitiveType::PRED) {
    // Idempotent stores: or-like combiners only ever set, and-like clear.
    const bool sets = opcode == HloOpcode::kAdd || opcode == HloOpcode::kOr ||
                      opcode == HloOpcode::kMaximum;
    return sets ? absl::StrCat("if (", value, ") ", element, " = 1;")
                : absl::StrCat("if (!", value, ") ", element, " = 0;");
  }
  if (opcode == HloOpcode::kAdd &&
      (type == PrimitiveType::F32 || type == PrimitiveType::S32)) {
    return absl::StrCat("atomicAdd(&", element, ", ", value, ");");
  }
  if (type == PrimitiveType::S32 &&
      (opcode == HloOpcode::kMaximum || opcode == HloOpcode::kMinimum)) {
    return absl::StrCat(
        opcode == HloOpcode::kMaximum ? "atomicMax(&" : "atomicMin(&", element,
        ", ", value, ");");
  }
  const std::string combined =
      CallExpr(*combiner, type, {LoadExpr(type, "old_value"), value});
  if (type == PrimitiveType::F32 || type == PrimitiveType::S32) {
    const bool is_float = type == PrimitiveType::F32;
    return absl::StrCat(
        "unsigned int* word = (unsigned int*)&", element, ";\n",
        "        unsigned int seen = *word, assumed;\n",
        "        do {\n          assumed = seen;\n", "          const ",
        is_float ? "float" : "int",
        " old_value = ", is_float ? "__uint_as_float(assumed)" : "(int)assumed",
        ";\n", "          const ", ComputeType(type), " next = ", combined,
        ";\n", "          seen = atomicCAS(word, assumed, ",
        is_float ? "__float_as_uint(next)" : "(unsigned int)next", ");\n",
        "        } while (seen != assumed);");
  }
  // 16-bit floats: a compare-and-swap of the aligned 32-bit word holding
  // the element, the other half written back as it was.
  return absl::StrCat(
      "unsigned long long address = (unsigned long long)&", element, ";\n",
      "        unsigned int* word = (unsigned int*)(address & ~3ull);\n",
      "        const unsigned int shift = (address & 2ull) ? 16u : 0u;\n",
      "        unsigned int seen = *word, assumed;\n",
      "        do {\n          assumed = seen;\n",
      "          const unsigned short old_value = (unsigned short)(assumed >> "
      "shift);\n",
      "          const unsigned int next = ", StoreExpr(type, combined), ";\n",
      "          seen = atomicCAS(word, assumed, (assumed & ~(0xffffu << "
      "shift)) "
      "| (next << shift));\n",
      "        } while (seen != assumed);");
}

}  // namespace

std::string ProgramEmitter::ScatterBody() const {
  const int value = program_.outputs()[0].op;
  std::string body = absl::StrCat(
      "  for (idx_t i = (idx_t)blockIdx.x * blockDim.x + threadIdx.x; i < ",
      program_.update_elements(), "; i += (idx_t)gridDim.x * blockDim.x) {\n");
  EmitOps(program_.Closure({value, program_.scatter_target_op(),
                            program_.scatter_valid_op()}),
          "    ", &body);
  absl::StrAppend(&body, "    if (", Name(program_.scatter_valid_op()),
                  ") {\n      ",
                  ScatterCombine(program_, parameters_, Name(value),
                                 Name(program_.scatter_target_op())),
                  "\n    }\n  }\n");
  return body;
}

ProgramEmitter::ReduceParts ProgramEmitter::SplitReduce() const {
  std::vector<bool> inner = program_.InnerOps();
  std::vector<bool> epilogue = program_.EpilogueOps();
  ReduceParts parts;
  for (int id : program_.Closure({program_.init_op(), program_.value_op(),
                                  program_.outputs()[0].op})) {
    if (program_.op(id).kind == ExprKind::kReducedValue) {
      parts.reduced = id;
    } else if (epilogue[id]) {
      parts.epilogue.push_back(id);
    } else {
      (inner[id] ? parts.inner : parts.outer).push_back(id);
    }
  }
  return parts;
}

std::string ProgramEmitter::FinishReduce(const ReduceParts& parts,
                                         const std::string& acc_expr,
                                         const std::string& indent) const {
  std::string text;
  if (parts.reduced >= 0) {
    absl::StrAppend(&text, indent, "const ",
                    ComputeType(program_.op(program_.value_op()).type), " ",
                    Name(parts.reduced), " = ", acc_expr, ";\n");
  }
  EmitOps(parts.epilogue, indent, &text);
  const std::string result = Name(program_.outputs()[0].op);
  absl::StrAppend(&text, indent, Store(0, result, "i"), "\n");
  const std::string keep = Keep(0, result);
  if (!keep.empty()) absl::StrAppend(&text, indent, keep, "\n");
  return text;
}

std::string ProgramEmitter::ReduceOutput(const ReduceParts& parts,
                                         const std::string& indent) const {
  const int value = program_.value_op();
  const PrimitiveType type = program_.op(value).type;
  std::string body;
  EmitOps(parts.outer, indent, &body);
  absl::StrAppend(&body, indent, ComputeType(type),
                  " acc = ", Name(program_.init_op()), ";\n", indent,
                  "for (idx_t r = 0; r < ", program_.reduced_elements(),
                  "; ++r) {\n");
  EmitOps(parts.inner, indent + "  ", &body);
  absl::StrAppend(&body, indent, "  acc = ", Reduce("acc", Name(value)), ";\n",
                  indent, "}\n", FinishReduce(parts, "acc", indent));
  return body;
}

std::string ProgramEmitter::ReduceRow(int lanes, int rows_per_block) const {
  // A thread per row folds in order from init, as the host does.
  if (lanes == 1) {
    return absl::StrCat("    if (live) {\n      const idx_t i = row;\n",
                        ReduceOutput(SplitReduce(), "      "),
                        "    }\n    __syncthreads();\n");
  }
  return absl::StrCat("    {\n    __shared__ ",
                      ComputeType(program_.op(program_.value_op()).type),
                      " partial[", rows_per_block, "][", lanes,
                      "];\n    const idx_t i = row;\n",
                      GroupReduce(SplitReduce(), "x", lanes, "partial[y][", "]",
                                  /*warp_lanes=*/lanes % 32 == 0),
                      "    }\n");
}

std::string ProgramEmitter::LoopRow(int64_t row_length, int lanes) const {
  std::string body;
  AppendStridedLoop("j", "x", row_length, lanes, "    ", &body,
                    /*first=*/nullptr);
  absl::StrAppend(&body, "      const idx_t i = row * ", row_length, " + j;\n");
  std::vector<int> roots;
  for (const KernelOutput& output : program_.outputs()) {
    roots.push_back(output.op);
  }
  EmitOps(program_.Closure(roots), "      ", &body);
  for (int k = 0; k < program_.outputs().size(); ++k) {
    const std::string keep = Keep(k, Name(program_.outputs()[k].op));
    if (!keep.empty()) absl::StrAppend(&body, "      ", keep, "\n");
  }
  absl::StrAppend(&body, "      if (live) {\n");
  for (int k = 0; k < program_.outputs().size(); ++k) {
    absl::StrAppend(&body, "        ",
                    Store(k, Name(program_.outputs()[k].op), "i"), "\n");
  }
  // The next stage may read what other lanes of the row stored.
  absl::StrAppend(&body, "      }\n    }\n    __syncthreads();\n");
  return body;
}

std::string ProgramEmitter::ReduceBody(
    const ReductionStrategy& strategy) const {
  const int64_t outputs = program_.outputs()[0].buffer.element_count;
  const ReduceParts parts = SplitReduce();
  const char* ctype = ComputeType(program_.op(program_.value_op()).type);
  std::string body;
  if (strategy.column || strategy.row_groups > 1) {
    return TiledReduceBody(strategy);
  }
  if (!strategy.block_per_output) {
    absl::StrAppend(
        &body,
        "  for (idx_t i = (idx_t)blockIdx.x * blockDim.x + threadIdx.x; i < ",
        outputs, "; i += (idx_t)gridDim.x * blockDim.x) {\n",
        ReduceOutput(parts, "    "), "  }\n");
    return body;
  }
  const int threads = strategy.threads_per_block;
  absl::StrAppend(&body, "  __shared__ ", ctype, " partial[", threads, "];\n",
                  "  const idx_t t = threadIdx.x;\n",
                  "  for (idx_t i = blockIdx.x; i < ", outputs,
                  "; i += gridDim.x) {\n    const bool live = true;\n",
                  GroupReduce(parts, "t", threads, "partial[", "]",
                              /*warp_lanes=*/threads % 32 == 0),
                  "  }\n");
  return body;
}

// Partials halve in shared memory; in a group whose lanes fill whole
// warps, only down to 32, and the last five halvings go through warp
// shuffles, with no barrier between them: lane i takes lane i ^ h's
// partial, which pairs lanes as the shared-memory halving does, in the
// same order (the reduced lanes' own value first), so the result is the
// same.
void ProgramEmitter::HalveGroup(int64_t valid, bool warp_lanes,
                                const std::string& fold,
                                const std::string& prefix,
                                const std::string& suffix, const char* ctype,
                                std::string* body) const {
  std::string value = "acc";
  std::string indent = "    ";
  if (!warp_lanes || valid > 32 || !IsPowerOfTwo(valid)) {
    absl::StrAppend(body, "    ", prefix, fold, suffix,
                    " = acc;\n    __syncthreads();\n");
    valid =
        HalvePartials(valid, warp_lanes ? 32 : 1, fold, prefix, suffix, body);
    if (!warp_lanes) return;
    // The group's first warp (uniform: groups are whole warps) reads on.
    absl::StrAppend(body, "    if (", fold, " < 32) {\n      ", ctype,
                    " lane_acc = ", prefix, fold, suffix, ";\n");
    value = "lane_acc";
    indent = "      ";
  }
  for (int64_t half = valid / 2; half >= 1; half /= 2) {
    absl::StrAppend(
        body, indent, value, " = ",
        Reduce(value, absl::StrCat("xl_shfl_xor(", value, ", ", half, ")")),
        ";\n");
  }
  absl::StrAppend(body, indent, "if (", fold, " == 0) ", prefix, "0", suffix,
                  " = ", value, ";\n");
  if (value != "acc") absl::StrAppend(body, "    }\n");
}

std::string ProgramEmitter::GroupReduce(const ReduceParts& parts,
                                        const std::string& fold, int folds,
                                        const std::string& prefix,
                                        const std::string& suffix,
                                        bool warp_lanes) const {
  const int64_t extent = program_.reduced_elements();
  const int init = program_.init_op();
  const int value = program_.value_op();
  const PrimitiveType type = program_.op(value).type;
  std::string body;
  EmitOps(parts.outer, "    ", &body);
  // Each thread folds a strided share of the elements; the init value is
  // applied once, at the end, so it need not be an identity. A share's
  // first element enters the fold rounded to the reduction's type, as
  // every later one does through the reducer (it may carry excess
  // precision).
  absl::StrAppend(&body, "    ", ComputeType(type), " acc = ", Name(init),
                  ";\n");
  std::string first;
  AppendStridedLoop("r", fold, extent, folds, "    ", &body, &first);
  EmitOps(parts.inner, "      ", &body);
  absl::StrAppend(&body, "      acc = ", first, " ? ", Round(type, Name(value)),
                  " : ", Reduce("acc", Name(value)), ";\n", "    }\n");
  HalveGroup(std::min<int64_t>(extent, folds), warp_lanes, fold, prefix, suffix,
             ComputeType(type), &body);
  // Over no elements the result is init itself.
  const std::string folded =
      extent == 0 ? Name(init)
                  : Reduce(Name(init), absl::StrCat(prefix, 0, suffix));
  absl::StrAppend(&body, "    if (", fold, " == 0 && live) {\n",
                  FinishReduce(parts, folded, "      "),
                  "    }\n    __syncthreads();\n");
  return body;
}

// A block is a grid of lanes x rows threads over several outputs.
// Columns: lane x of row y holds output base + x, and the rows fold
// strided shares of its reduced elements. Grouped rows: row y holds output
// base + y, and its lanes fold strided shares of the elements, which lie
// adjacent in a row, so a warp's loads coalesce. Then the folding threads
// halve in shared memory. Threads past the last output compute at the
// last one (every index stays in bounds) and store nothing.
std::string ProgramEmitter::TiledReduceBody(
    const ReductionStrategy& strategy) const {
  const bool column = strategy.column;
  const int lanes = column ? strategy.column_lanes
                           : strategy.threads_per_block / strategy.row_groups;
  const int rows = column ? strategy.column_rows : strategy.row_groups;
  const int per_block = column ? lanes : rows;
  // The thread's output in the block, and its share of the elements.
  const char* output = column ? "x" : "y";
  const int64_t outputs = program_.outputs()[0].buffer.element_count;
  const char* ctype = ComputeType(program_.op(program_.value_op()).type);
  std::string body = absl::StrCat(
      "  __shared__ ", ctype, " partial[", rows, "][", lanes, "];\n",
      "  const idx_t x = threadIdx.x % ", lanes, ", y = threadIdx.x / ", lanes,
      ";\n", "  for (idx_t base = (idx_t)blockIdx.x * ", per_block, "; base < ",
      outputs, "; base += (idx_t)gridDim.x * ", per_block, ") {\n",
      "    const bool live = base + ", output, " < ", outputs, ";\n",
      "    const idx_t i = live ? base + ", output, " : ", outputs - 1, ";\n");
  absl::StrAppend(
      &body,
      column ? GroupReduce(SplitReduce(), "y", rows, "partial[", "][x]",
                           /*warp_lanes=*/false)
             : GroupReduce(SplitReduce(), "x", lanes, "partial[y][", "]",
                           /*warp_lanes=*/lanes % 32 == 0),
      "  }\n");
  return body;
}

}  // namespace xla_lite::gpu::cuda_internal
