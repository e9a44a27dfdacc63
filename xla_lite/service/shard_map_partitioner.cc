#include "xla_lite/service/shard_map_partitioner.h"

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/primitive_util.h"
#include "xla_lite/service/hlo_rewrite_util.h"

namespace xla_lite {
namespace {

constexpr char kGlobalToLocal[] = "xla.sdy.GlobalToLocalShape";
constexpr char kLocalToGlobal[] = "xla.sdy.LocalToGlobalShape";

absl::Status Error(const HloInstruction& instr, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(InstructionErrorPrefix(instr), what));
}

// Mesh axes per dimension per value of a #sdy.sharding_per_value<[...]>:
// <@mesh, [{"batch"}, {}]> is one value whose dimension 0 is split over
// "batch". Open dimensions ("?") and the rest of the syntax carry nothing
// the split needs.
using DimAxes = std::vector<std::vector<std::string>>;
absl::StatusOr<std::vector<DimAxes>> ParseShardingPerValue(
    const HloInstruction& instr, const std::string& escaped) {
  const std::string text = absl::StrReplaceAll(escaped, {{"\\\"", "\""}});
  std::vector<DimAxes> values;
  size_t pos = 0;
  while ((pos = text.find("<@", pos)) != std::string::npos) {
    const size_t open = text.find('[', pos);
    if (open == std::string::npos) {
      return Error(instr, absl::StrCat("sharding without '[': ", text));
    }
    DimAxes dims;
    bool in_dim = false, in_name = false;
    size_t i = open + 1;
    for (; i < text.size() && text[i] != ']'; ++i) {
      const char c = text[i];
      if (in_name) {
        if (c == '"') {
          in_name = false;
        } else {
          dims.back().back().push_back(c);
        }
      } else if (c == '{') {
        in_dim = true;
        dims.emplace_back();
      } else if (c == '}') {
        in_dim = false;
      } else if (c == '"' && in_dim) {
        in_name = true;
        dims.back().emplace_back();
      }
    }
    if (i == text.size()) {
      return Error(instr, absl::StrCat("unterminated sharding: ", text));
    }
    values.push_back(std::move(dims));
    pos = i;
  }
  return values;
}

// The pieces of each dimension of one value, checked against its global
// and local shapes. `axis` is the mesh's one axis, learned from the first
// sharded dimension seen.
absl::StatusOr<ArraySharding> ShardingOf(const HloInstruction& instr,
                                         int64_t index, const DimAxes& dims,
                                         const Shape& global,
                                         const Shape& local,
                                         int64_t device_count,
                                         std::string* axis) {
  const std::string which = absl::StrCat("value ", index, " (global ",
                                         global.ToString(), ", local ",
                                         local.ToString(), ")");
  if (!global.IsArray() || !local.IsArray() || global.rank() != local.rank() ||
      static_cast<int64_t>(dims.size()) != global.rank() ||
      global.element_type() != local.element_type()) {
    return Error(instr, absl::StrCat(which, ": sharding of ", dims.size(),
                                     " dimensions does not match"));
  }
  ArraySharding sharding;
  for (int64_t d = 0; d < global.rank(); ++d) {
    int64_t pieces = 1;
    if (dims[d].size() > 1) {
      return absl::UnimplementedError(absl::StrCat(
          InstructionErrorPrefix(instr), which, ": dimension ", d,
          " split over several mesh axes; one axis is supported"));
    }
    if (dims[d].size() == 1) {
      if (axis->empty()) *axis = dims[d][0];
      if (*axis != dims[d][0]) {
        return absl::UnimplementedError(absl::StrCat(
            InstructionErrorPrefix(instr), "meshes of several axes ('", *axis,
            "', '", dims[d][0], "'); one axis is supported"));
      }
      pieces = device_count;
    }
    if (global.dimensions(d) % pieces != 0 ||
        global.dimensions(d) / pieces != local.dimensions(d)) {
      return Error(instr, absl::StrCat(
                              which, ": dimension ", d, " of size ",
                              global.dimensions(d), " split over ", pieces,
                              pieces == 1 ? " device" : " devices",
                              " does not give ", local.dimensions(d)));
    }
    sharding.pieces.push_back(pieces);
  }
  return sharding;
}

absl::StatusOr<std::vector<ArraySharding>> Shardings(
    const HloInstruction& instr, const char* key,
    const std::vector<Shape>& global, const std::vector<Shape>& local,
    int64_t device_count, std::string* axis) {
  const std::string* text = instr.FrontendAttribute(key);
  if (text == nullptr) {
    return Error(instr, absl::StrCat("lacks frontend attribute ", key));
  }
  ASSIGN_OR_RETURN(std::vector<DimAxes> values,
                   ParseShardingPerValue(instr, *text));
  if (values.size() != global.size()) {
    return Error(instr, absl::StrCat(key, " has ", values.size(),
                                     " shardings for ", global.size(),
                                     " values"));
  }
  std::vector<ArraySharding> out;
  for (size_t i = 0; i < values.size(); ++i) {
    ASSIGN_OR_RETURN(ArraySharding s,
                     ShardingOf(instr, i, values[i], global[i], local[i],
                                device_count, axis));
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<Shape> TupleElements(const Shape& shape) {
  if (!shape.IsTuple()) return {shape};
  std::vector<Shape> out;
  for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
    out.push_back(shape.tuple_shapes(i));
  }
  return out;
}

absl::StatusOr<HloInstruction*> FindCustomCall(const HloComputation& entry,
                                               const std::string& target) {
  HloInstruction* found = nullptr;
  for (HloInstruction* instr : entry.instructions()) {
    if (instr->opcode() != HloOpcode::kCustomCall ||
        instr->custom_call_target() != target) {
      continue;
    }
    if (found != nullptr) {
      return absl::UnimplementedError(absl::StrCat(
          InstructionErrorPrefix(*instr), "a second ", target,
          " (one shard_map per module is supported)"));
    }
    found = instr;
  }
  return found;
}

// The parameters take their local shapes; the custom-call becomes a
// tuple of them.
absl::Status RewriteGlobalToLocal(HloComputation* entry, HloInstruction* g2l,
                                  const std::vector<Shape>& local) {
  for (int64_t i = 0; i < g2l->operand_count(); ++i) {
    HloInstruction* param = g2l->mutable_operand(i);
    if (param->opcode() != HloOpcode::kParameter || param->user_count() != 1) {
      return Error(*g2l, absl::StrCat(
                             "operand ", i, " '", param->name(),
                             "' is not a parameter used only by the "
                             "shard_map (the global view computes nothing "
                             "else in these modules)"));
    }
    *param->mutable_shape() = local[i];
  }
  std::vector<HloInstruction*> operands(g2l->operands().begin(),
                                        g2l->operands().end());
  HloInstruction* tuple = AddInstruction(entry, HloOpcode::kTuple, g2l->shape(),
                                         operands, g2l->name() + ".local");
  g2l->ReplaceAllUsesWith(tuple);
  return entry->RemoveInstruction(g2l);
}

// The custom-call becomes a tuple of the local results; the
// get-tuple-elements and tuples after it take local shapes.
absl::Status RewriteLocalToGlobal(HloComputation* entry, HloInstruction* l2g) {
  std::vector<HloInstruction*> operands(l2g->operands().begin(),
                                        l2g->operands().end());
  std::vector<Shape> shapes;
  for (const HloInstruction* operand : operands) {
    shapes.push_back(operand->shape());
  }
  HloInstruction* tuple =
      AddInstruction(entry, HloOpcode::kTuple, Shape::Tuple(shapes), operands,
                     l2g->name() + ".local");
  l2g->ReplaceAllUsesWith(tuple);
  RETURN_IF_ERROR(entry->RemoveInstruction(l2g));
  for (HloInstruction* instr : entry->MakeInstructionPostOrder()) {
    if (instr->opcode() == HloOpcode::kGetTupleElement &&
        instr->operand(0)->shape().IsTuple()) {
      *instr->mutable_shape() =
          instr->operand(0)->shape().tuple_shapes(instr->tuple_index());
    } else if (instr->opcode() == HloOpcode::kTuple) {
      std::vector<Shape> elements;
      for (const HloInstruction* operand : instr->operands()) {
        elements.push_back(operand->shape());
      }
      *instr->mutable_shape() = Shape::Tuple(std::move(elements));
    }
  }
  return absl::OkStatus();
}

// Donated parameters as may-aliases of the result at the same position.
void AliasDonors(HloModule* module) {
  std::vector<HloInputOutputAlias> aliases = module->input_output_aliases();
  const ComputationLayout& layout = module->entry_computation_layout();
  const std::vector<Shape> results = TupleElements(layout.result_shape);
  for (int64_t p : module->buffer_donors()) {
    bool aliased = false;
    for (const HloInputOutputAlias& a : aliases) {
      aliased |= a.parameter_number == p;
    }
    if (aliased || p < 0 || p >= static_cast<int64_t>(results.size()) ||
        p >= static_cast<int64_t>(layout.parameter_shapes.size()) ||
        !results[p].Compatible(layout.parameter_shapes[p])) {
      continue;
    }
    HloInputOutputAlias alias;
    alias.output_index = {p};
    alias.parameter_number = p;
    aliases.push_back(std::move(alias));
  }
  module->set_input_output_aliases(std::move(aliases));
}

}  // namespace

bool ArraySharding::replicated() const {
  for (int64_t p : pieces) {
    if (p != 1) return false;
  }
  return true;
}

bool IsShardMapModule(const HloModule& module) {
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) return false;
  for (const HloInstruction* instr : entry->instructions()) {
    if (instr->opcode() == HloOpcode::kCustomCall &&
        instr->custom_call_target() == kGlobalToLocal) {
      return true;
    }
  }
  return false;
}

