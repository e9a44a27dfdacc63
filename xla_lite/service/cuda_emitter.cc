#include "xla_lite/service/cuda_emitter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "glog/logging.h"

namespace xla_lite::gpu {
namespace {

// Below this reduced extent a thread per output loops over the elements;
// from it on a block per output shares the work.
constexpr int64_t kBlockReductionMinExtent = 64;
constexpr int kLoopThreads = 256;
constexpr int64_t kMaxBlocks = 65535;

// Helpers every kernel may use. Semantics match the host interpreter:
// max/min propagate NaN, integer division by zero gives -1 (remainder: the
// dividend), float to int conversion saturates with NaN -> 0, and 16-bit
// floats are rounded to nearest even after every operation.
constexpr char kPreamble[] = R"(
static __device__ __forceinline__ float xl_maxf(float a, float b) { return (a >= b || a != a) ? a : b; }
static __device__ __forceinline__ float xl_minf(float a, float b) { return (a <= b || a != a) ? a : b; }
static __device__ __forceinline__ int xl_maxi(int a, int b) { return a > b ? a : b; }
static __device__ __forceinline__ int xl_mini(int a, int b) { return a < b ? a : b; }
static __device__ __forceinline__ float xl_signf(float a) { return a > 0.0f ? 1.0f : (a < 0.0f ? -1.0f : a); }
static __device__ __forceinline__ int xl_divi(int a, int b) { return b == 0 ? -1 : ((b == -1) ? (int)(0u - (unsigned int)a) : a / b); }
static __device__ __forceinline__ int xl_remi(int a, int b) { return b == 0 ? a : ((b == -1) ? 0 : a % b); }
static __device__ __forceinline__ int xl_powi(int a, int b) {
  if (b < 0) return a == 1 ? 1 : (a == -1 ? ((b & 1) ? -1 : 1) : 0);
  unsigned int result = 1u, base = (unsigned int)a;
  while (b > 0) { if (b & 1) result *= base; base *= base; b >>= 1; }
  return (int)result;
}
static __device__ __forceinline__ int xl_f2i(float x) {
  return x != x ? 0 : (x >= 2147483648.0f ? 2147483647 : (x <= -2147483648.0f ? (-2147483647 - 1) : (int)x));
}
static __device__ __forceinline__ float xl_bf16_to_f32(unsigned short h) { return __uint_as_float(((unsigned int)h) << 16); }
static __device__ __forceinline__ unsigned short xl_f32_to_bf16(float f) {
  unsigned int u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (unsigned short)(u >> 16);
}
static __device__ __forceinline__ float xl_f16_to_f32(unsigned short h) {
  unsigned int sign = ((unsigned int)h & 0x8000u) << 16;
  unsigned int e = ((unsigned int)h >> 10) & 0x1fu, m = (unsigned int)h & 0x3ffu;
  if (e == 0u) { float v = (float)m * 5.9604644775390625e-8f; return sign ? -v : v; }
  if (e == 31u) return __uint_as_float(sign | 0x7f800000u | (m << 13));
  return __uint_as_float(sign | ((e + 112u) << 23) | (m << 13));
}
static __device__ __forceinline__ unsigned short xl_f32_to_f16(float f) {
  unsigned int x = __float_as_uint(f);
  unsigned int sign = (x >> 16) & 0x8000u, mag = x & 0x7fffffffu;
  if (mag > 0x7f800000u) return (unsigned short)(sign | 0x7e00u);
  if (mag >= 0x477ff000u) return (unsigned short)(sign | 0x7c00u);
  if (mag < 0x38800000u) return (unsigned short)(sign | (unsigned int)rintf(__uint_as_float(mag) * 16777216.0f));
  unsigned int r = mag - 0x38000000u;
  r += 0xfffu + ((r >> 13) & 1u);
  return (unsigned short)(sign | (r >> 13));
}
static __device__ __forceinline__ float xl_round_bf16(float f) { return xl_bf16_to_f32(xl_f32_to_bf16(f)); }
static __device__ __forceinline__ float xl_round_f16(float f) { return xl_f16_to_f32(xl_f32_to_f16(f)); }
)";

const char* ComputeType(PrimitiveType type) {
  if (primitive_util::IsFloatingPointType(type)) return "float";
  return type == PrimitiveType::PRED ? "bool" : "int";
}

const char* StorageType(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::F32:
      return "float";
    case PrimitiveType::BF16:
    case PrimitiveType::F16:
      return "unsigned short";
    case PrimitiveType::PRED:
      return "unsigned char";
    default:
      return "int";
  }
}

