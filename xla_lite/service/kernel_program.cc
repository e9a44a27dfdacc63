#include "xla_lite/service/kernel_program.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "glog/logging.h"

namespace xla_lite::gpu {
namespace {

const char* KindName(ExprKind kind) {
  switch (kind) {
    case ExprKind::kIndex:
      return "index";
    case ExprKind::kReduceIndex:
      return "reduce_index";
    case ExprKind::kIndexRemap:
      return "remap";
    case ExprKind::kReducedValue:
      return "reduced_value";
    case ExprKind::kLoad:
      return "load";
    case ExprKind::kConstant:
      return "constant";
    case ExprKind::kIndexToValue:
      return "index_to_value";
    case ExprKind::kUnary:
      return "unary";
    case ExprKind::kBinary:
      return "binary";
    case ExprKind::kCompare:
      return "compare";
    case ExprKind::kSelect:
      return "select";
    case ExprKind::kConvert:
      return "convert";
    case ExprKind::kDynamicIndex:
      return "dynamic_index";
    case ExprKind::kIndexInBounds:
      return "index_in_bounds";
    case ExprKind::kDynamicInBounds:
      return "dynamic_in_bounds";
  }
  return "?";
}

std::string Braced(const std::vector<int64_t>& v) {
  return absl::StrCat("[", absl::StrJoin(v, ","), "]");
}

std::string DynamicText(const std::vector<DynamicTerm>& terms) {
  std::vector<std::string> parts;
  for (const DynamicTerm& t : terms) {
    parts.push_back(absl::StrCat(t.factor, "*[0,", t.max, "]"));
  }
  return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
}

}  // namespace

int64_t IndexRemap::Dim::Apply(int64_t c) const {
  int64_t v = offset + scale * c;
  if (divisor != 1) v /= divisor;
  if (limit > 0) v = std::clamp<int64_t>(v, 0, limit - 1);
  return v;
}

bool IndexRemap::IsAffine() const {
  for (const Dim& d : dims) {
    if (!d.IsAffine()) return false;
  }
  return true;
}

bool IndexRemap::IsConstant() const {
  for (const Dim& d : dims) {
    if (d.source >= 0) return false;
  }
  return true;
}

bool IndexBounds::Contains(int64_t index) const {
  std::vector<int64_t> strides = RowMajorStrides(dims);
  for (const Bound& b : bounds) {
    int64_t c = index / strides[b.dim] % dims[b.dim];
    if (c < b.lo || c >= b.hi || (c - b.lo) % b.stride != 0) return false;
  }
  return true;
}

std::string IndexBounds::ToString() const {
  std::vector<std::string> parts;
  for (const Bound& b : bounds) {
    parts.push_back(absl::StrCat("d", b.dim, " in [", b.lo, ",", b.hi, ")/",
                                 b.stride));
  }
  return absl::StrCat(Braced(dims), "{", absl::StrJoin(parts, ","), "}");
}

int64_t EvaluateIndex(const KernelProgram& program, int op, int64_t index,
                      int64_t reduce_index) {
  const ExprOp& expr = program.op(op);
  switch (expr.kind) {
    case ExprKind::kIndex:
      return index;
    case ExprKind::kReduceIndex:
      return reduce_index;
    case ExprKind::kIndexRemap:
      break;
    default:
      LOG(FATAL) << "op " << op << " is not a static index: "
                 << expr.ToString(op);
  }
  std::vector<int64_t> sources;
  for (int operand : expr.operands) {
    sources.push_back(EvaluateIndex(program, operand, index, reduce_index));
  }
  return expr.remap.Apply(sources);
}

int64_t IndexRemap::Apply(const std::vector<int64_t>& source_indices) const {
  std::vector<int64_t> target_strides = RowMajorStrides(target);
  int64_t linear = 0;
  for (int64_t t = 0; t < target.size(); ++t) {
    const Dim& d = dims[t];
    int64_t c = 0;
    if (d.source >= 0) {
      const std::vector<int64_t>& from = sources[d.source];
      c = source_indices[d.source] / RowMajorStrides(from)[d.dim] %
          from[d.dim];
    }
    linear += d.Apply(c) * target_strides[t];
  }
  return linear;
}

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size());
  int64_t stride = 1;
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= dims[d];
  }
  return strides;
}

bool IndexRemap::IsIdentity() const {
  if (sources.size() != 1 || sources[0] != target) return false;
  for (int64_t t = 0; t < dims.size(); ++t) {
    const Dim& d = dims[t];
    if (d.source != 0 || d.dim != t || d.scale != 1 || d.offset != 0 ||
        !d.IsAffine()) {
      return false;
    }
  }
  return true;
}

