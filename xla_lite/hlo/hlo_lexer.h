#ifndef XLA_LITE_HLO_HLO_LEXER_H_
#define XLA_LITE_HLO_HLO_LEXER_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace xla_lite {

enum class TokenKind {
  kEof,
  kName,    // identifiers and %names: letters, digits, '_', '.', '-'
  kInt,     // 12, -3
  kFloat,   // 1.5, -0.03125, 1e-05, -inf, -nan (bare inf/nan are kName)
  kString,  // "..." (text without the quotes, escapes kept)
  kLbrace,
  kRbrace,
  kLparen,
  kRparen,
  kLsquare,
  kRsquare,
  kComma,
  kColon,
  kEqual,
  kArrow,   // ->
  kOther,   // any other single character; only ever skipped
};

struct Token {
  TokenKind kind = TokenKind::kEof;
  std::string text;  // kName: without a leading '%'
  int line = 1;      // 1-based
  int column = 1;    // 1-based, in bytes
};

// Splits HLO text into tokens, dropping whitespace and /*...*/ and //
// comments. Never fails: an unterminated string or comment runs to the
// end of the text, and the parser reports what it expected there. The
// last token is kEof, placed just after the text.
std::vector<Token> TokenizeHlo(absl::string_view text);

// How an error message shows a token: its text, "<eof>" at the end.
std::string TokenForError(const Token& token);

}  // namespace xla_lite

#endif  // XLA_LITE_HLO_HLO_LEXER_H_
