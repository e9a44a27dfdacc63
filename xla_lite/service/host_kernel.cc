#include "xla_lite/service/host_kernel.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/float16.h"
#include "xla_lite/hlo/literal.h"

namespace xla_lite::gpu {
namespace {

constexpr int64_t kLanes = 256;

// Scalar semantics shared with the CUDA preamble (see cuda_emitter.cc).
float MaxF(float a, float b) { return (a >= b || a != a) ? a : b; }
float MinF(float a, float b) { return (a <= b || a != a) ? a : b; }
int32_t Wrap(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v)); }
int32_t DivI(int32_t a, int32_t b) {
  if (b == 0) return -1;
  if (b == -1) return Wrap(-static_cast<int64_t>(a));
  return a / b;
}
int32_t RemI(int32_t a, int32_t b) {
  if (b == 0) return a;
  if (b == -1) return 0;
  return a % b;
}
int32_t PowI(int32_t a, int32_t b) {
  if (b < 0) return a == 1 ? 1 : (a == -1 ? ((b & 1) ? -1 : 1) : 0);
  uint32_t result = 1, base = static_cast<uint32_t>(a);
  while (b > 0) {
    if (b & 1) result *= base;
    base *= base;
    b >>= 1;
  }
  return static_cast<int32_t>(result);
}
int32_t FloatToInt(float x) {
  if (x != x) return 0;
  if (x >= 2147483648.0f) return std::numeric_limits<int32_t>::max();
  if (x <= -2147483648.0f) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(x);
}
float Round(PrimitiveType type, float v) {
  if (type == PrimitiveType::BF16) return BF16ToF32(F32ToBF16(v));
  if (type == PrimitiveType::F16) return F16ToF32(F32ToF16(v));
  return v;
}

float UnaryF(HloOpcode opcode, float a) {
  switch (opcode) {
    case HloOpcode::kAbs: return std::fabs(a);
    case HloOpcode::kCeil: return std::ceil(a);
    case HloOpcode::kFloor: return std::floor(a);
    case HloOpcode::kCos: return std::cos(a);
    case HloOpcode::kSin: return std::sin(a);
    case HloOpcode::kExp: return std::exp(a);
    case HloOpcode::kExpm1: return std::expm1(a);
    case HloOpcode::kLog: return std::log(a);
    case HloOpcode::kLog1p: return std::log1p(a);
    case HloOpcode::kLogistic: return 1.0f / (1.0f + std::exp(-a));
    case HloOpcode::kNegate: return -a;
    case HloOpcode::kRsqrt: return 1.0f / std::sqrt(a);
    case HloOpcode::kSign: return a > 0.0f ? 1.0f : (a < 0.0f ? -1.0f : a);
    case HloOpcode::kSqrt: return std::sqrt(a);
    case HloOpcode::kTanh: return std::tanh(a);
    default:
      LOG(FATAL) << "unary " << HloOpcodeString(opcode);
  }
}

int32_t UnaryI(HloOpcode opcode, PrimitiveType type, int32_t a) {
  switch (opcode) {
    case HloOpcode::kNot:
      return type == PrimitiveType::PRED ? !a : ~a;
    case HloOpcode::kAbs: return a < 0 ? Wrap(-static_cast<int64_t>(a)) : a;
    case HloOpcode::kNegate: return Wrap(-static_cast<int64_t>(a));
    case HloOpcode::kSign: return (a > 0) - (a < 0);
    default:
      LOG(FATAL) << "integer unary " << HloOpcodeString(opcode);
  }
}

float BinaryF(HloOpcode opcode, float a, float b) {
  switch (opcode) {
    case HloOpcode::kAdd: return a + b;
    case HloOpcode::kSubtract: return a - b;
    case HloOpcode::kMultiply: return a * b;
    case HloOpcode::kDivide: return a / b;
    case HloOpcode::kMaximum: return MaxF(a, b);
    case HloOpcode::kMinimum: return MinF(a, b);
    case HloOpcode::kPower: return std::pow(a, b);
    case HloOpcode::kRemainder: return std::fmod(a, b);
    default:
      LOG(FATAL) << "float binary " << HloOpcodeString(opcode);
  }
}