std::string Round(PrimitiveType type, const std::string& e) {
  if (type == PrimitiveType::BF16)
    return absl::StrCat("xl_round_bf16(", e, ")");
  if (type == PrimitiveType::F16) return absl::StrCat("xl_round_f16(", e, ")");
  return e;
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
    return f > 0 ? "__uint_as_float(0x7f800000u)" : "__uint_as_float(0xff800000u)";
  }
  std::string text = absl::StrFormat("%.9g", f);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return absl::StrCat("(", text, "f)");
}

std::string ConstantExpr(const ExprOp& op) {
  if (primitive_util::IsFloatingPointType(op.type))
    return FloatLiteral(op.value);
  if (op.type == PrimitiveType::PRED) return op.value != 0 ? "true" : "false";
  int32_t v = static_cast<int32_t>(op.value);
  if (v == INT32_MIN) return "(-2147483647 - 1)";
  return absl::StrCat("(", v, ")");
}

std::string UnaryExpr(HloOpcode opcode, PrimitiveType type,
                      PrimitiveType operand_type, const std::string& a) {
  if (opcode == HloOpcode::kNot) {
    return type == PrimitiveType::PRED ? absl::StrCat("(!", a, ")")
                                       : absl::StrCat("(~", a, ")");
  }
  if (opcode == HloOpcode::kIsFinite) return absl::StrCat("(isfinite(", a, ") != 0)");
  if (!primitive_util::IsFloatingPointType(operand_type)) {
    switch (opcode) {
      case HloOpcode::kAbs:
        return absl::StrCat("(", a, " < 0 ? (int)(0u - (unsigned int)", a,
                            ") : ", a, ")");
      case HloOpcode::kNegate:
        return absl::StrCat("(int)(0u - (unsigned int)", a, ")");
      case HloOpcode::kSign:
        return absl::StrCat("((", a, " > 0) - (", a, " < 0))");
      default:
        LOG(FATAL) << "integer " << HloOpcodeString(opcode);
    }
  }
  std::string e;
  switch (opcode) {
    case HloOpcode::kAbs: e = absl::StrCat("fabsf(", a, ")"); break;
    case HloOpcode::kCeil: e = absl::StrCat("ceilf(", a, ")"); break;
    case HloOpcode::kFloor: e = absl::StrCat("floorf(", a, ")"); break;
    case HloOpcode::kCos: e = absl::StrCat("cosf(", a, ")"); break;
    case HloOpcode::kSin: e = absl::StrCat("sinf(", a, ")"); break;
    case HloOpcode::kExp: e = absl::StrCat("expf(", a, ")"); break;
    case HloOpcode::kExpm1: e = absl::StrCat("expm1f(", a, ")"); break;
    case HloOpcode::kLog: e = absl::StrCat("logf(", a, ")"); break;
    case HloOpcode::kLog1p: e = absl::StrCat("log1pf(", a, ")"); break;
    case HloOpcode::kLogistic:
      e = absl::StrCat("(1.0f / (1.0f + expf(-", a, ")))");
      break;
    case HloOpcode::kNegate: e = absl::StrCat("(-", a, ")"); break;
    case HloOpcode::kRsqrt: e = absl::StrCat("(1.0f / sqrtf(", a, "))"); break;
    case HloOpcode::kSign: e = absl::StrCat("xl_signf(", a, ")"); break;
    case HloOpcode::kSqrt: e = absl::StrCat("sqrtf(", a, ")"); break;
    case HloOpcode::kTanh: e = absl::StrCat("tanhf(", a, ")"); break;
    default:
      LOG(FATAL) << "unary " << HloOpcodeString(opcode);
  }
  return Round(type, e);
}

