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
  kError,   // text the lexer cannot split (an unterminated comment or
            // string); `text` says what, and it is the last token but kEof
};

struct Token {
  TokenKind kind = TokenKind::kEof;
  std::string text;  // kName: without a leading '%'
  int line = 1;      // 1-based
  int column = 1;    // 1-based, in bytes
};

// Splits HLO text into tokens, dropping whitespace and /*...*/ and //
// comments. An unterminated string or comment ends the list with a kError
// token where it starts. The last token is kEof, placed just after the
// text.
std::vector<Token> TokenizeHlo(absl::string_view text);

// How an error message shows a token: its text, "<eof>" at the end; at
// most kMaxExcerpt bytes of it, with unprintable bytes escaped (a NUL
// must not end the message early).
std::string TokenForError(const Token& token);
inline constexpr size_t kMaxExcerpt = 64;
std::string Excerpt(absl::string_view text);

}  // namespace xla_lite

#endif  // XLA_LITE_HLO_HLO_LEXER_H_