int32_t BinaryI(HloOpcode opcode, PrimitiveType type, int32_t a, int32_t b) {
  if (type == PrimitiveType::PRED) {
    switch (opcode) {
      case HloOpcode::kAnd:
      case HloOpcode::kMinimum:
      case HloOpcode::kMultiply:
        return a && b;
      case HloOpcode::kOr:
      case HloOpcode::kMaximum:
      case HloOpcode::kAdd:
        return a || b;
      case HloOpcode::kXor:
        return a != b;
      default:
        LOG(FATAL) << "pred binary " << HloOpcodeString(opcode);
    }
  }
  int64_t x = a, y = b;
  switch (opcode) {
    case HloOpcode::kAdd: return Wrap(x + y);
    case HloOpcode::kSubtract: return Wrap(x - y);
    case HloOpcode::kMultiply: return Wrap(x * y);
    case HloOpcode::kDivide: return DivI(a, b);
    case HloOpcode::kRemainder: return RemI(a, b);
    case HloOpcode::kMaximum: return std::max(a, b);
    case HloOpcode::kMinimum: return std::min(a, b);
    case HloOpcode::kPower: return PowI(a, b);
    case HloOpcode::kAnd: return a & b;
    case HloOpcode::kOr: return a | b;
    case HloOpcode::kXor: return a ^ b;
    default:
      LOG(FATAL) << "integer binary " << HloOpcodeString(opcode);
  }
}

template <typename T>
bool Compare(ComparisonDirection direction, T a, T b) {
  switch (direction) {
    case ComparisonDirection::kEq: return a == b;
    case ComparisonDirection::kNe: return a != b;
    case ComparisonDirection::kLt: return a < b;
    case ComparisonDirection::kLe: return a <= b;
    case ComparisonDirection::kGt: return a > b;
    case ComparisonDirection::kGe: return a >= b;
  }
  return false;
}

// The registers of one op over a chunk of lanes. Index ops use `index`,
// float-class ops `f`, s32 and pred ops `i`.
struct Register {
  std::vector<int64_t> index;
  std::vector<float> f;
  std::vector<int32_t> i;
};

// A remap's target dimensions, ready for per-lane evaluation.
struct RemapTerm {
  int source;
  int64_t stride, extent, factor;
};

class Interpreter {
 public:
  Interpreter(const KernelProgram& program, const KernelParameters& parameters,
              const se::KernelArgs& args, const float* values)
      : program_(program), parameters_(parameters), args_(args),
        values_(values), registers_(program.ops().size()) {
    for (int id = 0; id < program.ops().size(); ++id) {
      const ExprOp& op = program.op(id);
      Register& reg = registers_[id];
      if (op.IsIndex()) {
        reg.index.resize(kLanes);
      } else if (primitive_util::IsFloatingPointType(op.type)) {
        reg.f.resize(kLanes);
      } else {
        reg.i.resize(kLanes);
      }
      if (op.kind == ExprKind::kIndexRemap) PrepareRemap(id);
    }
  }

  absl::Status RunLoop();
  absl::Status RunReduce();

 private:
  void PrepareRemap(int id);
  absl::Status Evaluate(const std::vector<int>& ids, int64_t lanes);
  absl::Status EvaluateOne(int id, int64_t lanes);
  absl::Status Load(int id, int64_t lanes);
  void Store(int output, int op, int64_t base, int64_t lanes);
  void StoreScalar(int output, int64_t index, float f, int32_t i);
  void Fill(int id, int64_t lanes);

  const KernelProgram& program_;
  const KernelParameters& parameters_;
  const se::KernelArgs& args_;
  // Loop programs' kReducedValue per element index (gemm epilogues).
  const float* values_;
  std::vector<Register> registers_;
  std::map<int, std::vector<RemapTerm>> remaps_;
  std::map<int, int64_t> remap_constants_;
};

void Interpreter::PrepareRemap(int id) {
  const IndexRemap& remap = program_.op(id).remap;
  std::vector<int64_t> target_strides = RowMajorStrides(remap.target);
  std::vector<RemapTerm> terms;
  int64_t constant = 0;
  for (int64_t t = 0; t < remap.target.size(); ++t) {
    const IndexRemap::Dim& d = remap.dims[t];
    constant += d.offset * target_strides[t];
    if (d.source < 0) continue;
    const std::vector<int64_t>& dims = remap.sources[d.source];
    terms.push_back({d.source, RowMajorStrides(dims)[d.dim], dims[d.dim],
                     d.scale * target_strides[t]});
  }
  remaps_[id] = std::move(terms);
  remap_constants_[id] = constant;
}

void Interpreter::Fill(int id, int64_t lanes) {
  Register& reg = registers_[id];
  if (!reg.index.empty()) std::fill_n(reg.index.begin() + 1, lanes - 1, reg.index[0]);
  if (!reg.f.empty()) std::fill_n(reg.f.begin() + 1, lanes - 1, reg.f[0]);
  if (!reg.i.empty()) std::fill_n(reg.i.begin() + 1, lanes - 1, reg.i[0]);
}