absl::StatusOr<ShardMapSignature> PartitionShardMapModule(
    HloModule* module, int64_t device_count) {
  if (device_count < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("device count ", device_count, " < 1"));
  }
  HloComputation* entry = module->entry_computation();
  ShardMapSignature sig;
  sig.device_count = device_count;
  const ComputationLayout& layout = module->entry_computation_layout();
  sig.global_parameters = layout.parameter_shapes;
  sig.global_results = TupleElements(layout.result_shape);
  ASSIGN_OR_RETURN(HloInstruction * g2l, FindCustomCall(*entry, kGlobalToLocal));
  ASSIGN_OR_RETURN(HloInstruction * l2g, FindCustomCall(*entry, kLocalToGlobal));
  if (g2l == nullptr && l2g == nullptr) {
    // A replicated program (pmap style): device d is replica d.
    sig.topology = {device_count, 1};
    for (const Shape& s : sig.global_parameters) {
      sig.in_shardings.push_back({std::vector<int64_t>(s.rank(), 1)});
    }
    for (const Shape& s : sig.global_results) {
      sig.out_shardings.push_back({std::vector<int64_t>(s.rank(), 1)});
    }
    AliasDonors(module);
    return sig;
  }
  if (g2l == nullptr || l2g == nullptr) {
    return Error(g2l != nullptr ? *g2l : *l2g,
                 "a shard_map needs both xla.sdy.GlobalToLocalShape and "
                 "xla.sdy.LocalToGlobalShape");
  }
  sig.topology = {1, device_count};
  std::string axis;
  std::vector<Shape> g2l_global;
  for (const HloInstruction* operand : g2l->operands()) {
    g2l_global.push_back(operand->shape());
  }
  const std::vector<Shape> g2l_local = TupleElements(g2l->shape());
  ASSIGN_OR_RETURN(std::vector<ArraySharding> in,
                   Shardings(*g2l, "xla.sdy.in_shardings", g2l_global,
                             g2l_local, device_count, &axis));
  std::vector<Shape> l2g_local;
  for (const HloInstruction* operand : l2g->operands()) {
    l2g_local.push_back(operand->shape());
  }
  ASSIGN_OR_RETURN(sig.out_shardings,
                   Shardings(*l2g, "xla.sdy.out_shardings",
                             TupleElements(l2g->shape()), l2g_local,
                             device_count, &axis));
  if (entry->root_instruction() == l2g ||
      sig.out_shardings.size() != sig.global_results.size()) {
    return Error(*l2g, "expected the entry to return a tuple of each of its "
                       "results");
  }
  // in_shardings are per operand of the custom-call; the signature's per
  // entry parameter.
  sig.in_shardings.resize(entry->num_parameters());
  for (int64_t i = 0; i < g2l->operand_count(); ++i) {
    sig.in_shardings[g2l->operand(i)->parameter_number()] = in[i];
  }
  RETURN_IF_ERROR(RewriteGlobalToLocal(entry, g2l, g2l_local));
  RETURN_IF_ERROR(RewriteLocalToGlobal(entry, l2g));
  ComputationLayout local_layout = ComputationLayoutOf(*entry);
  module->set_entry_computation_layout(std::move(local_layout));
  AliasDonors(module);
  VLOG(1) << "shard_map: " << module->name() << " split over " << device_count
          << " devices along '" << axis << "'";
  return sig;
}