std::string BinaryExpr(HloOpcode opcode, PrimitiveType type,
                       const std::string& a, const std::string& b) {
  if (type == PrimitiveType::PRED) {
    switch (opcode) {
      case HloOpcode::kAnd:
      case HloOpcode::kMinimum:
      case HloOpcode::kMultiply:
        return absl::StrCat("(", a, " && ", b, ")");
      case HloOpcode::kOr:
      case HloOpcode::kMaximum:
      case HloOpcode::kAdd:
        return absl::StrCat("(", a, " || ", b, ")");
      case HloOpcode::kXor:
        return absl::StrCat("(", a, " != ", b, ")");
      default:
        LOG(FATAL) << "pred " << HloOpcodeString(opcode);
    }
  }
  if (!primitive_util::IsFloatingPointType(type)) {
    auto wrap = [&](const char* op) {
      return absl::StrCat("(int)((unsigned int)", a, " ", op,
                          " (unsigned int)", b, ")");
    };
    switch (opcode) {
      case HloOpcode::kAdd: return wrap("+");
      case HloOpcode::kSubtract: return wrap("-");
      case HloOpcode::kMultiply: return wrap("*");
      case HloOpcode::kDivide: return absl::StrCat("xl_divi(", a, ", ", b, ")");
      case HloOpcode::kRemainder: return absl::StrCat("xl_remi(", a, ", ", b, ")");
      case HloOpcode::kMaximum: return absl::StrCat("xl_maxi(", a, ", ", b, ")");
      case HloOpcode::kMinimum: return absl::StrCat("xl_mini(", a, ", ", b, ")");
      case HloOpcode::kPower: return absl::StrCat("xl_powi(", a, ", ", b, ")");
      case HloOpcode::kAnd: return absl::StrCat("(", a, " & ", b, ")");
      case HloOpcode::kOr: return absl::StrCat("(", a, " | ", b, ")");
      case HloOpcode::kXor: return absl::StrCat("(", a, " ^ ", b, ")");
      default:
        LOG(FATAL) << "integer " << HloOpcodeString(opcode);
    }
  }
  std::string e;
  switch (opcode) {
    case HloOpcode::kAdd: e = absl::StrCat("(", a, " + ", b, ")"); break;
    case HloOpcode::kSubtract: e = absl::StrCat("(", a, " - ", b, ")"); break;
    case HloOpcode::kMultiply: e = absl::StrCat("(", a, " * ", b, ")"); break;
    case HloOpcode::kDivide: e = absl::StrCat("(", a, " / ", b, ")"); break;
    case HloOpcode::kMaximum: e = absl::StrCat("xl_maxf(", a, ", ", b, ")"); break;
    case HloOpcode::kMinimum: e = absl::StrCat("xl_minf(", a, ", ", b, ")"); break;
    case HloOpcode::kPower: e = absl::StrCat("powf(", a, ", ", b, ")"); break;
    case HloOpcode::kRemainder: e = absl::StrCat("fmodf(", a, ", ", b, ")"); break;
    default:
      LOG(FATAL) << "float " << HloOpcodeString(opcode);
  }
  return Round(type, e);
}