std::string IndexRemap::ToString() const {
  std::vector<std::string> parts;
  for (const Dim& d : dims) {
    std::string part =
        d.source < 0 ? absl::StrCat(d.offset)
                     : absl::StrCat(d.offset, "+", d.scale, "*s", d.source,
                                    ".", d.dim);
    if (d.divisor != 1) absl::StrAppend(&part, "/", d.divisor);
    if (d.limit > 0) absl::StrAppend(&part, "<", d.limit);
    parts.push_back(std::move(part));
  }
  std::vector<std::string> source_text;
  for (const auto& s : sources) source_text.push_back(Braced(s));
  return absl::StrCat(absl::StrJoin(source_text, ","), "->", Braced(target),
                      "{", absl::StrJoin(parts, ","), "}");
}

namespace {

// Appends fields as raw bytes, each list behind its length, so that two
// keys are equal exactly when the fields are. Keys are made for every op a
// lowering adds (thousands per compile); text would cost most of that.
class KeyWriter {
 public:
  KeyWriter() { key_.reserve(160); }
  template <typename T>
  void Put(T value) {
    key_.append(reinterpret_cast<const char*>(&value), sizeof(value));
  }
  template <typename T>
  void PutList(const std::vector<T>& values) {
    Put<size_t>(values.size());
    key_.append(reinterpret_cast<const char*>(values.data()),
                values.size() * sizeof(T));
  }
  void PutText(absl::string_view text) {
    Put<size_t>(text.size());
    key_.append(text.data(), text.size());
  }
  std::string Take() { return std::move(key_); }

 private:
  std::string key_;
};

// What the remap computes: a source-less dimension is its offset (divided
// and clamped), and a limit of zero or less is no clamp.
void PutRemap(const IndexRemap& remap, KeyWriter& key) {
  key.Put<size_t>(remap.sources.size());
  for (const std::vector<int64_t>& source : remap.sources) key.PutList(source);
  key.PutList(remap.target);
  key.Put<size_t>(remap.dims.size());
  for (const IndexRemap::Dim& d : remap.dims) {
    key.Put<int64_t>(d.source < 0 ? -1 : d.source);
    key.Put(d.offset);
    key.Put<int64_t>(d.source < 0 ? 0 : d.scale);
    key.Put<int64_t>(d.source < 0 ? 0 : d.dim);
    key.Put(d.divisor);
    key.Put<int64_t>(d.limit > 0 ? d.limit : 0);
  }
}

}  // namespace

std::string ExprOp::Key() const {
  KeyWriter key;
  key.Put(kind);
  key.Put(type);
  key.Put(opcode);
  key.Put(direction);
  key.PutList(operands);
  key.Put(input);
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  key.Put(bits);
  key.PutText(function != nullptr ? function->name : "");
  if (kind == ExprKind::kIndexRemap) PutRemap(remap, key);
  key.PutList(bounds.dims);
  key.Put<size_t>(bounds.bounds.size());
  for (const IndexBounds::Bound& b : bounds.bounds) {
    key.Put(b.dim);
    key.Put(b.lo);
    key.Put(b.hi);
    key.Put(b.stride);
  }
  key.Put<size_t>(dynamic.size());
  for (const DynamicTerm& t : dynamic) {
    key.Put(t.factor);
    key.Put(t.max);
  }
  key.Put(excess);
  return key.Take();
}

std::string ExprOp::ToString(int id) const {
  std::string text = absl::StrCat("%", id, " = ", KindName(kind));
  if (!IsIndex()) {
    absl::StrAppend(&text, ".",
                    primitive_util::LowercasePrimitiveTypeName(type));
  }
  if (kind == ExprKind::kUnary || kind == ExprKind::kBinary) {
    absl::StrAppend(&text, " ", HloOpcodeString(opcode));
    if (function != nullptr) absl::StrAppend(&text, " (", function->name, ")");
  }
  if (kind == ExprKind::kCompare) {
    absl::StrAppend(&text, " ", ComparisonDirectionString(direction));
  }
  if (kind == ExprKind::kLoad) absl::StrAppend(&text, " in", input);
  if (kind == ExprKind::kConstant) absl::StrAppend(&text, " ", value);
  if (kind == ExprKind::kIndexRemap) {
    absl::StrAppend(&text, " ", remap.ToString());
  }
  if (kind == ExprKind::kIndexInBounds) {
    absl::StrAppend(&text, " ", bounds.ToString());
  }
  if (kind == ExprKind::kDynamicIndex || kind == ExprKind::kDynamicInBounds) {
    absl::StrAppend(&text, " ", DynamicText(dynamic));
  }
  for (int operand : operands) absl::StrAppend(&text, " %", operand);
  if (excess) absl::StrAppend(&text, " (excess precision)");
  return text;
}

