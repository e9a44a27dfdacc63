#include "xla_lite/service/host_kernel.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/float16.h"
#include "xla_lite/primitive_util.h"
#include "xla_lite/service/elemental_ops.h"
#include "xla_lite/service/elemental_scalar_ops.h"

namespace xla_lite::gpu {
namespace {

constexpr int64_t kLanes = 256;

float Round(PrimitiveType type, float v) {
  if (type == PrimitiveType::BF16) return RoundToBF16(v);
  if (type == PrimitiveType::F16) return RoundToF16(v);
  return v;
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

// A 16-bit float op's lanes, computed in f32, rounded to its type.
void RoundLanes(PrimitiveType type, Register& reg, int64_t lanes) {
  if (type != PrimitiveType::BF16 && type != PrimitiveType::F16) return;
  for (int64_t l = 0; l < lanes; ++l) reg.f[l] = Round(type, reg.f[l]);
}

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
  absl::Status RunScatter();

 private:
  void PrepareRemap(int id);
  absl::Status Evaluate(const std::vector<int>& ids, int64_t lanes);
  absl::Status EvaluateOne(int id, int64_t lanes);
  absl::Status Load(int id, int64_t lanes);
  void Store(int output, int op, int64_t base, int64_t lanes);
  void StoreScalar(int output, int64_t index, float f, int32_t i);
  void Fill(int id, int64_t lanes);
  void EvaluateRemap(int id, int64_t lanes);
  void EvaluateDynamic(int id, int64_t lanes);
  // Output element `index` of `output`, read back (scatter).
  void LoadOutput(int output, int64_t index, float* f, int32_t* i) const;

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

void Interpreter::EvaluateRemap(int id, int64_t lanes) {
  const ExprOp& op = program_.op(id);
  Register& out = registers_[id];
  if (!op.remap.IsAffine()) {
    // Clamped or divided coordinates (concatenate, pad): per dimension.
    std::vector<int64_t> sources(op.operands.size());
    for (int64_t l = 0; l < lanes; ++l) {
      for (int k = 0; k < op.operands.size(); ++k) {
        sources[k] = registers_[op.operands[k]].index[l];
      }
      out.index[l] = op.remap.Apply(sources);
    }
    return;
  }
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
}

void Interpreter::EvaluateDynamic(int id, int64_t lanes) {
  const ExprOp& op = program_.op(id);
  Register& out = registers_[id];
  // kDynamicIndex's operand 0 is the static index; the starts follow.
  const int first = op.kind == ExprKind::kDynamicIndex ? 1 : 0;
  for (int64_t l = 0; l < lanes; ++l) {
    int64_t linear = first == 1 ? registers_[op.operands[0]].index[l] : 0;
    bool in_bounds = true;
    for (int k = 0; k < op.dynamic.size(); ++k) {
      const DynamicTerm& term = op.dynamic[k];
      const int64_t start = registers_[op.operands[first + k]].i[l];
      in_bounds = in_bounds && start >= 0 && start <= term.max;
      linear += std::clamp<int64_t>(start, 0, term.max) * term.factor;
    }
    if (first == 1) {
      out.index[l] = linear;
    } else {
      out.i[l] = in_bounds ? 1 : 0;
    }
  }
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
    case ExprKind::kIndexRemap:
      EvaluateRemap(id, lanes);
      return absl::OkStatus();
    case ExprKind::kDynamicIndex:
    case ExprKind::kDynamicInBounds:
      EvaluateDynamic(id, lanes);
      return absl::OkStatus();
    case ExprKind::kIndexInBounds:
      for (int64_t l = 0; l < lanes; ++l) {
        out.i[l] = op.bounds.Contains(reg(0).index[l]) ? 1 : 0;
      }
      return absl::OkStatus();
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
    case ExprKind::kBinary: {
      ScalarLanes scalar_lanes;
      for (int k = 0; k < op.operands.size(); ++k) {
        scalar_lanes.f[k] = reg(k).f.data();
        scalar_lanes.i[k] = reg(k).i.data();
      }
      scalar_lanes.out_f = out.f.data();
      scalar_lanes.out_i = out.i.data();
      scalar_lanes.count = lanes;
      op.function->host(scalar_lanes);
      if (!op.excess) RoundLanes(op.type, out, lanes);
      return absl::OkStatus();
    }
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
    case ExprKind::kConvert: {
      PrimitiveType from = type_of(0);
      const bool from_float = primitive_util::IsFloatingPointType(from);
      for (int64_t l = 0; l < lanes; ++l) {
        float f = from_float ? reg(0).f[l] : 0.0f;
        if (op.excess) f = Round(from, f);
        if (op.type == PrimitiveType::PRED) {
          out.i[l] = from_float ? f != 0.0f : reg(0).i[l] != 0;
        } else if (primitive_util::IsFloatingPointType(op.type)) {
          out.f[l] =
              Round(op.type, from_float ? f : static_cast<float>(reg(0).i[l]));
        } else {
          out.i[l] = from_float ? scalar_ops::xl_f32_to_s32(f) : reg(0).i[l];
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
  const ScalarFunction& reducer = program_.reducer_function();
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
      // acc = reducer(acc, value), one element at a time, in order.
      const Register& v = registers_[value];
      ScalarLanes step;
      step.f[0] = &acc_f;
      step.i[0] = &acc_i;
      step.out_f = &acc_f;
      step.out_i = &acc_i;
      step.count = 1;
      for (int64_t l = 0; l < lanes; ++l) {
        step.f[1] = v.f.empty() ? nullptr : &v.f[l];
        step.i[1] = v.i.empty() ? nullptr : &v.i[l];
        reducer.host(step);
        acc_f = Round(type, acc_f);
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

void Interpreter::LoadOutput(int output, int64_t index, float* f,
                             int32_t* i) const {
  const KernelBuffer& buffer = program_.outputs()[output].buffer;
  const void* base = args_[parameters_.output_param[output]].address().opaque();
  switch (buffer.type) {
    case PrimitiveType::F32:
      *f = static_cast<const float*>(base)[index];
      break;
    case PrimitiveType::BF16:
      *f = BF16ToF32(static_cast<const uint16_t*>(base)[index]);
      break;
    case PrimitiveType::F16:
      *f = F16ToF32(static_cast<const uint16_t*>(base)[index]);
      break;
    case PrimitiveType::PRED:
      *i = static_cast<const uint8_t*>(base)[index] != 0;
      break;
    default:
      *i = static_cast<const int32_t*>(base)[index];
      break;
  }
}

// Updates combine one at a time in their row-major order, so the host's
// result is deterministic (and the evaluator's).
absl::Status Interpreter::RunScatter() {
  const int value = program_.outputs()[0].op;
  const int target = program_.scatter_target_op();
  const int valid = program_.scatter_valid_op();
  const PrimitiveType type = program_.outputs()[0].buffer.type;
  const int64_t size = program_.outputs()[0].buffer.element_count;
  const ScalarFunction* combiner = program_.combiner();
  std::vector<int> ops = program_.Closure({value, target, valid});
  int index_op = -1;
  for (int id : ops) {
    if (program_.op(id).kind == ExprKind::kIndex) index_op = id;
  }
  const int64_t count = program_.update_elements();
  for (int64_t base = 0; base < count; base += kLanes) {
    const int64_t lanes = std::min(kLanes, count - base);
    if (index_op >= 0) {
      for (int64_t l = 0; l < lanes; ++l) {
        registers_[index_op].index[l] = base + l;
      }
    }
    RETURN_IF_ERROR(Evaluate(ops, lanes));
    const Register& v = registers_[value];
    for (int64_t l = 0; l < lanes; ++l) {
      if (registers_[valid].i[l] == 0) continue;
      const int64_t at = registers_[target].index[l];
      if (at < 0 || at >= size) {
        return absl::InternalError(absl::StrCat(
            "host kernel: scatter to element ", at, " of ", size));
      }
      float f = v.f.empty() ? 0.0f : v.f[l];
      int32_t i = v.i.empty() ? 0 : v.i[l];
      if (combiner != nullptr) {
        float old_f = 0.0f;
        int32_t old_i = 0;
        LoadOutput(0, at, &old_f, &old_i);
        ScalarLanes step;
        step.f[0] = &old_f;
        step.i[0] = &old_i;
        step.f[1] = &f;
        step.i[1] = &i;
        step.out_f = &f;
        step.out_i = &i;
        step.count = 1;
        combiner->host(step);
        f = Round(type, f);
      }
      StoreScalar(0, at, f, i);
    }
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
  switch (program.kind()) {
    case KernelProgram::Kind::kLoop:
      return interpreter.RunLoop();
    case KernelProgram::Kind::kReduce:
      return interpreter.RunReduce();
    case KernelProgram::Kind::kScatter:
      return interpreter.RunScatter();
  }
  return absl::InternalError("host kernel: unknown program kind");
}

se::HostKernelFn MakeHostKernel(std::shared_ptr<const KernelProgram> program,
                                KernelParameters parameters) {
  return [program = std::move(program), parameters = std::move(parameters)](
             const se::KernelArgs& args, const se::LaunchDimensions&) {
    return RunProgramOnHost(*program, parameters, args);
  };
}

}  // namespace xla_lite::gpu
