#include "xla_lite/hlo/hlo_parser.h"

#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/hlo/hlo_attribute_parser.h"
#include "xla_lite/hlo/hlo_lexer.h"
#include "xla_lite/hlo/hlo_token_cursor.h"

namespace xla_lite {
namespace {

// What the parser knows about the computation it is reading.
struct ComputationState {
  std::unique_ptr<HloComputation> computation;
  absl::flat_hash_map<std::string, HloInstruction*> by_name;
  HloInstruction* last = nullptr;
  HloInstruction* root = nullptr;
};

class HloParser {
 public:
  HloParser(absl::string_view text, absl::string_view source_name)
      : cursor_(TokenizeHlo(text), std::string(source_name)),
        source_name_(source_name) {}

  absl::StatusOr<std::unique_ptr<HloModule>> Parse();

 private:
  absl::Status ParseHeader();
  absl::Status ParseInputOutputAlias();
  absl::Status ParseEntryComputationLayout();
  absl::Status ParseBufferDonors();
  absl::Status SkipMetadataSection();
  absl::Status ParseComputation();
  absl::Status SkipSignature();
  absl::Status ParseInstruction(ComputationState* state);
  absl::Status ParseParameterNumber(ComputationState* state,
                                    HloInstruction* instr);
  absl::Status ParseOperands(const ComputationState& state,
                             HloInstruction* instr);

