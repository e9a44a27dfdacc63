#ifndef XLA_LITE_HLO_HLO_TOKEN_CURSOR_H_
#define XLA_LITE_HLO_HLO_TOKEN_CURSOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla_lite/hlo/hlo_lexer.h"
#include "xla_lite/hlo/literal.h"
#include "xla_lite/shape.h"

namespace xla_lite {

// A position in a token list with the parsing of the pieces HLO text
// shares everywhere: shapes, integer lists, constants, and skipping
// attribute values nobody needs. Every error is INVALID_ARGUMENT
// "<source>:<line>:<column>: expected <what>, got '<token>'".
class TokenCursor {
 public:
  TokenCursor(std::vector<Token> tokens, std::string source_name);

  const Token& Peek(int ahead = 0) const;
  const Token& Next();
  bool At(TokenKind kind, int ahead = 0) const {
    return Peek(ahead).kind == kind;
  }
  bool AtName(absl::string_view text, int ahead = 0) const;
  // Consumes the next token when it has that kind.
  bool TryConsume(TokenKind kind);

  // The lexer's error (an unterminated comment or string), if any: the
  // parser reports it first, as nothing after it was read.
  absl::Status LexError() const;

  absl::Status ErrorAt(const Token& token, absl::string_view expected) const;
  // An error at `token` with a message of its own ("unknown opcode ...").
  absl::Status ErrorWithMessage(const Token& token,
                                absl::string_view message) const;
  absl::Status Expect(TokenKind kind, absl::string_view what);
  absl::StatusOr<std::string> ExpectName(absl::string_view what);
  absl::StatusOr<int64_t> ExpectInt(absl::string_view what);

  // f32[2,3]{1,0}, f32[] or a tuple (f32[2], s32[]); a missing layout is
  // the default one. Sizes are checked (Shape::CheckedByteSize), ranks are
  // at most Shape::kMaxRank and tuples nest at most kMaxTupleNesting deep.
  static constexpr int kMaxTupleNesting = 64;
  absl::StatusOr<Shape> ParseShape();
  // True when the next tokens start a shape (an element type and '[', or a
  // '(' of a tuple shape).
  bool AtShape() const;
  // {1, 2, 3} or {}.
  absl::StatusOr<std::vector<int64_t>> ParseIntList();
  // A constant's value for an array `shape`: a scalar, or nested braces
  // with exactly the shape's extents.
  absl::StatusOr<Literal> ParseLiteral(const Shape& shape);
  // Skips an attribute value whatever it is: tokens up to a ',' outside
  // any bracket, or the end of the line the value started on.
  absl::Status SkipAttributeValue();
  // True when the next token starts a new line relative to the previous
  // one (or is the end): where an instruction or the header ends.
  bool AtLineEnd() const;
  // How many tokens the text has: every parameter, element or operand is
  // at least one, so no count read from the text can honestly exceed it.
  int64_t token_count() const { return tokens_.size(); }

 private:
  absl::StatusOr<Shape> ParseShapeNested(int depth);
  absl::StatusOr<Shape> ParseArrayShape();
  absl::StatusOr<std::vector<int64_t>> ParseLayout(int64_t rank);
  absl::Status ParseElement(const Shape& shape, int64_t index,
                            Literal* literal);
  absl::Status ParseIntegerElement(PrimitiveType type, int64_t index,
                                   Literal* literal);
  absl::Status ParseNested(const Shape& shape, int64_t dim, int64_t* next,
                           Literal* literal);

  std::vector<Token> tokens_;
  std::string source_name_;
  size_t pos_ = 0;
};

}  // namespace xla_lite

#endif  // XLA_LITE_HLO_HLO_TOKEN_CURSOR_H_