namespace {

// Copies device `device`'s piece between a global array and its local
// one, element by element (row-major), in the direction asked.
void CopyPiece(const ArraySharding& sharding, int64_t device_count,
               int64_t device, Literal* global, Literal* local,
               bool to_local) {
  const Shape& g = global->shape();
  const Shape& l = local->shape();
  const int64_t width = primitive_util::ByteWidth(g.element_type());
  std::vector<int64_t> offset(g.rank(), 0);
  for (int64_t d = 0; d < g.rank(); ++d) {
    const int64_t pieces = sharding.pieces[d];
    offset[d] = (device / (device_count / pieces)) * l.dimensions(d);
  }
  std::vector<int64_t> index(l.rank(), 0);
  for (int64_t i = 0; i < local->element_count(); ++i) {
    int64_t rem = i, linear = 0;
    for (int64_t d = l.rank() - 1; d >= 0; --d) {
      index[d] = rem % l.dimensions(d);
      rem /= l.dimensions(d);
    }
    for (int64_t d = 0; d < g.rank(); ++d) {
      linear = linear * g.dimensions(d) + offset[d] + index[d];
    }
    uint8_t* gp = global->mutable_bytes().data() + linear * width;
    uint8_t* lp = local->mutable_bytes().data() + i * width;
    if (to_local) {
      std::memcpy(lp, gp, width);
    } else {
      std::memcpy(gp, lp, width);
    }
  }
}

Shape LocalShape(const Shape& global, const ArraySharding& sharding) {
  std::vector<int64_t> dims = global.dimensions();
  for (size_t d = 0; d < dims.size(); ++d) dims[d] /= sharding.pieces[d];
  return Shape::Array(global.element_type(), dims);
}

}  // namespace

