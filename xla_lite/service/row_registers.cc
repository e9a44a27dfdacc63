#include "xla_lite/service/row_registers.h"

#include <algorithm>
#include <optional>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "xla_lite/primitive_util.h"

namespace xla_lite::gpu::cuda_internal {
namespace {

// What one source of an index remap adds to the target index:
// (source % modulus / divisor) * factor, modulus 0 meaning none.
struct SourceTerm {
  int64_t modulus = 0;
  int64_t divisor = 1;
  int64_t factor = 0;
};

// The remap's target index as a sum of one SourceTerm per source, when
// every dimension is a plain copy of a source coordinate (scale 1, offset
// 0, unclamped) and each source's copied dimensions (those longer than
// one) are a run of its own dimensions, in order, onto a run of the
// target's; nullopt otherwise.
std::optional<std::vector<SourceTerm>> LinearTerms(const IndexRemap& remap) {
  const std::vector<int64_t> strides = RowMajorStrides(remap.target);
  std::vector<SourceTerm> terms(remap.sources.size());
  // Per source: the last target and source dimensions copied so far.
  std::vector<int64_t> last_target(remap.sources.size(), -1);
  std::vector<int64_t> last_dim(remap.sources.size(), -1);
  int64_t previous_source = -1;
  for (int64_t t = 0; t < remap.target.size(); ++t) {
    if (remap.target[t] == 1) continue;
    const IndexRemap::Dim& d = remap.dims[t];
    if (d.source < 0 || !d.IsAffine() || d.scale != 1 || d.offset != 0) {
      return std::nullopt;
    }
    const std::vector<int64_t>& dims = remap.sources[d.source];
    if (dims[d.dim] != remap.target[t]) return std::nullopt;
    if (last_dim[d.source] >= 0) {
      // The run goes on: the next longer source dimension, and no other
      // source's dimension between.
      if (d.source != previous_source) return std::nullopt;
      for (int64_t k = last_dim[d.source] + 1; k < d.dim; ++k) {
        if (dims[k] != 1) return std::nullopt;
      }
      if (d.dim <= last_dim[d.source]) return std::nullopt;
    } else {
      // The run starts: the source's longer dimensions before it wrap.
      int64_t modulus = 1;
      for (int64_t k = d.dim; k < dims.size(); ++k) modulus *= dims[k];
      bool leading = true;
      for (int64_t k = 0; k < d.dim; ++k) leading = leading && dims[k] == 1;
      terms[d.source].modulus = leading ? 0 : modulus;
    }
    last_dim[d.source] = d.dim;
    last_target[d.source] = t;
    previous_source = d.source;
  }
  for (int s = 0; s < remap.sources.size(); ++s) {
    if (last_dim[s] < 0) continue;  // Adds nothing.
    const std::vector<int64_t>& dims = remap.sources[s];
    for (int64_t k = last_dim[s] + 1; k < dims.size(); ++k) {
      terms[s].divisor *= dims[k];
    }
    terms[s].factor = strides[last_target[s]];
  }
  return terms;
}

bool IsPlain(const SourceTerm& term, int64_t factor) {
  return term.modulus == 0 && term.divisor == 1 && term.factor == factor;
}

}  // namespace

int64_t UnrolledTrips(int64_t end, int64_t step) {
  if (step <= 0 || end % step != 0) return 0;
  const int64_t trips = end / step;
  return trips >= 1 && trips <= kMaxUnrolledTrips ? trips : 0;
}

RowAccess ClassifyRowAccess(const KernelProgram& program, int id,
                            int64_t row_length) {
  const bool reduce = program.kind() == KernelProgram::Kind::kReduce;
  const ExprOp& op = program.op(id);
  if (op.kind == ExprKind::kIndex) {
    return reduce ? RowAccess::kRow : RowAccess::kElement;
  }
  if (op.kind != ExprKind::kIndexRemap) return RowAccess::kOther;
  const std::optional<std::vector<SourceTerm>> terms = LinearTerms(op.remap);
  if (!terms.has_value()) return RowAccess::kOther;
  // The terms that add something: a reduce stage's element is i's plain
  // term times the row length plus r's plain term; otherwise one term of
  // an element (itself, or its row: divided by the row length) or of a
  // row (itself).
  const SourceTerm* row = nullptr;
  const SourceTerm* element = nullptr;
  const SourceTerm* reduced = nullptr;
  int count = 0;
  for (int s = 0; s < terms->size(); ++s) {
    const SourceTerm& term = (*terms)[s];
    if (term.factor == 0) continue;
    ++count;
    const int source = op.operands[s];
    if (program.op(source).kind == ExprKind::kReduceIndex) {
      reduced = &term;
      continue;
    }
    switch (ClassifyRowAccess(program, source, row_length)) {
      case RowAccess::kRow:
        row = &term;
        break;
      case RowAccess::kElement:
        element = &term;
        break;
      case RowAccess::kOther:
        return RowAccess::kOther;
    }
  }
  if (count == 2 && row != nullptr && reduced != nullptr) {
    return IsPlain(*row, row_length) && IsPlain(*reduced, 1)
               ? RowAccess::kElement
               : RowAccess::kOther;
  }
  if (count != 1) return RowAccess::kOther;
  if (row != nullptr) {
    return IsPlain(*row, 1) ? RowAccess::kRow : RowAccess::kOther;
  }
  if (element == nullptr || element->modulus != 0 || element->factor != 1) {
    return RowAccess::kOther;
  }
  if (element->divisor == 1) return RowAccess::kElement;
  return element->divisor == row_length ? RowAccess::kRow : RowAccess::kOther;
}

namespace {

// A register's declaration: per thread in the row loop, or a shared slot
// per row at the kernel's start.
struct Declaration {
  bool shared = false;
  std::string text;
};

// The register a kept value names: "xl_e3" of "xl_e3[j_trip]".
std::string RegisterOf(const std::string& lvalue) {
  return lvalue.substr(0, lvalue.find('['));
}

// Drops what `plan` keeps that no stage reads, and declares the rest.
void DeclareReadRegisters(
    const absl::flat_hash_map<std::string, Declaration>& declarations,
    RowRegisterPlan& plan) {
  absl::flat_hash_set<std::string> read;
  for (const StageRegisters& stage : plan.stages) {
    for (const auto& [id, lvalue] : stage.loads) read.insert(RegisterOf(lvalue));
  }
  for (StageRegisters& stage : plan.stages) {
    absl::erase_if(stage.kept_loads, [&](const auto& entry) {
      return !read.contains(RegisterOf(entry.second));
    });
    absl::erase_if(stage.kept_outputs, [&](const auto& entry) {
      return !read.contains(RegisterOf(entry.second));
    });
  }
  std::vector<std::string> names(read.begin(), read.end());
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    const Declaration& declaration = declarations.at(name);
    absl::StrAppend(declaration.shared ? &plan.row_declarations
                                       : &plan.element_declarations,
                    declaration.text);
  }
}

}  // namespace