const char* CompareOperator(ComparisonDirection direction) {
  switch (direction) {
    case ComparisonDirection::kEq: return "==";
    case ComparisonDirection::kNe: return "!=";
    case ComparisonDirection::kLt: return "<";
    case ComparisonDirection::kLe: return "<=";
    case ComparisonDirection::kGt: return ">";
    case ComparisonDirection::kGe: return ">=";
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
    if (from == PrimitiveType::PRED)
      return absl::StrCat("(", a, " ? 1.0f : 0.0f)");
    return Round(to, primitive_util::IsFloatingPointType(from)
                         ? a
                         : absl::StrCat("(float)", a));
  }
  if (primitive_util::IsFloatingPointType(from))
    return absl::StrCat("xl_f2i(", a, ")");
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
    constant += d.offset * strides[t];
    if (d.source < 0) continue;
    std::string c = CoordinateExpr(sources[d.source],
                                   remap.sources[d.source], d.dim);
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

class Emitter {
 public:
  Emitter(const KernelProgram& program, const KernelParameters& parameters)
      : program_(program), parameters_(parameters) {}

  std::string Name(int id) const {
    const ExprOp& op = program_.op(id);
    if (op.kind == ExprKind::kIndex) return "i";
    if (op.kind == ExprKind::kReduceIndex) return "r";
    return absl::StrCat(op.IsIndex() ? "x" : "v", id);
  }

  // One statement defining op `id`.
  std::string Statement(int id) const {
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
      case ExprKind::kLoad:
        e = LoadExpr(op.type,
                     absl::StrCat("p", parameters_.input_param[op.input], "[",
                                  in(0), "]"));
        break;
      case ExprKind::kConstant:
        e = ConstantExpr(op);
        break;
      case ExprKind::kIndexToValue:
        e = ConvertExpr(PrimitiveType::S32, op.type,
                        absl::StrCat("(int)", in(0)));
        break;
      case ExprKind::kUnary:
        e = UnaryExpr(op.opcode, op.type, type_of(0), in(0));
        break;
      case ExprKind::kBinary:
        e = BinaryExpr(op.opcode, op.type, in(0), in(1));
        break;
      case ExprKind::kCompare:
        e = absl::StrCat("(", in(0), " ", CompareOperator(op.direction), " ",
                         in(1), ")");
        break;
      case ExprKind::kSelect:
        e = absl::StrCat("(", in(0), " ? ", in(1), " : ", in(2), ")");
        break;
      case ExprKind::kClamp:
        e = BinaryExpr(HloOpcode::kMinimum, op.type,
                       BinaryExpr(HloOpcode::kMaximum, op.type, in(1), in(0)),
                       in(2));
        break;
      case ExprKind::kConvert:
        e = ConvertExpr(type_of(0), op.type, in(0));
        break;
    }
    return absl::StrCat("const ", ComputeType(op.type), " ", Name(id), " = ",
                        e, ";");
  }

  void EmitOps(const std::vector<int>& ids, const std::string& indent,
               std::string* out) const {
    for (int id : ids) {
      std::string statement = Statement(id);
      if (!statement.empty()) absl::StrAppend(out, indent, statement, "\n");
    }
  }

  std::string Signature(const std::string& name) const {
    std::vector<std::string> params;
    for (int p = 0; p < parameters_.count(); ++p) {
      params.push_back(absl::StrCat(parameters_.written[p] ? "" : "const ",
                                    StorageType(parameters_.types[p]),
                                    "* __restrict__ p", p));
    }
    return absl::StrCat("extern \"C\" __global__ void ", name, "(",
                        absl::StrJoin(params, ", "), ")");
  }

  std::string Store(int output, const std::string& value,
                    const std::string& index) const {
    const KernelOutput& out = program_.outputs()[output];
    return absl::StrCat("p", parameters_.output_param[output], "[", index,
                        "] = ", StoreExpr(out.buffer.type, value), ";");
  }

  std::string LoopBody() const;
  std::string ReduceBody(const ReductionStrategy& strategy) const;
  // Row kernels' stages, for the row in `row`.
  std::string LoopRow(int64_t row_length) const;
  std::string ReduceRow() const;

 private:
  // The reduce program's ops, split by when they run.
  struct ReduceParts {
    std::vector<int> outer, inner, epilogue;
    int reduced = -1;
  };
  ReduceParts SplitReduce() const;
  // One thread's whole reduction for output `i` (in scope).
  std::string ReduceOutput(const ReduceParts& parts,
                           const std::string& indent) const;
  // Defines the reduced value from `acc_expr`, then the epilogue and store.
  std::string FinishReduce(const ReduceParts& parts,
                           const std::string& acc_expr,
                           const std::string& indent) const;

  const KernelProgram& program_;
  const KernelParameters& parameters_;
};

std::string Emitter::LoopBody() const {
  int64_t n = program_.MaxOutputElements();
  std::string body = absl::StrCat(
      "  for (idx_t i = (idx_t)blockIdx.x * blockDim.x + threadIdx.x; i < ",
      n, "; i += (idx_t)gridDim.x * blockDim.x) {\n");
  // Outputs of one size share their ops; a smaller size is guarded.
  std::map<int64_t, std::vector<int>, std::greater<int64_t>> groups;
  for (int k = 0; k < program_.outputs().size(); ++k) {
    groups[program_.outputs()[k].buffer.element_count].push_back(k);
  }
  for (const auto& [count, outputs] : groups) {
    bool guarded = count < n;
    std::string indent = guarded ? "      " : "    ";
    absl::StrAppend(&body, guarded ? absl::StrCat("    if (i < ", count, ") {\n")
                                   : "    {\n");
    std::vector<int> roots;
    for (int k : outputs) roots.push_back(program_.outputs()[k].op);
    EmitOps(program_.Closure(roots), indent, &body);
    for (int k : outputs) {
      absl::StrAppend(&body, indent,
                      Store(k, Name(program_.outputs()[k].op), "i"), "\n");
    }
    absl::StrAppend(&body, "    }\n");
  }
  absl::StrAppend(&body, "  }\n");
  return body;
}

