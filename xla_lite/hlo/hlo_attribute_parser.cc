#include "xla_lite/hlo/hlo_padding.h"
#include "xla_lite/hlo/hlo_attribute_parser.h"

#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "xla_lite/hlo/hlo_window_attribute_parser.h"
#include "xla_lite/hlo/hlo_collective_attribute_parser.h"

namespace xla_lite {
namespace {

class AttributeParser {
 public:
  AttributeParser(
      TokenCursor& cursor,
      const absl::flat_hash_map<std::string, HloComputation*>& computations)
      : cursor_(cursor), computations_(computations) {}

  absl::Status ParseAttributes(const Token& name_token, HloInstruction* instr);

 private:
  absl::Status ParseAttribute(HloInstruction* instr);
  // The attributes of gather and scatter; false when `key` is none of them.
  absl::StatusOr<bool> ParseIndexingAttribute(const std::string& key,
                                              HloInstruction* instr);
  absl::StatusOr<bool> ParseBool(absl::string_view what);
  absl::StatusOr<HloComputation*> ParseComputationReference();
  // condition=, body=, true_computation=, false_computation= and
  // branch_computations=; false when `key` is none of them.
  absl::StatusOr<bool> ParseControlFlowAttribute(const std::string& key,
                                                 HloInstruction* instr);
  absl::StatusOr<std::vector<HloComputation*>> ParseComputationList();
  absl::StatusOr<ComparisonDirection> ParseDirection();
  absl::StatusOr<ComparisonType> ParseComparisonType();
  absl::StatusOr<std::vector<PrecisionConfig>> ParsePrecisionList();
  absl::StatusOr<std::vector<SliceDimension>> ParseSlice();
  absl::StatusOr<SliceDimension> ParseSliceDimension();
  absl::StatusOr<std::vector<PaddingDimension>> ParsePaddingAttribute();