RowRegisterPlan PlanRowRegisters(const std::vector<RowKernelStage>& stages,
                                 int lanes, int rows_per_block) {
  RowRegisterPlan plan;
  plan.stages.resize(stages.size());
  if (lanes < 2) return plan;
  // Per kernel parameter: whether its element registers, and its row slot,
  // hold its current values. Lanes are the kernel's, so registers of the
  // same trips hold the same elements.
  struct Kept {
    bool elements = false;
    bool row = false;
  };
  absl::flat_hash_map<int, Kept> kept;
  absl::flat_hash_map<int, int64_t> trips_of;  // Parameter -> its registers' trips.
  absl::flat_hash_map<std::string, Declaration> declarations;  // By register.
  for (int s = 0; s < stages.size(); ++s) {
    const RowKernelStage& stage = stages[s];
    const KernelProgram& program = *stage.program;
    const bool reduce = program.kind() == KernelProgram::Kind::kReduce;
    const int64_t length = reduce ? program.reduced_elements() : stage.row_length;
    const int64_t trips = UnrolledTrips(length, lanes);
    const std::string trip =
        trips == 1 ? "0" : absl::StrCat(reduce ? "r" : "j", "_trip");
    StageRegisters& registers = plan.stages[s];
    auto type_of = [&](int p) {
      return primitive_util::CudaStorageTypeName(stage.parameters.types[p]);
    };
    // Whether parameter p's element registers may hold this stage's trips.
    auto elements_fit = [&](int p) {
      auto it = trips_of.find(p);
      return trips > 0 && (it == trips_of.end() || it->second == trips);
    };
    auto element = [&](int p) {
      trips_of[p] = trips;
      declarations[absl::StrCat("xl_e", p)] = {
          false, absl::StrCat("    ", type_of(p), " xl_e", p, "[", trips,
                              "];\n")};
      return absl::StrCat("xl_e", p, "[", trip, "]");
    };
    auto row = [&](int p) {
      declarations[absl::StrCat("xl_row", p)] = {
          true, absl::StrCat("  __shared__ ", type_of(p), " xl_row", p, "[",
                             rows_per_block, "];\n")};
      return absl::StrCat("xl_row", p, "[y]");
    };
    for (int id = 0; id < program.ops().size(); ++id) {
      const ExprOp& op = program.op(id);
      if (op.kind != ExprKind::kLoad) continue;
      const int p = stage.parameters.input_param[op.input];
      Kept& k = kept[p];
      switch (ClassifyRowAccess(program, op.operands[0], length)) {
        case RowAccess::kElement:
          if (!elements_fit(p)) break;
          if (k.elements) {
            registers.loads[id] = element(p);
          } else if (!k.row) {
            registers.kept_loads[id] = element(p);
            k.elements = true;
          }
          break;
        case RowAccess::kRow:
          if (k.row) registers.loads[id] = row(p);
          break;
        case RowAccess::kOther:
          break;
      }
    }
    for (int o = 0; o < program.outputs().size(); ++o) {
      const int p = stage.parameters.output_param[o];
      Kept& k = kept[p];
      k = Kept();
      if (reduce) {
        registers.kept_outputs[o] = row(p);
        k.row = true;
      } else if (elements_fit(p)) {
        registers.kept_outputs[o] = element(p);
        k.elements = true;
      }
    }
  }
  DeclareReadRegisters(declarations, plan);
  return plan;
}

}  // namespace xla_lite::gpu::cuda_internal