Emitter::ReduceParts Emitter::SplitReduce() const {
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

std::string Emitter::FinishReduce(const ReduceParts& parts,
                                  const std::string& acc_expr,
                                  const std::string& indent) const {
  std::string text;
  if (parts.reduced >= 0) {
    absl::StrAppend(&text, indent, "const ",
                    ComputeType(program_.op(program_.value_op()).type), " ",
                    Name(parts.reduced), " = ", acc_expr, ";\n");
  }
  EmitOps(parts.epilogue, indent, &text);
  absl::StrAppend(&text, indent,
                  Store(0, Name(program_.outputs()[0].op), "i"), "\n");
  return text;
}

std::string Emitter::ReduceOutput(const ReduceParts& parts,
                                  const std::string& indent) const {
  const int value = program_.value_op();
  const PrimitiveType type = program_.op(value).type;
  std::string body;
  EmitOps(parts.outer, indent, &body);
  absl::StrAppend(&body, indent, ComputeType(type), " acc = ",
                  Name(program_.init_op()), ";\n", indent,
                  "for (idx_t r = 0; r < ", program_.reduced_elements(),
                  "; ++r) {\n");
  EmitOps(parts.inner, indent + "  ", &body);
  absl::StrAppend(&body, indent, "  acc = ",
                  BinaryExpr(program_.reducer(), type, "acc", Name(value)),
                  ";\n", indent, "}\n", FinishReduce(parts, "acc", indent));
  return body;
}

std::string Emitter::ReduceRow() const {
  return absl::StrCat("    {\n      const idx_t i = row;\n",
                      ReduceOutput(SplitReduce(), "      "), "    }\n");
}

std::string Emitter::LoopRow(int64_t row_length) const {
  std::string body = absl::StrCat(
      "    for (idx_t j = 0; j < ", row_length, "; ++j) {\n",
      "      const idx_t i = row * ", row_length, " + j;\n");
  std::vector<int> roots;
  for (const KernelOutput& output : program_.outputs()) {
    roots.push_back(output.op);
  }
  EmitOps(program_.Closure(roots), "      ", &body);
  for (int k = 0; k < program_.outputs().size(); ++k) {
    absl::StrAppend(&body, "      ",
                    Store(k, Name(program_.outputs()[k].op), "i"), "\n");
  }
  absl::StrAppend(&body, "    }\n");
  return body;
}

std::string Emitter::ReduceBody(const ReductionStrategy& strategy) const {
  const int64_t outputs = program_.outputs()[0].buffer.element_count;
  const int64_t extent = program_.reduced_elements();
  const int init = program_.init_op();
  const int value = program_.value_op();
  const PrimitiveType type = program_.op(value).type;
  const HloOpcode reducer = program_.reducer();
  const ReduceParts parts = SplitReduce();
  const char* ctype = ComputeType(type);
  std::string body;
  if (!strategy.block_per_output) {
    absl::StrAppend(
        &body, "  for (idx_t i = (idx_t)blockIdx.x * blockDim.x + threadIdx.x; i < ",
        outputs, "; i += (idx_t)gridDim.x * blockDim.x) {\n",
        ReduceOutput(parts, "    "), "  }\n");
    return body;
  }
  const int threads = strategy.threads_per_block;
  absl::StrAppend(&body, "  __shared__ ", ctype, " partial[", threads, "];\n",
                  "  const idx_t t = threadIdx.x;\n",
                  "  for (idx_t i = blockIdx.x; i < ", outputs,
                  "; i += gridDim.x) {\n");
  EmitOps(parts.outer, "    ", &body);
  // Each thread folds a strided share of the elements; the init value is
  // applied once, at the end, so it need not be an identity.
  absl::StrAppend(&body, "    ", ctype, " acc = ", Name(init), ";\n",
                  "    for (idx_t r = t; r < ", extent, "; r += ", threads,
                  ") {\n");
  EmitOps(parts.inner, "      ", &body);
  absl::StrAppend(&body, "      acc = r == t ? ", Name(value), " : ",
                  BinaryExpr(reducer, type, "acc", Name(value)), ";\n",
                  "    }\n    partial[t] = acc;\n    __syncthreads();\n");
  // Lanes [0, valid) hold partial results; halve until one is left.
  int64_t valid = std::min<int64_t>(extent, threads);
  while (valid > 1) {
    int64_t half = 1;
    while (half * 2 < valid) half *= 2;
    absl::StrAppend(&body, "    if (t < ", valid - half, ") partial[t] = ",
                    BinaryExpr(reducer, type, "partial[t]",
                               absl::StrCat("partial[t + ", half, "]")),
                    ";\n    __syncthreads();\n");
    valid = half;
  }
  absl::StrAppend(
      &body, "    if (t == 0) {\n",
      FinishReduce(parts, BinaryExpr(reducer, type, Name(init), "partial[0]"),
                   "      "),
      "    }\n    __syncthreads();\n  }\n");
  return body;
}

bool NeedsWideIndex(const KernelProgram& program) {
  int64_t max = std::max<int64_t>(program.MaxOutputElements(),
                                  program.reduced_elements());
  for (const KernelBuffer& input : program.inputs()) {
    max = std::max(max, input.element_count);
  }
  return max >= (int64_t{1} << 30);
}

}  // namespace