absl::Status Interpreter::Evaluate(const std::vector<int>& ids,
                                   int64_t lanes) {
  for (int id : ids) RETURN_IF_ERROR(EvaluateOne(id, lanes));
  return absl::OkStatus();
}

absl::Status Interpreter::Load(int id, int64_t lanes) {
  const ExprOp& op = program_.op(id);
  const KernelBuffer& buffer = program_.inputs()[op.input];
  const void* base = args_[parameters_.input_param[op.input]].address().opaque();
  const std::vector<int64_t>& index = registers_[op.operands[0]].index;
  Register& out = registers_[id];
  for (int64_t l = 0; l < lanes; ++l) {
    if (index[l] < 0 || index[l] >= buffer.element_count) {
      return absl::InternalError(absl::StrCat(
          "host kernel: load of element ", index[l], " of input ", op.input,
          " with ", buffer.element_count, " elements"));
    }
  }
  for (int64_t l = 0; l < lanes; ++l) {
    int64_t k = index[l];
    switch (buffer.type) {
      case PrimitiveType::F32:
        out.f[l] = static_cast<const float*>(base)[k];
        break;
      case PrimitiveType::BF16:
        out.f[l] = BF16ToF32(static_cast<const uint16_t*>(base)[k]);
        break;
      case PrimitiveType::F16:
        out.f[l] = F16ToF32(static_cast<const uint16_t*>(base)[k]);
        break;
      case PrimitiveType::PRED:
        out.i[l] = static_cast<const uint8_t*>(base)[k] != 0;
        break;
      default:
        out.i[l] = static_cast<const int32_t*>(base)[k];
        break;
    }
  }
  return absl::OkStatus();
}

absl::Status Interpreter::EvaluateOne(int id, int64_t lanes) {
  const ExprOp& op = program_.op(id);
  Register& out = registers_[id];
  auto reg = [&](int k) -> const Register& {
    return registers_[op.operands[k]];
  };
  auto type_of = [&](int k) { return program_.op(op.operands[k]).type; };
  switch (op.kind) {
    case ExprKind::kIndex:
    case ExprKind::kReduceIndex:
    case ExprKind::kReducedValue:
      return absl::OkStatus();  // Set by the caller.
    case ExprKind::kIndexRemap: {
      const std::vector<RemapTerm>& terms = remaps_.at(id);
      int64_t constant = remap_constants_.at(id);
      for (int64_t l = 0; l < lanes; ++l) {
        int64_t linear = constant;
        for (const RemapTerm& t : terms) {
          int64_t source = registers_[op.operands[t.source]].index[l];
          linear += (source / t.stride) % t.extent * t.factor;
        }
        out.index[l] = linear;
      }
      return absl::OkStatus();
    }
    case ExprKind::kLoad:
      return Load(id, lanes);
    case ExprKind::kConstant:
      if (primitive_util::IsFloatingPointType(op.type)) {
        std::fill_n(out.f.begin(), lanes, static_cast<float>(op.value));
      } else {
        std::fill_n(out.i.begin(), lanes, static_cast<int32_t>(op.value));
      }
      return absl::OkStatus();
    case ExprKind::kIndexToValue:
      for (int64_t l = 0; l < lanes; ++l) {
        int32_t v = static_cast<int32_t>(reg(0).index[l]);
        if (primitive_util::IsFloatingPointType(op.type)) {
          out.f[l] = Round(op.type, static_cast<float>(v));
        } else {
          out.i[l] = op.type == PrimitiveType::PRED ? v != 0 : v;
        }
      }
      return absl::OkStatus();
    case ExprKind::kUnary:
      if (op.opcode == HloOpcode::kIsFinite) {
        for (int64_t l = 0; l < lanes; ++l) out.i[l] = std::isfinite(reg(0).f[l]);
      } else if (primitive_util::IsFloatingPointType(type_of(0))) {
        for (int64_t l = 0; l < lanes; ++l) {
          out.f[l] = Round(op.type, UnaryF(op.opcode, reg(0).f[l]));
        }
      } else {
        for (int64_t l = 0; l < lanes; ++l) {
          out.i[l] = UnaryI(op.opcode, op.type, reg(0).i[l]);
        }
      }
      return absl::OkStatus();
    case ExprKind::kBinary:
      if (primitive_util::IsFloatingPointType(op.type)) {
        for (int64_t l = 0; l < lanes; ++l) {
          out.f[l] = Round(op.type, BinaryF(op.opcode, reg(0).f[l], reg(1).f[l]));
        }
      } else {
        for (int64_t l = 0; l < lanes; ++l) {
          out.i[l] = BinaryI(op.opcode, op.type, reg(0).i[l], reg(1).i[l]);
        }
      }
      return absl::OkStatus();
    case ExprKind::kCompare:
      for (int64_t l = 0; l < lanes; ++l) {
        out.i[l] = primitive_util::IsFloatingPointType(type_of(0))
                       ? Compare(op.direction, reg(0).f[l], reg(1).f[l])
                       : Compare(op.direction, reg(0).i[l], reg(1).i[l]);
      }
      return absl::OkStatus();
    case ExprKind::kSelect:
      for (int64_t l = 0; l < lanes; ++l) {
        bool p = reg(0).i[l] != 0;
        if (primitive_util::IsFloatingPointType(op.type)) {
          out.f[l] = p ? reg(1).f[l] : reg(2).f[l];
        } else {
          out.i[l] = p ? reg(1).i[l] : reg(2).i[l];
        }
      }
      return absl::OkStatus();
    case ExprKind::kClamp:
      for (int64_t l = 0; l < lanes; ++l) {
        if (primitive_util::IsFloatingPointType(op.type)) {
          out.f[l] = MinF(MaxF(reg(1).f[l], reg(0).f[l]), reg(2).f[l]);
        } else if (op.type == PrimitiveType::PRED) {
          out.i[l] = (reg(1).i[l] || reg(0).i[l]) && reg(2).i[l];
        } else {
          out.i[l] = std::min(std::max(reg(1).i[l], reg(0).i[l]), reg(2).i[l]);
        }
      }
      return absl::OkStatus();
    case ExprKind::kConvert: {
      PrimitiveType from = type_of(0);
      for (int64_t l = 0; l < lanes; ++l) {
        if (op.type == PrimitiveType::PRED) {
          out.i[l] = primitive_util::IsFloatingPointType(from)
                         ? reg(0).f[l] != 0.0f
                         : reg(0).i[l] != 0;
        } else if (primitive_util::IsFloatingPointType(op.type)) {
          float v = primitive_util::IsFloatingPointType(from)
                        ? reg(0).f[l]
                        : static_cast<float>(reg(0).i[l]);
          out.f[l] = Round(op.type, v);
        } else {
          out.i[l] = primitive_util::IsFloatingPointType(from)
                         ? FloatToInt(reg(0).f[l])
                         : reg(0).i[l];
        }
      }
      return absl::OkStatus();
    }
  }
  return absl::OkStatus();
}

