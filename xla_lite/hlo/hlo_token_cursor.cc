#include "xla_lite/hlo/hlo_token_cursor.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace xla_lite {

TokenCursor::TokenCursor(std::vector<Token> tokens, std::string source_name)
    : tokens_(std::move(tokens)), source_name_(std::move(source_name)) {
  if (tokens_.empty() || tokens_.back().kind != TokenKind::kEof) {
    tokens_.push_back(Token());
  }
}

const Token& TokenCursor::Peek(int ahead) const {
  return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
}

const Token& TokenCursor::Next() {
  const Token& token = tokens_[pos_];
  if (pos_ + 1 < tokens_.size()) ++pos_;
  return token;
}

bool TokenCursor::AtName(absl::string_view text, int ahead) const {
  return At(TokenKind::kName, ahead) && Peek(ahead).text == text;
}

bool TokenCursor::TryConsume(TokenKind kind) {
  if (!At(kind)) return false;
  Next();
  return true;
}

absl::Status TokenCursor::ErrorWithMessage(const Token& token,
                                           absl::string_view message) const {
  return absl::InvalidArgumentError(absl::StrCat(
      source_name_, ":", token.line, ":", token.column, ": ", message));
}

absl::Status TokenCursor::LexError() const {
  // The lexer stops at its error: it is the token before kEof.
  if (tokens_.size() >= 2) {
    const Token& last = tokens_[tokens_.size() - 2];
    if (last.kind == TokenKind::kError) {
      return ErrorWithMessage(last, last.text);
    }
  }
  return absl::OkStatus();
}

absl::Status TokenCursor::ErrorAt(const Token& token,
                                  absl::string_view expected) const {
  if (token.kind == TokenKind::kError) {
    return ErrorWithMessage(token, token.text);
  }
  return ErrorWithMessage(token, absl::StrCat("expected ", expected, ", got '",
                                              TokenForError(token), "'"));
}

absl::Status TokenCursor::Expect(TokenKind kind, absl::string_view what) {
  if (!At(kind)) return ErrorAt(Peek(), what);
  Next();
  return absl::OkStatus();
}

absl::StatusOr<std::string> TokenCursor::ExpectName(absl::string_view what) {
  if (!At(TokenKind::kName)) return ErrorAt(Peek(), what);
  return Next().text;
}

absl::StatusOr<int64_t> TokenCursor::ExpectInt(absl::string_view what) {
  int64_t value;
  if (!At(TokenKind::kInt) || !absl::SimpleAtoi(Peek().text, &value)) {
    return ErrorAt(Peek(), what);
  }
  Next();
  return value;
}

bool TokenCursor::AtShape() const {
  if (At(TokenKind::kLparen)) return true;
  return At(TokenKind::kName) && At(TokenKind::kLsquare, 1) &&
         primitive_util::StringToPrimitiveType(Peek().text).ok();
}

absl::StatusOr<Shape> TokenCursor::ParseShape() {
  return ParseShapeNested(/*depth=*/0);
}

absl::StatusOr<Shape> TokenCursor::ParseShapeNested(int depth) {
  if (!At(TokenKind::kLparen)) return ParseArrayShape();
  if (depth == kMaxTupleNesting) {
    return ErrorWithMessage(
        Peek(), absl::StrCat("tuple shapes nest more than ", kMaxTupleNesting,
                             " deep"));
  }
  Next();
  std::vector<Shape> elements;
  if (!At(TokenKind::kRparen)) {
    do {
      ASSIGN_OR_RETURN(Shape element, ParseShapeNested(depth + 1));
      elements.push_back(std::move(element));
    } while (TryConsume(TokenKind::kComma));
  }
  RETURN_IF_ERROR(Expect(TokenKind::kRparen, "',' or ')' in tuple shape"));
  return Shape::Tuple(std::move(elements));
}

absl::StatusOr<Shape> TokenCursor::ParseArrayShape() {
  const Token type_token = Peek();
  if (type_token.kind != TokenKind::kName) return ErrorAt(type_token, "shape");
  absl::StatusOr<PrimitiveType> type =
      primitive_util::StringToPrimitiveType(type_token.text);
  if (!type.ok()) {
    return ErrorAt(type_token,
                   "element type (pred, s8 to s64, u8 to u64, "
                   "f16, bf16, f32, f64)");
  }
  Next();
  RETURN_IF_ERROR(Expect(TokenKind::kLsquare, "'[' after element type"));
  std::vector<int64_t> dimensions;
  if (!At(TokenKind::kRsquare)) {
    do {
      if (dimensions.size() == Shape::kMaxRank) {
        return ErrorWithMessage(
            Peek(), absl::StrCat("more than ", Shape::kMaxRank,
                                 " dimensions in a shape"));
      }
      ASSIGN_OR_RETURN(int64_t d, ExpectInt("dimension size"));
      if (d < 0) return ErrorAt(tokens_[pos_ - 1], "dimension size >= 0");
      dimensions.push_back(d);
    } while (TryConsume(TokenKind::kComma));
  }
  RETURN_IF_ERROR(Expect(TokenKind::kRsquare, "',' or ']' in shape"));
  Shape shape = Shape::Array(*type, std::move(dimensions));
  if (absl::Status size = shape.CheckedByteSize().status(); !size.ok()) {
    return ErrorWithMessage(type_token, size.message());
  }
  // A '{' opens a layout only when a dimension number or '}' follows; else
  // it opens a computation body (after "-> f32[2]").
  if (At(TokenKind::kLbrace) &&
      (At(TokenKind::kInt, 1) || At(TokenKind::kRbrace, 1))) {
    ASSIGN_OR_RETURN(std::vector<int64_t> layout, ParseLayout(shape.rank()));
    return Shape::Array(*type, shape.dimensions(), std::move(layout));
  }
  return shape;
}