ReductionStrategy ChooseReductionStrategy(const KernelProgram& program) {
  ReductionStrategy strategy;
  int64_t extent = program.reduced_elements();
  strategy.block_per_output = extent >= kBlockReductionMinExtent;
  int threads = 32;
  while (threads < extent && threads < 256) threads *= 2;
  strategy.threads_per_block = strategy.block_per_output ? threads : kLoopThreads;
  return strategy;
}

se::LaunchDimensions KernelLaunchDimensions(const KernelProgram& program) {
  if (program.kind() == KernelProgram::Kind::kReduce) {
    ReductionStrategy strategy = ChooseReductionStrategy(program);
    int64_t outputs = program.outputs()[0].buffer.element_count;
    if (strategy.block_per_output) {
      return se::LaunchDimensions(
          static_cast<uint32_t>(std::clamp<int64_t>(outputs, 1, kMaxBlocks)),
          strategy.threads_per_block);
    }
  }
  int64_t n = program.kind() == KernelProgram::Kind::kReduce
                  ? program.outputs()[0].buffer.element_count
                  : program.MaxOutputElements();
  int64_t blocks = (n + kLoopThreads - 1) / kLoopThreads;
  return se::LaunchDimensions(
      static_cast<uint32_t>(std::clamp<int64_t>(blocks, 1, kMaxBlocks)),
      kLoopThreads);
}

namespace {

// What every emitted source starts with: `title`, the programs it runs
// (as comments), the index type wide enough for all of them and the
// helper functions.
std::string Prelude(const std::string& title,
                    const std::vector<const KernelProgram*>& programs) {
  std::string text = absl::StrCat("// ", title);
  bool wide = false;
  for (const KernelProgram* program : programs) {
    absl::StrAppend(&text, "\n// ",
                    absl::StrJoin(absl::StrSplit(program->ToString(), '\n'),
                                  "\n// "));
    wide = wide || NeedsWideIndex(*program);
  }
  absl::StrAppend(&text, "\n",
                  wide ? "typedef unsigned long long idx_t;\n"
                       : "typedef unsigned int idx_t;\n",
                  kPreamble);
  return text;
}

}  // namespace