void Interpreter::StoreScalar(int output, int64_t index, float f, int32_t i) {
  const KernelBuffer& buffer = program_.outputs()[output].buffer;
  void* base = args_[parameters_.output_param[output]].address().opaque();
  switch (buffer.type) {
    case PrimitiveType::F32:
      static_cast<float*>(base)[index] = f;
      break;
    case PrimitiveType::BF16:
      static_cast<uint16_t*>(base)[index] = F32ToBF16(f);
      break;
    case PrimitiveType::F16:
      static_cast<uint16_t*>(base)[index] = F32ToF16(f);
      break;
    case PrimitiveType::PRED:
      static_cast<uint8_t*>(base)[index] = i != 0 ? 1 : 0;
      break;
    default:
      static_cast<int32_t*>(base)[index] = i;
      break;
  }
}

void Interpreter::Store(int output, int op, int64_t base, int64_t lanes) {
  const Register& reg = registers_[op];
  for (int64_t l = 0; l < lanes; ++l) {
    StoreScalar(output, base + l, reg.f.empty() ? 0.0f : reg.f[l],
                reg.i.empty() ? 0 : reg.i[l]);
  }
}

absl::Status Interpreter::RunLoop() {
  // Outputs of one size share their ops, as in the emitted kernel.
  std::map<int64_t, std::vector<int>> groups;
  for (int k = 0; k < program_.outputs().size(); ++k) {
    groups[program_.outputs()[k].buffer.element_count].push_back(k);
  }
  int index_op = -1, value_op = -1;
  for (int id = 0; id < program_.ops().size(); ++id) {
    if (program_.op(id).kind == ExprKind::kIndex) index_op = id;
    if (program_.op(id).kind == ExprKind::kReducedValue) value_op = id;
  }
  if (value_op >= 0 && values_ == nullptr) {
    return absl::InternalError(
        "host kernel: an epilogue program run without its values");
  }
  for (const auto& [count, outputs] : groups) {
    std::vector<int> roots;
    for (int k : outputs) roots.push_back(program_.outputs()[k].op);
    std::vector<int> ops = program_.Closure(roots);
    for (int64_t base = 0; base < count; base += kLanes) {
      int64_t lanes = std::min(kLanes, count - base);
      if (index_op >= 0) {
        for (int64_t l = 0; l < lanes; ++l) {
          registers_[index_op].index[l] = base + l;
        }
      }
      if (value_op >= 0) {
        std::copy_n(values_ + base, lanes, registers_[value_op].f.begin());
      }
      RETURN_IF_ERROR(Evaluate(ops, lanes));
      for (int k : outputs) Store(k, program_.outputs()[k].op, base, lanes);
    }
  }
  return absl::OkStatus();
}