  TokenCursor& cursor_;
  const absl::flat_hash_map<std::string, HloComputation*>& computations_;
};

// The attributes without which an opcode means nothing definite. XLA's
// parser requires the same ones; a default (compare's EQ, say) would
// silently compute something else.
const std::vector<std::string>& RequiredAttributes(HloOpcode opcode) {
  static const auto* const kRequired =
      new absl::flat_hash_map<HloOpcode, std::vector<std::string>>{
          {HloOpcode::kAllGather, {"dimensions"}},
          {HloOpcode::kAllReduce, {"to_apply"}},
          {HloOpcode::kBroadcast, {"dimensions"}},
          {HloOpcode::kCollectivePermute, {"source_target_pairs"}},
          {HloOpcode::kCustomCall, {"custom_call_target"}},
          {HloOpcode::kReduceScatter, {"dimensions", "to_apply"}},
          {HloOpcode::kCall, {"to_apply"}},
          {HloOpcode::kCompare, {"direction"}},
          {HloOpcode::kConcatenate, {"dimensions"}},
          {HloOpcode::kDynamicSlice, {"dynamic_slice_sizes"}},
          {HloOpcode::kConvolution, {"dim_labels"}},
          {HloOpcode::kFusion, {"calls"}},
          {HloOpcode::kGather,
           {"offset_dims", "collapsed_slice_dims", "start_index_map",
            "index_vector_dim", "slice_sizes"}},
          {HloOpcode::kGetTupleElement, {"index"}},
          {HloOpcode::kIota, {"iota_dimension"}},
          {HloOpcode::kPad, {"padding"}},
          {HloOpcode::kReduce, {"dimensions", "to_apply"}},
          {HloOpcode::kReduceWindow, {"window", "to_apply"}},
          {HloOpcode::kReverse, {"dimensions"}},
          {HloOpcode::kScatter,
           {"update_window_dims", "inserted_window_dims",
            "scatter_dims_to_operand_dims", "index_vector_dim", "to_apply"}},
          {HloOpcode::kSelectAndScatter, {"window", "select", "scatter"}},
          {HloOpcode::kSlice, {"slice"}},
          {HloOpcode::kTranspose, {"dimensions"}},
          {HloOpcode::kWhile, {"condition", "body"}},
      };
  static const auto* const kNone = new std::vector<std::string>();
  auto it = kRequired->find(opcode);
  return it == kRequired->end() ? *kNone : it->second;
}

// ", key=value" up to the end of the line; each key at most once.
absl::Status AttributeParser::ParseAttributes(const Token& name_token,
                                              HloInstruction* instr) {
  absl::flat_hash_set<std::string> seen;
  while (cursor_.TryConsume(TokenKind::kComma)) {
    const Token key = cursor_.Peek();
    if (key.kind == TokenKind::kName && !seen.insert(key.text).second) {
      return cursor_.ErrorWithMessage(
          key, absl::StrCat("attribute '", key.text, "' given twice"));
    }
    RETURN_IF_ERROR(ParseAttribute(instr));
  }
  if (!cursor_.AtLineEnd()) {
    return cursor_.ErrorAt(cursor_.Peek(), "',' or end of line");
  }
  if (instr->opcode() == HloOpcode::kConditional) {
    const bool indexed = seen.contains("branch_computations");
    const bool has_true = seen.contains("true_computation");
    const bool has_false = seen.contains("false_computation");
    if (indexed == (has_true || has_false) ||
        (!indexed && !(has_true && has_false))) {
      return cursor_.ErrorWithMessage(
          name_token,
          absl::StrCat("conditional '", instr->name(),
                       "' needs either branch_computations= or both "
                       "true_computation= and false_computation="));
    }
  }
  for (const std::string& required : RequiredAttributes(instr->opcode())) {
    if (!seen.contains(required)) {
      return cursor_.ErrorWithMessage(
          name_token,
          absl::StrCat(HloOpcodeString(instr->opcode()), " '", instr->name(),
                       "' lacks its attribute ", required, "="));
    }
  }
  return absl::OkStatus();
}

absl::Status AttributeParser::ParseAttribute(HloInstruction* instr) {
  ASSIGN_OR_RETURN(std::string key, cursor_.ExpectName("attribute name"));
  RETURN_IF_ERROR(cursor_.Expect(TokenKind::kEqual, "'='"));
  ASSIGN_OR_RETURN(bool indexing, ParseIndexingAttribute(key, instr));
  if (indexing) return absl::OkStatus();
  ASSIGN_OR_RETURN(bool control_flow, ParseControlFlowAttribute(key, instr));
  if (control_flow) return absl::OkStatus();
  ASSIGN_OR_RETURN(bool windowed, ParseWindowAttribute(cursor_, key, instr));
  if (windowed) return absl::OkStatus();
  const bool select_and_scatter =
      instr->opcode() == HloOpcode::kSelectAndScatter;
  ASSIGN_OR_RETURN(bool collective,
                   ParseCollectiveAttribute(cursor_, key, instr));
  if (collective) return absl::OkStatus();
  if (key == "dimensions") {
    ASSIGN_OR_RETURN(std::vector<int64_t> dims, cursor_.ParseIntList());
    instr->set_dimensions(std::move(dims));
  } else if (key == "to_apply" || key == "calls" ||
             (key == "scatter" && select_and_scatter)) {
    ASSIGN_OR_RETURN(HloComputation * computation, ParseComputationReference());
    instr->set_to_apply(computation);
  } else if (key == "select" && select_and_scatter) {
    ASSIGN_OR_RETURN(HloComputation * computation, ParseComputationReference());
    instr->set_select(computation);
  } else if (key == "index") {
    ASSIGN_OR_RETURN(int64_t index, cursor_.ExpectInt("tuple index"));
    instr->set_tuple_index(index);
  } else if (key == "iota_dimension") {
    ASSIGN_OR_RETURN(int64_t dim, cursor_.ExpectInt("iota dimension"));
    instr->set_iota_dimension(dim);
  } else if (key == "direction") {
    ASSIGN_OR_RETURN(ComparisonDirection direction, ParseDirection());
    instr->set_comparison_direction(direction);
  } else if (key == "type" && instr->opcode() == HloOpcode::kCompare) {
    ASSIGN_OR_RETURN(ComparisonType type, ParseComparisonType());
    instr->set_comparison_type(type);
  } else if (key == "lhs_contracting_dims" || key == "rhs_contracting_dims" ||
             key == "lhs_batch_dims" || key == "rhs_batch_dims") {
    ASSIGN_OR_RETURN(std::vector<int64_t> dims, cursor_.ParseIntList());
    DotDimensionNumbers dnums = instr->dot_dimension_numbers();
    if (key == "lhs_contracting_dims") dnums.lhs_contracting_dimensions = dims;
    if (key == "rhs_contracting_dims") dnums.rhs_contracting_dimensions = dims;
    if (key == "lhs_batch_dims") dnums.lhs_batch_dimensions = dims;
    if (key == "rhs_batch_dims") dnums.rhs_batch_dimensions = dims;
    instr->set_dot_dimension_numbers(std::move(dnums));
  } else if (key == "operand_precision") {
    ASSIGN_OR_RETURN(std::vector<PrecisionConfig> precision,
                     ParsePrecisionList());
    instr->set_operand_precision(std::move(precision));
  } else if (key == "dynamic_slice_sizes" &&
             instr->opcode() == HloOpcode::kDynamicSlice) {
    ASSIGN_OR_RETURN(std::vector<int64_t> sizes, cursor_.ParseIntList());
    instr->set_dynamic_slice_sizes(std::move(sizes));
  } else if (key == "slice") {
    ASSIGN_OR_RETURN(std::vector<SliceDimension> slice, ParseSlice());
    instr->set_slice_dimensions(std::move(slice));
  } else if (key == "padding" && instr->opcode() == HloOpcode::kPad) {
    ASSIGN_OR_RETURN(std::vector<PaddingDimension> padding,
                     ParsePaddingAttribute());
    instr->set_padding(std::move(padding));
  } else {
    // metadata, sharding, backend_config, frontend_attributes, kind, ...:
    // nothing that changes the values computed.
    RETURN_IF_ERROR(cursor_.SkipAttributeValue());
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> AttributeParser::ParseIndexingAttribute(
    const std::string& key, HloInstruction* instr) {
  using G = GatherDimensionNumbers;
  using S = ScatterDimensionNumbers;
  static const auto* const kGatherLists =
      new absl::flat_hash_map<std::string, std::vector<int64_t> G::*>{
          {"offset_dims", &G::offset_dims},
          {"collapsed_slice_dims", &G::collapsed_slice_dims},
          {"start_index_map", &G::start_index_map},
          {"operand_batching_dims", &G::operand_batching_dims},
          {"start_indices_batching_dims", &G::start_indices_batching_dims}};
  static const auto* const kScatterLists =
      new absl::flat_hash_map<std::string, std::vector<int64_t> S::*>{
          {"update_window_dims", &S::update_window_dims},
          {"inserted_window_dims", &S::inserted_window_dims},
          {"scatter_dims_to_operand_dims", &S::scatter_dims_to_operand_dims},
          {"input_batching_dims", &S::input_batching_dims},
          {"scatter_indices_batching_dims", &S::scatter_indices_batching_dims}};
  const HloOpcode opcode = instr->opcode();
  if (opcode != HloOpcode::kGather && opcode != HloOpcode::kScatter) {
    return false;
  }
  const bool gather = opcode == HloOpcode::kGather;
  if (key == "index_vector_dim") {
    ASSIGN_OR_RETURN(int64_t dim, cursor_.ExpectInt("index vector dimension"));
    if (gather) {
      instr->mutable_gather_dimension_numbers()->index_vector_dim = dim;
    } else {
      instr->mutable_scatter_dimension_numbers()->index_vector_dim = dim;
    }
  } else if (key == "slice_sizes" && gather) {
    ASSIGN_OR_RETURN(std::vector<int64_t> sizes, cursor_.ParseIntList());
    instr->set_gather_slice_sizes(std::move(sizes));
  } else if (key == "indices_are_sorted") {
    ASSIGN_OR_RETURN(bool sorted, ParseBool("true or false"));
    instr->set_indices_are_sorted(sorted);
  } else if (key == "unique_indices" && !gather) {
    ASSIGN_OR_RETURN(bool unique, ParseBool("true or false"));
    instr->set_unique_indices(unique);
  } else if (gather && kGatherLists->contains(key)) {
    ASSIGN_OR_RETURN(std::vector<int64_t> dims, cursor_.ParseIntList());
    instr->mutable_gather_dimension_numbers()->*kGatherLists->at(key) =
        std::move(dims);
  } else if (!gather && kScatterLists->contains(key)) {
    ASSIGN_OR_RETURN(std::vector<int64_t> dims, cursor_.ParseIntList());
    instr->mutable_scatter_dimension_numbers()->*kScatterLists->at(key) =
        std::move(dims);
  } else {
    return false;
  }
  return true;
}

absl::StatusOr<bool> AttributeParser::ParseBool(absl::string_view what) {
  const Token& token = cursor_.Peek();
  if (cursor_.AtName("true") || cursor_.AtName("false")) {
    cursor_.Next();
    return token.text == "true";
  }
  return cursor_.ErrorAt(token, what);
}

absl::StatusOr<HloComputation*> AttributeParser::ParseComputationReference() {
  const Token token = cursor_.Peek();
  ASSIGN_OR_RETURN(std::string name, cursor_.ExpectName("computation name"));
  auto it = computations_.find(name);
  if (it == computations_.end()) {
    return cursor_.ErrorWithMessage(
        token, absl::StrCat("unknown computation '", name,
                            "' (computations must be defined before use)"));
  }
  return it->second;
}

absl::StatusOr<bool> AttributeParser::ParseControlFlowAttribute(
    const std::string& key, HloInstruction* instr) {
  const HloOpcode opcode = instr->opcode();
  // The slot of each single-computation key: a while's {condition, body},
  // a pred conditional's {true, false}.
  int slot = -1;
  if (opcode == HloOpcode::kWhile) {
    slot = key == "condition" ? 0 : key == "body" ? 1 : -1;
  } else if (opcode == HloOpcode::kConditional) {
    if (key == "branch_computations") {
      ASSIGN_OR_RETURN(std::vector<HloComputation*> branches,
                       ParseComputationList());
      instr->set_called_computations(std::move(branches));
      return true;
    }
    slot = key == "true_computation" ? 0 : key == "false_computation" ? 1 : -1;
  }
  if (slot < 0) return false;
  ASSIGN_OR_RETURN(HloComputation * computation, ParseComputationReference());
  std::vector<HloComputation*> called = instr->called_computations();
  called.resize(2, nullptr);
  called[slot] = computation;
  instr->set_called_computations(std::move(called));
  return true;
}

// {%a, %b}: at least one computation.
absl::StatusOr<std::vector<HloComputation*>>
AttributeParser::ParseComputationList() {
  RETURN_IF_ERROR(cursor_.Expect(TokenKind::kLbrace, "'{'"));
  std::vector<HloComputation*> computations;
  do {
    ASSIGN_OR_RETURN(HloComputation * computation, ParseComputationReference());
    computations.push_back(computation);
  } while (cursor_.TryConsume(TokenKind::kComma));
  RETURN_IF_ERROR(cursor_.Expect(TokenKind::kRbrace, "',' or '}'"));
  return computations;
}

absl::StatusOr<ComparisonDirection> AttributeParser::ParseDirection() {
  static constexpr struct {
    const char* text;
    ComparisonDirection direction;
  } kDirections[] = {
      {"EQ", ComparisonDirection::kEq}, {"NE", ComparisonDirection::kNe},
      {"LT", ComparisonDirection::kLt}, {"LE", ComparisonDirection::kLe},
      {"GT", ComparisonDirection::kGt}, {"GE", ComparisonDirection::kGe},
  };
  const Token& token = cursor_.Peek();
  for (const auto& entry : kDirections) {
    if (cursor_.AtName(entry.text)) {
      cursor_.Next();
      return entry.direction;
    }
  }
  return cursor_.ErrorAt(token,
                         "comparison direction (EQ, NE, LT, LE, GT, GE)");
}

absl::StatusOr<ComparisonType> AttributeParser::ParseComparisonType() {
  static constexpr ComparisonType kTypes[] = {
      ComparisonType::kFloat, ComparisonType::kTotalOrder,
      ComparisonType::kSigned, ComparisonType::kUnsigned};
  const Token& token = cursor_.Peek();
  for (ComparisonType type : kTypes) {
    if (cursor_.AtName(ComparisonTypeString(type))) {
      cursor_.Next();
      return type;
    }
  }
  return cursor_.ErrorAt(token,
                         "comparison type (FLOAT, TOTALORDER, SIGNED, "
                         "UNSIGNED)");
}

absl::StatusOr<std::vector<PrecisionConfig>>
AttributeParser::ParsePrecisionList() {
  RETURN_IF_ERROR(cursor_.Expect(TokenKind::kLbrace, "'{'"));
  std::vector<PrecisionConfig> precision;
  if (!cursor_.At(TokenKind::kRbrace)) {
    do {
      const Token& token = cursor_.Peek();
      std::string text = token.kind == TokenKind::kName
                             ? absl::AsciiStrToLower(token.text)
                             : "";
      if (text == "default") {
        precision.push_back(PrecisionConfig::kDefault);
      } else if (text == "high") {
        precision.push_back(PrecisionConfig::kHigh);
      } else if (text == "highest") {
        precision.push_back(PrecisionConfig::kHighest);
      } else {
        return cursor_.ErrorAt(token, "precision (default, high, highest)");
      }
      cursor_.Next();
    } while (cursor_.TryConsume(TokenKind::kComma));
  }
  RETURN_IF_ERROR(cursor_.Expect(TokenKind::kRbrace, "',' or '}'"));
  return precision;
}

// {[0:2], [1:5:2]}
absl::StatusOr<std::vector<SliceDimension>> AttributeParser::ParseSlice() {
  RETURN_IF_ERROR(cursor_.Expect(TokenKind::kLbrace, "'{'"));
  std::vector<SliceDimension> slice;
  if (!cursor_.At(TokenKind::kRbrace)) {
    do {
      ASSIGN_OR_RETURN(SliceDimension dim, ParseSliceDimension());
      slice.push_back(dim);
    } while (cursor_.TryConsume(TokenKind::kComma));
  }
  RETURN_IF_ERROR(cursor_.Expect(TokenKind::kRbrace, "',' or '}'"));
  return slice;
}

// padding=1_0x-1_2_1. The lexer splits it where a number meets a '_' (a
// number, then a name), so its tokens on this line are joined again.
absl::StatusOr<std::vector<PaddingDimension>>
AttributeParser::ParsePaddingAttribute() {
  const Token first = cursor_.Peek();
  std::string text;
  while ((cursor_.At(TokenKind::kInt) || cursor_.At(TokenKind::kName)) &&
         cursor_.Peek().line == first.line) {
    absl::StrAppend(&text, cursor_.Next().text);
  }
  if (text.empty()) {
    return cursor_.ErrorAt(first, "padding low_high[_interior]x...");
  }
  absl::StatusOr<std::vector<PaddingDimension>> padding = ParsePadding(text);
  if (!padding.ok()) {
    return cursor_.ErrorWithMessage(first, padding.status().message());
  }
  return padding;
}

absl::StatusOr<SliceDimension> AttributeParser::ParseSliceDimension() {
  SliceDimension dim;
  RETURN_IF_ERROR(cursor_.Expect(TokenKind::kLsquare, "'['"));
  ASSIGN_OR_RETURN(dim.start, cursor_.ExpectInt("slice start"));
  RETURN_IF_ERROR(cursor_.Expect(TokenKind::kColon, "':'"));
  ASSIGN_OR_RETURN(dim.limit, cursor_.ExpectInt("slice limit"));
  if (cursor_.TryConsume(TokenKind::kColon)) {
    ASSIGN_OR_RETURN(dim.stride, cursor_.ExpectInt("slice stride"));
  }
  RETURN_IF_ERROR(cursor_.Expect(TokenKind::kRsquare, "':' or ']'"));
  return dim;
}

}  // namespace

absl::Status ParseInstructionAttributes(
    TokenCursor& cursor,
    const absl::flat_hash_map<std::string, HloComputation*>& computations,
    const Token& name_token, HloInstruction* instr) {
  return AttributeParser(cursor, computations)
      .ParseAttributes(name_token, instr);
}

}  // namespace xla_lite