int KernelProgram::Add(ExprOp op) {
  for (int operand : op.operands) {
    CHECK(operand >= 0 && operand < ops_.size()) << op.ToString(ops_.size());
  }
  std::string key = op.Key();
  auto it = ids_.find(key);
  if (it != ids_.end()) return it->second;
  int id = ops_.size();
  ops_.push_back(std::move(op));
  ids_.emplace(std::move(key), id);
  return id;
}

void KernelProgram::AllowExcessPrecision() {
  auto is_16_bit = [](PrimitiveType type) {
    return type == PrimitiveType::BF16 || type == PrimitiveType::F16;
  };
  for (ExprOp& op : ops_) {
    switch (op.kind) {
      case ExprKind::kUnary:
      case ExprKind::kBinary:
        op.excess = is_16_bit(op.type);
        break;
      case ExprKind::kConvert:
        op.excess = is_16_bit(ops_[op.operands[0]].type);
        break;
      default:
        break;
    }
  }
  // Keys name the flag, so identical ops still find each other.
  ids_.clear();
  for (int id = 0; id < ops_.size(); ++id) ids_.emplace(ops_[id].Key(), id);
}

int KernelProgram::AddInput(KernelBuffer buffer) {
  inputs_.push_back(buffer);
  return inputs_.size() - 1;
}

void KernelProgram::AddOutput(KernelBuffer buffer, int op) {
  CHECK(op >= 0 && op < ops_.size());
  outputs_.push_back({buffer, op});
}

int64_t KernelProgram::MaxOutputElements() const {
  int64_t max = 0;
  for (const KernelOutput& output : outputs_) {
    max = std::max(max, output.buffer.element_count);
  }
  return max;
}

std::vector<std::pair<int64_t, std::vector<int>>> KernelProgram::OutputGroups()
    const {
  // Union-find over outputs: each joins the first output of its size that
  // loaded one of the same inputs.
  std::vector<int> parent(outputs_.size());
  for (int k = 0; k < parent.size(); ++k) parent[k] = k;
  auto find = [&](int k) {
    while (parent[k] != k) k = parent[k] = parent[parent[k]];
    return k;
  };
  std::map<std::pair<int64_t, int>, int> loader;  // (size, input) -> output.
  for (int k = 0; k < outputs_.size(); ++k) {
    const int64_t count = outputs_[k].buffer.element_count;
    for (int id : Closure({outputs_[k].op})) {
      const ExprOp& op = ops_[id];
      if (op.kind != ExprKind::kLoad || inputs_[op.input].element_count < 2) {
        continue;
      }
      auto [it, inserted] = loader.try_emplace({count, op.input}, k);
      if (!inserted) parent[find(k)] = find(it->second);
    }
  }
  // Groups in order of their first output, then the largest first.
  std::map<int, std::vector<int>> members;
  for (int k = 0; k < outputs_.size(); ++k) members[find(k)].push_back(k);
  std::vector<std::pair<int64_t, std::vector<int>>> groups;
  for (auto& [root, outputs] : members) {
    groups.push_back({outputs_[root].buffer.element_count, std::move(outputs)});
  }
  std::stable_sort(
      groups.begin(), groups.end(),
      [](const auto& a, const auto& b) { return a.first > b.first; });
  return groups;
}

int64_t KernelProgram::LoopExtent() const {
  int64_t extent = 0;
  for (const auto& [count, outputs] : OutputGroups()) extent += count;
  return extent;
}

void KernelProgram::SetReduction(int init_op, int value_op, HloOpcode reducer,
                                 const ScalarFunction* function,
                                 int64_t reduced_elements) {
  CHECK(function != nullptr && function->exists())
      << "reduce by " << HloOpcodeString(reducer) << " without a function";
  init_op_ = init_op;
  value_op_ = value_op;
  reducer_ = reducer;
  reducer_function_ = function;
  reduced_elements_ = reduced_elements;
}