  TokenCursor cursor_;
  std::string source_name_;
  std::string module_name_;
  std::vector<HloInputOutputAlias> aliases_;
  std::vector<int64_t> donors_;
  std::optional<ComputationLayout> layout_;
  std::vector<std::unique_ptr<HloComputation>> computations_;
  absl::flat_hash_map<std::string, HloComputation*> computations_by_name_;
  HloComputation* entry_ = nullptr;
};

absl::StatusOr<std::unique_ptr<HloModule>> HloParser::Parse() {
  RETURN_IF_ERROR(cursor_.LexError());
  RETURN_IF_ERROR(ParseHeader());
  // Debug-info tables XLA prints after the header of optimized modules.
  static const auto* const kSections = new absl::flat_hash_set<std::string>{
      "FileNames", "FunctionNames", "FileLocations", "StackFrames"};
  while (!cursor_.At(TokenKind::kEof)) {
    if (cursor_.At(TokenKind::kName) &&
        kSections->contains(cursor_.Peek().text) &&
        cursor_.Peek(1).line != cursor_.Peek().line) {
      RETURN_IF_ERROR(SkipMetadataSection());
    } else {
      RETURN_IF_ERROR(ParseComputation());
    }
  }
  if (computations_.empty()) {
    return cursor_.ErrorAt(cursor_.Peek(), "a computation");
  }
  HloComputation* entry =
      entry_ != nullptr ? entry_ : computations_.back().get();
  auto module = std::make_unique<HloModule>(module_name_);
  module->set_source_name(source_name_);
  for (auto& computation : computations_) {
    if (computation.get() == entry) {
      module->AddEntryComputation(std::move(computation));
    } else {
      module->AddComputation(std::move(computation));
    }
  }
  module->set_entry_computation_layout(
      layout_.has_value() ? *layout_ : ComputationLayoutOf(*entry));
  module->set_input_output_aliases(std::move(aliases_));
  module->set_buffer_donors(std::move(donors_));
  VLOG(1) << "parsed module " << module->name() << ": "
          << module->computations().size() << " computations";
  return module;
}

absl::Status HloParser::ParseHeader() {
  if (!cursor_.AtName("HloModule")) {
    return cursor_.ErrorAt(cursor_.Peek(), "'HloModule'");
  }
  cursor_.Next();
  ASSIGN_OR_RETURN(module_name_, cursor_.ExpectName("module name"));
  while (cursor_.TryConsume(TokenKind::kComma)) {
    ASSIGN_OR_RETURN(std::string key,
                     cursor_.ExpectName("module attribute name"));
    RETURN_IF_ERROR(cursor_.Expect(TokenKind::kEqual, "'='"));
    if (key == "input_output_alias") {
      RETURN_IF_ERROR(ParseInputOutputAlias());
    } else if (key == "entry_computation_layout") {
      RETURN_IF_ERROR(ParseEntryComputationLayout());
    } else if (key == "buffer_donor") {
      RETURN_IF_ERROR(ParseBufferDonors());
    } else {
      RETURN_IF_ERROR(cursor_.SkipAttributeValue());
    }
  }
  if (!cursor_.AtLineEnd()) {
    return cursor_.ErrorAt(cursor_.Peek(), "',' or end of the module header");
  }
  return absl::OkStatus();
}

// { {0}: (0, {}, may-alias), {1}: (1, {}, must-alias) }
absl::Status HloParser::ParseInputOutputAlias() {
  RETURN_IF_ERROR(cursor_.Expect(TokenKind::kLbrace, "'{'"));
  if (!cursor_.At(TokenKind::kRbrace)) {
    do {
      HloInputOutputAlias alias;
      ASSIGN_OR_RETURN(alias.output_index, cursor_.ParseIntList());
      RETURN_IF_ERROR(cursor_.Expect(TokenKind::kColon, "':'"));
      RETURN_IF_ERROR(cursor_.Expect(TokenKind::kLparen, "'('"));
      ASSIGN_OR_RETURN(alias.parameter_number,
                       cursor_.ExpectInt("parameter number"));
      RETURN_IF_ERROR(cursor_.Expect(TokenKind::kComma, "','"));
      ASSIGN_OR_RETURN(alias.parameter_index, cursor_.ParseIntList());
      if (cursor_.TryConsume(TokenKind::kComma)) {
        const Token& kind = cursor_.Peek();
        if (cursor_.AtName("must-alias")) {
          alias.must_alias = true;
        } else if (!cursor_.AtName("may-alias")) {
          return cursor_.ErrorAt(kind, "may-alias or must-alias");
        }
        cursor_.Next();
      }
      RETURN_IF_ERROR(cursor_.Expect(TokenKind::kRparen, "')'"));
      aliases_.push_back(std::move(alias));
    } while (cursor_.TryConsume(TokenKind::kComma));
  }
  return cursor_.Expect(TokenKind::kRbrace, "',' or '}'");
}

// { (0, {}), (1, {}) }
absl::Status HloParser::ParseBufferDonors() {
  RETURN_IF_ERROR(cursor_.Expect(TokenKind::kLbrace, "'{'"));
  if (!cursor_.At(TokenKind::kRbrace)) {
    do {
      RETURN_IF_ERROR(cursor_.Expect(TokenKind::kLparen, "'('"));
      ASSIGN_OR_RETURN(int64_t parameter, cursor_.ExpectInt("parameter number"));
      RETURN_IF_ERROR(cursor_.Expect(TokenKind::kComma, "','"));
      ASSIGN_OR_RETURN(std::vector<int64_t> index, cursor_.ParseIntList());
      RETURN_IF_ERROR(cursor_.Expect(TokenKind::kRparen, "')'"));
      donors_.push_back(parameter);
    } while (cursor_.TryConsume(TokenKind::kComma));
  }
  return cursor_.Expect(TokenKind::kRbrace, "',' or '}'");
}

// {(f32[2]{0}, f32[]) -> (f32[2]{0})}
absl::Status HloParser::ParseEntryComputationLayout() {
  RETURN_IF_ERROR(cursor_.Expect(TokenKind::kLbrace, "'{'"));
  RETURN_IF_ERROR(cursor_.Expect(TokenKind::kLparen, "'('"));
  ComputationLayout layout;
  if (!cursor_.At(TokenKind::kRparen)) {
    do {
      ASSIGN_OR_RETURN(Shape shape, cursor_.ParseShape());
      layout.parameter_shapes.push_back(std::move(shape));
    } while (cursor_.TryConsume(TokenKind::kComma));
  }
  RETURN_IF_ERROR(cursor_.Expect(TokenKind::kRparen, "',' or ')'"));
  RETURN_IF_ERROR(cursor_.Expect(TokenKind::kArrow, "'->'"));
  ASSIGN_OR_RETURN(layout.result_shape, cursor_.ParseShape());
  RETURN_IF_ERROR(cursor_.Expect(TokenKind::kRbrace, "'}'"));
  layout_ = std::move(layout);
  return absl::OkStatus();
}

// "FileNames" then rows of: a number and a string or a {...} record.
absl::Status HloParser::SkipMetadataSection() {
  cursor_.Next();
  while (cursor_.At(TokenKind::kInt)) {
    cursor_.Next();
    RETURN_IF_ERROR(cursor_.SkipAttributeValue());
  }
  return absl::OkStatus();
}

absl::Status HloParser::SkipSignature() {
  int depth = 0;
  do {
    if (cursor_.At(TokenKind::kEof)) {
      return cursor_.ErrorAt(cursor_.Peek(), "')' closing the signature");
    }
    if (cursor_.At(TokenKind::kLparen)) ++depth;
    if (cursor_.At(TokenKind::kRparen)) --depth;
    cursor_.Next();
  } while (depth > 0);
  RETURN_IF_ERROR(cursor_.Expect(TokenKind::kArrow, "'->'"));
  return cursor_.ParseShape().status();
}

absl::Status HloParser::ParseComputation() {
  bool is_entry = false;
  if (cursor_.AtName("ENTRY")) {
    is_entry = true;
    cursor_.Next();
  }
  const Token name_token = cursor_.Peek();
  ASSIGN_OR_RETURN(std::string name, cursor_.ExpectName("computation name"));
  if (computations_by_name_.contains(name)) {
    return cursor_.ErrorWithMessage(
        name_token, absl::StrCat("duplicate computation name '", name, "'"));
  }
  if (cursor_.At(TokenKind::kLparen)) RETURN_IF_ERROR(SkipSignature());
  RETURN_IF_ERROR(cursor_.Expect(
      TokenKind::kLbrace, absl::StrCat("'{' opening computation '", name, "'")));
  ComputationState state;
  state.computation = std::make_unique<HloComputation>(name);
  while (!cursor_.At(TokenKind::kRbrace)) {
    if (cursor_.At(TokenKind::kEof)) {
      return cursor_.ErrorAt(
          cursor_.Peek(),
          absl::StrCat("instruction or '}' closing computation '", name, "'"));
    }
    RETURN_IF_ERROR(ParseInstruction(&state));
  }
  if (state.last == nullptr) {
    return cursor_.ErrorAt(cursor_.Peek(), "an instruction");
  }
  cursor_.Next();
  state.computation->set_root_instruction(state.root != nullptr ? state.root
                                                                : state.last);
  HloComputation* computation = state.computation.get();
  if (is_entry) {
    if (entry_ != nullptr) {
      return cursor_.ErrorWithMessage(
          name_token, absl::StrCat("second ENTRY computation '", name,
                                   "' (the first is '", entry_->name(), "')"));
    }
    entry_ = computation;
  }
  computations_by_name_[name] = computation;
  computations_.push_back(std::move(state.computation));
  return absl::OkStatus();
}

absl::Status HloParser::ParseInstruction(ComputationState* state) {
  bool is_root = false;
  if (cursor_.AtName("ROOT") && !cursor_.At(TokenKind::kEqual, 1)) {
    is_root = true;
    cursor_.Next();
  }
  const Token name_token = cursor_.Peek();
  ASSIGN_OR_RETURN(std::string name, cursor_.ExpectName("instruction name"));
  if (state->by_name.contains(name)) {
    return cursor_.ErrorWithMessage(
        name_token, absl::StrCat("duplicate instruction name '", name, "'"));
  }
  RETURN_IF_ERROR(cursor_.Expect(TokenKind::kEqual, "'='"));
  ASSIGN_OR_RETURN(Shape shape, cursor_.ParseShape());
  const Token opcode_token = cursor_.Peek();
  ASSIGN_OR_RETURN(std::string opcode_name, cursor_.ExpectName("opcode"));
  absl::StatusOr<HloOpcode> opcode = StringToHloOpcode(opcode_name);
  if (!opcode.ok()) {
    return cursor_.ErrorWithMessage(
        opcode_token,
        absl::StrCat("unknown opcode '", Excerpt(opcode_name), "'"));
  }
  auto instr = std::make_unique<HloInstruction>(*opcode, std::move(shape),
                                                std::move(name));
  instr->set_source_line(name_token.line);
  RETURN_IF_ERROR(cursor_.Expect(TokenKind::kLparen, "'(' after opcode"));
  if (*opcode == HloOpcode::kParameter) {
    RETURN_IF_ERROR(ParseParameterNumber(state, instr.get()));
  } else if (*opcode == HloOpcode::kConstant) {
    ASSIGN_OR_RETURN(Literal literal, cursor_.ParseLiteral(instr->shape()));
    instr->set_literal(std::move(literal));
  } else {
    RETURN_IF_ERROR(ParseOperands(*state, instr.get()));
  }
  RETURN_IF_ERROR(cursor_.Expect(TokenKind::kRparen, "')'"));
  RETURN_IF_ERROR(ParseInstructionAttributes(cursor_, computations_by_name_,
                                             name_token, instr.get()));
  if (is_root && state->root != nullptr) {
    return cursor_.ErrorWithMessage(
        name_token, absl::StrCat("second ROOT in computation '",
                                 state->computation->name(), "'"));
  }
  HloInstruction* added = state->computation->AddInstruction(std::move(instr));
  state->by_name[added->name()] = added;
  state->last = added;
  if (is_root) state->root = added;
  return absl::OkStatus();
}

absl::Status HloParser::ParseParameterNumber(ComputationState* state,
                                             HloInstruction* instr) {
  const Token number_token = cursor_.Peek();
  ASSIGN_OR_RETURN(int64_t number, cursor_.ExpectInt("parameter number"));
  if (number < 0) return cursor_.ErrorAt(number_token, "parameter number >= 0");
  // Parameters are numbered densely and each takes several tokens, so a
  // number past the token count names a parameter that cannot exist (and
  // would size the computation's parameter list by it).
  if (number >= cursor_.token_count()) {
    return cursor_.ErrorWithMessage(
        number_token,
        absl::StrCat("parameter number ", number, " is out of range: the text"
                     " has room for at most ", cursor_.token_count(),
                     " parameters"));
  }
  const auto& parameters = state->computation->parameter_instructions();
  if (number < static_cast<int64_t>(parameters.size()) &&
      parameters[number] != nullptr) {
    return cursor_.ErrorWithMessage(
        number_token, absl::StrCat("parameter ", number, " already defined by '",
                                   parameters[number]->name(), "'"));
  }
  instr->set_parameter_number(number);
  return absl::OkStatus();
}

absl::Status HloParser::ParseOperands(const ComputationState& state,
                                      HloInstruction* instr) {
  if (cursor_.At(TokenKind::kRparen)) return absl::OkStatus();
  do {
    // Operands may carry their shape ("f32[2]{0} %x"); the definition's
    // shape is the one that counts.
    if (cursor_.AtShape()) RETURN_IF_ERROR(cursor_.ParseShape().status());
    const Token name_token = cursor_.Peek();
    ASSIGN_OR_RETURN(std::string name, cursor_.ExpectName("operand name"));
    auto it = state.by_name.find(name);
    if (it == state.by_name.end()) {
      return cursor_.ErrorWithMessage(
          name_token, absl::StrCat("unknown operand '", name,
                                   "' (operands must be defined before use)"));
    }
    instr->AppendOperand(it->second);
  } while (cursor_.TryConsume(TokenKind::kComma));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(
    absl::string_view text, absl::string_view source_name) {
  return HloParser(text, source_name).Parse();
}

absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModuleFile(
    const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, base::ReadFileToString(path));
  return ParseHloModule(text, path);
}

}  // namespace xla_lite