absl::StatusOr<std::vector<int64_t>> TokenCursor::ParseLayout(int64_t rank) {
  const Token start = Next();  // '{'
  std::vector<int64_t> layout;
  if (!At(TokenKind::kRbrace) && !At(TokenKind::kColon)) {
    do {
      ASSIGN_OR_RETURN(int64_t d, ExpectInt("layout dimension"));
      layout.push_back(d);
    } while (TryConsume(TokenKind::kComma));
  }
  // Tiling and memory space (":T(8,128)S(1)") do not change values.
  if (TryConsume(TokenKind::kColon)) {
    int depth = 0;
    while (!At(TokenKind::kEof) && (depth > 0 || !At(TokenKind::kRbrace))) {
      if (At(TokenKind::kLparen)) ++depth;
      if (At(TokenKind::kRparen)) --depth;
      Next();
    }
  }
  RETURN_IF_ERROR(Expect(TokenKind::kRbrace, "',' or '}' in layout"));
  std::vector<int64_t> sorted = layout;
  std::sort(sorted.begin(), sorted.end());
  bool is_permutation = static_cast<int64_t>(sorted.size()) == rank;
  for (int64_t i = 0; is_permutation && i < rank; ++i) {
    is_permutation = sorted[i] == i;
  }
  if (!is_permutation) {
    return ErrorAt(start, absl::StrCat("a layout permuting the ", rank,
                                       " dimensions of the shape"));
  }
  return layout;
}

absl::StatusOr<std::vector<int64_t>> TokenCursor::ParseIntList() {
  RETURN_IF_ERROR(Expect(TokenKind::kLbrace, "'{'"));
  std::vector<int64_t> values;
  if (!At(TokenKind::kRbrace)) {
    do {
      ASSIGN_OR_RETURN(int64_t value, ExpectInt("integer"));
      values.push_back(value);
    } while (TryConsume(TokenKind::kComma));
  }
  RETURN_IF_ERROR(Expect(TokenKind::kRbrace, "',' or '}'"));
  return values;
}

absl::StatusOr<Literal> TokenCursor::ParseLiteral(const Shape& shape) {
  if (!shape.IsArray()) return ErrorAt(Peek(), "an array shape for constant");
  // Every element is a token of the text, so a shape with more elements
  // than the tokens left is an error before its memory is allocated.
  const int64_t tokens_left = tokens_.size() - pos_;
  if (shape.ElementCount() > tokens_left) {
    return ErrorWithMessage(
        Peek(), absl::StrCat("a constant of ", shape.ToString(), " needs ",
                             shape.ElementCount(), " values; the text has ",
                             tokens_left, " tokens left"));
  }
  Literal literal(Shape::Array(shape.element_type(), shape.dimensions()));
  if (shape.rank() == 0) {
    RETURN_IF_ERROR(ParseElement(shape, 0, &literal));
    return literal;
  }
  int64_t next = 0;
  RETURN_IF_ERROR(ParseNested(shape, 0, &next, &literal));
  return literal;
}

absl::Status TokenCursor::ParseNested(const Shape& shape, int64_t dim,
                                      int64_t* next, Literal* literal) {
  RETURN_IF_ERROR(Expect(TokenKind::kLbrace, "'{'"));
  const int64_t extent = shape.dimensions(dim);
  int64_t count = 0;
  if (!At(TokenKind::kRbrace)) {
    do {
      if (count == extent) {
        return ErrorAt(Peek(), absl::StrCat("'}' after ", extent,
                                            " elements of dimension ", dim));
      }
      if (dim + 1 == shape.rank()) {
        RETURN_IF_ERROR(ParseElement(shape, (*next)++, literal));
      } else {
        RETURN_IF_ERROR(ParseNested(shape, dim + 1, next, literal));
      }
      ++count;
    } while (TryConsume(TokenKind::kComma));
  }
  if (count < extent) {
    return ErrorAt(Peek(), absl::StrCat(extent, " elements in dimension ",
                                        dim, " (found ", count, ")"));
  }
  return Expect(TokenKind::kRbrace, "',' or '}'");
}