absl::StatusOr<std::vector<std::vector<Literal>>> SplitGlobalArguments(
    const ShardMapSignature& sig, absl::Span<const Literal> global) {
  if (global.size() != sig.in_shardings.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected ", sig.in_shardings.size(),
                     " global arguments, got ", global.size()));
  }
  std::vector<std::vector<Literal>> out(sig.device_count);
  for (size_t i = 0; i < global.size(); ++i) {
    const Shape& expected = sig.global_parameters[i];
    if (!global[i].shape().Compatible(expected)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "global argument ", i, " is ", global[i].shape().ToString(),
          ", expected ", expected.ToString()));
    }
    Literal whole = global[i];
    for (int64_t d = 0; d < sig.device_count; ++d) {
      Literal local(LocalShape(whole.shape(), sig.in_shardings[i]));
      CopyPiece(sig.in_shardings[i], sig.device_count, d, &whole, &local,
                /*to_local=*/true);
      out[d].push_back(std::move(local));
    }
  }
  return out;
}

absl::StatusOr<std::vector<Literal>> GatherGlobalResults(
    const ShardMapSignature& sig,
    absl::Span<const std::vector<Literal>> per_device) {
  if (static_cast<int64_t>(per_device.size()) != sig.device_count) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected results of ", sig.device_count, " devices, got ",
        per_device.size()));
  }
  std::vector<Literal> out;
  for (size_t r = 0; r < sig.out_shardings.size(); ++r) {
    const ArraySharding& sharding = sig.out_shardings[r];
    Literal global(Shape::Array(sig.global_results[r].element_type(),
                                sig.global_results[r].dimensions()));
    for (int64_t d = 0; d < sig.device_count; ++d) {
      if (per_device[d].size() != sig.out_shardings.size()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "device ", d, " has ", per_device[d].size(), " results, expected ",
            sig.out_shardings.size()));
      }
      Literal local = per_device[d][r];
      if (!local.shape().Compatible(LocalShape(global.shape(), sharding))) {
        return absl::InvalidArgumentError(absl::StrCat(
            "result ", r, " of device ", d, " is ", local.shape().ToString()));
      }
      if (sharding.replicated() && d > 0 &&
          local.bytes() != per_device[0][r].bytes()) {
        return absl::InternalError(absl::StrCat(
            "replicated result ", r, " differs between devices 0 and ", d));
      }
      CopyPiece(sharding, sig.device_count, d, &global, &local,
                /*to_local=*/false);
    }
    out.push_back(std::move(global));
  }
  return out;
}

}  // namespace xla_lite