absl::Status Interpreter::RunReduce() {
  const int init = program_.init_op();
  const int value = program_.value_op();
  const int output = program_.outputs()[0].op;
  const PrimitiveType type = program_.op(value).type;
  const HloOpcode reducer = program_.reducer();
  const int64_t extent = program_.reduced_elements();
  const int64_t outputs = program_.outputs()[0].buffer.element_count;
  std::vector<bool> inner = program_.InnerOps();
  std::vector<bool> epilogue = program_.EpilogueOps();
  std::vector<int> outer_ops, inner_ops, epilogue_ops;
  int index_op = -1, reduce_index_op = -1, reduced = -1;
  for (int id : program_.Closure({init, value, output})) {
    const ExprOp& op = program_.op(id);
    if (op.kind == ExprKind::kIndex) index_op = id;
    if (op.kind == ExprKind::kReduceIndex) reduce_index_op = id;
    if (op.kind == ExprKind::kReducedValue) reduced = id;
    if (epilogue[id]) {
      epilogue_ops.push_back(id);
    } else {
      (inner[id] ? inner_ops : outer_ops).push_back(id);
    }
  }
  const int64_t chunk = std::min(kLanes, std::max<int64_t>(extent, 1));
  for (int64_t o = 0; o < outputs; ++o) {
    if (index_op >= 0) registers_[index_op].index[0] = o;
    RETURN_IF_ERROR(Evaluate(outer_ops, 1));
    // Inner ops read outer values on every lane.
    for (int id : outer_ops) Fill(id, chunk);
    const Register& init_reg = registers_[init];
    float acc_f = init_reg.f.empty() ? 0.0f : init_reg.f[0];
    int32_t acc_i = init_reg.i.empty() ? 0 : init_reg.i[0];
    for (int64_t base = 0; base < extent; base += chunk) {
      int64_t lanes = std::min(chunk, extent - base);
      if (reduce_index_op >= 0) {
        for (int64_t l = 0; l < lanes; ++l) {
          registers_[reduce_index_op].index[l] = base + l;
        }
      }
      RETURN_IF_ERROR(Evaluate(inner_ops, lanes));
      const Register& v = registers_[value];
      for (int64_t l = 0; l < lanes; ++l) {
        if (primitive_util::IsFloatingPointType(type)) {
          acc_f = Round(type, BinaryF(reducer, acc_f, v.f[l]));
        } else {
          acc_i = BinaryI(reducer, type, acc_i, v.i[l]);
        }
      }
    }
    if (reduced >= 0) {
      Register& r = registers_[reduced];
      if (primitive_util::IsFloatingPointType(type)) {
        r.f[0] = acc_f;
      } else {
        r.i[0] = acc_i;
      }
    }
    RETURN_IF_ERROR(Evaluate(epilogue_ops, 1));
    Store(0, output, o, 1);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunProgramOnHost(const KernelProgram& program,
                              const KernelParameters& parameters,
                              const se::KernelArgs& args,
                              const float* values) {
  if (args.size() != parameters.count()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "host kernel: ", args.size(), " arguments for ", parameters.count(),
        " parameters"));
  }
  Interpreter interpreter(program, parameters, args, values);
  return program.kind() == KernelProgram::Kind::kLoop
             ? interpreter.RunLoop()
             : interpreter.RunReduce();
}

se::HostKernelFn MakeHostKernel(std::shared_ptr<const KernelProgram> program,
                                KernelParameters parameters) {
  return [program = std::move(program), parameters = std::move(parameters)](
             const se::KernelArgs& args, const se::LaunchDimensions&) {
    return RunProgramOnHost(*program, parameters, args);
  };
}

}  // namespace xla_lite::gpu