std::string EmitCudaRowKernel(const std::vector<RowKernelStage>& stages,
                              int64_t rows, const std::string& name) {
  CHECK(!stages.empty()) << name;
  std::vector<const KernelProgram*> programs;
  for (const RowKernelStage& stage : stages) {
    programs.push_back(stage.program.get());
  }
  std::string source = absl::StrCat(
      Prelude("Generated by xla_lite, a row kernel of stages:", programs),
      kAwaitProducersSource, "\n",
      Emitter(*stages.back().program, stages.back().parameters).Signature(name),
      " {\n  XL_AWAIT_PRODUCERS();\n  for (idx_t row = (idx_t)blockIdx.x * blockDim.x + threadIdx.x; "
      "row < ",
      rows, "; row += (idx_t)gridDim.x * blockDim.x) {\n");
  for (const RowKernelStage& stage : stages) {
    Emitter emitter(*stage.program, stage.parameters);
    absl::StrAppend(&source,
                    stage.program->kind() == KernelProgram::Kind::kReduce
                        ? emitter.ReduceRow()
                        : emitter.LoopRow(stage.row_length));
  }
  absl::StrAppend(&source, "  }\n}\n");
  return source;
}

se::LaunchDimensions RowKernelLaunchDimensions(int64_t rows) {
  int64_t threads = 32;
  while (threads < rows && threads < kLoopThreads) threads *= 2;
  int64_t blocks = (rows + threads - 1) / threads;
  return se::LaunchDimensions(
      static_cast<uint32_t>(std::clamp<int64_t>(blocks, 1, kMaxBlocks)),
      static_cast<uint32_t>(threads));
}

GemmEpilogueSource EmitCudaGemmEpilogue(const KernelProgram& program,
                                        const KernelParameters& parameters,
                                        const std::string& function) {
  CHECK(program.kind() == KernelProgram::Kind::kLoop) << function;
  Emitter emitter(program, parameters);
  int value = -1;
  for (int id = 0; id < program.ops().size(); ++id) {
    if (program.op(id).kind == ExprKind::kReducedValue) value = id;
  }
  CHECK_GE(value, 0) << function << ": an epilogue reads the product";
  std::vector<std::string> params = {
      absl::StrCat("idx_t i, float ", emitter.Name(value))};
  GemmEpilogueSource source;
  for (int p = 0; p < parameters.count(); ++p) {
    std::string param = absl::StrCat(parameters.written[p] ? "" : "const ",
                                     StorageType(parameters.types[p]),
                                     "* __restrict__ p", p);
    params.push_back(param);
    // The gemm's own operands come first: the kernel names them.
    if (p == 0 || p == 1) {
      absl::StrAppend(&source.arguments, p == 0 ? ", lhs" : ", rhs");
      continue;
    }
    absl::StrAppend(&source.parameters, ", ", param);
    absl::StrAppend(&source.arguments, ", p", p);
  }
  std::vector<int> roots;
  for (const KernelOutput& output : program.outputs()) {
    CHECK_EQ(output.buffer.element_count, program.MaxOutputElements())
        << function << ": every epilogue output covers the product";
    roots.push_back(output.op);
  }
  source.function = function;
  source.definitions = absl::StrCat(
      Prelude("Epilogue, from:", {&program}),
      "\nstatic __device__ __forceinline__ void ", function, "(",
      absl::StrJoin(params, ", "), ") {\n");
  emitter.EmitOps(program.Closure(roots), "  ", &source.definitions);
  for (int k = 0; k < program.outputs().size(); ++k) {
    absl::StrAppend(&source.definitions, "  ",
                    emitter.Store(k, emitter.Name(program.outputs()[k].op), "i"),
                    "\n");
  }
  absl::StrAppend(&source.definitions, "}\n");
  return source;
}

std::string EmitCudaKernel(const KernelProgram& program,
                           const KernelParameters& parameters,
                           const std::string& name) {
  Emitter emitter(program, parameters);
  std::string source = absl::StrCat(
      Prelude("Generated by xla_lite from:", {&program}),
      kAwaitProducersSource, "\n", emitter.Signature(name),
      " {\n  XL_AWAIT_PRODUCERS();\n");
  if (program.kind() == KernelProgram::Kind::kLoop) {
    absl::StrAppend(&source, emitter.LoopBody());
  } else {
    absl::StrAppend(&source,
                    emitter.ReduceBody(ChooseReductionStrategy(program)));
  }
  absl::StrAppend(&source, "}\n");
  return source;
}

}  // namespace xla_lite::gpu