void KernelProgram::SetScatter(int target_op, int valid_op,
                              HloOpcode combiner_opcode,
                              const ScalarFunction* combiner,
                              int64_t update_elements) {
  CHECK(kind_ == Kind::kScatter);
  CHECK(combiner == nullptr || combiner->exists());
  scatter_target_op_ = target_op;
  scatter_valid_op_ = valid_op;
  combiner_opcode_ = combiner_opcode;
  combiner_ = combiner;
  update_elements_ = update_elements;
}

bool KernelProgram::DependsOnData(int id) const {
  CHECK(id >= 0 && id < ops_.size());
  // Operands precede their users: one forward sweep.
  std::vector<bool> data(id + 1, false);
  for (int k = 0; k <= id; ++k) {
    data[k] = ops_[k].kind == ExprKind::kDynamicIndex;
    for (int operand : ops_[k].operands) data[k] = data[k] || data[operand];
  }
  return data[id];
}

std::vector<bool> KernelProgram::InnerOps() const {
  std::vector<bool> inner(ops_.size(), false);
  for (int id = 0; id < ops_.size(); ++id) {
    const ExprOp& op = ops_[id];
    inner[id] = op.kind == ExprKind::kReduceIndex;
    for (int operand : op.operands) inner[id] = inner[id] || inner[operand];
  }
  return inner;
}

std::vector<bool> KernelProgram::ElementOps() const {
  std::vector<bool> element(ops_.size(), false);
  for (int id = 0; id < ops_.size(); ++id) {
    const ExprOp& op = ops_[id];
    switch (op.kind) {
      case ExprKind::kIndex:
      case ExprKind::kReduceIndex:
      case ExprKind::kReducedValue:
        element[id] = true;
        break;
      case ExprKind::kIndexRemap:
        if (op.remap.IsConstant()) break;
        [[fallthrough]];
      default:
        for (int operand : op.operands) {
          element[id] = element[id] || element[operand];
        }
    }
  }
  return element;
}

std::vector<bool> KernelProgram::EpilogueOps() const {
  std::vector<bool> epilogue(ops_.size(), false);
  for (int id = 0; id < ops_.size(); ++id) {
    const ExprOp& op = ops_[id];
    epilogue[id] = op.kind == ExprKind::kReducedValue;
    for (int operand : op.operands) {
      epilogue[id] = epilogue[id] || epilogue[operand];
    }
  }
  return epilogue;
}

std::vector<int> KernelProgram::Closure(const std::vector<int>& roots) const {
  // A walk from the roots costs what it finds, not the program's size: a
  // merged optimizer update asks for each of its hundreds of outputs'
  // few ops.
  std::vector<char> needed(ops_.size(), 0);
  std::vector<int> closure;
  for (int root : roots) {
    if (needed[root]) continue;
    needed[root] = 1;
    closure.push_back(root);
  }
  for (size_t next = 0; next < closure.size(); ++next) {
    for (int operand : ops_[closure[next]].operands) {
      if (needed[operand]) continue;
      needed[operand] = 1;
      closure.push_back(operand);
    }
  }
  std::sort(closure.begin(), closure.end());
  return closure;
}

std::string KernelProgram::ToString() const {
  std::string text = kind_ == Kind::kLoop     ? "loop kernel\n"
                     : kind_ == Kind::kReduce ? "reduce kernel\n"
                                              : "scatter kernel\n";
  for (int i = 0; i < inputs_.size(); ++i) {
    absl::StrAppend(&text, "  in", i, ": ",
                    primitive_util::LowercasePrimitiveTypeName(inputs_[i].type),
                    "[", inputs_[i].element_count, "]\n");
  }
  for (int id = 0; id < ops_.size(); ++id) {
    absl::StrAppend(&text, "  ", ops_[id].ToString(id), "\n");
  }
  for (int i = 0; i < outputs_.size(); ++i) {
    absl::StrAppend(
        &text, "  out", i, ": ",
        primitive_util::LowercasePrimitiveTypeName(outputs_[i].buffer.type),
        "[", outputs_[i].buffer.element_count, "] = %", outputs_[i].op, "\n");
  }
  if (kind_ == Kind::kReduce) {
    absl::StrAppend(&text, "  reduce ", HloOpcodeString(reducer_), " init %",
                    init_op_, " value %", value_op_, " over ",
                    reduced_elements_, " elements into the reduced value\n");
  }
  if (kind_ == Kind::kScatter) {
    absl::StrAppend(&text, "  scatter ", update_elements_, " updates into out0",
                    " at %", scatter_target_op_, " where %",
                    scatter_valid_op_, " by ",
                    combiner_ != nullptr ? combiner_->name : "assignment",
                    "\n");
  }
  return text;
}

}  // namespace xla_lite::gpu