absl::Status TokenCursor::ParseElement(const Shape& shape, int64_t index,
                                       Literal* literal) {
  const Token& token = Peek();
  const PrimitiveType type = shape.element_type();
  const std::string what = absl::StrCat(
      primitive_util::LowercasePrimitiveTypeName(type), " constant value");
  if (type == PrimitiveType::PRED) {
    if (token.kind == TokenKind::kName &&
        (token.text == "true" || token.text == "false")) {
      literal->SetFromInt64(index, token.text == "true" ? 1 : 0);
    } else if (token.kind == TokenKind::kInt &&
               (token.text == "0" || token.text == "1")) {
      literal->SetFromInt64(index, token.text == "1" ? 1 : 0);
    } else {
      return ErrorAt(token, what);
    }
  } else if (primitive_util::IsIntegralType(type)) {
    return ParseIntegerElement(type, index, literal);
  } else {
    bool is_special = token.kind == TokenKind::kName &&
                      (token.text == "inf" || token.text == "nan");
    if (token.kind != TokenKind::kInt && token.kind != TokenKind::kFloat &&
        !is_special) {
      return ErrorAt(token, what);
    }
    // strtod reads inf, -inf, nan and exponents the way HLO writes them.
    double value = std::strtod(token.text.c_str(), nullptr);
    literal->SetFromDouble(index, value);
    if (std::isfinite(value) && !std::isfinite(literal->GetAsDouble(index))) {
      return ErrorAt(token, absl::StrCat(what, " within the type's range"));
    }
  }
  Next();
  return absl::OkStatus();
}

// A value outside the type's range is an error, not a silent wrap: "s32
// constant(99999999999)" means something the text cannot have meant.
absl::Status TokenCursor::ParseIntegerElement(PrimitiveType type, int64_t index,
                                              Literal* literal) {
  const Token& token = Peek();
  const int bits = 8 * primitive_util::ByteWidth(type);
  const bool is_signed = primitive_util::IsSignedIntegralType(type);
  const int64_t min = bits == 64 ? std::numeric_limits<int64_t>::min()
                                 : -(int64_t{1} << (bits - 1));
  const int64_t max = bits == 64 ? std::numeric_limits<int64_t>::max()
                                 : (int64_t{1} << (bits - 1)) - 1;
  const uint64_t unsigned_max = bits == 64
                                    ? std::numeric_limits<uint64_t>::max()
                                    : (uint64_t{1} << bits) - 1;
  const std::string what = absl::StrCat(
      primitive_util::LowercasePrimitiveTypeName(type), " constant value in [",
      is_signed ? min : 0, ", ",
      is_signed ? absl::StrCat(max) : absl::StrCat(unsigned_max), "]");
  int64_t value;
  uint64_t unsigned_value;
  if (token.kind != TokenKind::kInt) return ErrorAt(token, what);
  if (is_signed && absl::SimpleAtoi(token.text, &value) && value >= min &&
      value <= max) {
    literal->SetFromInt64(index, value);
  } else if (!is_signed && absl::SimpleAtoi(token.text, &unsigned_value) &&
             unsigned_value <= unsigned_max) {
    // u64 above int64's range travels as the same 64 bits.
    literal->SetFromInt64(index, static_cast<int64_t>(unsigned_value));
  } else {
    return ErrorAt(token, what);
  }
  Next();
  return absl::OkStatus();
}

absl::Status TokenCursor::SkipAttributeValue() {
  const Token& first = Peek();
  if (first.kind == TokenKind::kEof || first.kind == TokenKind::kComma ||
      first.kind == TokenKind::kRbrace || first.kind == TokenKind::kRparen ||
      first.kind == TokenKind::kRsquare) {
    return ErrorAt(first, "attribute value");
  }
  const int line = first.line;
  int depth = 0;
  do {
    const Token& token = Peek();
    if (token.kind == TokenKind::kEof) {
      return ErrorAt(token, "closing bracket of attribute value");
    }
    if (token.kind == TokenKind::kLbrace || token.kind == TokenKind::kLparen ||
        token.kind == TokenKind::kLsquare) {
      ++depth;
    } else if (token.kind == TokenKind::kRbrace ||
               token.kind == TokenKind::kRparen ||
               token.kind == TokenKind::kRsquare) {
      if (depth == 0) break;  // closes something the value is inside of
      --depth;
    }
    Next();
  } while (depth > 0 ||
           (!At(TokenKind::kComma) && !At(TokenKind::kEof) &&
            Peek().line == line));
  return absl::OkStatus();
}

bool TokenCursor::AtLineEnd() const {
  if (At(TokenKind::kEof) || pos_ == 0) return true;
  return Peek().line != tokens_[pos_ - 1].line;
}

}  // namespace xla_lite
