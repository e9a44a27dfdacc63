#include "xla_lite/hlo/hlo_lexer.h"

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace xla_lite {
namespace {

bool IsNameStart(char c) { return absl::ascii_isalpha(c) || c == '_'; }
bool IsNameChar(char c) {
  return absl::ascii_isalnum(c) || c == '_' || c == '.' || c == '-';
}

class Lexer {
 public:
  explicit Lexer(absl::string_view text) : text_(text) {}

  std::vector<Token> Run() {
    std::vector<Token> tokens;
    while (true) {
      Token token;
      if (!SkipSpaceAndComments(&token)) {
        tokens.push_back(std::move(token));
        token = Token();
        pos_ = text_.size();
      }
      token.line = line_;
      token.column = column_;
      if (pos_ >= text_.size()) {
        tokens.push_back(token);
        return tokens;
      }
      LexOne(&token);
      tokens.push_back(std::move(token));
      if (tokens.back().kind == TokenKind::kError) pos_ = text_.size();
    }
  }

 private:
  char At(size_t offset = 0) const {
    return pos_ + offset < text_.size() ? text_[pos_ + offset] : '\0';
  }
  void Advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++pos_;
  }
  std::string Take(size_t start) const {
    return std::string(text_.substr(start, pos_ - start));
  }

  // False, with `error` set where the comment starts, for a /* without */.
  bool SkipSpaceAndComments(Token* error) {
    while (pos_ < text_.size()) {
      if (absl::ascii_isspace(At())) {
        Advance();
      } else if (At() == '/' && At(1) == '*') {
        const size_t end = text_.find("*/", pos_ + 2);
        if (end == absl::string_view::npos) {
          *error = ErrorToken("unterminated comment: '/*' without '*/'");
          return false;
        }
        while (pos_ < end + 2) Advance();
      } else if (At() == '/' && At(1) == '/') {
        while (pos_ < text_.size() && At() != '\n') Advance();
      } else {
        return true;
      }
    }
    return true;
  }

  Token ErrorToken(absl::string_view message) const {
    Token token;
    token.kind = TokenKind::kError;
    token.text = std::string(message);
    token.line = line_;
    token.column = column_;
    return token;
  }

  void LexName(Token* token) {
    size_t start = pos_;
    // A '-' that starts "->" ends the name.
    while (IsNameChar(At()) && !(At() == '-' && At(1) == '>')) Advance();
    token->kind = TokenKind::kName;
    token->text = Take(start);
  }

  void LexNumber(Token* token) {
    size_t start = pos_;
    bool is_float = false;
    if (At() == '-') Advance();
    if (absl::StartsWith(text_.substr(pos_), "inf") ||
        absl::StartsWith(text_.substr(pos_), "nan")) {
      for (int i = 0; i < 3; ++i) Advance();
      token->kind = TokenKind::kFloat;
      token->text = Take(start);
      return;
    }
    while (absl::ascii_isdigit(At())) Advance();
    if (At() == '.') {
      is_float = true;
      Advance();
      while (absl::ascii_isdigit(At())) Advance();
    }
    if ((At() == 'e' || At() == 'E') &&
        (absl::ascii_isdigit(At(1)) ||
         ((At(1) == '-' || At(1) == '+') && absl::ascii_isdigit(At(2))))) {
      is_float = true;
      Advance();
      if (At() == '-' || At() == '+') Advance();
      while (absl::ascii_isdigit(At())) Advance();
    }
    token->kind = is_float ? TokenKind::kFloat : TokenKind::kInt;
    token->text = Take(start);
  }

  void LexString(Token* token) {
    const Token error =
        ErrorToken("unterminated string: '\"' without a closing '\"'");
    Advance();  // opening quote
    size_t start = pos_;
    while (pos_ < text_.size() && At() != '"') {
      if (At() == '\\' && pos_ + 1 < text_.size()) Advance();
      Advance();
    }
    if (pos_ >= text_.size()) {
      *token = error;
      return;
    }
    token->kind = TokenKind::kString;
    token->text = Take(start);
    Advance();  // closing quote
  }

  void LexOne(Token* token) {
    char c = At();
    if (c == '%' && IsNameStart(At(1))) {
      Advance();
      LexName(token);
      return;
    }
    if (IsNameStart(c)) {
      LexName(token);
      return;
    }
    if (absl::ascii_isdigit(c) ||
        (c == '-' && (absl::ascii_isdigit(At(1)) ||
                      absl::StartsWith(text_.substr(pos_ + 1), "inf") ||
                      absl::StartsWith(text_.substr(pos_ + 1), "nan")))) {
      LexNumber(token);
      return;
    }
    if (c == '"') {
      LexString(token);
      return;
    }
    if (c == '-' && At(1) == '>') {
      Advance();
      Advance();
      token->kind = TokenKind::kArrow;
      token->text = "->";
      return;
    }
    static constexpr struct {
      char c;
      TokenKind kind;
    } kPunctuation[] = {
        {'{', TokenKind::kLbrace},  {'}', TokenKind::kRbrace},
        {'(', TokenKind::kLparen},  {')', TokenKind::kRparen},
        {'[', TokenKind::kLsquare}, {']', TokenKind::kRsquare},
        {',', TokenKind::kComma},   {':', TokenKind::kColon},
        {'=', TokenKind::kEqual},
    };
    token->kind = TokenKind::kOther;
    for (const auto& p : kPunctuation) {
      if (p.c == c) token->kind = p.kind;
    }
    token->text = std::string(1, c);
    Advance();
  }

  absl::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
};

}  // namespace

std::vector<Token> TokenizeHlo(absl::string_view text) {
  return Lexer(text).Run();
}

std::string Excerpt(absl::string_view text) {
  if (text.size() <= kMaxExcerpt) return absl::CEscape(text);
  return absl::StrCat(absl::CEscape(text.substr(0, kMaxExcerpt)), "...");
}

std::string TokenForError(const Token& token) {
  if (token.kind == TokenKind::kEof) return "<eof>";
  if (token.kind == TokenKind::kString) {
    return absl::StrCat("\"", Excerpt(token.text), "\"");
  }
  return Excerpt(token.text);
}

}  // namespace xla_lite
