#include "xla_lite/hlo/hlo_window_attribute_parser.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "xla_lite/hlo/hlo_window.h"

namespace xla_lite {
namespace {

bool Adjacent(const Token& previous, const Token& next) {
  return previous.line == next.line &&
         previous.column + static_cast<int>(previous.text.size()) ==
             next.column;
}

// The text of the run of adjacent name, number and arrow tokens at the
// cursor: "b01f_01io->b01f", "1_1x-1_2".
std::string TakeWord(TokenCursor& cursor) {
  std::string text;
  const Token* previous = nullptr;
  while (cursor.At(TokenKind::kName) || cursor.At(TokenKind::kInt) ||
         cursor.At(TokenKind::kArrow)) {
    const Token& token = cursor.Peek();
    if (previous != nullptr && !Adjacent(*previous, token)) break;
    text += token.text;
    previous = &cursor.Next();
  }
  return text;
}

// {size=3x3 pad=1_1x1_1}: the fields with single spaces between them.
absl::StatusOr<std::string> TakeBracedFields(TokenCursor& cursor) {
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kLbrace, "'{'"));
  std::string text;
  while (!cursor.At(TokenKind::kRbrace)) {
    ASSIGN_OR_RETURN(std::string name, cursor.ExpectName("window field"));
    RETURN_IF_ERROR(cursor.Expect(TokenKind::kEqual, "'='"));
    std::string value = TakeWord(cursor);
    if (value.empty()) return cursor.ErrorAt(cursor.Peek(), "a field value");
    absl::StrAppend(&text, text.empty() ? "" : " ", name, "=", value);
  }
  cursor.Next();
  return text;
}

absl::StatusOr<int64_t> ParseGroupCount(TokenCursor& cursor,
                                        const std::string& key) {
  const Token token = cursor.Peek();
  ASSIGN_OR_RETURN(int64_t count, cursor.ExpectInt(key));
  if (count < 1 || count > kMaxWindowValue) {
    return cursor.ErrorWithMessage(
        token, absl::StrCat(key, ": expected a count in [1, ",
                            kMaxWindowValue, "], got ", count));
  }
  return count;
}

}  // namespace

absl::StatusOr<bool> ParseWindowAttribute(TokenCursor& cursor,
                                          const std::string& key,
                                          HloInstruction* instr) {
  const HloOpcode opcode = instr->opcode();
  const bool convolution = opcode == HloOpcode::kConvolution;
  const bool windowed = convolution || opcode == HloOpcode::kReduceWindow ||
                        opcode == HloOpcode::kSelectAndScatter;
  const Token value_token = cursor.Peek();
  if (key == "window" && windowed) {
    ASSIGN_OR_RETURN(std::string text, TakeBracedFields(cursor));
    absl::StatusOr<Window> window = ParseWindow(text);
    if (!window.ok()) {
      return cursor.ErrorWithMessage(value_token, window.status().message());
    }
    instr->set_window(*std::move(window));
  } else if (key == "dim_labels" && convolution) {
    const std::string text = TakeWord(cursor);
    absl::StatusOr<ConvolutionDimensionNumbers> dnums = ParseDimLabels(text);
    if (!dnums.ok()) {
      return cursor.ErrorWithMessage(value_token, dnums.status().message());
    }
    instr->set_convolution_dimension_numbers(*std::move(dnums));
  } else if (key == "feature_group_count" && convolution) {
    ASSIGN_OR_RETURN(int64_t count, ParseGroupCount(cursor, key));
    instr->set_feature_group_count(count);
  } else if (key == "batch_group_count" && convolution) {
    ASSIGN_OR_RETURN(int64_t count, ParseGroupCount(cursor, key));
    instr->set_batch_group_count(count);
  } else {
    return false;
  }
  return true;
}

}  // namespace xla_lite
